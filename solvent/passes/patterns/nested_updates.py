"""An update of a window written back into the array it was read from, as one update.

``s = a[:, 1:]; s[:4] += b`` (an in-place update through a view of a view), and the reverse
pass accumulating a stencil's cotangent into a window of a window, become

    y = update_slice(x, update_slice(x[S], v, T), S)

Identity: ``x[S]`` with its slots ``T`` replaced by ``v``, written back at ``S``, changes
only the slots ``S∘T`` (``T`` read inside ``S``) and rewrites every other slot of ``S`` with
its own value: ``y = update_slice(x, v, S∘T)``. Exact (the same elements, from where they
were). Static specs of step-1 slices and constant indices only, the read ``x[S]`` naming the
same spec as the outer write.

Besides one update instead of a copy of the window: XLA:CPU (jaxlib 0.10) miscompiles the
nested form: ``dynamic_update_slice(a, dynamic_update_slice(slice(a), slice(slice(a)) + b,
...), ...)`` under ``jax.jit`` gives wrong elements where eager execution and the flat form
are right (``s = a[:, 1:]; s[:4] += b`` on a 5 x 7 array: off by up to 1.46); see
``tests/passes/test_nested_updates.py``, which also runs the nested form through XLA
directly, so a jaxlib that fixes it is noticed.
"""
from __future__ import annotations

from ...ir.rewrite import Pattern, defining
from ._samples import unary_chain


def _unit_static(spec) -> bool:
    return all(it[0] == "c" or it[0] == "s" and it[3] == 1 for it in spec)


def compose(outer, inner):
    """The spec of ``x[outer][inner]`` on ``x`` (both static: step-1 slices and constant
    indices), or None when ``inner`` does not cover the dims ``outer`` keeps."""
    out, k = [], 0
    for it in outer:
        if it[0] == "c":
            out.append(list(it))
            continue
        if k >= len(inner):
            return None
        t, start = inner[k], it[1]
        k += 1
        if t[0] == "c":
            out.append(["c", start + t[1]])
        else:
            out.append(["s", start + t[1], start + t[2], 1])
    return out if k == len(inner) else None


def _nested_update(op, rw):
    x, u = op.operands[0], op.operands[1]
    inner = defining(u, "tensor.update_slice")
    if inner is None or len(op.operands) != 2 or len(inner.operands) != 2:
        return False
    w = defining(inner.operands[0], "tensor.slice")
    if w is None or w.operands[0] is not x or len(w.operands) != 1 or \
            w.attrs["spec"] != op.attrs["spec"]:
        return False
    spec_s, spec_t = op.attrs["spec"], inner.attrs["spec"]
    if not (_unit_static(spec_s) and _unit_static(spec_t)):
        return False
    spec = compose(spec_s, spec_t)
    if spec is None:
        return False
    rw.replace_op(op, [rw.one("tensor.update_slice", x, inner.operands[1], spec=spec)])
    return True


def _sample(b, x):
    """x with its window [:, 1:] written back after that window's [:n-1, :m-2] got exp."""
    n, m = x.type.shape
    s = [["s", 0, n, 1], ["s", min(1, m), m, 1]]
    t = [["s", 0, max(n - 1, 0), 1], ["s", 0, max(m - 2, 0), 1]]
    w = b.one("tensor.slice", x, spec=s)
    v = b.one("tensor.exp", b.one("tensor.slice", w, spec=t))
    u = b.create("tensor.update_slice", [w, v], {"spec": t}).result
    return b.create("tensor.update_slice", [x, u], {"spec": s}).result


NESTED_UPDATES = [
    Pattern("update-of-window-update", "tensor.update_slice", _nested_update,
            "update_slice(x, update_slice(x[S], v, T), S) -> update_slice(x, v, S∘T) (static "
            "step-1 S and T; the read names S)",
            sample=unary_chain(_sample, "f64", rank=2)),
]
