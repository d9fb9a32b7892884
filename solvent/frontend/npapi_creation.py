"""NumPy array creation, shape manipulation and joining, translated to IR.

Handlers take the translator ``fe`` and the call's abstract arguments; they are registered
in ``FUNCTIONS`` by the NumPy function object they implement.
"""
from __future__ import annotations

import numpy as np

from ..ir.types import dtype_name, np_dtype
from .values import ArrayRef, Const, Tensor, TupleVal, like_seq

FUNCTIONS: dict = {}


def implements(*fns):
    def deco(handler):
        for fn in fns:
            FUNCTIONS[fn] = handler
        return handler
    return deco


def static_dtype(fe, d, default=None) -> str:
    if d is None:
        return default
    v = fe.static(d, "a dtype")
    if v is None:
        return default
    try:
        return dtype_name(np.dtype(v))
    except (TypeError, KeyError):
        raise fe.unsupported(f"dtype {v!r} is not supported") from None


def static_shape(fe, shape) -> tuple[int, ...]:
    v = fe.static(shape, "an array shape")
    if isinstance(v, (int, np.integer)):
        v = (v,)
    try:
        shape = tuple(int(d) for d in v)
    except TypeError:
        raise fe.unsupported(f"bad shape {v!r}") from None
    if any(d < 0 for d in shape):
        raise ValueError(f"{fe.b.loc}: negative dimensions are not allowed")
    return shape


def filled(fe, shape, value, dtype: str) -> Tensor:
    t = fe.convert_python_int(fe.tensor(value), dtype)
    if not shape:
        return Tensor(t.v, array0d=True)
    return Tensor(fe.b.one("tensor.broadcast_to", t.v, shape=list(shape)))


def runtime_length(shape):
    """A 1-D length computed from data (``np.zeros(int(x.max()) + 1)``, ``np.zeros(len(y))``
    of a run-time length) as an integer Tensor, else None. A length that depends on scalar
    arguments is not one: the function is specialized on their values instead."""
    if isinstance(shape, TupleVal) and len(shape.items) == 1:
        shape = shape.items[0]
    if isinstance(shape, Tensor) and shape.type.rank == 0 and shape.dtype[0] in "iu" \
            and shape.dtype != "i1" and not shape.deps:
        return shape
    return None


def filled_or_runtime(fe, shape, value, dtype: str) -> Tensor:
    """``np.full(shape, value, dtype)``; a run-time 1-D length gives a ``tensor.fill`` (a
    run-time length: the native backend runs it), checked as NumPy checks it."""
    if isinstance(shape, ArrayRef) and not shape.type.rank:
        shape = fe.read(shape)     # np.zeros(n) of a 0-d array n: its value, read here
    n = runtime_length(shape)
    if n is None:
        return filled(fe, static_shape(fe, shape), value, dtype)
    n = fe.convert(n, "i64")
    fe.check(fe.ufunc(np.greater_equal, n, Const(0)), "ValueError",
             "negative dimensions are not allowed")
    v = fe.convert_python_int(fe.tensor(value), dtype)
    return Tensor(fe.b.one("tensor.fill", v.v, n.v))


@implements(np.zeros, np.empty)
def _zeros(fe, shape, dtype=None, order=None):
    return filled_or_runtime(fe, shape, Const(0), static_dtype(fe, dtype, "f64"))


@implements(np.ones)
def _ones(fe, shape, dtype=None, order=None):
    return filled_or_runtime(fe, shape, Const(1), static_dtype(fe, dtype, "f64"))


@implements(np.full)
def _full(fe, shape, fill_value, dtype=None, order=None):
    fv = fe.tensor(fill_value)
    default = dtype_name(np.result_type(fe.probe(fv))) if fv.weak else fv.dtype
    return filled_or_runtime(fe, shape, fv, static_dtype(fe, dtype, default))


def _like(value):
    def handler(fe, a, dtype=None, order=None, shape=None):
        shape_ = static_shape(fe, shape) if shape is not None else fe.tensor_type(a).shape
        dt = static_dtype(fe, dtype, fe.tensor_type(a).dtype)
        return filled(fe, shape_, Const(value), dt)
    return handler


implements(np.zeros_like, np.empty_like)(_like(0))
implements(np.ones_like)(_like(1))


@implements(np.full_like)
def _full_like(fe, a, fill_value, dtype=None, order=None, shape=None):
    shape_ = static_shape(fe, shape) if shape is not None else fe.tensor_type(a).shape
    return filled(fe, shape_, fill_value, static_dtype(fe, dtype, fe.tensor_type(a).dtype))


@implements(np.arange)
def _arange(fe, *args, dtype=None):
    vals = [fe.static(a, "np.arange bounds") for a in args]
    ref = np.arange(*vals)
    dt = static_dtype(fe, dtype, dtype_name(ref.dtype))
    n = len(ref)
    start = vals[0] if len(vals) > 1 else 0
    step = vals[2] if len(vals) > 2 else 1
    it_dtype = dtype_name(ref.dtype)
    x = Tensor(fe.b.one("tensor.iota", shape=[n], dim=0, dtype=it_dtype))
    if step != 1:
        x = fe.ufunc(np.multiply, x, fe.constant(step, it_dtype, weak=False))
    if start != 0:
        x = fe.ufunc(np.add, x, fe.constant(start, it_dtype, weak=False))
    return fe.convert(x, dt)


@implements(np.linspace)
def _linspace(fe, start, stop, num=Const(50), endpoint=Const(True), retstep=Const(False),
              dtype=None, axis=Const(0)):
    with_step = bool(fe.static(retstep, "retstep"))
    n = fe.static_int(num, "np.linspace num")
    s, e = fe.tensor(start), fe.tensor(stop)
    calc = dtype_name(np.result_type(fe.probe(s), fe.probe(e), 0.0))
    dt = static_dtype(fe, dtype, calc)
    s, e = fe.convert(s, calc), fe.convert(e, calc)
    ends = bool(fe.static(endpoint, "endpoint"))
    if s.type.rank or e.type.rank:   # one row of samples per pair of endpoints
        from .npapi_prelude import linspace_arrays
        ax = fe.static_int(axis, "axis")
        rank = len(np.broadcast_shapes(s.shape, e.shape)) + 1
        if not -rank <= ax < rank:
            raise ValueError(f"{fe.b.loc}: axis {ax} is out of bounds for array of "
                             f"dimension {rank}")
        r = fe.tensor(fe.inline_call(linspace_arrays, [s, e, Const(n), Const(ends),
                                                       Const(ax % rank)], {}, None,
                                     keep_loc=True))
    else:
        r = Tensor(fe.b.one("tensor.linspace", s.v, e.v, num=n, endpoint=ends, dtype=calc))
    if np.dtype(np_dtype(dt)).kind in "iu":   # NumPy floors before the cast to integers
        r = fe.ufunc(np.floor, r)
    r = fe.convert(r, dt)
    if not with_step:
        return r
    # retstep: (stop - start) / div in the computation's dtype, not dtype=; NaN (a Python
    # float) where there is no interval (one sample with the endpoint, none without)
    div = n - 1 if ends else n
    if div <= 0:
        return TupleVal((r, Const(float("nan"))))
    step = fe.ufunc(np.true_divide, fe.ufunc(np.subtract, e, s), Const(div))
    return TupleVal((r, Tensor(step.v, weak=False, deps=step.deps)))


@implements(np.eye, np.identity)
def _eye(fe, N, M=None, k=Const(0), dtype=None, order=None):
    n = fe.static_int(N, "np.eye size")
    m = n if M is None or fe.static(M) is None else fe.static_int(M, "np.eye size")
    kk = fe.static_int(k, "np.eye k")
    rows = Tensor(fe.b.one("tensor.iota", shape=[n, m], dim=0, dtype="i64"))
    cols = Tensor(fe.b.one("tensor.iota", shape=[n, m], dim=1, dtype="i64"))
    diag = fe.ufunc(np.equal, fe.ufunc(np.add, rows, Const(kk)), cols)
    return fe.convert(diag, static_dtype(fe, dtype, "f64"))


@implements(np.copy, np.array)
def _copy(fe, a, dtype=None, copy=None, order=None):
    how = True if copy is None else fe.static(copy, "copy")
    if how in (False, None):
        # np.array(x, copy=False / None): x itself when no copy is needed (writes through
        # the result reach x); copy=False where one is needed is NumPy's ValueError
        if how is False and (isinstance(a, (Const, TupleVal)) or (
                dtype is not None and static_dtype(fe, dtype) != fe.tensor_type(a).dtype)):
            raise ValueError(f"{fe.b.loc}: Unable to avoid copy while creating an array as "
                             "requested.")
        return _asarray(fe, a, dtype)
    if (isinstance(a, TupleVal) and not a.items) or (isinstance(a, Const) and isinstance(
            a.value, (tuple, list)) and not a.value):   # np.array([]): float64, length 0
        return filled(fe, (0,), Const(0), static_dtype(fe, dtype, "f64") if dtype is not None
                      else "f64")
    if dtype is None and isinstance(a, TupleVal):
        a = _coerced_items(fe, a)
    elif dtype is not None and isinstance(a, (TupleVal, Const)):
        a = _items_as(fe, a, static_dtype(fe, dtype))
    t = fe.tensor(a)
    if dtype is not None:
        t = fe.convert_python_int(t, static_dtype(fe, dtype))
    elif isinstance(a, Const) and isinstance(a.value, (tuple, list)):
        # numbers written in the code: the dtype NumPy discovers ([2**63, 1] is float64, a
        # uint64 and an int64 met; the items' weak promotion gave uint64)
        found = np.asarray(a.value).dtype
        if found.kind in "biufc" and dtype_name(found) != t.dtype:
            t = fe.convert(t, dtype_name(found))
    return Tensor(t.v, array0d=not t.type.rank)   # np.array(2.5): a 0-d array


def _items_as(fe, seq, dt: str):
    """The items of a sequence given to np.array with ``dtype=dt``, each converted as NumPy
    assigns it: an integer item (Python or NumPy) must fit an integer ``dt``."""
    if isinstance(seq, TupleVal):
        return like_seq(seq, tuple(_items_as(fe, i, dt) for i in seq.items))
    if isinstance(seq, Const):
        if isinstance(seq.value, (tuple, list)) and dt[0] in "iu":   # checked here, kept
            info = np.iinfo(np_dtype(dt))
            for v in np.ravel(np.asarray(seq.value, dtype=object)):
                if isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) \
                        and not info.min <= int(v) <= info.max:
                    raise OverflowError(f"{fe.b.loc}: Python integer {int(v)} out of bounds "
                                        f"for {np_dtype(dt)}")
        return seq
    t = fe.tensor(seq)
    return fe.convert_python_int(t, dt, all_ints=True) if t.type.rank == 0 else seq


def _coerced_items(fe, seq: TupleVal) -> TupleVal:
    """The items of a sequence given to np.array, converted to the dtype NumPy discovers for
    it: there a Python number is no weak scalar but int64, float64, complex128 or bool
    (``np.array([np.uint8(2), 300])`` is int64, ``np.array([np.float32(1), 2.5])``
    float64), unlike in arithmetic (NEP 50)."""
    def leaves(v):
        if isinstance(v, TupleVal):
            for i in v.items:
                yield from leaves(i)
        elif isinstance(v, Const) and isinstance(v.value, (tuple, list)):
            for i in v.value:
                yield from leaves(Const(i))
        else:
            yield v

    def strong(v):
        if isinstance(v, Const):
            return np.asarray(v.value).dtype
        return np_dtype(fe.tensor_type(v).dtype)
    items = list(leaves(seq))
    if not items:
        return seq
    dt = dtype_name(np.result_type(*(strong(v) for v in items)))

    def convert(v):
        if isinstance(v, TupleVal):
            return like_seq(v, tuple(convert(i) for i in v.items))
        if isinstance(v, Const) and isinstance(v.value, (tuple, list)):
            return TupleVal(tuple(convert(Const(i)) for i in v.value))
        return fe.convert(fe.tensor(v), dt)
    return convert(seq)


@implements(np.ascontiguousarray)
def _ascontiguousarray(fe, a, dtype=None):
    """NumPy returns ``a`` itself when it is already a C-contiguous array of the dtype (writes
    through the result reach ``a``), a C-ordered copy otherwise; a 0-d value becomes 1-d
    (a view of a 0-d array variable)."""
    t = fe.tensor_type(a)
    same = dtype is None or static_dtype(fe, dtype) == t.dtype
    if t.rank == 0:     # a 0-d array variable: a 1-d view of it, as NumPy gives
        return reshape_value(fe, a if isinstance(a, ArrayRef) and same else _copy(fe, a, dtype),
                             Const((1,)))
    if isinstance(a, ArrayRef) and t.static and same and is_c_contiguous(*view_strides(a)):
        return a
    return _copy(fe, a, dtype)


@implements(np.asarray, np.asanyarray)
def _asarray(fe, a, dtype=None, order=None):
    if isinstance(a, ArrayRef) and (dtype is None or static_dtype(fe, dtype) == a.dtype):
        return a  # np.asarray returns the same array: writes through it reach the original
    return _copy(fe, a, dtype)


# --- shape manipulation ----------------------------------------------------------------------
def reshape_value(fe, a, shape):
    t = fe.tensor_type(a)
    v = fe.static(shape, "a shape")
    if isinstance(v, (int, np.integer)):
        v = (v,)
    if not t.static and sum(d is None for d in v) == 1 and -1 not in v:
        v = [-1 if d is None else d for d in v]   # np.shape(y) of a run-time y: its length
    v = [int(d) for d in v]
    if v.count(-1) > 1:
        raise fe.unsupported("can only specify one unknown dimension")
    if not t.static:
        return _reshape_run_time(fe, a, t, v)
    if -1 in v:
        known = int(np.prod([d for d in v if d != -1], dtype=np.int64))
        v[v.index(-1)] = t.size // known if known else 0
    if int(np.prod(v, dtype=np.int64)) != t.size:
        shown = "(" + ",".join(map(str, v)) + ("," if len(v) == 1 else "") + ")"  # NumPy's
        raise ValueError(f"{fe.b.loc}: cannot reshape array of size {t.size} into shape "
                         f"{shown}")
    if not v and not isinstance(a, ArrayRef):  # NumPy gives a 0-d array (not a scalar)
        r = fe.tensor(a)
        return Tensor(fe.b.one("tensor.reshape", r.v, shape=[]), deps=r.deps, array0d=True)
    return view_or_value(fe, a, ("reshape", tuple(v)))


def _reshape_run_time(fe, a, t, v):
    """A reshape of an array with one length known only at run time: that length stays one
    dimension (-1 in ``v``), the others multiply to the same static count (``x.reshape(-1,
    1)`` of a run-time vector); a copy (the IR's reshape), checked at compile time."""
    from ..ir.types import DYN
    dyn = [d for d in t.shape if d is DYN]
    rest_in = int(np.prod([d for d in t.shape if d is not DYN], dtype=np.int64))
    rest_out = int(np.prod([d for d in v if d != -1], dtype=np.int64))
    if len(dyn) != 1 or v.count(-1) != 1 or rest_in != rest_out:
        shown = tuple("?" if d is DYN else d for d in t.shape)
        raise fe.unsupported(f"reshaping an array of shape {shown} (a length known only at "
                             f"run time) to {tuple(v)}", "keep the run-time length as one "
                             "dimension, written -1")
    if [DYN if d == -1 else d for d in v] == list(t.shape):
        return a                           # its own shape
    r = fe.tensor(a)
    return Tensor(fe.b.one("tensor.reshape", r.v, shape=[DYN if d == -1 else d for d in v]),
                  deps=r.deps)


def view_strides(ref: ArrayRef):
    """Element strides of the view ``ref`` of its buffer (the caller's strides for an
    argument that is not C-contiguous, else C order)."""
    from ..ops.indexspec import slice_len
    shape = list(ref.buf.ref.type.shape)
    strides = list(ref.buf.strides) if ref.buf.strides is not None else \
        [int(np.prod(shape[i + 1:], dtype=np.int64)) for i in range(len(shape))]
    for step in ref.chain:
        kind = step[0]
        if kind == "index":
            new_shape, new_strides, d = [], [], 0
            for it in step[1]:
                if it[0] == "n":
                    new_shape.append(1)
                    new_strides.append(0)
                    continue
                if it[0] == "s":
                    new_shape.append(slice_len(*it[1:]))
                    new_strides.append(strides[d] * it[3])
                elif it[0] == "d":
                    new_shape.append(it[2])
                    new_strides.append(strides[d])
                elif it[0] == "r":   # a run-time length: no view of it can be reshaped
                    return None, None
                d += 1
            shape, strides = new_shape, new_strides
        elif kind == "transpose":
            shape = [shape[p] for p in step[1]]
            strides = [strides[p] for p in step[1]]
        elif kind == "reshape":
            v = _strided_dummy(shape, strides).reshape(step[1], copy=False)
            shape, strides = list(v.shape), list(v.strides)
        else:  # "part": real/imag of complex keep the element grid
            strides = [2 * x for x in strides]
    return shape, strides


def _strided_dummy(shape, strides):
    """A byte-sized array with these strides, for asking NumPy about views; never read."""
    from numpy.lib.stride_tricks import as_strided
    return as_strided(np.zeros(1, np.int8), shape=tuple(shape), strides=tuple(strides))


def reshape_is_view(ref: ArrayRef, new_shape) -> bool:
    """Whether NumPy's reshape of this view returns a view (True) or a copy."""
    shape, strides = view_strides(ref)
    if shape is None:
        return False
    try:
        _strided_dummy(shape, strides).reshape(tuple(new_shape), copy=False)
        return True
    except ValueError:
        return False


def _order_decides(a: ArrayRef, shape) -> bool:
    """Whether NumPy's view-or-copy answer for reshaping ``a`` (a view of an array the
    function computed, which solvent lays out in C order) would differ if NumPy had laid
    that array out in Fortran order, as it does for results computed from Fortran-ordered
    arguments (``a * 2.0`` keeps its operand's order)."""
    from dataclasses import replace
    full = a.buf.ref.type.shape
    if len(full) < 2 or not all(isinstance(d, int) for d in full):
        return False
    f_strides = tuple(int(np.prod(full[:i], dtype=np.int64)) for i in range(len(full)))
    as_f = ArrayRef(replace(a.buf, strides=f_strides), a.chain, a.type)
    return reshape_is_view(as_f, shape) != reshape_is_view(a, shape)


def view_or_value(fe, a, step):
    """A view step on an array variable stays a view (NumPy returns views); else a value.

    A reshape of an array computed in a function called with Fortran-ordered or strided
    arrays, where NumPy's answer (view or copy) depends on the memory order NumPy gave the
    array (which solvent does not track), is recorded: once the view is given a name, the
    array is guarded, and writing into it or into the view is refused instead of matching
    NumPy by chance (found: ``x = a * 2.0; y = x.reshape(-1); x[0, 0] = 5`` changed y,
    which NumPy had copied)."""
    from ..ir.types import TensorType
    if step[0] == "reshape":
        shape = step[1]
    else:
        shape = tuple(fe.tensor_type(a).shape[p] for p in step[1])
    if isinstance(a, ArrayRef) and step[0] == "reshape" and a.buf.block is not None and \
            fe.shared.get("non_c_args") and _order_decides(a, shape):
        # statements.bind guards the array when this view is given a name (a view used in
        # place, x.reshape(-1).copy() or .sum(), aliases nothing afterwards)
        fe.shared.setdefault("order_views", {})[(id(a.buf), repr(a.chain + (step,)))] = \
            fe.b.loc.line if fe.b.loc else "?"
    if isinstance(a, ArrayRef) and (step[0] != "reshape" or reshape_is_view(a, shape)):
        return ArrayRef(a.buf, a.chain + (step,), TensorType(tuple(shape), a.dtype))
    t = fe.tensor(a)
    return Tensor(fe.apply_view(t.v, step), deps=t.deps)


@implements(np.reshape)
def _reshape(fe, a, shape=None, order=None, newshape=None):
    o = fe.static(order, "order") if order is not None else "C"
    if o not in ("C", None):
        raise fe.unsupported(f"reshape(order={o!r})", "use order='C' (the default)")
    return reshape_value(fe, a, shape if shape is not None else newshape)


@implements(np.ravel)
def _ravel(fe, a, order=None):
    """NumPy's ravel returns a view only of a C-contiguous array (reshape(-1) also of other
    evenly strided ones); anything else is a copy."""
    o = fe.static(order, "order") if order is not None else "C"
    if o not in ("C", None):
        raise fe.unsupported(f"ravel(order={o!r})", "use order='C' (the default)")
    if not fe.tensor_type(a).static:
        if fe.tensor_type(a).rank == 1:
            return a if not isinstance(a, ArrayRef) else fe.tensor(a)
        raise fe.unsupported("ravel of an n-d array with a length known only at run time")
    size = int(np.prod(fe.tensor_type(a).shape, dtype=np.int64))
    if isinstance(a, ArrayRef) and not is_c_contiguous(*view_strides(a)):
        t = fe.tensor(a)
        return Tensor(fe.apply_view(t.v, ("reshape", (size,))), deps=t.deps)
    return reshape_value(fe, a, Const((-1,)))


def is_c_contiguous(shape, strides) -> bool:
    """NumPy's C-contiguity flag of a view, from its shape and element strides."""
    if any(d == 0 for d in shape):
        return True
    expect = 1
    for d, s in zip(reversed(shape), reversed(strides)):
        if d != 1 and s != expect:
            return False
        expect *= d
    return True


@implements(np.transpose)
def _transpose(fe, a, axes=None):
    rank = fe.tensor_type(a).rank
    if axes is None or fe.static(axes) is None:
        perm = list(range(rank))[::-1]
    else:
        given = fe.static(axes, "transpose axes")
        given = tuple(given) if isinstance(given, (tuple, list)) else (given,)
        if len(given) != rank:
            raise ValueError(f"{fe.b.loc}: axes don't match array")
        perm = [_axis(fe, p, rank) for p in given]
        if len(set(perm)) != rank:
            raise ValueError(f"{fe.b.loc}: repeated axis in transpose")
    return view_or_value(fe, a, ("transpose", tuple(perm)))


def _axis(fe, i, rank, prefix=""):
    """Axis ``i`` of an array of ``rank`` dimensions, counted from 0; NumPy's AxisError
    outside ``-rank <= i < rank``."""
    i = int(i)
    if not -rank <= i < rank:
        raise np.exceptions.AxisError(f"{fe.b.loc}: {prefix}axis {i} is out of bounds for "
                                      f"array of dimension {rank}")
    return i % rank


@implements(np.squeeze)
def _squeeze(fe, a, axis=None):
    shape = fe.tensor_type(a).shape
    if axis is None:
        new = [d for d in shape if d != 1]
    else:
        ax = fe.static(axis, "axis")
        ax = {_axis(fe, x, len(shape)) for x in (ax if isinstance(ax, tuple) else (ax,))}
        if any(shape[i] != 1 for i in ax):
            raise ValueError(f"{fe.b.loc}: cannot select an axis to squeeze out which has "
                             "size not equal to one")
        new = [d for i, d in enumerate(shape) if i not in ax]
    return reshape_value(fe, a, Const(tuple(new)))


@implements(np.expand_dims)
def _expand_dims(fe, a, axis):
    """NumPy's rule: the axes are positions in the result (of ndim + len(axis) dimensions,
    negative ones counted from its end); the other positions take a's dimensions in order."""
    shape = list(fe.tensor_type(a).shape)
    ax = fe.static(axis, "axis")
    ax = ax if isinstance(ax, tuple) else (ax,)
    out_nd = len(shape) + len(ax)
    pos = []
    for i in ax:
        if not -out_nd <= int(i) < out_nd:
            raise np.exceptions.AxisError(f"{fe.b.loc}: axis {i} is out of bounds for array "
                                          f"of dimension {out_nd}")
        pos.append(int(i) % out_nd)
    if len(set(pos)) != len(pos):
        raise ValueError(f"{fe.b.loc}: repeated axis")
    dims = iter(shape)
    return reshape_value(fe, a, Const(tuple(1 if k in pos else next(dims)
                                            for k in range(out_nd))))


def python_result(handler):
    """Marks a handler whose result NumPy gives as a Python value (not a NumPy scalar)."""
    handler.python_result = True
    return handler


@implements(np.broadcast_shapes)
@python_result
def _broadcast_shapes(fe, *shapes):
    """The broadcast of shapes known at compile time (a tuple of ints, as NumPy returns)."""
    vals = [fe.static(s, "a shape") for s in shapes]
    try:
        return Const(np.broadcast_shapes(*vals))
    except ValueError as e:
        raise ValueError(f"{fe.b.loc}: {e}") from None


@implements(np.ndim)
@python_result
def _ndim(fe, a):
    return Const(len(fe.tensor_type(a).shape)) if not isinstance(a, Const) else \
        Const(np.ndim(a.value))


@implements(np.shape)
@python_result
def _shape(fe, a):
    return Const(tuple(fe.tensor_type(a).shape)) if not isinstance(a, Const) else \
        Const(np.shape(a.value))


@implements(np.size)
@python_result
def _size(fe, a, axis=None):
    shape = fe.tensor_type(a).shape if not isinstance(a, Const) else np.shape(a.value)
    if axis is None:
        return Const(int(np.prod(shape, dtype=np.int64)))
    return Const(shape[fe.static_int(axis, "axis")])


@implements(np.result_type)
@python_result
def _result_type(fe, *args):
    probes = []
    for a in args:
        if isinstance(a, Const) and not isinstance(a.value, (bool, int, float, complex,
                                                            np.generic)):
            probes.append(np.dtype(a.value))
        else:
            t = fe.tensor(a)
            probes.append(fe.probe(t))
    return Const(np.result_type(*probes))


@implements(np.finfo, np.iinfo)
@python_result
def _finfo(fe, t):
    v = t.value if isinstance(t, Const) else np_dtype(fe.tensor_type(t).dtype)
    kind = np.dtype(v).kind if not isinstance(v, np.dtype) else v.kind
    return Const(np.finfo(v) if kind in "fc" else np.iinfo(v))


@implements(np.moveaxis)
def _moveaxis(fe, a, source, destination):
    """Axes ``source`` moved to positions ``destination`` (ints or equal-length sequences),
    the other axes keeping their order: NumPy's rule."""
    rank = len(fe.tensor_type(a).shape)

    def axes(v, what):
        v = fe.static(v, what)
        items = list(v) if isinstance(v, (tuple, list)) else [v]
        out = []
        for k in items:
            if not isinstance(k, (int, np.integer)) or not -rank <= k < max(rank, 1):
                raise ValueError(f"{fe.b.loc}: {what} {k} is out of bounds for array of "
                                 f"dimension {rank}")
            out.append(int(k) % max(rank, 1))
        if len(set(out)) != len(out):
            raise ValueError(f"{fe.b.loc}: repeated axis in `{what.split()[0]}` argument")
        return out
    src, dst = axes(source, "source axis"), axes(destination, "destination axis")
    if len(src) != len(dst):
        raise ValueError(f"{fe.b.loc}: `source` and `destination` arguments must have the "
                         "same number of elements")
    order = [k for k in range(rank) if k not in src]
    for d, k in sorted(zip(dst, src)):
        order.insert(d, k)
    return _transpose(fe, a, Const(tuple(order)))


@implements(np.swapaxes)
def _swapaxes(fe, a, axis1, axis2):
    rank = len(fe.tensor_type(a).shape)
    i = _axis(fe, fe.static_int(axis1, "axis"), rank, "axis1: ")
    j = _axis(fe, fe.static_int(axis2, "axis"), rank, "axis2: ")
    order = list(range(rank))
    order[i], order[j] = order[j], order[i]
    return _transpose(fe, a, Const(tuple(order)))


def _atleast_nd(n):
    def handler(fe, a):
        t = fe.tensor_type(a)
        if len(t.shape) >= n:
            return a
        shape = {1: (1,), 2: (1,) + tuple(t.shape) if len(t.shape) == 1 else (1, 1)}[n] \
            if len(t.shape) < n else t.shape
        if n == 1:
            shape = (1,)
        return reshape_value(fe, a, Const(shape))
    return handler


implements(np.atleast_1d)(_atleast_nd(1))
implements(np.atleast_2d)(_atleast_nd(2))


def index_grid(fe, grid, key):
    """np.mgrid[...] / np.ogrid[...] with compile-time slices (a complex step is a count,
    as in np.linspace): aranges broadcast to the full grid (mgrid, stacked) or kept open
    (ogrid, a tuple of arrays of shape (1, .., n, .., 1))."""
    if not isinstance(key, tuple):  # one slice: the 1-D range itself
        return index_grid(fe, "ogrid", (key,))
    slices = key
    axes = []
    for sl in slices:
        if not isinstance(sl, slice):
            raise fe.unsupported("np.mgrid/np.ogrid take slices")
        start = 0 if sl.start is None else sl.start
        step = 1 if sl.step is None else sl.step
        if isinstance(step, complex):
            axes.append(_linspace(fe, Const(start), Const(sl.stop), Const(int(abs(step)))))
        else:
            axes.append(_arange(fe, Const(start), Const(sl.stop), Const(step)))
    shape = tuple(fe.tensor_type(a).shape[0] for a in axes)
    dt = dtype_name(np.result_type(*[np_dtype(fe.tensor_type(a).dtype) for a in axes]))
    parts = []
    for k, a in enumerate(axes):
        a = fe.convert(fe.tensor(a), dt)
        open_shape = tuple(n if j == k else 1 for j, n in enumerate(shape))
        t = fe.tensor(reshape_value(fe, a, Const(open_shape)))
        parts.append(t if grid == "ogrid" else fe.broadcast(t, shape))
    if grid == "ogrid":
        return TupleVal(tuple(parts)) if len(parts) > 1 else parts[0]
    return _stack(fe, TupleVal(tuple(parts)))


@implements(np.indices)
def _indices(fe, dimensions, dtype=Const(int), sparse=Const(False)):
    dims = static_shape(fe, dimensions)
    if fe.static(sparse, "sparse"):
        raise fe.unsupported("np.indices(..., sparse=True)", "use np.ogrid")
    grid = index_grid(fe, "mgrid", tuple(slice(0, n) for n in dims))
    return fe.convert(fe.tensor(grid), static_dtype(fe, dtype))


@implements(np.pad)
def _pad(fe, array, pad_width, mode=Const("constant"), constant_values=Const(0), **kw):
    """np.pad, mode constant/edge/wrap/reflect/symmetric, one axis at a time."""
    if kw:
        raise fe.unsupported(f"np.pad options {', '.join(kw)}")
    t = fe.tensor(array)
    rank = t.type.rank
    widths = np.broadcast_to(np.asarray(fe.static(pad_width, "pad_width"), dtype=np.int64),
                             (rank, 2))
    how = fe.static(mode, "mode")
    if how not in ("constant", "edge", "wrap", "reflect", "symmetric"):
        raise fe.unsupported(f"np.pad(mode={how!r})")
    for ax in range(rank):
        before, after = (int(w) for w in widths[ax])
        if before < 0 or after < 0:
            raise ValueError(f"{fe.b.loc}: index can't contain negative values")
        n = t.shape[ax]
        parts = []
        if before:
            parts.append(_pad_part(fe, t, ax, n, before, how, constant_values, "before"))
        parts.append(t)
        if after:
            parts.append(_pad_part(fe, t, ax, n, after, how, constant_values, "after"))
        if len(parts) > 1:
            t = concat(fe, parts, ax)
    return t


def _pad_part(fe, t, ax, n, width, how, constant_values, side):
    def along(sl):
        return fe.tensor(fe.getitem(t, [Const(slice(None))] * ax + [Const(sl)]))
    shape = tuple(width if k == ax else d for k, d in enumerate(t.shape))
    if how == "constant":
        value = fe.static(constant_values, "constant_values")
        if isinstance(value, tuple):
            value = value[ax] if isinstance(value[0], tuple) else value
            value = value[0 if side == "before" else 1] if isinstance(value, tuple) else value
        return fe.convert(fe.broadcast(fe.tensor(Const(value)), shape), t.dtype)
    if n == 0:
        raise ValueError(f"{fe.b.loc}: can't extend empty axis {ax} using modes other than "
                         "'constant'")
    if how == "edge":
        return fe.broadcast(along(slice(0, 1) if side == "before" else slice(n - 1, n)), shape)
    if width > n:
        raise fe.unsupported(f"np.pad(mode={how!r}) wider than the axis")
    if how == "wrap":
        return along(slice(n - width, n) if side == "before" else slice(0, width))
    if how == "symmetric":
        return along(slice(width - 1, None, -1) if side == "before"
                     else slice(n - 1, n - 1 - width, -1) if n - 1 - width >= 0
                     else slice(n - 1, None, -1))
    if width > n - 1:
        raise fe.unsupported("np.pad(mode='reflect') wider than the axis minus one")
    return along(slice(width, 0, -1) if side == "before" else slice(n - 2, n - 2 - width, -1)
                 if n - 2 - width >= 0 else slice(n - 2, None, -1))


@implements(np.ndarray)
def _ndarray(fe, shape, dtype=Const(float), order=None, **kw):
    if kw:
        raise fe.unsupported("np.ndarray(..., buffer=...) over existing memory",
                             "use np.empty(shape, dtype)")
    return _zeros(fe, shape, dtype)


@implements(np.broadcast_to)
def _broadcast_to(fe, a, shape):
    return fe.broadcast(fe.tensor(a), static_shape(fe, shape))


def _seq(fe, arrays):
    if isinstance(arrays, TupleVal):
        return [fe.tensor(x) for x in arrays.items]
    if isinstance(arrays, Const) and isinstance(arrays.value, (tuple, list)):
        return [fe.tensor(Const(x)) for x in arrays.value]
    raise fe.unsupported("expected a tuple or list of arrays")


def concat(fe, ts, axis):
    dt = fe.result_dtype(ts)
    ts = [fe.convert(t, dt) for t in ts]
    rank = ts[0].type.rank
    if rank == 0:
        raise ValueError(f"{fe.b.loc}: zero-dimensional arrays cannot be concatenated")
    for k, t in enumerate(ts[1:], 1):   # NumPy's errors (they were internal errors)
        if t.type.rank != rank:
            raise ValueError(f"{fe.b.loc}: all the input arrays must have same number of "
                             f"dimensions, but the array at index 0 has {rank} dimension(s) "
                             f"and the array at index {k} has {t.type.rank} dimension(s)")
    axis = _axis(fe, axis, rank)
    for k, t in enumerate(ts[1:], 1):
        for d, (n0, n) in enumerate(zip(ts[0].shape, t.shape)):
            if d != axis and n0 != n and isinstance(n0, int) and isinstance(n, int):
                raise ValueError(
                    f"{fe.b.loc}: all the input array dimensions except for the "
                    f"concatenation axis must match exactly, but along dimension {d}, the "
                    f"array at index 0 has size {n0} and the array at index {k} has size {n}")
    return Tensor(fe.b.one("tensor.concatenate", *(t.v for t in ts), axis=axis))


@implements(np.concatenate)
def _concatenate(fe, arrays, axis=Const(0), dtype=None):
    ts = _seq(fe, arrays)
    ax = fe.static(axis, "axis")
    if ax is None:
        ts = [fe.tensor(reshape_value(fe, t, Const((-1,)))) for t in ts]
        ax = 0
    r = concat(fe, ts, int(ax))
    return fe.convert(r, static_dtype(fe, dtype)) if dtype is not None else r


@implements(np.stack)
def _stack(fe, arrays, axis=Const(0)):
    ts = _seq(fe, arrays)
    if any(t.shape != ts[0].shape for t in ts):
        raise ValueError(f"{fe.b.loc}: all input arrays must have the same shape")
    ax = _axis(fe, fe.static_int(axis, "axis"), ts[0].type.rank + 1)
    parts = [fe.tensor(reshape_value(fe, t, Const(t.shape[:ax] + (1,) + t.shape[ax:])))
             for t in ts]
    return concat(fe, parts, ax)


@implements(np.hstack)
def _hstack(fe, arrays):
    ts = [_atleast(fe, t, 1) for t in _seq(fe, arrays)]
    return concat(fe, ts, 0 if ts[0].type.rank == 1 else 1)


@implements(np.vstack)
def _vstack(fe, arrays):
    return concat(fe, [_atleast(fe, t, 2) for t in _seq(fe, arrays)], 0)


def _atleast(fe, t, n):
    if t.type.rank >= n:
        return t
    shape = (1,) * (n - t.type.rank - (1 if n == 2 and t.type.rank == 1 else 0))
    new = (1, *t.shape) if n == 2 and t.type.rank == 1 else shape + t.shape
    return fe.tensor(reshape_value(fe, t, Const(tuple(new))))


@implements(np.flip)
def _flip(fe, m, axis=None):
    t = fe.tensor(m)
    if axis is None or fe.static(axis) is None:
        axes = list(range(t.type.rank))
    else:
        ax = fe.static(axis, "axis")
        axes = [int(a) % t.type.rank for a in (ax if isinstance(ax, tuple) else (ax,))]
    return Tensor(fe.b.one("tensor.reverse", t.v, axes=axes))


@implements(np.fliplr)
def _fliplr(fe, m):
    return _flip(fe, m, Const(1))


@implements(np.flipud)
def _flipud(fe, m):
    return _flip(fe, m, Const(0))


@implements(np.repeat)
def _repeat(fe, a, repeats, axis=None):
    t = fe.tensor(a)
    counts = fe.static(repeats, "np.repeat counts")
    if axis is None or fe.static(axis) is None:
        t = fe.tensor(reshape_value(fe, t, Const((-1,))))
        ax = 0
    else:
        ax = fe.static_int(axis, "axis") % t.type.rank
    if isinstance(counts, (tuple, list, np.ndarray)) and np.ndim(counts) == 1:
        # one count per item along the axis (compile-time): a gather of each item's index
        # repeated, as NumPy's own definition; a single count broadcasts
        counts = np.asarray(counts)
        n = t.shape[ax]
        if counts.dtype.kind not in "iub" or (len(counts) not in (1, n)) or (counts < 0).any():
            raise ValueError(f"{fe.b.loc}: operands could not be broadcast together with "
                             f"shape ({n},) ({len(counts)},)" if len(counts) not in (1, n)
                             else f"{fe.b.loc}: repeats may not contain negative values")
        if len(counts) == n:
            idx = np.repeat(np.arange(n), counts)
            from .npapi_prelude import take
            idx = fe.tensor(Const(tuple(int(i) for i in idx))) if idx.size else \
                Tensor(fe.b.one("tensor.iota", shape=[0], dim=0, dtype="i64"))
            return fe.tensor(fe.inline_call(take, [t, idx, Const(ax)], {}, None,
                                            keep_loc=True))
        counts = int(counts[0])
    reps = fe.static_int(Const(counts) if not isinstance(counts, Const) else counts,
                         "np.repeat count")
    return Tensor(fe.b.one("tensor.repeat", t.v, repeats=reps, axis=ax))


@implements(np.tile)
def _tile(fe, a, reps):
    t = fe.tensor(a)
    r = fe.static(reps, "np.tile reps")
    r = (r,) if isinstance(r, int) else tuple(r)
    rank = max(len(r), t.type.rank)
    t = fe.tensor(reshape_value(fe, t, Const((1,) * (rank - t.type.rank) + t.shape)))
    r = (1,) * (rank - len(r)) + r
    for ax, k in enumerate(r):
        if k != 1:
            t = concat(fe, [t] * k, ax)
    return t


@implements(np.roll)
def _roll(fe, a, shift, axis=None):
    t = fe.tensor(a)
    shifts = fe.static(shift, "np.roll shift")
    if isinstance(shifts, (tuple, list)) or (axis is not None and isinstance(
            fe.static(axis, "axis"), (tuple, list))):
        # NumPy broadcasts shift against axis and rolls along each, shifts of one axis adding
        axes = (0,) if axis is None else fe.static(axis, "axis")
        pairs = np.broadcast(np.asarray(shifts, dtype=np.int64), np.asarray(axes, np.int64))
        total: dict = {}
        rank = max(t.type.rank, 1)
        for s, ax in pairs:
            total[int(ax) % rank] = total.get(int(ax) % rank, 0) + int(s)
        if axis is None:
            return _roll(fe, t, Const(sum(total.values())), None)
        for ax, s in total.items():
            t = fe.tensor(_roll(fe, t, Const(s), Const(ax)))
        return t
    s = fe.static_int(shift, "np.roll shift")
    if axis is None:
        flat = fe.tensor(reshape_value(fe, t, Const((-1,))))
        return fe.tensor(reshape_value(fe, _roll(fe, flat, Const(s), Const(0)), Const(t.shape)))
    ax = fe.static_int(axis, "axis") % t.type.rank
    n = t.shape[ax]
    if n == 0 or s % n == 0:
        return t
    s %= n
    from .emit import full_spec
    lo, hi = full_spec(t.shape), full_spec(t.shape)
    lo[ax] = ["s", n - s, n, 1]
    hi[ax] = ["s", 0, n - s, 1]
    parts = [fe.b.one("tensor.slice", t.v, spec=lo), fe.b.one("tensor.slice", t.v, spec=hi)]
    return Tensor(fe.b.one("tensor.concatenate", *parts, axis=ax))


def _triangle(part):
    def handler(fe, m, k=Const(0)):
        t = fe.tensor(m)
        if t.type.rank < 2:
            raise fe.unsupported(f"np.{'triu' if part == 'upper' else 'tril'} of a 1-d array")
        return Tensor(fe.b.one("tensor.triangle", t.v, part=part,
                               k=fe.static_int(k, "diagonal offset")))
    return handler


implements(np.triu)(_triangle("upper"))
implements(np.tril)(_triangle("lower"))


@implements(np.diag)
def _diag(fe, v, k=Const(0)):
    t = fe.tensor(v)
    kk = fe.static_int(k, "diagonal offset")
    if t.type.rank == 1:
        n = t.shape[0] + abs(kk)
        e = _eye(fe, Const(n), Const(n), Const(kk), Const(np.bool_))
        idx = Tensor(fe.b.one("tensor.iota", shape=[n, n], dim=1 if kk >= 0 else 0, dtype="i64"))
        shift = fe.ufunc(np.subtract, idx, Const(abs(kk)))
        clipped = fe.ufunc(np.maximum, shift, Const(0))
        vals = Tensor(fe.b.one("tensor.gather", t.v, clipped.v, axes=[0], front=False))
        return fe.select(e, vals, fe.convert(fe.constant(0), t.dtype))
    if t.type.rank == 2:
        n, m = t.shape
        rows = range(max(0, -kk), min(n, m - kk))
        if len(rows) == 0:
            return Tensor(fe.b.one("tensor.broadcast_to", fe.convert(fe.constant(0), t.dtype).v,
                                   shape=[0]))
        r = fe.constant(rows.start, "i64", weak=False)
        ri = fe.ufunc(np.add, Tensor(fe.b.one("tensor.iota", shape=[len(rows)], dim=0,
                                               dtype="i64")), r)
        ci = fe.ufunc(np.add, ri, Const(kk))
        return Tensor(fe.b.one("tensor.gather", t.v, ri.v, ci.v, axes=[0, 1], front=False))
    raise fe.unsupported("np.diag of arrays with rank > 2")
