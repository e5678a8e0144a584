"""Reference group-sequential boundaries for src/stats/boundaries.rs.

Lan-DeMets O'Brien-Fleming-type boundaries computed with the numerical integration of
the `gsdesign` package (PyPI; a port of the R package gsDesign's grid and update
routines, h1/hupdate), an implementation independent of abtest's. Each boundary is
solved by root finding (scipy.optimize.brentq) on the first-crossing probability.

    pip install gsdesign scipy
    python3 tests/reference/make_boundaries.py > tests/reference/boundaries_cases.json
"""

import json

import numpy as np
from gsdesign import h1, hupdate
from scipy.optimize import brentq
from scipy.stats import norm


def spent(a, t):
    """O'Brien-Fleming-type spending at one-sided level a (gsDesign sfLDOF)."""
    return 2.0 * norm.sf(norm.isf(a / 2.0) / np.sqrt(t))


def crossing(grid, c, info, info_prev, two_sided):
    z_prev, _, h_prev = grid
    mean = z_prev * np.sqrt(info_prev)
    sd = np.sqrt(info - info_prev)
    upper = norm.sf((c * np.sqrt(info) - mean) / sd)
    lower = norm.cdf((-c * np.sqrt(info) - mean) / sd) if two_sided else 0.0
    return float(np.sum(h_prev * (upper + lower)))


def boundaries(fractions, alpha, two_sided):
    per_tail = alpha / 2.0 if two_sided else alpha
    tails = 2.0 if two_sided else 1.0
    bounds, grid, before, info_prev = [], None, 0.0, None
    for t in fractions:
        target = tails * (spent(per_tail, t) - before)
        before = spent(per_tail, t)
        if grid is None:
            c = norm.isf(target / tails)
        else:
            c = brentq(lambda c: crossing(grid, c, t, info_prev, two_sided) - target, 0.0, 30.0,
                       xtol=1e-12)
        lo = -c if two_sided else -np.inf
        grid = h1(r=80, info=t, a=lo, b=c) if grid is None else \
            hupdate(r=80, theta=0.0, info=t, a=lo, b=c, theta_prev=0.0, info_prev=info_prev, gm1=grid)
        # h1 and hupdate work on the canonical scale Z; the weights already include
        # the density, so `grid` is (z, w, w * density).
        info_prev = t
        bounds.append(c)
    return bounds


CASES = [
    {"fractions": [0.2, 0.4, 0.6, 0.8, 1.0], "alpha": 0.05, "two_sided": True},
    {"fractions": [0.2, 0.4, 0.6, 0.8, 1.0], "alpha": 0.05, "two_sided": False},
    {"fractions": [0.3, 0.7, 1.0], "alpha": 0.05, "two_sided": True},
    {"fractions": [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0], "alpha": 0.05, "two_sided": True},
    {"fractions": [0.25, 0.5, 0.75, 1.0], "alpha": 0.10, "two_sided": False},
    {"fractions": [0.5, 1.0], "alpha": 0.01, "two_sided": True},
]

if __name__ == "__main__":
    out = []
    for case in CASES:
        case = dict(case)
        case["bounds"] = boundaries(case["fractions"], case["alpha"], case["two_sided"])
        out.append(case)
    print(json.dumps(out, indent=1))
