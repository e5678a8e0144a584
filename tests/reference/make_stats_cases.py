#!/usr/bin/env python3
"""Generates reference values for abtest's statistics with scipy and statsmodels.

Run:  pip install scipy statsmodels && python3 tests/reference/make_stats_cases.py
Writes tests/reference/stats_cases.json, which the Rust unit tests read.

Every number abtest reports is checked against these, to a relative error of 1e-6:
  * Welch t, df, p and the CI of the difference: scipy.stats.ttest_ind(y, x,
    equal_var=False) and its confidence_interval();
  * Fieller's interval for the ratio of means with Welch-Satterthwaite df at the
    observed ratio (R mratios::ttestratio, var.equal=FALSE): closed form, cross-checked
    here against a numeric inversion of the pivot with brentq;
  * the paired-by-round CI of the ratio from log ratios;
  * Holm-adjusted p-values: statsmodels multipletests(method="holm");
  * variance components of rounds nested in server instances (one-way random effects):
    statsmodels MixedLM fitted by REML (cov_re between instances, scale within);
  * the power of the t-test (scipy.stats.nct) and the rounds per side it plans: the
    verdict one-sided at alpha, significance two-sided, Welch's smallest df, n - 1;
  * a query class's latency ratio from blocks of paired executions (--class-timing):
    each block's difference of mean log latencies, scipy.stats.ttest_1samp against the
    log of the tolerance (one-sided, greater) and its two-sided confidence interval;
  * ABBA blocks adjusted for the host's load: each block's log ratio of side means
    regressed on its difference in load by statsmodels OLS; the intercept, its standard
    error, p-value and confidence interval.
"""

import json
import math
import os

import numpy as np
import statsmodels.api as sm
from scipy import optimize, stats
from statsmodels.stats.multitest import multipletests

ALPHA = 0.05


def fieller(x, y, alpha):
    n1, n2 = len(x), len(y)
    mx, my = np.mean(x), np.mean(y)
    v1, v2 = np.var(x, ddof=1) / n1, np.var(y, ddof=1) / n2
    r = my / mx
    num = (v2 + r * r * v1) ** 2
    den = v2 * v2 / (n2 - 1) + r ** 4 * v1 * v1 / (n1 - 1)
    df = num / den
    q = stats.t.ppf(1 - alpha / 2, df)
    a = mx * mx - q * q * v1
    b = mx * my
    c = my * my - q * q * v2
    disc = b * b - a * c
    if a <= 0 or disc < 0:
        return None, df
    lo, hi = (b - math.sqrt(disc)) / a, (b + math.sqrt(disc)) / a
    # Cross-check: the bounds are the roots of (my - R mx)^2 - q^2 (v2 + R^2 v1) = 0.
    pivot = lambda R: (my - R * mx) ** 2 - q * q * (v2 + R * R * v1)
    lo_n = optimize.brentq(pivot, lo - 1.0, r, xtol=1e-14, rtol=1e-14)
    hi_n = optimize.brentq(pivot, r, hi + 1.0, xtol=1e-14, rtol=1e-14)
    assert abs(lo - lo_n) < 1e-9 * abs(lo) + 1e-12, (lo, lo_n)
    assert abs(hi - hi_n) < 1e-9 * abs(hi) + 1e-12, (hi, hi_n)
    return [lo, hi], df


def paired(x, y, alpha):
    n = min(len(x), len(y))
    d = np.log(np.asarray(y[:n]) / np.asarray(x[:n]))
    if n < 2:
        return None
    half = stats.t.ppf(1 - alpha / 2, n - 1) * np.std(d, ddof=1) / math.sqrt(n)
    return [math.exp(d.mean() - half), math.exp(d.mean() + half)]


def case(name, x, y, alpha=ALPHA):
    res = stats.ttest_ind(y, x, equal_var=False)
    ci = res.confidence_interval(confidence_level=1 - alpha)
    ratio, fieller_df = fieller(x, y, alpha)
    return {
        "name": name,
        "alpha": alpha,
        "x": list(map(float, x)),
        "y": list(map(float, y)),
        "t": float(res.statistic),
        "df": float(res.df),
        "p": float(res.pvalue),
        "ci_diff": [float(ci.low), float(ci.high)],
        "fieller": ratio,
        "fieller_df": float(fieller_df),
        "paired": paired(x, y, alpha),
    }


def nested(rng):
    """Rounds nested in instances: REML variance components from statsmodels."""
    import warnings
    import statsmodels.api as sm
    out = []
    for k, n, between, within in [(3, 5, 0.05, 0.02), (4, 4, 0.03, 0.03), (6, 3, 0.02, 0.05),
                                  (3, 10, 0.08, 0.01), (5, 6, 0.04, 0.04)]:
        mean = float(rng.uniform(1000, 20000))
        groups = []
        for _ in range(k):
            level = mean * (1 + rng.normal(0, between))
            groups.append(np.round(rng.normal(level, within * mean, n), 4).tolist())
        y = np.concatenate(groups)
        labels = np.repeat(np.arange(k), n)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = sm.MixedLM(y, np.ones((len(y), 1)), labels).fit(reml=True)
        out.append({"groups": groups, "between_var": float(np.asarray(fit.cov_re)[0, 0]),
                    "within_var": float(fit.scale)})
    return out


def t_power(cv, n, effect, alpha, one_sided):
    df = n - 1
    nc = effect / (cv * math.sqrt(2 / n))
    if one_sided:
        return stats.nct.sf(stats.t.ppf(1 - alpha, df), df, nc)
    critical = stats.t.ppf(1 - alpha / 2, df)
    return stats.nct.sf(critical, df, nc) + stats.nct.sf(critical, df, -nc)


def power_cases():
    sf = [{"t": t, "df": df, "nc": nc, "sf": float(stats.nct.sf(t, df, nc))}
          for t, df, nc in [(2.0, 3, 1.5), (1.7, 1, 2.5), (-0.5, 10, -1.0), (2.92, 2, 3.0),
                            (1.66, 99, 2.8), (6.3, 1, 0.5), (1.0, 40, 0.0)]]
    plans = []
    for cv, effect, one_sided in [(0.02, 0.05, True), (0.05, 0.10, True), (0.03, 0.02, True),
                                  (0.03, 0.02, False), (0.10, 0.05, True), (0.15, 0.30, False)]:
        n = 2
        while t_power(cv, n, effect, 0.05, one_sided) < 0.8:
            n += 1
        plans.append({"cv": cv, "effect": effect, "one_sided": one_sided, "rounds": n,
                      "power_at_2": float(t_power(cv, 2, effect, 0.05, one_sided))})
    return {"sf": sf, "plans": plans}


def adjusted_cases(rng):
    """Rounds of ABBA blocks (two per side per block) with a load that slows them."""
    out = []
    for blocks in [4, 5, 8, 12, 30]:
        for slope in [0.0, -0.01]:
            n = 2 * blocks
            lx, ly = rng.uniform(0, 40, n), rng.uniform(0, 40, n)
            x = 1000 * np.exp(slope * lx + rng.normal(0, 0.03, n))
            y = 950 * np.exp(slope * ly + rng.normal(0, 0.03, n))
            x, y, lx, ly = (np.round(v, 4) for v in (x, y, lx, ly))
            d = np.log(y.reshape(-1, 2).mean(1) / x.reshape(-1, 2).mean(1))
            c = ly.reshape(-1, 2).mean(1) - lx.reshape(-1, 2).mean(1)
            fit = sm.OLS(d, sm.add_constant(c)).fit()
            out.append({"x": x.tolist(), "y": y.tolist(), "load_x": lx.tolist(), "load_y": ly.tolist(),
                        "intercept": float(fit.params[0]), "se": float(fit.bse[0]),
                        "p": float(fit.pvalues[0]), "ci": fit.conf_int(ALPHA)[0].tolist(),
                        "slope": float(fit.params[1]), "r2": float(fit.rsquared)})
    return out


def block_ratio_cases(rng):
    """Blocks of log-latency differences, tested against a tolerance ratio."""
    out = []
    for blocks in [2, 3, 6, 10]:
        for ratio in [0.5, 1.0, 2.5, 10.0]:
            for spread in [0.05, 0.6]:
                d = np.round(np.log(ratio) + rng.normal(0, spread, blocks), 6)
                tolerance = 2.0
                above = stats.ttest_1samp(d, math.log(tolerance), alternative="greater")
                ci = stats.ttest_1samp(d, 0.0).confidence_interval(1 - ALPHA)
                out.append({"diffs": d.tolist(), "tolerance": tolerance,
                            "ratio": math.exp(float(d.mean())),
                            "ci": [math.exp(ci.low), math.exp(ci.high)],
                            "p_beyond": float(above.pvalue)})
    return out


def main():
    rng = np.random.default_rng(20261130)
    cases = [
        case(
            "design-vector",
            [5012, 4987, 5050, 4969, 5031, 4998, 5025, 4975, 5040, 5003],
            [4881, 4850, 4902, 4830, 4895, 4861, 4870, 4842, 4911, 4866],
        )
    ]
    for n1, n2 in [(2, 2), (3, 3), (5, 5), (10, 10), (30, 30), (3, 7), (10, 4), (30, 12)]:
        for cv in [0.001, 0.01, 0.05, 0.15, 0.40]:
            for effect in [0.0, -0.03, 0.2]:
                mean = float(rng.uniform(1, 20000))
                x = rng.normal(mean, cv * mean, n1)
                y = rng.normal(mean * (1 + effect), cv * mean * rng.uniform(0.5, 2.0), n2)
                x, y = np.round(np.abs(x), 4), np.round(np.abs(y), 4)
                cases.append(case(f"n{n1}-{n2}-cv{cv}-e{effect}", x.tolist(), y.tolist()))
    cases.append(case("alpha-0.01", cases[0]["x"], cases[0]["y"], alpha=0.01))
    cases.append(case("alpha-0.10", cases[0]["x"], cases[0]["y"], alpha=0.10))
    holm_cases = []
    for m in [1, 2, 5, 12]:
        p = rng.uniform(0, 0.2, m) ** 2
        holm_cases.append({"p": p.tolist(), "holm": multipletests(p, method="holm")[1].tolist()})
    holm_cases.append({"p": [0.01, 0.04, 0.03, 0.5], "holm": multipletests([0.01, 0.04, 0.03, 0.5], method="holm")[1].tolist()})
    nested_cases = nested(np.random.default_rng(20261201))
    out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "stats_cases.json")
    with open(out, "w") as f:
        json.dump({"generator": "tests/reference/make_stats_cases.py", "scipy": __import__("scipy").__version__,
                   "cases": cases, "holm": holm_cases, "nested": nested_cases,
                   "power": power_cases(), "adjusted": adjusted_cases(np.random.default_rng(20261202)),
                   "block_ratio": block_ratio_cases(np.random.default_rng(20261205))},
                  f, indent=1)
        f.write("\n")
    print(f"wrote {len(cases)} cases and {len(holm_cases)} Holm cases to {out}")


if __name__ == "__main__":
    main()
