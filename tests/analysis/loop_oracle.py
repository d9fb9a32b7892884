"""An execution oracle for loop classifications, independent of the analysis.

The reference interpreter runs the compiled IR with one ``loop.for``'s iterations reordered
(``reverse``, ``shuffle``) or run ``parallel``: every iteration starts from the loop's initial
carried values, and the elements each one changed are merged in iteration order (a scalar
keeps the last iteration's value).
"""
import copy

import numpy as np

from solvent.backends import interp
from solvent.ir import registry

MODES = ("reverse", "shuffle", "parallel")


def run(fn_ir, args, target=None, mode=None):
    """Interpret ``fn_ir`` with loop ``target`` run in ``mode`` order."""
    table = registry._LOWERINGS["interp"]   # the interpreter's rule table, patched below
    base = table["loop.for"]
    rng = np.random.default_rng(3)

    def reordered(op, a, ctx):
        if op is not target:
            return base(op, a, ctx)
        lb, ub, step = (int(x) for x in a[:3])
        ivs = list(range(lb, ub, step))
        block = op.regions[0].block
        dtype = op.operands[0].type.dtype
        carried = list(a[3:])
        if mode in ("reverse", "shuffle"):
            order = ivs[::-1] if mode == "reverse" else [ivs[k] for k in rng.permutation(len(ivs))]
            for i in order:
                carried = ctx.run_block(block, [ctx.scalar(i, dtype)] + carried)
            return carried
        init = [np.array(c, copy=True) for c in carried]
        result = [np.array(c, copy=True) for c in carried]
        for i in ivs:  # "parallel": each iteration sees only the initial values
            out = ctx.run_block(block, [ctx.scalar(i, dtype)] +
                                [np.array(c, copy=True) for c in init])
            for j, o in enumerate(out):
                o = np.asarray(o)
                result[j] = o.copy() if o.ndim == 0 else np.where(o != init[j], o, result[j])
        return result

    table["loop.for"] = reordered
    try:
        return interp.run(fn_ir, [copy.deepcopy(x) for x in args])
    finally:
        table["loop.for"] = base


def same(a, b, exact=True):
    return len(a) == len(b) and all(
        np.array_equal(x, y) if exact else np.allclose(x, y, rtol=1e-12, atol=0)
        for x, y in zip(a, b))


