"""Batching rules for element reads and writes (``tensor.slice``, ``tensor.update_slice``).

A read ``x[..., f(i), ...]`` of an array ``x`` that is the same in every iteration, with the
subscript affine in the loop variable, ``f(i) = a*i + c``, is one strided slice over the
whole index space: ``i = lb + st*k`` gives elements ``a*lb + c + a*st*k``, ``k < N``
(``["s", first, stop, a*st]``); with a uniform symbolic offset ``c`` (an outer loop's
variable) and stride 1 it is a dynamic slice of size ``N`` starting at ``f(lb)``. The
elements must lie inside the dimension for every iteration (proved from the constant
bounds, or the analysis's bounds over the loop nest); otherwise (and for subscripts that
are not affine: ``x[idx[i]]``, or two subscripts moving with ``i``: ``A[i, i]``) the read
is a ``tensor.gather``, which wraps and clamps each index exactly as the element read did.

A write ``y[..., f(i), ...] = v`` into a version of an array the loop carries becomes one
``update_slice`` of all ``N`` elements at once, in program order with the other writes:
the loop is independent (no iteration touches an element another one writes, checked by
analysis/dependence.py before raising), so every element is written by one iteration
only, and a read of element ``e(i)`` of a later version sees exactly the writes iteration
``i`` made before it. Writes need the strided/dynamic-slice form; anything else refuses.
"""
from __future__ import annotations

from .batching import Batch, Refuse, _line


def _unchecked(op, spec) -> dict:
    """``unchecked`` for a batched access made from ``op`` that keeps an integer index: a
    batched access makes every iteration's access before any later op of the first
    iteration, so a backend that raises at a bad index itself would report it ahead of a
    failure NumPy meets first (``out[i] = B[i] + A[row, 0]`` with ``B`` short: NumPy
    reports ``row`` at ``i = 0``). The program's checks, carried by then as first-error
    flags (checks_to_values.py) and raised with the loop, pick the failure; the access
    clamps, as the IR's total semantics say. The same holds for an access if-conversion
    made unconditional (``x[i, j - 1]`` raised over ``i`` still reads column ``j - 1``
    where the guard was false)."""
    return {"unchecked": True} if any(it[0] == "i" for it in spec) else {}


def _plan(b: Batch, op, shape, spec, dyn, first_dyn: int, shift: int | None = None):
    """(new spec, new dyn operands, output position of the range dim) for the one item of
    ``spec`` that moves with the loop, or None when a gather is needed. With ``shift``, the
    moving item is a window ``["d", start, W]`` and the plan reads element ``shift`` of the
    window in every iteration (the window dim gives way to the range dim)."""
    info, loop = b.info, b.loop
    if any(it[0] not in "ncsid" for it in spec):   # ["r", ...]: a run-time length
        raise Refuse(f"the access at line {_line(op)} is a slice of run-time length")
    moving = [k for k, it in enumerate(spec) if it[0] in "id" and dyn[it[1]][1]]
    if len(moving) != 1 or spec[moving[0]][0] != ("i" if shift is None else "d"):
        return None  # a moving window or several moving subscripts: a gather
    new_spec, new_dyn, pos, q, d = [], [], None, 0, 0
    for k, it in enumerate(spec):
        kind = it[0]
        if kind == "n":
            new_spec.append(it)
            q += 1
            continue
        n = shape[d]
        d += 1
        if kind == "c":
            new_spec.append(it)
        elif kind == "s":
            new_spec.append(it)
            q += 1
        elif kind in "id" and k != moving[0]:
            new_spec.append([kind, len(new_dyn), *it[2:]])
            new_dyn.append(dyn[it[1]][0])
            q += kind == "d"
        else:
            item = _range_item(b, op.operands[first_dyn + it[1]], dyn[it[1]][0], n,
                               len(new_dyn), shift or 0,
                               it[2] if shift is not None else 1)
            if item is None:
                return None
            item, extra = item
            new_spec.append(item)
            new_dyn += extra
            pos = q
            q += 1
    return new_spec, new_dyn, pos


def _range_item(b: Batch, index, batched, n: int, slot: int, shift: int = 0,
                width: int = 1):
    """The spec item covering ``index + shift`` over all iterations (and its dyn operands);
    ``index .. index + width - 1`` must lie inside the dimension in every iteration."""
    info, loop = b.info, b.loop
    form = info.affine(index)
    if info.nonaffine_reasons(form, loop):
        return None
    iv = info.iv(loop)
    a = form.coef(iv)
    rest = form.substitute(iv, type(form)(0))
    stride = a * b.step
    if a == 0:
        return None
    if rest.is_const:
        first = a * b.lb + rest.const
        last = first + stride * (b.n - 1)
        lo, hi = min(first, last), max(first, last)
        if width == 1 and -n <= lo and hi < 0:
            first, last, lo, hi = first + n, last + n, lo + n, hi + n
        if not (0 <= lo and hi + width - 1 < n):
            return None
        first, last = first + shift, last + shift
        stop = last + 1 if stride > 0 else last - 1
        return ["s", first, stop if stop >= 0 else -1, stride], []
    lo, hi = info.bounds(form)
    if stride != 1 or lo is None or hi is None or lo < 0 or hi + width - 1 >= n:
        return None
    start = _materialize(b, rest + type(form)(a * b.lb + shift), index.type.dtype)
    if start is None:
        start = b.emit("tensor.slice", [batched], spec=[["c", 0]])
        if shift:
            start = b.emit("tensor.add", [start, b.const(shift, start.type.dtype)])
    return ["d", slot, b.n], [start]


def _materialize(b: Batch, form, dtype: str):
    """``form`` (affine in values the same in every iteration) as IR in front of the loop,
    so the loop around sees the start of a dynamic slice as the affine index it is (the
    first element of the batched index would be an opaque read); None when an atom is not
    available there or has another dtype."""
    total = b.const(form.const, dtype) if form.const or not form.terms else None
    for atom, c in form.terms.items():
        v, varying = b.lookup(atom)
        if varying or v.type.dtype != dtype or v.type.rank != 0:
            return None
        if c != 1:
            v = b.emit("tensor.mul", [v, b.const(c, dtype)])
        total = v if total is None else b.emit("tensor.add", [total, v])
    return total


MAX_WINDOW = 32


def _window(b: Batch, op, x, spec, dyn):
    """A window ``x[..., s(i) : s(i) + W, ...]`` whose start moves with the loop, inside the
    dimension in every iteration, as ``W`` static slices (element ``w`` of every iteration's
    window: ``x[..., s(lb) + w :: stride]``) stacked along the window dim; None when that
    form does not apply (a wide window, one that may be clamped, or no strided form).

    Identity: ``window(i)[w] == x[s(i) + w]``; XLA fuses slices and a concatenate into their
    consumer, where a gather of ``N x W`` indices is a loop of dynamic reads (conv1d_loops'
    taps ``x[c, l + k]``)."""
    moving = [it for it in spec if it[0] in "id" and dyn[it[1]][1]]
    if len(moving) != 1 or moving[0][0] != "d" or not 1 <= moving[0][2] <= MAX_WINDOW:
        return None
    pieces, pos = [], None
    for w in range(moving[0][2]):
        plan = _plan(b, op, x.type.shape, spec, dyn, 1, shift=w)
        if plan is None:
            return None
        new_spec, new_dyn, pos = plan
        r = b.to_front(b.emit("tensor.slice", [x, *new_dyn], loc=op.loc, spec=new_spec,
                              **_unchecked(op, new_spec)), pos)
        rest = list(r.type.shape[1:])
        pieces.append(b.emit("tensor.reshape", [r], shape=[b.n] + rest[:pos] + [1] +
                             rest[pos:]))
    b.what.add("window slices")
    if len(pieces) == 1:
        return pieces[0]
    return b.emit("tensor.concatenate", pieces, loc=op.loc, axis=1 + pos)


def _gather(b: Batch, op, x, spec, dyn):
    """``x[spec]`` for every iteration as one gather: integer items index their dim, a
    dynamic slice ``["d", s, size]`` indexes it with ``clip(s, 0, n - size) + iota(size)``
    (the clamp a dynamic slice applies), static slices stay whole dims (sliced first)."""
    if any(it[0] not in "icsd" for it in spec):
        raise Refuse(f"the read at line {_line(op)} mixes a per-iteration index with a newaxis")
    shape = x.type.shape
    windows = [k for k, it in enumerate(spec) if it[0] == "d"]
    nw = len(windows)
    partial = any(it[0] == "s" and not (it[1] == 0 and it[3] == 1 and it[2] == n)
                  for it, n in zip(spec, shape))
    if partial:
        pre = [it if it[0] == "s" else ["s", 0, n, 1] for it, n in zip(spec, shape)]
        x = b.emit("tensor.slice", [x], spec=pre)
    axes, idx = [], []
    for d, it in enumerate(spec):
        if it[0] == "s":
            continue
        axes.append(d)
        if it[0] == "c":
            idx.append(b.const(it[1], "i64"))
            continue
        v, varying = dyn[it[1]]
        if varying:
            v = b.emit("tensor.reshape", [v], shape=[b.n] + [1] * nw)
        if it[0] == "d":
            size, w = it[2], windows.index(d)
            lo, hi = b.const(0, v.type.dtype), b.const(shape[d] - size, v.type.dtype)
            v = b.emit("tensor.min", [b.emit("tensor.max", [v, lo]), hi])
            ramp = b.emit("tensor.iota", [], shape=[size if k == w else 1 for k in range(nw)],
                          dim=w, dtype=v.type.dtype)
            v = b.emit("tensor.add", [v, ramp])
        idx.append(v)
    if not any(v for _, v in dyn):  # pragma: no cover - only called with a moving index
        raise Refuse("no per-iteration index")
    b.what.add("gather")
    # clamped, never raising itself: the loop's check flags pick the failure (_unchecked)
    r = b.emit("tensor.gather", [x, *idx], loc=op.loc, axes=axes, front=True, unchecked=True)
    # gather gives (N, windows..., static slices...); the element read keeps spec order
    kept = [k for k, it in enumerate(spec) if it[0] in "ds"]
    order = windows + [k for k in kept if spec[k][0] == "s"]
    perm = [0] + [1 + order.index(k) for k in kept]
    if r.type.rank != 1 + len(kept):
        r = b.emit("tensor.reshape", [r], shape=[b.n] + list(op.result.type.shape))
        return r
    return r if perm == list(range(len(perm))) else b.emit("tensor.transpose", [r], perm=perm)


def gather(b: Batch, op, args):
    """A gather with ``front`` over a uniform array and per-iteration index arrays: the
    index arrays gain the leading dim, which gather puts first."""
    (x, vx), *idx = args
    if not op.attrs["front"]:
        raise Refuse(f"the gather at line {_line(op)} has a per-iteration operand")
    rank = max(o.type.rank for o in op.operands[1:])
    ops = [b.padded(v, rank) if vary else v for v, vary in idx]
    if not vx:
        return b.emit("tensor.gather", [x, *ops], loc=op.loc, **op.attrs)
    # a per-iteration array: iteration k gathers from row k of the batched x
    row = b.emit("tensor.reshape", [b.iv_index()], shape=[b.n] + [1] * rank)
    attrs = dict(op.attrs, axes=[0] + [a + 1 for a in op.attrs["axes"]])
    return b.emit("tensor.gather", [x, row, *ops], loc=op.loc, **attrs)


def _own_element(b: Batch, op, x, spec, dyn):
    """Element ``x_i[e(i)]`` of a per-iteration array at a per-iteration index (the first
    failing iteration's error code picked inside an inner loop that was raised): a gather
    of ``x[k, e(k)]`` over the batched ``x`` (N, ...), which wraps and clamps as the read."""
    if any(it[0] not in "ic" for it in spec):
        raise Refuse(f"the read at line {_line(op)} takes a slice of a per-iteration array at "
                     "a per-iteration index")
    idx = [b.iv_index()]
    for it in spec:
        idx.append(b.const(it[1], "i64") if it[0] == "c" else dyn[it[1]][0])
    b.what.add("own-element gather")
    return b.emit("tensor.gather", [x, *idx], loc=op.loc, axes=list(range(len(idx))),
                  front=True, unchecked=True)


def read(b: Batch, op, args) -> object:
    (x, vx), *dyn = args
    spec = op.attrs["spec"]
    if vx:
        if any(v for _, v in dyn):
            return _own_element(b, op, x, spec, dyn)
        new_spec = [["s", 0, b.n, 1]] + spec
        return b.emit("tensor.slice", [x, *[d for d, _ in dyn]], loc=op.loc, spec=new_spec,
                      **_unchecked(op, new_spec))
    plan = _plan(b, op, x.type.shape, spec, dyn, 1)
    if plan is None:
        if op.attrs.get("unchecked"):
            return _gather(b, op, x, spec, dyn)
        window = _window(b, op, x, spec, dyn)
        return window if window is not None else _gather(b, op, x, spec, dyn)
    new_spec, new_dyn, pos = plan
    b.what.add("slice")
    r = b.emit("tensor.slice", [x, *new_dyn], loc=op.loc, spec=new_spec,
               **_unchecked(op, new_spec))
    return b.to_front(r, pos)


def write(b: Batch, op, args) -> object:
    (base, vb), (val, vv), *dyn = args
    spec = op.attrs["spec"]
    moving = any(v for _, v in dyn)
    if op.operands[0] in b.versions and not vb:
        if not moving:
            raise Refuse(f"every iteration writes the same element at line {_line(op)}")
        plan = _plan(b, op, base.type.shape, spec, dyn, 2)
        if plan is None:
            raise Refuse(f"the write at line {_line(op)} has no strided-slice form "
                         "(a subscript that is not affine in the loop variable, or out of "
                         "bounds)")
        new_spec, new_dyn, pos = plan
        value = b.stacked(op.operands[1])
        if b.mask is not None:  # iterations the loop does not run keep the old elements
            old = b.emit("tensor.slice", [base, *new_dyn], spec=new_spec,
                         **_unchecked(op, new_spec))
            value = b.masked(value, b.to_front(old, pos))
        value = b.from_front(value, pos)
        b.what.add("update_slice")
        r = b.emit("tensor.update_slice", [base, value, *new_dyn], loc=op.loc, spec=new_spec,
                   **_unchecked(op, new_spec))
        b.versions.add(op.result)
        return r, False
    if moving:
        raise Refuse(f"the write at line {_line(op)} into a per-iteration array moves with "
                     "the loop")
    base = b.stacked(op.operands[0])
    value = b.stacked(op.operands[1])
    new_spec = [["s", 0, b.n, 1]] + spec
    return b.emit("tensor.update_slice", [base, value, *[d for d, _ in dyn]], loc=op.loc,
                  spec=new_spec, **_unchecked(op, new_spec))


RULES = {"tensor.slice": read, "tensor.update_slice": write, "tensor.gather": gather}
