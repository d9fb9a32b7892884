"""Central finite differences and the dot-product test, for the autodiff tests."""
from __future__ import annotations

import numpy as np


def fd_grad(f, args, k, eps=1e-6, positions=None):
    """d f(*args) / d args[k] by central differences (``f`` returns a float), at every
    element or only at ``positions`` (the others are left 0)."""
    a = list(args)
    x = np.array(a[k], dtype=np.float64)
    g = np.zeros_like(x)
    for i in (np.ndindex(x.shape) if positions is None else positions):
        xp, xm = x.copy(), x.copy()
        xp[i] += eps
        xm[i] -= eps
        a[k] = xp if x.shape else float(xp)
        fp = f(*a)
        a[k] = xm if x.shape else float(xm)
        fm = f(*a)
        g[i] = (fp - fm) / (2 * eps)
    return g


def directional(f, args, ks, vs, eps=1e-6):
    """<J v> by central differences: the derivative of ``f`` along ``vs`` on ``args[ks]``."""
    def at(s):
        a = list(args)
        for k, v in zip(ks, vs):
            a[k] = np.asarray(args[k], dtype=np.float64) + s * v
            if not np.shape(args[k]):
                a[k] = float(a[k])
        return f(*a)
    return (at(eps) - at(-eps)) / (2 * eps)


def rel_close(a, b, rel, floor=1e-12):
    return abs(a - b) <= rel * max(abs(a), abs(b), floor)
