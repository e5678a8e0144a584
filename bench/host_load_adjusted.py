"""One results file judged by ABBA blocks, plain and adjusted for the host's load.

    python3 bench/host_load_adjusted.py NAME RESULTS.json
    python3 bench/host_load_adjusted.py --header

Blocks as abtest forms them under --order abba: rounds 2j and 2j+1 of each side. Each
block gives d = ln(variant mean / baseline mean) and c = the variant rounds' mean
`other_cpu_pct` minus the baseline rounds'. Plain: mean of d, t with B - 1 df. Adjusted:
d regressed on c by least squares; the intercept (the change at equal load) with t on
B - 2 df. Prints both changes, half-widths and the slope.
"""

import json
import math
import sys

from scipy import stats


def blocks(rounds):
    by_side = {"baseline": {}, "variant": {}}
    for r in rounds:
        if r["status"] == "completed" and r.get("host_load", {}).get("other_cpu_pct") is not None:
            by_side[r["side"]][r["index"]] = r
    out = []
    j = 0
    while True:
        idx = (2 * j, 2 * j + 1)
        if not all(i in by_side[s] for s in by_side for i in idx):
            break
        a = [by_side["baseline"][i] for i in idx]
        b = [by_side["variant"][i] for i in idx]
        mean = lambda rs, k: sum(k(r) for r in rs) / len(rs)
        tps = lambda r: r["tps"]
        other = lambda r: r["host_load"]["other_cpu_pct"]
        out.append((math.log(mean(b, tps) / mean(a, tps)), mean(b, other) - mean(a, other), mean(a + b, other)))
        j += 1
    return out


def plain(ds):
    n = len(ds)
    m = sum(ds) / n
    se = math.sqrt(sum((d - m) ** 2 for d in ds) / (n - 1) / n)
    return m, se, n - 1


def adjusted(ds, cs):
    n = len(ds)
    mc, md = sum(cs) / n, sum(ds) / n
    sxx = sum((c - mc) ** 2 for c in cs)
    slope = sum((c - mc) * (d - md) for c, d in zip(cs, ds)) / sxx if sxx > 0 else 0.0
    intercept = md - slope * mc
    resid = [d - intercept - slope * c for c, d in zip(cs, ds)]
    s2 = sum(e * e for e in resid) / (n - 2)
    se = math.sqrt(s2 * (1 / n + mc * mc / sxx)) if sxx > 0 else float("nan")
    total = sum((d - md) ** 2 for d in ds)
    r2 = 1 - sum(e * e for e in resid) / total if total > 0 else 0.0
    return intercept, se, n - 2, slope, r2


def pct(m, se, df):
    t = stats.t.ppf(0.975, df)
    lo, hi = (100 * (math.exp(m + s * t * se) - 1) for s in (-1, 1))
    return 100 * (math.exp(m) - 1), lo, hi


def main():
    if sys.argv[1] == "--header":
        print(f"{'comparison':<22} {'blocks':>6} {'other CPU':>9} {'plain change [95 % CI]':<30} "
              f"{'adjusted change [95 % CI]':<30} {'slope':>7} {'R²':>5}")
        return
    name, path = sys.argv[1], sys.argv[2]
    d = json.load(open(path))
    bs = blocks(d["rounds"])
    if len(bs) < 4:
        print(f"{name:<22} only {len(bs)} blocks with the host's load recorded")
        return
    ds, cs, load = zip(*bs)
    pm, plo, phi = pct(*plain(ds))
    a, se, df, slope, r2 = adjusted(ds, cs)
    am, alo, ahi = pct(a, se, df)
    print(f"{name:<22} {len(bs):>6} {sum(load) / len(load):8.1f}% "
          f"{pm:+6.2f} % [{plo:+6.2f}, {phi:+6.2f}] ±{(phi - plo) / 2:5.2f}  "
          f"{am:+6.2f} % [{alo:+6.2f}, {ahi:+6.2f}] ±{(ahi - alo) / 2:5.2f}  "
          f"{100 * slope:+7.3f} {r2:5.2f}")


main()
