"""Basic-index specs shared by ``tensor.slice``, ``tensor.update_slice`` and ``array.read/write``.

A spec is a list of items, one per input dimension (plus newaxis items), each a list:

- ``["c", k]``               static integer index, normalized (0 <= k < dim); drops the dim
- ``["i", j]``               dynamic integer index: the j-th index operand; drops the dim.
                             Negative values wrap once, as in NumPy.
- ``["s", start, stop, step]`` static slice, normalized by ``slice.indices``
- ``["d", j, size]``         dynamic start (j-th index operand), static ``size``, step 1
- ``["r", j, k, step]``      run-time slice ``x[a:b:step]``: start and stop are the j-th and
                             k-th index operands (-1: absent, NumPy's default), static step;
                             NumPy's slice semantics exactly (negative bounds count from the
                             end, out-of-range bounds clamp); the dim's length is ``?``
- ``["r", j, k, 0, m]``      the same with a run-time step, the m-th index operand (the
                             frontend checks it is not zero, NumPy's ValueError; a zero
                             that reaches the op counts as 1, keeping the op total)
- ``["n"]``                  ``np.newaxis``: inserts a dim of size 1 (read only)

Dynamic indices follow XLA's total semantics, in the interpreter too: an index is wrapped
once if negative and then clamped into the dimension, a dynamic slice's start is clamped so
the slice fits. Total semantics make reads safe to speculate (if-conversion).
"""
from __future__ import annotations


from ..ir.registry import IRError, expect
from ..ir.types import DYN


def slice_len(start: int, stop: int, step: int) -> int:
    return len(range(start, stop, step))


def result_shape(in_shape: tuple[int, ...], spec: list, num_dyn: int) -> tuple[int, ...]:
    dims = [it for it in spec if it[0] != "n"]
    if len(dims) != len(in_shape):   # formatted only on failure: the verifier runs this often
        raise IRError(f"index spec {spec} covers {len(dims)} dims of a rank-{len(in_shape)} "
                      "value")
    out = []
    d = 0
    for it in spec:
        kind = it[0]
        if kind == "n":
            out.append(1)
            continue
        n = in_shape[d]
        d += 1
        if kind == "r":
            expect(all(-1 <= j < num_dyn for j in it[1:3]) and (
                it[3] != 0 if len(it) == 4 else len(it) == 5 and 0 <= it[4] < num_dyn),
                   f"bad run-time slice {it}")
            out.append(DYN)
            continue
        if n is DYN and kind != "i":
            raise IRError(f"index item {it} needs a static dim (use a run-time slice)")
        if kind == "c":
            if not 0 <= it[1] < n:
                raise IRError(f"index {it[1]} out of bounds for dim of size {n}")
        elif kind == "i":
            if not 0 <= it[1] < num_dyn:
                raise IRError(f"index operand {it[1]} missing")
        elif kind == "s":
            start, stop, step = it[1:]
            expect(step != 0, "slice step is zero")
            out.append(slice_len(start, stop, step))
        elif kind == "d":
            if not 0 <= it[1] < num_dyn:
                raise IRError(f"index operand {it[1]} missing")
            if not 0 <= it[2] <= n:
                raise IRError(f"dynamic slice of size {it[2]} in dim of size {n}")
            out.append(it[2])
        else:
            raise IRError(f"bad index item {it}")
    return tuple(out)


def runtime_step(it, dyn) -> int:
    """The step of run-time slice item ``it`` (a Python int; ``dyn``: the index values)."""
    if len(it) == 4:
        return it[3]
    return int(dyn[it[4]]) or 1


def is_runtime(spec) -> bool:
    """Whether the spec has a run-time slice (its result has a ``?`` dim)."""
    return any(it[0] == "r" for it in spec)


def is_full(in_shape, spec) -> bool:
    """True when the spec selects the whole value unchanged."""
    return len(spec) == len(in_shape) and all(
        it[0] == "s" and it[1] == 0 and it[3] == 1 and it[2] == n for it, n in zip(spec, in_shape))


def int_index_on_empty_axis(spec, in_shape) -> tuple | None:
    """``in_shape`` with every axis of length 0 that the spec takes one integer index on grown
    to length 1, or None when there is no such axis. Such an index is out of bounds whatever
    its value (the frontend's ``error.check`` reports it), so the ops stay total: a read gives
    zeros of its shape (computed on a zero array of the grown shape) and a write changes
    nothing. NumPy and jax refuse the clamped index itself (index -1, a gather or update of
    size 1 from an axis of size 0)."""
    grown, d, hit = list(in_shape), 0, False
    for it in spec:
        if it[0] == "n":
            continue
        if it[0] in "ic" and in_shape[d] == 0:
            grown[d], hit = 1, True
        d += 1
    return tuple(grown) if hit else None


def numpy_index(spec: list, dyn: list, in_shape) -> tuple:
    """The NumPy index tuple for ``spec`` (dynamic indices clamped as in XLA)."""
    idx = []
    d = 0
    for it in spec:
        kind = it[0]
        if kind == "n":
            idx.append(None)
            continue
        n = in_shape[d]
        d += 1
        if kind == "r":
            idx.append(slice(*(None if j < 0 else int(dyn[j]) for j in it[1:3]),
                             runtime_step(it, dyn)))
        elif kind == "c":
            idx.append(it[1])
        elif kind == "i":
            k = int(dyn[it[1]])
            k = k + n if k < 0 else k
            idx.append(min(max(k, 0), n - 1))
        elif kind == "s":
            start, stop, step = it[1:]
            if not slice_len(start, stop, step):   # x[-2::-1] of one element: start is -1
                idx.append(slice(0, 0))
            else:
                idx.append(slice(start, stop if stop >= 0 else None, step))
        else:  # "d"
            k = min(max(int(dyn[it[1]]), 0), n - it[2])
            idx.append(slice(k, k + it[2]))
    return tuple(idx)


def _xla_bounds(spec, dyn, in_shape):
    """Per input dim: (start, box size, step, keep) for a dynamic_slice bounding box."""
    import jax.numpy as jnp
    starts, sizes, post = [], [], []
    d = 0
    for it in spec:
        kind = it[0]
        if kind == "n":
            continue
        n = in_shape[d]
        d += 1
        if kind == "c":
            starts.append(it[1]); sizes.append(1); post.append(("drop",))
        elif kind == "i":
            k = jnp.asarray(dyn[it[1]]).astype(jnp.int64)
            starts.append(jnp.where(k < 0, k + n, k)); sizes.append(1); post.append(("drop",))
        elif kind == "d":
            starts.append(jnp.asarray(dyn[it[1]]).astype(jnp.int64)); sizes.append(it[2])
            post.append(("keep", 1))
        else:
            start, stop, step = it[1:]
            m = slice_len(start, stop, step)
            if m == 0:
                starts.append(0); sizes.append(0); post.append(("keep", 1))
            elif step > 0:
                starts.append(start); sizes.append((m - 1) * step + 1); post.append(("keep", step))
            else:
                last = start + step * (m - 1)
                starts.append(last); sizes.append(start - last + 1); post.append(("rev", -step))
    return starts, sizes, post


def xla_slice(x, spec, dyn):
    from jax import lax
    import jax.numpy as jnp
    grown = int_index_on_empty_axis(spec, x.shape)
    if grown is not None:
        x = jnp.zeros(grown, x.dtype)
    in_shape = tuple(x.shape)
    starts, sizes, post = _xla_bounds(spec, dyn, in_shape)
    if all(isinstance(s, int) for s in starts):
        box = lax.slice(x, starts, [s + z for s, z in zip(starts, sizes)]) if x.ndim else x
    else:
        box = lax.dynamic_slice(x, [jnp.asarray(s, jnp.int64) for s in starts], sizes)
    rev = [a for a, p in enumerate(post) if p[0] == "rev"]
    if rev:
        box = lax.rev(box, rev)
    strides = [p[1] if p[0] != "drop" else 1 for p in post]
    if any(s != 1 for s in strides):
        box = lax.slice(box, [0] * box.ndim, list(box.shape), strides)
    out_shape = result_shape(in_shape, spec, len(dyn))
    return jnp.reshape(box, out_shape)


def xla_update_slice(x, v, spec, dyn, whole_pass: bool = False):
    """``x[spec] = v`` as (dynamic) slice updates of the spec's bounding box.

    Only basic (static, strided) indexing is used inside the box: mixing integer indices with
    index arrays would be NumPy advanced indexing, which moves dims and breaks the layout.
    """
    from jax import lax
    import jax.numpy as jnp
    if int_index_on_empty_axis(spec, x.shape) is not None:
        return x
    in_shape = tuple(x.shape)
    starts, sizes, post = _xla_bounds(spec, dyn, in_shape)
    steps = [1 if p[0] == "drop" else p[1] for p in post]
    counts = [slice_len(0, z, st) for z, st in zip(sizes, steps)]
    vb = jnp.reshape(v, counts)
    rev = [a for a, p in enumerate(post) if p[0] == "rev"]
    if rev:  # the box runs upwards; the slice runs downwards along these dims
        vb = lax.rev(vb, rev)
    if whole_pass and all(isinstance(s, int) for s in starts) and 2 * vb.size >= x.size:
        return _select_update(x, vb, starts, sizes, steps)
    idx = [jnp.asarray(s, jnp.int64) for s in starts]
    if all(st == 1 for st in steps):
        return lax.dynamic_update_slice(x, vb, idx)
    box = lax.dynamic_slice(x, idx, sizes)
    box = box.at[tuple(slice(None, None, st) for st in steps)].set(vb)
    return lax.dynamic_update_slice(x, box, idx)


def _select_update(x, vb, starts, sizes, steps):
    """A static update that covers most of ``x``, as one elementwise pass:
    ``where(in_box, pad(v), x)``. XLA:CPU fuses it into a single loop; a
    dynamic_update_slice into a buffer the update also reads makes XLA copy the buffer
    and run a slow update loop (measured ~10x slower for a 2-D stencil step)."""
    from jax import lax
    import jax.numpy as jnp
    shape = tuple(x.shape)
    config = [(lo, n - lo - size, st - 1) for lo, size, st, n in zip(starts, sizes, steps, shape)]
    padded = lax.pad(vb, jnp.zeros((), x.dtype), config)
    mask = None
    for d, (lo, size, st, n) in enumerate(zip(starts, sizes, steps, shape)):
        if lo == 0 and size == n and st == 1:
            continue
        i = lax.broadcasted_iota(jnp.int32, shape, d)
        m = (i >= lo) & (i < lo + size)
        if st > 1:
            m = m & ((i - lo) % st == 0)
        mask = m if mask is None else mask & m
    return padded if mask is None else jnp.where(mask, padded, x)


def check_spec_operands(spec, dyn_types) -> None:
    for t in dyn_types:
        if t.shape or t.dtype[0] not in "iu":
            raise IRError(f"index operands must be integer scalars, got {t}")


def speculated_attrs(name: str, attrs: dict) -> dict:
    """Attributes of an element access that now runs whether or not the program would have
    made it (if-conversion speculates a branch, LICM hoists out of a loop that may not run):
    a run-time index is marked ``unchecked``, so a backend that raises IndexError on a bad
    index clamps it instead, as the IR's total semantics say. The program's own checks
    (``error.check``) were turned into values earlier and stay conditional."""
    attrs = dict(attrs)
    if name in ("tensor.slice", "tensor.update_slice") and \
            any(it[0] == "i" for it in attrs.get("spec", ())) or name == "tensor.gather":
        attrs["unchecked"] = True
    return attrs
