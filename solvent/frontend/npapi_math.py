"""NumPy math beyond single ufuncs: where/clip, reductions, products, einsum, linalg,
scalar conversions and the Python builtins/math functions that act on numbers."""
from __future__ import annotations

import builtins
import string
import warnings

import numpy as np

from ..ir.types import dtype_name, np_dtype
from ..ops.reductions import reduced_shape
from .python_int_conversion import check_fits_int64
from .python_ints import MAX, MIN, python_int
from .npapi_creation import (_transpose as nd_transpose, implements, python_result,
                             reshape_value, static_dtype)
from .values import ArrayRef, Const, ListConst, ListVal, Tensor, TupleVal, make_seq


@implements(np.where)
def _where(fe, cond, x=None, y=None):
    if x is None and y is None:   # NumPy: np.where(cond) is np.nonzero(np.asarray(cond))
        return _nonzero(fe, cond)
    if x is None or y is None:
        raise ValueError(f"{fe.b.loc}: either both or neither of x and y should be given")
    return fe.select(cond, x, y)


@implements(np.clip)
def _clip(fe, a, a_min=None, a_max=None, out=None, **kw):
    """minimum(maximum(a, a_min), a_max) as NumPy's ``_methods._clip``: on an integer array a
    Python int bound at or past the dtype's edge on its side is no bound (clip(int8, -1000,
    1000) is the array), one past the other edge raises OverflowError as the ufunc does."""
    a_min = kw.pop("min", a_min)
    a_max = kw.pop("max", a_max)
    if kw:
        raise fe.unsupported(f"np.clip() with keyword arguments {', '.join(kw)}")
    x = fe.tensor(a)
    bounds = []
    for v, uf in ((a_min, np.maximum), (a_max, np.minimum)):
        if v is None or (isinstance(v, Const) and v.value is None):
            continue
        if np_dtype(x.dtype).kind in "iu" and python_int(v):
            info = np.iinfo(np_dtype(x.dtype))
            edge = int(info.min if uf is np.maximum else info.max)
            past = np.less_equal if uf is np.maximum else np.greater_equal
            if isinstance(v, Const):
                if past(v.value, edge):
                    continue
            elif MIN <= edge <= MAX:   # a run-time Python int: no bound where it is past
                v = fe.select(fe.ufunc(past, v, Const(edge)), Const(edge), v)
        bounds.append((uf, fe.tensor(v)))
    dt = fe.result_dtype([x] + [t for _, t in bounds])
    r = fe.convert(x, dt)
    for uf, t in bounds:   # the ufunc checks that a Python int fits (NEP 50)
        r = fe.ufunc(uf, r, t)
    return r


@implements(np.round, np.around)
def _round(fe, a, decimals=Const(0)):
    """NumPy's ``PyArray_Round``: half to even; ``decimals > 0`` multiplies by 10**d, rounds
    and divides; ``decimals < 0`` divides by 10**-d, rounds and multiplies (an integer array
    through float64, cast back to its dtype: ``round(int8 127, -1)`` wraps to -126 as in
    NumPy, int64 beyond 2**53 loses its low digits as there); an integer array with
    ``decimals >= 0`` is returned as it is; a boolean array rounds in float16."""
    d = fe.static_int(decimals, "decimals")
    x = fe.tensor(a)
    if x.dtype == "i1" and d != 0:   # NumPy scales the bools in place: its cast error
        op = "multiply" if d > 0 else "divide"
        fe.numpy_error("UFuncTypeError", f"Cannot cast ufunc '{op}' output from "
                       "dtype('float64') to dtype('bool') with casting rule 'same_kind'")
    if x.dtype == "i1":
        x = fe.convert(x, "f16")
    elif x.dtype[0] in "iu":
        if d >= 0:
            return x
        r = _round(fe, fe.convert(x, "f64"), decimals)
        return Tensor(fe.convert(r, x.dtype).v, weak=x.weak, deps=x.deps)
    if d == 0:
        return fe.ufunc(np.rint, x)
    scale = Const(10.0 ** abs(d))
    up, down = (np.multiply, np.true_divide) if d > 0 else (np.true_divide, np.multiply)
    return fe.ufunc(down, fe.ufunc(np.rint, fe.ufunc(up, x, scale)), scale)


# --- reductions --------------------------------------------------------------------------------
def norm_axes(fe, axis, rank, ufunc_reduce: bool = False):
    """Sorted non-negative axes. ``ufunc_reduce``: NumPy's ufunc reductions (sum, prod, max,
    min, any, all) take axis 0 or -1 of a 0-d value as no axis; other functions raise."""
    if axis is None:
        return list(range(rank))
    ax = fe.static(axis, "axis")
    if ax is None:
        return list(range(rank))
    ax = ax if isinstance(ax, tuple) else (ax,)
    out = []
    for a in ax:
        a = int(a)
        if ufunc_reduce and rank == 0 and a in (0, -1):
            continue
        if not -rank <= a < rank:
            raise np.exceptions.AxisError(f"{fe.b.loc}: axis {a} is out of bounds for array of "
                                          f"dimension {rank}")
        out.append(a % rank)
    return sorted(out)


def _acc_dtype(np_fn, dtype: str) -> str:
    """The dtype NumPy's reduction ``np_fn`` produces for an array of IR dtype ``dtype``."""
    with np.errstate(all="ignore"):
        return dtype_name(np_fn(np.ones(1, dtype=np_dtype(dtype))).dtype)


_IDENTITY = {"sum": 0, "prod": 1, "any": False, "all": True}
_COMBINE = {"sum": np.add, "prod": np.multiply, "max": np.maximum, "min": np.minimum}


def _given(v, default) -> bool:
    return v is not None and not (isinstance(v, Const) and v.value is default)


def _where_mask(fe, where, shape):
    """``where=``: the mask as bool, broadcast to the operand's shape (NumPy broadcasts the
    mask to the operand, never the operand to the mask)."""
    m = fe.truth_array(fe.tensor(where))
    if m.shape != tuple(shape) and (None in m.shape or None in shape or np.broadcast_shapes(
            m.shape, tuple(shape)) != tuple(shape)):
        raise ValueError(f"{fe.b.loc}: could not broadcast where mask from shape {m.shape} "
                         f"into shape {tuple(shape)}")
    return fe.broadcast(m, shape)


def reduce(fe, kind, a, axis=None, keepdims=Const(False), dtype=None, initial=None,
           where=None):
    """np.<kind>(a, axis, dtype, keepdims, initial=, where=) as NumPy computes it: ``where``
    replaces the masked-out elements by the reduction's identity (by ``initial`` for max/min,
    which have none: NumPy then requires it); ``initial`` is combined with the reduced value
    in the accumulation dtype (cast as NumPy casts it) and makes an empty max/min valid."""
    x = fe.tensor(a)
    axes = norm_axes(fe, axis, x.type.rank, ufunc_reduce=True)
    keep = bool(fe.static(keepdims, "keepdims"))
    np_fn = {"sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "any": np.any,
             "all": np.all}[kind]
    if kind in ("any", "all"):
        x = fe.truth_array(x)
        acc = "i1"
    else:
        acc = static_dtype(fe, dtype, None) or _acc_dtype(np_fn, x.type.dtype)
        x = fe.convert(x, acc)
    init = fe.convert(fe.tensor(initial), acc) if _given(initial, None) else None
    if _given(where, True):
        if init is None and kind in ("max", "min"):
            raise ValueError(f"{fe.b.loc}: reduction operation '{kind}imum' does not have an "
                             "identity, so to use a where mask one has to specify 'initial'")
        fill = init if init is not None else fe.convert(fe.tensor(Const(_IDENTITY[kind])), acc)
        x = fe.select(_where_mask(fe, where, x.shape), x, fill)
    if init is not None and kind in ("max", "min"):
        if any(x.shape[ax] is None for ax in axes):
            raise fe.unsupported(f"np.{kind}(..., initial=) over an axis whose length is known "
                                 "only at run time")
        if any(x.shape[ax] == 0 for ax in axes):   # NumPy: the initial value, no error
            shape = reduced_shape(x.shape, axes, keep)
            return fe.broadcast(init, shape)
    r = _reduce_op(fe, kind, x, axes, keep)
    return r if init is None else fe.ufunc(_COMBINE[kind], r, init)


def _reduce_op(fe, kind, x, axes, keep):
    # NumPy's words: the ufunc that reduces (np.maximum, np.minimum)
    msg = f"zero-size array to reduction operation {kind}imum which has no identity"
    if kind in ("max", "min") and any(x.shape[ax] == 0 for ax in axes):
        if fe.raise_now():
            raise ValueError(f"{fe.b.loc}: {msg}")   # it always runs: raise now, in order
        # NumPy raises only when the reduction runs: under a run-time condition that is false
        # (or in a loop that runs zero times) it does not, so the error is a run-time check
        # that always fails where it is reached; the sum stands in for the value it never has
        fe.check(Const(False), "ValueError", msg)
        kind = "sum"
    if kind in ("max", "min"):
        for ax in axes:
            if x.shape[ax] is None:   # a run-time length: NumPy's error where it is empty
                fe.check(fe.ufunc(np.greater, fe.dim(x, ax), Const(0)), "ValueError", msg)
    return Tensor(fe.b.one(f"tensor.reduce_{kind}", x.v, axes=axes, keepdims=keep))


for _kind, _fns in (("sum", (np.sum,)), ("prod", (np.prod,))):
    implements(*_fns)((lambda k: lambda fe, a, axis=None, dtype=None, out=None,
                       keepdims=Const(False), initial=None, where=None: reduce(
                           fe, k, a, axis, keepdims, dtype, initial, where))(_kind))
for _kind, _fns in (("max", (np.max, np.amax)), ("min", (np.min, np.amin))):
    implements(*_fns)((lambda k: lambda fe, a, axis=None, out=None, keepdims=Const(False),
                       initial=None, where=None: reduce(fe, k, a, axis, keepdims,
                                                        initial=initial, where=where))(_kind))
for _kind, _fns in (("any", (np.any,)), ("all", (np.all,))):
    implements(*_fns)((lambda k: lambda fe, a, axis=None, out=None, keepdims=Const(False),
                       where=None: reduce(fe, k, a, axis, keepdims, where=where))(_kind))


def _count(fe, x, axes):
    """How many elements the reduction over ``axes`` combines (a Tensor for ? dims)."""
    if all(x.shape[i] is not None for i in axes):
        return Const(int(np.prod([x.shape[i] for i in axes], dtype=np.int64)))
    n = Const(1)
    for i in axes:
        n = fe.ufunc(np.multiply, n, fe.dim(x, i))
    return n


@implements(np.mean)
def mean(fe, a, axis=None, dtype=None, out=None, keepdims=Const(False), where=None):
    x = fe.tensor(a)
    axes = norm_axes(fe, axis, x.type.rank)
    acc = static_dtype(fe, dtype, None) or _acc_dtype(np.mean, x.type.dtype)
    # NumPy's _mean sums float16 in float32 (30.0 x 3000 would overflow float16's 65504)
    sum_dt = "f32" if acc == "f16" and static_dtype(fe, dtype, None) is None else acc
    if _given(where, True):   # NumPy: the masked sum over the count of the mask (float64)
        m = _where_mask(fe, where, x.shape)
        s = reduce(fe, "sum", fe.convert(x, sum_dt), Const(tuple(axes)), keepdims, where=m)
        n = reduce(fe, "sum", fe.convert(m, "i64"), Const(tuple(axes)), keepdims)
        return fe.convert(fe.ufunc(np.true_divide, s, n), acc)
    s = reduce(fe, "sum", fe.convert(x, sum_dt), Const(tuple(axes)), keepdims)
    return fe.convert(fe.ufunc(np.true_divide, s, _count(fe, x, axes)), acc)


@implements(np.var)
def var(fe, a, axis=None, dtype=None, out=None, ddof=Const(0), keepdims=Const(False)):
    x = fe.tensor(a)
    axes = norm_axes(fe, axis, x.type.rank)
    acc = static_dtype(fe, dtype, None) or _acc_dtype(np.mean, x.type.dtype)
    x = fe.convert(x, acc)
    m = mean(fe, x, Const(tuple(axes)), keepdims=Const(True))
    d = fe.ufunc(np.subtract, x, m)
    if d.dtype[0] == "c":
        # (np.real is a function, not a ufunc: fe.ufunc(np.real, ...) raised AttributeError)
        sq = fe.complex_part(fe.ufunc(np.multiply, d, fe.ufunc(np.conjugate, d)), "real")
    else:
        sq = fe.ufunc(np.multiply, d, d)
    s = reduce(fe, "sum", sq, Const(tuple(axes)), keepdims)
    count = _count(fe, x, axes)
    ddof = fe.static_int(ddof, "ddof")
    if isinstance(count, Const):
        return fe.ufunc(np.true_divide, s, Const(max(count.value - ddof, 0)))
    return fe.ufunc(np.true_divide, s, fe.ufunc(np.maximum, fe.ufunc(
        np.subtract, count, Const(ddof)), Const(0)))


@implements(np.std)
def std(fe, a, axis=None, dtype=None, out=None, ddof=Const(0), keepdims=Const(False)):
    return fe.ufunc(np.sqrt, var(fe, a, axis, dtype, out, ddof, keepdims))


def _arg(kind):
    def handler(fe, a, axis=None, out=None, keepdims=Const(False)):
        x = fe.tensor(a)
        ax = None if axis is None or fe.static(axis) is None else norm_axes(fe, axis, x.type.rank)[0]
        msg = f"attempt to get {kind} of an empty sequence"
        dims = range(x.type.rank) if ax is None else [ax]
        if any(x.shape[d] == 0 for d in dims):
            if fe.raise_now():
                raise ValueError(f"{fe.b.loc}: {msg}")
            fe.check(Const(False), "ValueError", msg)   # where it is reached, as in reduce
            # the op takes no empty operand: zeros stand in for the value it never has
            keep = bool(fe.static(keepdims, "keepdims"))
            shape = [1 if keep else None for _ in x.shape] if ax is None else \
                [1 if d == ax and keep else (None if d == ax else n) for d, n in enumerate(x.shape)]
            shape = [n for n in shape if n is not None]
            zero = fe.convert(fe.tensor(Const(0)), "i64")
            return Tensor(fe.b.one("tensor.broadcast_to", zero.v, shape=shape)) if shape \
                else zero
        for d in dims:
            if x.shape[d] is None:   # a run-time length (x[i:].argmax()): checked where run
                fe.check(fe.ufunc(np.greater, fe.dim(x, d), Const(0)), "ValueError", msg)
        return Tensor(fe.b.one(f"tensor.{kind}", x.v, axis=ax,
                               keepdims=bool(fe.static(keepdims, "keepdims"))))
    return handler


implements(np.argmax)(_arg("argmax"))
implements(np.argmin)(_arg("argmin"))


def _scan(kind, np_fn):
    def handler(fe, a, axis=None, dtype=None, out=None):
        x = fe.tensor(a)
        if axis is None or fe.static(axis) is None:
            if x.type.rank != 1:   # a 1-D value (of run-time length, too) is its own ravel
                x = fe.tensor(reshape_value(fe, x, Const((-1,))))
            ax = 0
        else:
            ax = norm_axes(fe, axis, x.type.rank)[0]
        acc = static_dtype(fe, dtype, None) or _acc_dtype(np_fn, x.type.dtype)
        return Tensor(fe.b.one(f"tensor.{kind}", fe.convert(x, acc).v, axis=ax))
    return handler


implements(np.cumsum)(_scan("cumsum", np.cumsum))
implements(np.cumprod)(_scan("cumprod", np.cumprod))


# --- products -----------------------------------------------------------------------------------
def _dot_general(fe, a, b, lc, rc, lb=(), rb=()):
    pairs = list(zip(lc, rc)) + list(zip(lb, rb))
    if any(None not in (a.shape[i], b.shape[j]) and a.shape[i] != b.shape[j] for i, j in pairs):
        raise ValueError(f"{fe.b.loc}: shape-mismatch for sum: {a.shape} and {b.shape} "
                         f"along axes {[i for i, _ in pairs]} and {[j for _, j in pairs]}")
    runtime = [(a, i, b, j) for i, j in pairs if None in (a.shape[i], b.shape[j])]
    if runtime:
        fe.check_dims_agree(runtime, "shape-mismatch for sum")
    dt = fe.result_dtype([a, b])
    # booleans: NumPy's loop is an or of ands, true where some count of both-true pairs is
    # not zero (the count is an int64 product, which cannot overflow)
    a, b = fe.convert(a, dt if dt != "i1" else "i64"), fe.convert(b, dt if dt != "i1" else "i64")
    v = fe.b.one("tensor.dot_general", a.v, b.v, lhs_contract=list(lc), rhs_contract=list(rc),
                 lhs_batch=list(lb), rhs_batch=list(rb))
    if dt == "i1":
        v = fe.b.one("tensor.ne", v, fe.b.constant(0, "i64"))
    return Tensor(v)


def matmul(fe, a, b):
    a, b = fe.tensor(a), fe.tensor(b)
    ra, rb = a.type.rank, b.type.rank
    if ra == 0 or rb == 0:
        raise ValueError(f"{fe.b.loc}: matmul: input operand does not have enough dimensions")
    kb = -2 if rb > 1 else 0
    if None in (a.shape[-1], b.shape[kb]):
        fe.check_dims_agree([(a, ra - 1, b, kb % rb)], "matmul: contracted lengths differ")
    elif a.shape[-1] != b.shape[kb]:
        raise ValueError(f"{fe.b.loc}: matmul: Input operand 1 has a mismatch in its core "
                         "dimension 0, with gufunc signature (n?,k),(k,m?)->(n?,m?) (size "
                         f"{b.shape[kb]} is different from {a.shape[-1]})")   # NumPy's words
    if ra <= 2 and rb <= 2:
        return _dot_general(fe, a, b, [ra - 1], [0 if rb == 1 else rb - 2])
    # batched: broadcast batch dims, then contract
    if ra == 1:
        a = fe.tensor(reshape_value(fe, a, Const((1,) + a.shape)))
    if rb == 1:
        b = fe.tensor(reshape_value(fe, b, Const(b.shape + (1,))))
    batch = tuple(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    a = fe.broadcast(a, batch + a.shape[-2:])
    b = fe.broadcast(b, batch + b.shape[-2:])
    nb = len(batch)
    r = _dot_general(fe, a, b, [nb + 1], [nb], range(nb), range(nb))
    shape = list(r.shape)
    if ra == 1:
        shape.pop(-2)
    if rb == 1:
        shape.pop(-1)
    return fe.tensor(reshape_value(fe, r, Const(tuple(shape))))


implements(np.matmul)(lambda fe, a, b: matmul(fe, a, b))


@implements(np.dot)
def dot(fe, a, b, out=None):
    a, b = fe.tensor(a), fe.tensor(b)
    if a.type.rank == 0 or b.type.rank == 0:
        return fe.ufunc(np.multiply, a, b)
    if a.type.rank <= 2 and b.type.rank <= 2:
        return matmul(fe, a, b)
    rc = b.type.rank - 2 if b.type.rank > 1 else 0
    return _dot_general(fe, a, b, [a.type.rank - 1], [rc])


@implements(np.vdot)
def _vdot(fe, a, b):
    a = fe.tensor(reshape_value(fe, a, Const((-1,))))
    b = fe.tensor(reshape_value(fe, b, Const((-1,))))
    if a.dtype[0] == "c":
        a = fe.ufunc(np.conjugate, a)
    return _dot_general(fe, a, b, [0], [0])


@implements(np.inner)
def _inner(fe, a, b):
    a, b = fe.tensor(a), fe.tensor(b)
    if a.type.rank == 0 or b.type.rank == 0:
        return fe.ufunc(np.multiply, a, b)
    return _dot_general(fe, a, b, [a.type.rank - 1], [b.type.rank - 1])


@implements(np.outer)
def outer(fe, a, b, out=None):
    """ravel(a)[:, None] * ravel(b)[None, :]; a 1-D operand takes the new axis by
    indexing, so its length may be known only at run time (``A[k+1:, k]``)."""
    def column(x, items, shape):
        if fe.tensor_type(x).rank == 1:
            return fe.tensor(fe.getitem(x, items))
        return fe.tensor(reshape_value(fe, x, Const(shape)))
    a = column(a, [Const(Ellipsis), Const(None)], (-1, 1))
    b = column(b, [Const(None), Const(Ellipsis)], (1, -1))
    return fe.ufunc(np.multiply, a, b)


@implements(np.tensordot)
def _tensordot(fe, a, b, axes=Const(2)):
    a, b = fe.tensor(a), fe.tensor(b)
    ax = fe.static(axes, "tensordot axes")
    if isinstance(ax, int):
        lc = list(range(a.type.rank - ax, a.type.rank))
        rc = list(range(ax))
    else:
        lc, rc = ([x] if isinstance(x, int) else list(x) for x in ax)
        lc = [x % a.type.rank for x in lc]
        rc = [x % b.type.rank for x in rc]
    r = _dot_general(fe, a, b, lc, rc)
    return Tensor(r.v, array0d=True) if not r.type.rank else r  # NumPy: a 0-d array


@implements(np.trace)
def _trace(fe, a, offset=Const(0)):
    from .npapi_creation import _diag
    return reduce(fe, "sum", _diag(fe, a, offset))


@implements(np.einsum)
def einsum(fe, subscripts, *operands, optimize=None):
    spec = fe.static(subscripts, "einsum subscripts").replace(" ", "")
    ts = [fe.tensor(o) for o in operands]
    if "." in spec:
        spec = _einsum_ellipsis(fe, spec, ts)
    ins, _, out = spec.partition("->")
    in_specs = ins.split(",")
    if len(in_specs) != len(ts):
        raise ValueError(f"{fe.b.loc}: einsum: {len(in_specs)} subscripts for {len(ts)} operands")
    if not _:
        counts = {c: ins.count(c) for c in set(ins) if c in string.ascii_letters}
        out = "".join(sorted(c for c, n in counts.items() if n == 1))
    for s, t in zip(in_specs, ts):
        if len(s) != t.type.rank:
            raise ValueError(f"{fe.b.loc}: einsum: '{s}' does not match an operand of rank "
                             f"{t.type.rank}")
    ts = [_einsum_diagonal(fe, s, t) for s, t in zip(in_specs, ts)]
    in_specs = [s if len(set(s)) == len(s) else "".join(dict.fromkeys(s)) for s in in_specs]
    if len(ts) == 1:
        return _einsum_finish(fe, in_specs[0], ts[0], out)
    cur_spec, cur = in_specs[0], ts[0]
    for k in range(1, len(ts)):
        s2, t2 = in_specs[k], ts[k]
        later = set(out).union(*in_specs[k + 1:])
        # sum out labels that appear only in one operand and nowhere later
        cur_spec, cur = _einsum_sum_only(fe, cur_spec, cur, set(s2) | later)
        s2, t2 = _einsum_sum_only(fe, s2, t2, set(cur_spec) | later)
        batch = [c for c in cur_spec if c in s2 and c in later]
        contract = [c for c in cur_spec if c in s2 and c not in later]
        r = _dot_general(fe, cur, t2, [cur_spec.index(c) for c in contract],
                         [s2.index(c) for c in contract], [cur_spec.index(c) for c in batch],
                         [s2.index(c) for c in batch])
        cur_spec = ("".join(batch) + "".join(c for c in cur_spec if c not in s2)
                    + "".join(c for c in s2 if c not in cur_spec))
        cur = r
    return _einsum_finish(fe, cur_spec, cur, out)


def _einsum_ellipsis(fe, spec: str, ts) -> str:
    """``spec`` with each ``...`` spelled out in labels no subscript uses: an operand's
    ``...`` covers its dims the explicit labels leave, aligned from the right across
    operands (as NumPy broadcasts them); without ``->`` the output is the ellipsis dims
    followed by the labels that occur once, in alphabetical order (NumPy's implicit mode).
    Ellipsis dims of different lengths (NumPy broadcasts a length 1) are refused."""
    ins, arrow, out = spec.partition("->")
    parts = ins.split(",")
    if len(parts) != len(ts) or any(p.count("...") > 1 or p.replace("...", "").count(".")
                                    for p in parts + [out]):
        raise ValueError(f"{fe.b.loc}: einsum: malformed subscripts {spec!r}")
    free = [c for c in string.ascii_letters if c not in spec]
    ranks = [t.type.rank - len(p.replace("...", "")) if "..." in p else 0
             for p, t in zip(parts, ts)]
    if min(ranks, default=0) < 0:
        raise ValueError(f"{fe.b.loc}: einsum: subscripts {spec!r} do not match the operands")
    width = max(ranks, default=0)
    labels = "".join(free[:width])
    sizes: dict = {}
    for p, t, e in zip(parts, ts, ranks):
        if "..." in p:
            start = p.index("...")
            for c, n in zip(labels[width - e:], t.shape[start:start + e]):
                if sizes.setdefault(c, n) != n:
                    raise fe.unsupported("einsum '...' dims of different lengths (NumPy "
                                         "broadcasts a length 1)",
                                         "np.broadcast_to the operands first")
    parts = [p.replace("...", labels[width - e:]) for p, e in zip(parts, ranks)]
    if arrow:
        out = out.replace("...", labels)
    else:
        ins_once = ",".join(parts)
        out = labels + "".join(sorted(c for c in set(ins_once) if c in string.ascii_letters
                                      and c not in labels and ins_once.count(c) == 1))
    return ",".join(parts) + "->" + out


def _einsum_diagonal(fe, s, t):
    """An operand whose subscripts repeat a label ('ii', 'iji'): its diagonal over those
    axes, one axis per label in order of first occurrence (NumPy's einsum). Two occurrences
    at a time: both axes moved to the front, indexed by one ``arange``, the result's axes
    put back in label order."""
    while len(set(s)) != len(s):
        label = next(c for c in s if s.count(c) > 1)
        p1 = s.index(label)
        p2 = s.index(label, p1 + 1)
        if t.shape[p1] != t.shape[p2]:
            raise ValueError(f"{fe.b.loc}: einsum: dimensions in operand for collapsing index "
                             f"'{label}' don't match ({t.shape[p1]} != {t.shape[p2]})")
        rest = [k for k in range(len(s)) if k not in (p1, p2)]
        front = Tensor(fe.b.one("tensor.transpose", fe.tensor(t).v, perm=[p1, p2] + rest))
        ar = Tensor(fe.b.one("tensor.iota", shape=[t.shape[p1]], dim=0, dtype="i64"))
        t = fe.tensor(fe.getitem(front, [ar, ar]))     # (n, rest...)
        cur = label + "".join(s[k] for k in rest)
        s = "".join(c for k, c in enumerate(s) if k != p2)
        perm = [cur.index(c) for c in s]
        if perm != list(range(len(perm))):
            t = Tensor(fe.b.one("tensor.transpose", t.v, perm=perm))
    return t


def _einsum_sum_only(fe, s, t, keep):
    drop = [i for i, c in enumerate(s) if c not in keep]
    if not drop:
        return s, t
    r = Tensor(fe.b.one("tensor.reduce_sum", t.v, axes=drop, keepdims=False))
    return "".join(c for c in s if c in keep), r


def _einsum_finish(fe, s, t, out):
    s, t = _einsum_sum_only(fe, s, t, set(out))
    if sorted(s) != sorted(out):
        raise ValueError(f"{fe.b.loc}: einsum output '{out}' does not match inputs")
    perm = [s.index(c) for c in out]
    if perm != list(range(len(perm))):
        t = Tensor(fe.b.one("tensor.transpose", t.v, perm=perm))
    return t


# --- linear algebra -------------------------------------------------------------------------------
def _square_operand(fe, a):
    """A stack of square matrices, as NumPy's linalg requires (its LinAlgError else)."""
    t = _float_operand(fe, a)
    if t.type.rank < 2:
        raise np.linalg.LinAlgError(f"{fe.b.loc}: {t.type.rank}-dimensional array given. "
                                    "Array must be at least two-dimensional")
    if t.shape[-1] != t.shape[-2]:
        raise np.linalg.LinAlgError(f"{fe.b.loc}: Last 2 dimensions of the array must be "
                                    "square")
    return t


def _float_operand(fe, a):
    t = fe.tensor(a)
    if t.dtype[0] not in "fc":
        t = fe.convert(t, "f64")
    return t


_DOUBLE = {"f32": "f64", "c64": "c128"}
_SINGLE = {"f64": "f32", "c128": "c64"}


def in_double(*names):
    """A handler of an ``np.linalg`` function that NumPy computes in double precision:
    NumPy (``numpy.linalg._commonType``) hands LAPACK float32 and complex64 matrices as
    float64 / complex128 and rounds the results back to single precision when every matrix
    was single (an integer matrix counts as double). The handler's array arguments
    ``names`` are widened the same way before it runs, and its float results narrowed
    after, so a float32 ``solve``/``eigh``/``det``... gives NumPy's numbers, not those of a
    single-precision factorization (which differ in the last digits, and in the signs of
    eigenvectors). float16 is refused as NumPy refuses it."""
    import functools
    import inspect

    def deco(handler):
        sig = inspect.signature(handler)

        @functools.wraps(handler)
        def run(fe, *args, **kwargs):
            bound = sig.bind(fe, *args, **kwargs)
            single = []
            for name in names:
                if bound.arguments.get(name) is None:
                    continue
                t = fe.tensor(bound.arguments[name])
                if t.dtype == "f16":
                    raise TypeError(f"{fe.b.loc}: array type float16 is unsupported in linalg")
                single.append(t.dtype in _DOUBLE)
                bound.arguments[name] = fe.convert(t, _DOUBLE.get(t.dtype, t.dtype))
            out = handler(*bound.args, **bound.kwargs)
            return _narrowed(fe, out) if single and all(single) else out
        return run
    return deco


def _narrowed(fe, v):
    """``v`` (a result tree) with its float64/complex128 arrays in single precision."""
    from .arg_trees import Record
    if isinstance(v, Tensor):
        return fe.convert(v, _SINGLE.get(v.dtype, v.dtype))
    if isinstance(v, TupleVal):
        return TupleVal(tuple(_narrowed(fe, x) for x in v.items))
    if isinstance(v, Record):
        return fe.local_record(v.kind, v.cls, {k: _narrowed(fe, x) for k, x in v.fields})
    return v


def _check_factorization(fe, inputs, result, message: str):
    """NumPy raises LinAlgError where LAPACK meets a zero pivot (a singular matrix) or a
    non-positive one (Cholesky); XLA's factorizations then give inf/NaN instead. The check:
    the result is finite wherever the inputs are (NaN or inf inputs give NaN in NumPy too,
    without an error)."""
    def all_finite(t):
        return reduce(fe, "all", fe.ufunc(np.isfinite, t))
    ok = fe.ufunc(np.logical_not, all_finite(inputs[0]))
    for t in inputs[1:]:
        ok = fe.ufunc(np.logical_or, ok, fe.ufunc(np.logical_not, all_finite(t)))
    fe.check(fe.ufunc(np.logical_or, ok, all_finite(result)), "LinAlgError", message)
    return result


@implements(np.linalg.solve)
@in_double("a", "b")
def _solve(fe, a, b):
    a, b = _float_operand(fe, a), _float_operand(fe, b)
    dt = fe.result_dtype([a, b])
    a, b = fe.convert(a, dt), fe.convert(b, dt)
    x = Tensor(fe.b.one("tensor.solve", a.v, b.v))
    return _check_factorization(fe, [a, b], x, "Singular matrix")


@implements(np.linalg.inv)
@in_double("a")
def _inv(fe, a):
    a = _square_operand(fe, a)
    return _check_factorization(fe, [a], Tensor(fe.b.one("tensor.inv", a.v)), "Singular matrix")


@implements(np.linalg.cholesky)
@in_double("a")
def _cholesky(fe, a, upper=Const(False)):
    a = _square_operand(fe, a)
    low = _check_factorization(fe, [a], Tensor(fe.b.one("tensor.cholesky", a.v)),
                               "Matrix is not positive definite")
    if not fe.static(upper, "upper"):
        return low
    rank = low.type.rank   # NumPy: the conjugate transpose of the lower factor
    t = fe.tensor(nd_transpose(fe, low, Const(tuple(range(rank - 2)) + (rank - 1, rank - 2))))
    return fe.ufunc(np.conjugate, t) if t.dtype[0] == "c" else t


implements(np.linalg.det)(in_double("a")(
    lambda fe, a: Tensor(fe.b.one("tensor.det", _square_operand(fe, a).v))))


@implements(np.linalg.slogdet)
@in_double("a")
def _slogdet(fe, a):
    """(sign, log|det|) of real matrices, as NumPy's ``SlogdetResult``."""
    from .npapi_decompositions import named_results
    t = _float_operand(fe, a)
    if t.dtype[0] == "c":
        raise fe.unsupported("np.linalg.slogdet of complex matrices")
    sign, logdet = fe.b.create("tensor.slogdet", [t.v], {}).results
    return named_results(fe, "slogdet", [Tensor(sign), Tensor(logdet)])


# --- scalar types, builtins, math -------------------------------------------------------------------
def _scalar_ctor(np_type):
    def handler(fe, x=Const(0)):
        dt = dtype_name(np.dtype(np_type))
        t = fe.tensor(x)
        if t.dtype[0] == "c" and dt[0] != "c":
            raise fe.unsupported(f"converting complex to {dt}")
        return Tensor(fe.convert_python_int(t, dt).v, weak=False, deps=t.deps)
    return handler


for _t in (np.float64, np.float32, np.float16, np.int64, np.int32, np.int16, np.int8,
           np.uint8, np.uint16, np.uint32, np.uint64, np.complex128, np.complex64, np.bool_):
    implements(_t)(_scalar_ctor(_t))


def _py_ctor(dt):
    def handler(fe, x=Const(0)):
        if isinstance(x, Const):
            return Const({"f64": float, "i64": int, "i1": bool, "c128": complex}[dt](x.value))
        t = fe.tensor(x)
        if t.type.rank:
            raise fe.unsupported(f"{ {'f64': 'float', 'i64': 'int', 'i1': 'bool', 'c128': 'complex'}[dt]}() "
                                 "of an array", "index a single element first")
        if dt == "i1":
            return Tensor(fe.truth(t).v, weak=True, deps=t.deps)
        if t.dtype[0] == "c" and dt != "c128":
            raise fe.unsupported("converting a complex number to a real one")
        if dt == "i64" and t.dtype[0] == "f":
            t = fe.ufunc(np.trunc, t)
            check_fits_int64(fe, t)
            return Tensor(fe.b.one("tensor.convert", t.v, dtype=dt, fits_checked=True),
                          weak=True, deps=t.deps)
        return Tensor(fe.convert(t, dt).v, weak=True, deps=t.deps)
    return handler


@implements(np.bincount)
def _bincount(fe, x, weights=None, minlength=Const(0)):
    """Counts (or summed weights) of each value; without ``minlength`` a run-time length.
    Without ``minlength`` the length is max(x) + 1, known only at run time
    (``tensor.fill``: the native backend runs it, XLA refuses it naming the line); with
    ``minlength=N`` the length is N, known at compile time, and a value >= N raises
    IndexError at run time (NumPy would lengthen the result instead). With weights, the
    result is float64, also for an x of run-time length that turns out empty (NumPy gives
    int64 zeros then: a dtype that depends on the data)."""
    from .npapi_prelude import bincount
    t = fe.tensor(x)
    if t.type.rank != 1:
        raise ValueError(f"{fe.b.loc}: object {'too deep' if t.type.rank else 'of too small depth'}"
                         " for desired array")
    if t.dtype[0] not in "iu" and t.dtype != "i1":
        raise TypeError(f"{fe.b.loc}: Cannot cast array data from dtype('{np_dtype(t.dtype)}') "
                        "to dtype('int64') according to the rule 'safe'")
    if weights is not None and not (isinstance(weights, Const) and weights.value is None):
        w = fe.tensor(weights)
        if w.type.rank != 1 or (w.shape[0] is not None and t.shape[0] is not None
                                and w.shape[0] != t.shape[0]):
            raise ValueError(f"{fe.b.loc}: The weights and list don't have the same length.")
        fe.check_dims_agree([(w, 0, t, 0)], "The weights and list don't have the same length")
    else:
        weights = Const(None)
    n = fe.static_int(minlength, "minlength")
    if n < 0:
        raise ValueError(f"{fe.b.loc}: 'minlength' must not be negative")
    if t.dtype == "i1":
        t = fe.convert(t, "i64")
    empty = t.shape[0] == 0
    if not empty:
        fe.check(fe.ufunc(np.greater_equal, t, Const(0)), "ValueError",
                 "'list' argument must have no negative elements")
    if empty:    # NumPy's result for an empty x is int64 zeros, weights or not
        weights = Const(None)
    if n > 0 or empty:
        length = Const(n)
    else:   # max(x) + 1, or 0 for an empty run-time x (the IR's max is total there)
        top = Tensor(fe.b.one("tensor.reduce_max", fe.convert(t, "i64").v, axes=[0],
                              keepdims=False))
        length = fe.select(fe.ufunc(np.greater, fe.dim(t, 0), Const(0)),
                           fe.ufunc(np.add, top, Const(1)), Const(0))
    return fe.inline_call(bincount, [t, weights, length], {}, None, keep_loc=True)


@implements(np.put)
def _put(fe, a, ind, v, mode=Const("raise")):
    """a.flat[ind] = v in place, for 1- to 3-D arrays (npapi_prelude.put)."""
    from .npapi_prelude import put
    if fe.static(mode, "mode") != "raise":
        raise fe.unsupported("np.put with mode other than 'raise'")
    if not 1 <= fe.tensor_type(a).rank <= 3 or not isinstance(a, ArrayRef):
        raise fe.unsupported("np.put into anything but a 1- to 3-D array variable")
    fe.inline_call(put, [a, ind, v], {}, None, keep_loc=True)
    return Const(None)


@implements(np.copyto)
def _copyto(fe, dst, src, casting=Const("same_kind"), where=Const(True)):
    """dst[...] = src in place, broadcast, under NumPy's casting rule (its TypeError when
    the rule forbids the cast) and only where ``where`` holds."""
    if not isinstance(dst, ArrayRef):
        raise fe.unsupported("np.copyto needs an array variable as its destination")
    rule = fe.static(casting, "casting")
    s = fe.tensor(src)
    if not np.can_cast(np_dtype(s.dtype), np_dtype(dst.dtype), casting=rule):
        msg = (f"Cannot cast array data from dtype('{np_dtype(s.dtype)}') to "
               f"dtype('{np_dtype(dst.dtype)}') according to the rule '{rule}'")
        if fe.raise_now():
            raise TypeError(f"{fe.b.loc}: {msg}")
        raise fe.unsupported(f"{msg}, in code that runs only under a run-time condition")
    v = fe.broadcast(fe.convert(s, dst.dtype), dst.shape)
    if not (isinstance(where, Const) and where.value is True):
        m = fe.broadcast(fe.truth_array(fe.tensor(where)), dst.shape)
        v = fe.select(m, v, fe.read(dst))
    fe.write_all(dst, v)
    return Const(None)


# NumPy functions refused with a reason (the coverage document lists them as such)
REFUSED = {getattr(np, name): ("gives an array whose length depends on the data",
                               "use a mask with np.where or a reduction instead")
           for name in ()}


def _refuse(fn):
    why, hint = REFUSED[fn]
    return lambda fe, *a, **k: (_ for _ in ()).throw(fe.unsupported(
        f"np.{fn.__name__} {why}", hint))


for _fn in REFUSED:
    implements(_fn)(_refuse(_fn))


def _nonzero_row(fe, nz, k):
    return Tensor(fe.b.one("tensor.slice", nz.v, spec=[["c", k], ["r", -1, -1, 1]]))


@implements(np.nonzero)
def _nonzero(fe, a):
    nz = fe.nonzero_rows(a)
    return TupleVal(tuple(_nonzero_row(fe, nz, k) for k in range(nz.shape[0])))


@implements(np.flatnonzero)
def _flatnonzero(fe, a):
    t = fe.tensor(a)
    if t.type.rank != 1:
        t = fe.tensor(reshape_value(fe, t, Const((-1,))))
    return _nonzero_row(fe, fe.nonzero_rows(t), 0)


@implements(np.argwhere)
def _argwhere(fe, a):
    t = fe.tensor(a)
    if t.type.rank == 0:
        raise fe.unsupported("np.argwhere of a 0-d value")
    return Tensor(fe.b.one("tensor.transpose", fe.nonzero_rows(t).v, perm=[1, 0]))


implements(builtins.float)(_py_ctor("f64"))
implements(builtins.int)(_py_ctor("i64"))
implements(builtins.bool)(_py_ctor("i1"))


@implements(builtins.complex)
def _complex(fe, real=Const(0), imag=None):
    """complex(x), and complex(re, im) as CPython builds it (``complex_new``): float parts go
    in exactly (``tensor.complex``: ``complex(1.0, inf)`` is ``1+infj``, where ``1.0 + inf*1j``
    is ``nan+infj``); a complex ``im`` adds ``-im.imag`` to the real part, a complex ``re``
    adds its imaginary part to ``im``."""
    one = _py_ctor("c128")
    if imag is None:
        return one(fe, real)
    if isinstance(real, Const) and isinstance(imag, Const):
        return Const(complex(real.value, imag.value))
    parts = []
    for x in (real, imag):
        t = fe.tensor(x)
        if t.type.rank:
            raise fe.unsupported("complex() of an array", "index a single element first")
        if t.dtype[0] == "c":
            t = fe.convert(t, "c128")
            parts.append(tuple(Tensor(fe.b.one(f"tensor.{p}", t.v), deps=t.deps)
                               for p in ("real", "imag")))
        else:
            parts.append((_py_ctor("f64")(fe, t), None))
    (rr, ri), (ir_, ii) = parts
    re = rr if ii is None else fe.ufunc(np.subtract, rr, ii)
    im = ir_ if ri is None else fe.ufunc(np.add, ir_, ri)
    return Tensor(fe.b.one("tensor.complex", re.v, im.v), weak=True, deps=re.deps | im.deps)


@implements(builtins.len)
def _len(fe, x):
    if isinstance(x, Const):
        return Const(len(x.value))
    if isinstance(x, TupleVal):
        return Const(len(x.items))
    from .arg_trees import Record
    if isinstance(x, Record):   # a dict (or a namedtuple) passed in
        if x.kind != "dict" and not issubclass(x.cls, tuple):
            raise TypeError(f"{fe.b.loc}: object of type '{x.cls.__name__}' has no len()")
        return Const(len(x.fields))
    shape = fe.tensor_type(x).shape
    if not shape:
        raise TypeError(f"{fe.b.loc}: len() of unsized object")
    return fe.dim(x, 0)


def _python_types(fe, x) -> set:
    """The Python types ``x`` can have when NumPy runs the source (one, or two where the
    compiled value does not say: a 0-d argument is an ndarray or a NumPy scalar)."""
    from .arg_trees import Record
    from .list_growth import GrownList
    if isinstance(x, (ListConst, ListVal, GrownList)):
        return {list}
    if isinstance(x, Const):
        return {type(x.value)}
    if isinstance(x, TupleVal):
        return {tuple}
    if isinstance(x, Record):
        return {x.cls}
    if isinstance(x, ArrayRef):
        return {np.ndarray}
    if isinstance(x, Tensor):
        if x.type.rank or x.array0d:
            return {np.ndarray}
        scalar = np_dtype(x.dtype).type
        if x.weak:
            return {{"i1": bool, "i64": int, "f64": float, "c128": complex}.get(x.dtype, scalar)}
        from ..ir.core import Block
        if isinstance(x.v.owner, Block):
            # a block's argument: a 0-d argument of the call (np.float64(1.0) and
            # np.array(1.0) compile alike) or a value carried around a loop
            return {scalar, np.ndarray}
        return {scalar}   # NumPy's result of a reduction, a scalar index, arithmetic...
    raise fe.unsupported(f"isinstance() of {type(x).__name__}")


@implements(builtins.isinstance)
def _isinstance(fe, obj, classinfo):
    """``isinstance(obj, classinfo)`` answered at compile time from the type ``obj`` has
    when NumPy runs the source (``isinstance(axis, tuple)``, ``isinstance(x, np.ndarray)``,
    ``isinstance(n, int)``: a Python int argument is an int, ``np.float64`` is a float as in
    NumPy); refused where that type is not known."""
    cls = fe.static(classinfo, "the class given to isinstance")
    answers = {issubclass(t, cls) for t in _python_types(fe, obj)}
    if len(answers) != 1:
        raise fe.unsupported("isinstance() of a 0-d value that is an ndarray or a NumPy "
                             "scalar depending on the call", "pass a Python number or an "
                             "array of at least one dimension")
    return Const(answers.pop())


@implements(builtins.range)
def _range(fe, *args):
    """``range(...)`` outside a ``for`` header (``tuple(range(n))``, ``len(range(...))``, a
    range passed on): a compile-time range of compile-time integers."""
    if not 1 <= len(args) <= 3:
        raise TypeError(f"{fe.b.loc}: range expected 1 to 3 arguments, got {len(args)}")
    ints = [fe.static_int(a, "a range() bound outside a for loop's header") for a in args]
    if len(ints) == 3 and ints[2] == 0:
        raise ValueError(f"{fe.b.loc}: range() arg 3 must not be zero")
    return Const(range(*ints))


@implements(builtins.zip)
def _zip(fe, *iterables, strict=Const(False)):
    """``zip`` of sequences of compile-time length (tuples, lists, arrays' rows) outside a
    ``for`` header: a tuple of tuples, as long as the shortest (``strict=True``: all
    equally long, else NumPy's ValueError)."""
    seqs = [_seq_items(fe, it, "zip") for it in iterables]
    if fe.static(strict, "strict") and len({len(q) for q in seqs}) > 1:
        raise ValueError(f"{fe.b.loc}: zip() arguments have different lengths")
    return TupleVal(tuple(TupleVal(tuple(q[k] for q in seqs))
                          for k in range(min((len(q) for q in seqs), default=0))))


@implements(builtins.enumerate)
def _enumerate(fe, iterable, start=Const(0)):
    """``enumerate`` of a sequence of compile-time length outside a ``for`` header."""
    first = fe.static_int(start, "enumerate's start")
    return TupleVal(tuple(TupleVal((Const(first + k), x))
                          for k, x in enumerate(_seq_items(fe, iterable, "enumerate"))))


@implements(np.can_cast)
def _can_cast(fe, from_, to, casting=Const("safe")):
    """np.can_cast at compile time: from a dtype or an array's dtype, to a dtype."""
    if not isinstance(to, Const):
        raise TypeError(f"{fe.b.loc}: Cannot construct a dtype from an array")
    src = from_.value if isinstance(from_, Const) else np_dtype(fe.tensor_type(from_).dtype)
    return Const(bool(np.can_cast(src, to.value, fe.static(casting, "casting"))))


_can_cast.python_result = True   # a Python bool, as NumPy returns


def _warnings_setting(fe, *args, **kwargs):
    """``warnings.simplefilter(...)`` and friends: compiled code emits no warnings, so which
    ones would show changes nothing it does (the setting is not applied to the caller's
    Python either)."""
    return Const(None)


for _fn in (warnings.simplefilter, warnings.filterwarnings, warnings.resetwarnings):
    implements(_fn)(_warnings_setting)


@implements(builtins.slice)
def _slice(fe, *args):
    """``slice(start, stop, step)`` as a value (``s = slice(1, None, 2); a[s]``): a
    compile-time slice, or one with run-time bounds as in ``a[i:j]``."""
    from .indexing import SliceItem
    if not 1 <= len(args) <= 3:
        raise TypeError(f"{fe.b.loc}: slice expected 1 to 3 arguments, got {len(args)}")
    parts = [None, args[0], None] if len(args) == 1 else list(args) + [None] * (3 - len(args))
    parts = [None if p is None or (isinstance(p, Const) and p.value is None) else p
             for p in parts]
    if all(p is None or isinstance(p, Const) for p in parts):
        return Const(slice(*(None if p is None else p.value for p in parts)))
    return SliceItem(*parts, None)


@implements(builtins.hasattr)
def _hasattr(fe, obj, name):
    """``hasattr(obj, name)`` at compile time: a module or other constant asked directly,
    an object passed in by its items and its class, an array or number by the Python type
    it has under NumPy."""
    from .arg_trees import Record
    attr = fe.static(name, "the attribute name given to hasattr")
    if isinstance(obj, Const) and not isinstance(obj, ListConst):
        return Const(hasattr(obj.value, attr))
    if isinstance(obj, Record):
        if obj.kind == "dict":
            return Const(hasattr(dict, attr))
        return Const(any(k == attr for k, _ in obj.fields) or hasattr(obj.cls, attr))
    answers = {hasattr(t, attr) for t in _python_types(fe, obj)}
    if len(answers) != 1:
        raise fe.unsupported("hasattr() of a 0-d value that is an ndarray or a NumPy scalar "
                             "depending on the call")
    return Const(answers.pop())


@implements(builtins.abs)
def _abs(fe, x):
    if isinstance(x, Const) and isinstance(x.value, (bool, int, float, complex)):
        return Const(abs(x.value))     # abs(-3) is the Python int 3 (np.abs gives np.int64)
    return fe.python_int_unary(np.abs, x)   # abs(-2**63) of a Python int raises


def _minmax(uf, pyfn):
    def handler(fe, *args, **kw):
        if kw:
            raise fe.unsupported(f"{pyfn.__name__}() with keyword arguments")
        if len(args) == 1:
            from .list_growth import GrownList, list_max, list_min
            if isinstance(args[0], GrownList):    # Python's fold over the list's items
                impl = list_max if pyfn is max else list_min
                return fe.inline_call(impl, [args[0]], {}, None, keep_loc=True)
            items = _tuple_items(args[0])
            if items is None:
                raise fe.unsupported(f"{pyfn.__name__}() of one array",
                                     f"use np.{pyfn.__name__}(a)")
            if not items:
                raise ValueError(f"{fe.b.loc}: {pyfn.__name__}() arg is an empty sequence")
            args = items
        if all(isinstance(a, Const) for a in args):
            return Const(pyfn(*(a.value for a in args)))
        r = args[0]
        for a in args[1:]:
            # Python's max/min pick one operand (no NaN propagation), like a comparison.
            ra, ta = fe.tensor(r), fe.tensor(a)
            if ra.weak != ta.weak and ra.dtype != ta.dtype and not (
                    _exact_in(r, ta.dtype) or _exact_in(a, ra.dtype)):
                # a Python number against a NumPy scalar of another type: Python returns
                # whichever object wins, unconverted (max(300, np.int8(5)) is 300), so the
                # pick is made in a type that holds both exactly (NumPy's promotion of the
                # Python number's own type) instead of the NumPy scalar's, where 300 wraps;
                # a constant the NumPy scalar's type holds exactly (max(0, x8)) keeps it
                ra, ta = fe.strong(ra), fe.strong(ta)
            cond = fe.ufunc(np.greater if pyfn is max else np.less, ta, ra)
            r = fe.select(cond, ta, ra)
        return r
    return handler


def _exact_in(x, dtype: str) -> bool:
    """Whether ``x`` is a Python number constant that ``dtype`` holds exactly."""
    if not isinstance(x, Const) or type(x.value) not in (bool, int, float):
        return False
    try:
        with np.errstate(all="ignore"):
            return bool(np_dtype(dtype).type(x.value) == x.value)
    except (OverflowError, ValueError):
        return False


def _tuple_items(x):
    """The items of a compile-time or run-time tuple, else None."""
    if isinstance(x, TupleVal):
        return list(x.items)
    if isinstance(x, Const) and isinstance(x.value, (tuple, list)):
        return [Const(v) for v in x.value]
    return None


@implements(builtins.sum)
def _pysum(fe, iterable, start=Const(0)):
    """Python's sum: ``start + x0 + x1 + ...`` over a tuple, or over an array's first axis."""
    items = _tuple_items(iterable)
    if items is None:
        t = fe.tensor(iterable)
        if not t.type.rank:
            raise TypeError(f"{fe.b.loc}: 'numpy scalar' object is not iterable")
        # element by element in the array's own dtype (int8 wraps as it adds), as Python's
        # loop over NumPy scalars does; bools add up as Python ints do
        acc = "i64" if t.dtype == "i1" else t.dtype
        return fe.ufunc(np.add, start, reduce(fe, "sum", t, Const(0),
                                              dtype=Const(np_dtype(acc))))
    total = start
    for x in items:
        total = fe.ufunc(np.add, total, x)
    return total


def _seq_items(fe, iterable, what):
    """The items Python's iteration gives (``iter_items``), or a refusal naming ``what``."""
    items = fe.iter_items(iterable)
    if items is None:
        raise fe.unsupported(f"{what}() of this value (solvent iterates over tuples, lists "
                             "and arrays of known length)")
    return items


def _any_all(pyfn, combine):
    def handler(fe, iterable):
        """Python's any/all: a Python bool. A generator expression's items were all
        computed (comprehensions.py): an element after the deciding one is evaluated too."""
        items = _seq_items(fe, iterable, pyfn.__name__)
        if all(isinstance(x, Const) for x in items):
            return Const(pyfn(x.value for x in items))
        r = Const(pyfn(()))
        for x in items:
            r = fe.ufunc(combine, r, fe.truth(x))
        return Tensor(fe.tensor(r).v, weak=True)
    return handler


implements(builtins.any)(_any_all(any, np.logical_or))
implements(builtins.all)(_any_all(all, np.logical_and))


@implements(builtins.tuple)
def _pytuple(fe, iterable=Const(())):
    return make_seq(_seq_items(fe, iterable, "tuple"), False)


@implements(builtins.list)
def _pylist(fe, iterable=Const(())):
    return make_seq(_seq_items(fe, iterable, "list"), True)


@implements(builtins.divmod)
def _divmod(fe, a, b):
    if isinstance(a, Const) and isinstance(b, Const):
        try:
            return Const(divmod(a.value, b.value))
        except ZeroDivisionError as e:
            raise ZeroDivisionError(f"{fe.b.loc}: {e}") from None
    return TupleVal((fe.ufunc(np.floor_divide, a, b), fe.ufunc(np.remainder, a, b)))


implements(builtins.max)(_minmax(np.maximum, max))
implements(builtins.min)(_minmax(np.minimum, min))


@implements(builtins.round)
def _pyround(fe, x, ndigits=None):
    if isinstance(x, Const):
        return Const(round(x.value) if ndigits is None else round(x.value, ndigits.value))
    r = _round(fe, x, Const(0) if ndigits is None else ndigits)
    return Tensor(fe.convert(r, "i64").v, weak=True) if ndigits is None else r



# ufunc methods: ``outer`` of every ufunc, ``reduce``/``accumulate`` of these, ``np.add.at``
UFUNC_REDUCE = {np.add: "sum", np.multiply: "prod", np.maximum: "max", np.minimum: "min",
                np.logical_and: "all", np.logical_or: "any"}
UFUNC_ACCUMULATE = (np.add, np.multiply, np.maximum, np.minimum)
UFUNC_AT = (np.add,)


def _reduce_params(array, axis=Const(0), dtype=None, out=None, keepdims=Const(False),
                   initial=None, where=None):
    return array, axis, dtype, out, keepdims, initial, where


def _accumulate_params(array, axis=Const(0), dtype=None, out=None):
    return array, axis, dtype, out


def _bind(fe, params, name, args, kwargs):
    """``args`` and ``kwargs`` bound as NumPy's ufunc method binds them (positional axis
    included): an argument NumPy does not take is NumPy's TypeError, with the line."""
    try:
        return params(*args, **kwargs)
    except TypeError as e:
        raise TypeError(f"{fe.b.loc}: {name}: {e}") from None


def _ufunc_method(fe, fn, args, kwargs):
    """np.add.outer / np.add.reduce / np.maximum.accumulate / np.add.at ..."""
    uf, name = fn.__self__, fn.__name__
    what = f"numpy.{uf.__name__}.{name}"
    if name in ("outer", "at") and kwargs:
        raise fe.unsupported(f"keyword arguments to {what}: {', '.join(kwargs)}")
    if name == "outer":
        a = fe.tensor(args[0])
        b = fe.tensor(args[1])
        ra, rb = a.type.rank, b.type.rank
        a = fe.tensor(reshape_value(fe, a, Const(a.shape + (1,) * rb)))
        b = fe.tensor(reshape_value(fe, b, Const((1,) * ra + b.shape)))
        return fe.ufunc(uf, a, b)
    if name == "reduce" and uf in UFUNC_REDUCE:
        array, axis, dtype, out, keepdims, initial, where = _bind(
            fe, _reduce_params, what, args, kwargs)
        if _given(out, None):
            raise fe.unsupported(f"{what}(..., out=)", "assign the result instead")
        kind = UFUNC_REDUCE[uf]
        return reduce(fe, kind, array, axis, keepdims, dtype if kind in ("sum", "prod") else
                      None, initial, where)
    if name == "accumulate" and uf in UFUNC_ACCUMULATE:
        array, axis, dtype, out = _bind(fe, _accumulate_params, what, args, kwargs)
        if _given(out, None) or _given(dtype, None):
            raise fe.unsupported(f"{what}(..., {'out' if _given(out, None) else 'dtype'}=)")
    if name == "accumulate" and uf in (np.maximum, np.minimum):
        x = fe.tensor(array)
        if x.type.rank == 0:
            raise TypeError(f"{fe.b.loc}: cannot accumulate on a scalar")
        if x.dtype[0] == "c":
            raise fe.unsupported(f"np.{uf.__name__}.accumulate of complex values (NumPy's "
                                 "lexicographic order)", "accumulate the real part, or loop")
        ax = norm_axes(fe, axis, x.type.rank)[0]
        kind = "cummax" if uf is np.maximum else "cummin"
        return Tensor(fe.b.one(f"tensor.{kind}", x.v, axis=ax))
    if name == "accumulate" and uf in UFUNC_ACCUMULATE:
        return _scan("cumsum" if uf is np.add else "cumprod",
                     np.cumsum if uf is np.add else np.cumprod)(fe, array, axis)
    if name == "at" and uf in UFUNC_AT:
        return fe.add_at(*args)
    raise fe.unsupported(f"{what} is not supported")


def is_ufunc_method(fn) -> bool:
    return isinstance(getattr(fn, "__self__", None), np.ufunc)


implements(np.real)(lambda fe, x: fe.complex_part(x, "real"))
implements(np.imag)(lambda fe, x: fe.complex_part(x, "imag"))


@implements(np.conj, np.conjugate)
def _conj(fe, x):
    return fe.ufunc(np.conjugate, x)


@implements(np.gradient)
def _gradient(fe, f, *varargs, axis=Const(None), edge_order=Const(1)):
    """np.gradient: the axes and spacings are NumPy's (no spacing: 1; one scalar for every
    axis; else one per axis, each a scalar or that axis's 1-D coordinates); each axis is
    npapi_prelude.gradient_along; several axes give a tuple, one axis an array."""
    from .npapi_prelude import gradient_along
    nd = fe.tensor_type(f).rank
    ax = fe.static(axis, "axis")
    axes = tuple(range(nd)) if ax is None else ax if isinstance(ax, tuple) else (ax,)
    for a in axes:
        if not -nd <= a < nd:
            raise np.exceptions.AxisError(f"{fe.b.loc}: axis {a} is out of bounds for array "
                                          f"of dimension {nd}")
    axes = tuple(a % nd for a in axes)
    order = fe.static_int(edge_order, "edge_order")
    if order > 2:
        raise ValueError(f"{fe.b.loc}: 'edge_order' greater than 2 not supported")
    if not varargs:
        spacings = (Const(1.0),) * len(axes)
    elif len(varargs) == 1 and _rank(fe, varargs[0]) == 0:
        spacings = varargs * len(axes)
    elif len(varargs) == len(axes):
        spacings = varargs
    else:
        raise TypeError(f"{fe.b.loc}: invalid number of arguments")
    outs = [fe.inline_call(gradient_along, [f, Const(a), h, Const(order)], {}, None,
                           keep_loc=True) for a, h in zip(axes, spacings)]
    return outs[0] if len(outs) == 1 else make_seq(outs, listy=False)


def _rank(fe, v) -> int:
    return 0 if isinstance(v, Const) and np.ndim(v.value) == 0 else fe.tensor_type(v).rank


@implements(np.array_equiv)
@python_result
def _array_equiv(fe, a1, a2):
    """True when the arrays broadcast to one shape (decided at compile time) and every
    element is equal."""
    from .npapi_prelude import all_equal
    shapes = fe.tensor_type(a1).shape, fe.tensor_type(a2).shape
    if None not in shapes[0] + shapes[1]:   # run-time lengths: broadcasting checks at run time
        try:
            np.broadcast_shapes(*shapes)
        except ValueError:
            return Const(False)
    return fe.inline_call(all_equal, [a1, a2], {}, None, keep_loc=True)
