"""NumPy indexing: basic indexing (views), integer-array gathers, stores into elements/slices."""
from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from ..ir.types import DYN
from .emit import full_spec
from .values import ArrayRef, Const, Tensor, TupleVal


class EmptyAxisIndex(Exception):
    """Raised by ``analyze_index(stand_in=True)`` after it emitted the failing run-time check
    of a constant index into an empty axis: the access has no element to stand in, and the
    program never gets past the check, so any value of the right type goes on."""

    def __init__(self, dim: int):
        super().__init__(dim)
        self.dim = dim


@dataclass(frozen=True)
class SliceItem:
    lower: object
    upper: object
    step: object
    node: ast.Slice


def _linear(node):
    """``node`` as (terms, constant) when it is a sum of terms and integer constants."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int):
        return {}, node.value
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Sub)):
        lt, lc = _linear(node.left)
        rt, rc = _linear(node.right)
        sign = 1 if isinstance(node.op, ast.Add) else -1
        terms = dict(lt)
        for k, v in rt.items():
            terms[k] = terms.get(k, 0) + sign * v
        return {k: v for k, v in terms.items() if v}, lc + sign * rc
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        t, c = _linear(node.operand)
        return {k: -v for k, v in t.items()}, -c
    return {ast.dump(node): 1}, 0


def static_difference(upper: ast.expr | None, lower: ast.expr | None, resolve=None):
    """upper - lower when it does not depend on run-time values, else None.
    ``resolve(name)`` gives the compile-time int bound to a name, or None."""
    if upper is None or lower is None:
        return None
    ut, uc = _linear(upper)
    lt, lc = _linear(lower)
    diff = uc - lc
    for key in set(ut) | set(lt):
        coef = ut.get(key, 0) - lt.get(key, 0)
        if not coef:
            continue
        value = resolve(key) if resolve else None
        if value is None:
            return None
        diff += coef * value
    return diff


class IndexMixin:
    def slice_item(self, node: ast.Slice) -> SliceItem:
        parts = [None if p is None else self.expr(p) for p in (node.lower, node.upper, node.step)]
        return SliceItem(*parts, node)

    # --- analysis ---------------------------------------------------------------------------
    def analyze_index(self, shape, items, obj=None, stand_in: bool = False):
        """-> (spec, dyn Values, advanced [(dim, Tensor)], deps) for ``x[items]``.

        A constant index into an empty axis in code NumPy may not reach (a loop, a branch,
        after a run-time check that can fail first) becomes a check that fails where it is
        reached; with ``stand_in`` the caller is told by ``EmptyAxisIndex`` and goes on with
        a stand-in value (reads) or no write at all, else it is refused."""
        items = list(items)
        n_consume = sum(1 for i in items if not _is_none(i) and not _is_ellipsis(i))
        if sum(1 for i in items if _is_ellipsis(i)) > 1:
            raise self.unsupported("an index can only have a single ellipsis ('...')")
        if n_consume > len(shape):
            raise IndexError(f"{self.b.loc}: too many indices for array: array is "
                             f"{len(shape)}-dimensional, but {n_consume} were indexed")
        expanded = []
        for i in items:
            if _is_ellipsis(i):
                expanded.extend([Const(slice(None))] * (len(shape) - n_consume))
            else:
                expanded.append(i)
        if not any(_is_ellipsis(i) for i in items):
            expanded.extend([Const(slice(None))] * (len(shape) - n_consume))
        spec, dyn, adv = [], [], []
        ints = []  # (spec position, dim, index as a Tensor): advanced too if arrays are present
        d = 0
        for it in expanded:
            if _is_none(it):
                spec.append(["n"])
                continue
            n = shape[d]
            if isinstance(it, Const) and isinstance(it.value, slice):
                it = SliceItem(*(None if p is None else Const(p) for p in
                                 (it.value.start, it.value.stop, it.value.step)), None)
            if isinstance(it, SliceItem):
                spec.append(self._slice_spec(it, n, dyn) if n is not DYN else
                            self.runtime_slice(it, dyn))
            elif n is DYN and self._is_scalar_index(it):
                spec.append(self._runtime_int_index(it, d, dyn, obj))
            elif isinstance(it, Const) and isinstance(it.value, (int, np.integer)) and \
                    not isinstance(it.value, (bool, np.bool_)):
                k = int(it.value)
                if not -n <= k < n:
                    msg = f"index {k} is out of bounds for axis {d} with size {n}"
                    if self.raise_now():
                        # it always runs, and no earlier run-time check can fail first
                        raise IndexError(f"{self.b.loc}: {msg}")
                    # NumPy raises only if this runs, and only if no earlier run-time check
                    # fails first: a run-time check that fails where it is reached
                    if n == 0 and not stand_in:
                        raise self.unsupported(
                            f"{msg}, in code that runs only under a run-time condition or "
                            "after a run-time check that may fail first",
                            "guard it with a condition on the shape, known at compile time")
                    self.check(Const(False), "IndexError", msg)
                    if n == 0:     # no element 0 to stand in: the caller supplies one
                        raise EmptyAxisIndex(d)
                    k = 0
                spec.append(["c", k % n])
                ints.append((len(spec) - 1, d, None, k % n))
            elif isinstance(it, (Tensor, ArrayRef, TupleVal)) or (
                    isinstance(it, Const) and isinstance(it.value, (list, tuple))):
                t = self.tensor(it)
                if n is DYN:     # an index array or a mask on a run-time length
                    n = self.dim(obj, d)
                if t.type.rank == 0 and t.dtype[0] in "iu" and t.dtype != "i1":
                    self.check_index(t, n, d)
                    dyn.append(self.convert(t, "i64").v)
                    spec.append(["i", len(dyn) - 1])
                    ints.append((len(spec) - 1, d, t, None))
                elif t.dtype[0] in "iu" or t.dtype == "i1":
                    if t.dtype != "i1":
                        self.check_index(t, n, d)
                    adv.append((d, t))
                    spec.append(full_spec([shape[d]])[0])
                else:
                    raise IndexError(f"{self.b.loc}: arrays used as indices must be of integer "
                                     f"(or boolean) type, got {t.dtype}")
            else:
                raise self.unsupported(f"index of type {type(getattr(it, 'value', it)).__name__}")
            d += 1
        if adv and ints and _mask_next_to_ints(adv, ints):
            # x[mask, k] with a 1-D mask next to integers: NumPy's result is x[:, k][mask]
            # (the mask's dims land where the group starts either way), so the integers
            # stay basic indices and the mask applies to the view
            return spec, dyn, adv
        if adv and ints:
            # NumPy: integers next to index arrays are index arrays too (they broadcast and
            # take part in the placement of the result's dims)
            for pos, dim, t, k in ints:
                spec[pos] = full_spec([shape[dim]])[0]
                adv.append((dim, t if t is not None else self.constant(k, "i64", weak=False)))
            adv.sort(key=lambda x: x[0])
            if not any(it[0] in "id" for it in spec):
                dyn = []
        return spec, dyn, adv

    def _slice_spec(self, it: SliceItem, n: int, dyn: list):
        parts = [None if isinstance(p, Const) and p.value is None else p
                 for p in (it.lower, it.upper, it.step)]
        it = SliceItem(*parts, it.node)
        if all(p is None or isinstance(p, Const) for p in parts):
            vals = [None if p is None else self.static_int(p, "a slice bound") for p in parts]
            start, stop, step = slice(*vals).indices(n)
            if step == 0:
                raise ValueError(f"{self.b.loc}: slice step cannot be zero")
            return ["s", start, stop, step]
        if it.step is not None and not isinstance(it.step, Const) \
                and not getattr(it.step, "deps", None):
            return self.runtime_slice(it, dyn)    # x[i * i::i]: a step computed at run time
        step = 1 if it.step is None else self.static_int(it.step, "a slice step")
        if step != 1:
            return self.runtime_slice(it, dyn)
        size = None
        if it.node is not None:
            lower_node = it.node.lower if it.node.lower is not None else ast.Constant(0)
            size = static_difference(it.node.upper, lower_node, self.static_name_value)
        if size is None:
            dynamic = next(p for p in (it.lower, it.upper) if not isinstance(p, (Const, type(None))))
            if getattr(dynamic, "deps", None):  # from scalar arguments: specialize on them
                raise self.need_static(dynamic, "the length of this slice")
            return self.runtime_slice(it, dyn)
        if self.shared.get("clamped_windows") and 0 <= size:
            # this function's x[i:i + w] reached past the end in an earlier call (the
            # ClampedWindowError below): NumPy's clamped length, known only at run time
            return self.runtime_slice(it, dyn)
        start = self.tensor(it.lower) if it.lower is not None else self.constant(0)
        start = self.convert(start, "i64")
        if -n <= size < 0 and it.upper is not None:
            # x[a:b] with b = a + size, size < 0: non-empty only where b is negative and
            # wraps to n + b (d[1 + ip:-2 + ip] is N - 3 long); other values would give
            # another length, so they are refused at run time
            self.check(self.ufunc(np.less, self.ufunc(np.add, start, Const(size)), Const(0)),
                       "IndexError", f"this slice's stop ({{}} + {size}) is not negative, so its "
                       f"length would not be {n + size} as solvent compiled it", start)
            size += n
        if not 0 <= size <= n:
            # never this length (x[i:i + 3] of an axis of 1): NumPy's clamped slice
            return self.runtime_slice(it, dyn)
        fits = self.ufunc(np.logical_and, self.ufunc(np.greater_equal, start, Const(0)),
                          self.ufunc(np.less_equal, start, Const(n - size)))
        self.check(fits, "ClampedWindowError",
                   f"a slice of length {size} starting at {{}} does not fit in an axis of size "
                   f"{n}: NumPy would give a slice of another length (solvent compiles this "
                   f"slice with length {size}; the native backend runs it with NumPy's "
                   "length)", start)
        dyn.append(start.v)
        return ["d", len(dyn) - 1, size]

    def _is_scalar_index(self, it) -> bool:
        """Whether ``it`` indexes with one integer (not an index array or a mask)."""
        if isinstance(it, Const):
            return not isinstance(it.value, (list, tuple, np.ndarray))
        if isinstance(it, TupleVal):
            return False
        return not (isinstance(it, (Tensor, ArrayRef, TupleVal)) and
                    (self.tensor_type(it).rank or self.tensor_type(it).dtype == "i1"))

    def _runtime_int_index(self, it, d: int, dyn: list, obj):
        """An integer index into a dim known only at run time: checked against its length."""
        t = self.tensor(it)
        if t.type.rank or t.dtype[0] not in "iu" or t.dtype == "i1":
            raise self.unsupported("only integers and slices index a dimension whose length "
                                   "is known only at run time")
        k = self.convert(t, "i64")
        n = self.dim(obj, d)
        ok = self.ufunc(np.logical_and, self.ufunc(np.greater_equal, k, self.ufunc(
            np.negative, n)), self.ufunc(np.less, k, n))
        self.check(ok, "IndexError", f"index {{}} is out of bounds for axis {d} (its length "
                   "is known only at run time)", k)
        dyn.append(k.v)
        return ["i", len(dyn) - 1]

    # --- reads ------------------------------------------------------------------------------
    def getitem(self, obj, items):
        if not isinstance(obj, (Tensor, ArrayRef)):
            obj = self.tensor(obj)
        shape = obj.shape
        try:
            spec, dyn, adv = self.analyze_index(shape, items, obj, stand_in=True)
        except EmptyAxisIndex:
            return self._stand_in_read(obj, items)
        if adv:
            return self._gather(obj, spec, dyn, adv)
        from ..ops.indexspec import result_shape
        out_shape = result_shape(shape, spec, len(dyn))
        view0d = not out_shape and any(map(_is_ellipsis, items))
        if isinstance(obj, ArrayRef) and (out_shape or view0d):
            # a view; with an Ellipsis even a 0-d result is one (``x[2, ...]``, ``a[...]``),
            # where integers alone give a scalar copy (``x[2]``, ``a[()]``), as in NumPy
            from ..ir.types import TensorType
            return ArrayRef(obj.buf, obj.chain + (("index", spec, tuple(dyn)),),
                            TensorType(out_shape, obj.dtype))
        # an operand Python evaluates conditionally (an arm of ``x if c else y``) is read
        # here unconditionally: its index check is guarded, so the read itself is speculated
        attrs = {"spec": spec}
        if self.shared.get("check_guards") and any(it[0] == "i" for it in spec):
            attrs["unchecked"] = True
        if isinstance(obj, ArrayRef) and not obj.chain:
            return Tensor(self.b.create("array.read", [obj.buf.ref, *dyn], attrs).result)
        t = self.tensor(obj)
        return Tensor(self.b.create("tensor.slice", [t.v, *dyn], attrs).result, deps=t.deps,
                      array0d=view0d)

    def _stand_in_read(self, obj, items):
        """``x[items]`` where a constant index into an empty axis fails at run time (its check
        was emitted): the same read from zeros of x's shape with every empty axis grown to
        length 1 gives a value of the right type and shape, never used."""
        if not obj.type.static:
            raise self.unsupported(
                "a constant index into an empty axis of an array with run-time dimensions, "
                "in code that runs only under a run-time condition",
                "guard it with a condition on the shape, known at compile time")
        grown = [max(n, 1) for n in obj.shape]
        zeros = self.broadcast(self.constant(0, obj.dtype, weak=False), grown)
        return self.getitem(zeros, items)

    def _gather(self, obj, spec, dyn, adv):
        if any(it[0] == "n" for it in spec):
            raise self.unsupported("np.newaxis combined with integer-array indexing")
        if any(t.dtype == "i1" for _, t in adv):
            if len(adv) == 1 and adv[0][0] == 0 and not dyn and all(
                    it == f for it, f in zip(spec, full_spec(obj.shape))):
                return self.mask_select(obj, adv[0][1])   # x[mask]: a run-time length
            if len(adv) == 1 and view_dim(spec, adv[0][0]) == 0:   # x[mask, k]
                view = Tensor(self.b.one("tensor.slice", self.tensor(obj).v, *dyn, spec=spec))
                return self.mask_select(view, adv[0][1])
            raise self.unsupported("a boolean mask mixed with other indices in a read",
                                   "index with the mask alone: x[mask]")
        t = self.tensor(obj)
        if spec != full_spec(t.shape) or dyn:
            t = Tensor(self.b.one("tensor.slice", t.v, *dyn, spec=spec))
        # ints inside the advanced group are advanced indices too (NumPy's rule)
        idx = self.index_arrays(adv)
        axes = [d for d, _ in adv]
        return Tensor(self.b.one("tensor.gather", t.v, *idx, axes=axes, front=False))

    # --- boolean masks ------------------------------------------------------------------------
    def is_mask_index(self, obj, items) -> bool:
        return (len(items) == 1 and isinstance(items[0], (Tensor, ArrayRef))
                and items[0].dtype == "i1" and isinstance(obj, ArrayRef))

    def mask_view(self, obj, items):
        """``(view, mask)`` for ``a[mask, k] op= v`` (one 1-D boolean mask with integers or
        slices, the mask on the leading dim of the basic-index view ``a[:, k]``), else None."""
        if not isinstance(obj, ArrayRef) or len(items) < 2 or sum(
                1 for i in items if isinstance(i, (Tensor, ArrayRef)) and i.dtype == "i1"
                and i.type.rank == 1) != 1:
            return None
        spec, dyn, adv = self.analyze_index(obj.shape, items, obj)
        if len(adv) != 1 or adv[0][1].dtype != "i1" or view_dim(spec, adv[0][0]) != 0:
            return None
        from ..ir.types import TensorType
        from ..ops.indexspec import result_shape
        view = ArrayRef(obj.buf, obj.chain + (("index", spec, tuple(dyn)),),
                        TensorType(result_shape(obj.shape, spec, len(dyn)), obj.dtype))
        return view, adv[0][1]

    def mask_update(self, target: ArrayRef, mask, fn) -> None:
        """``a[mask] op= v``: where(mask, a op v, a), the shape never depends on the data."""
        m = self.tensor(mask)
        self.check_mask_shape(m, target)
        if m.type.rank < target.type.rank and not m.type.static:
            raise self.unsupported("a boolean mask of run-time length over the leading "
                                   "dimensions of an array in a[mask] op= value",
                                   "use a mask of the array's full shape")
        cur = self.read(target)
        new = fn(cur)
        if self.tensor_type(new).shape != cur.shape:
            raise self.unsupported("a[mask] op= value needs a scalar value or one of a's shape")
        self.check_inplace_cast(new, cur.dtype)
        m = Tensor(self.b.one("tensor.reshape", m.v, shape=list(m.shape) + [1] * (
            cur.type.rank - m.type.rank)))
        self.write_all(target,
                   self.select(m, self.convert(self.tensor(new), cur.dtype), cur))

    # --- writes -----------------------------------------------------------------------------
    def setitem(self, target, items, value):
        if isinstance(target, Tensor) and target.type.rank and not target.weak:
            # NumPy writes into a temporary and drops it: refused rather than compiled as a
            # write that reaches nothing (a.reshape(-1)[i] = x of a Fortran-ordered array)
            raise self.unsupported(
                "assignment into a temporary array (a copy: NumPy would write into it and "
                "drop it, so the write reaches no array)", "write into the array itself; "
                "reshape and ravel copy a Fortran-ordered or strided array")
        if not isinstance(target, ArrayRef):
            raise self.unsupported("assignment into a value that is not an array variable")
        try:
            spec, dyn, adv = self.analyze_index(target.shape, items, target, stand_in=True)
        except EmptyAxisIndex:
            return     # the index check that always fails was emitted: nothing to write
        if not adv:
            self.write(target, spec, dyn, value)
            return
        if any(it[0] == "n" for it in spec):
            raise self.unsupported("np.newaxis combined with integer-array assignment")
        from ..ir.types import TensorType
        from ..ops.indexspec import result_shape
        view = target
        if dyn or spec != full_spec(target.shape):
            view = ArrayRef(target.buf, target.chain + (("index", spec, tuple(dyn)),),
                            TensorType(result_shape(target.shape, spec, len(dyn)), target.dtype))
        cur = self.read(view)
        if len(adv) == 1 and adv[0][1].dtype == "i1":
            d, mask = adv[0]
            if view_dim(spec, d) != 0:
                raise self.unsupported("a boolean mask must index the leading dimensions")
            self.check_mask_shape(mask, view)
            if mask.type.rank < view.type.rank and not mask.type.static:
                raise self.unsupported("a boolean mask of run-time length over the leading "
                                       "dimensions of an array in a[mask] = value",
                                       "use a mask of the array's full shape")
            v = self.tensor(value)
            if v.type.rank and v.type.static and v.type.size == 1:
                v = Tensor(self.b.one("tensor.reshape", v.v, shape=[]))  # broadcasts as one
            if v.type.rank:
                if mask.type.rank != view.type.rank:
                    raise self.unsupported("assigning an array through a boolean mask over "
                                           "the leading dimensions only",
                                           "use a[...] = np.where(mask, values, a)")
                # a[mask] = values (z[m] = z[m] ** 2 + c[m]): values go to the mask's true
                # positions in C order, a store of run-time length (the native backend and
                # the interpreter run it)
                self.store_through_mask(view, cur, mask, v)
                return
            m = Tensor(self.b.one("tensor.reshape", mask.v, shape=list(mask.shape) + [1] * (
                view.type.rank - mask.type.rank)))
            new = self.select(m, self.cast_for_store(v, view.dtype), cur)
            self.write_all(view, self.broadcast(new, view.shape))
            return
        if any(t.dtype == "i1" for _, t in adv):
            raise self.unsupported("boolean masks mixed with other indices in an assignment")
        idx = self.index_arrays(adv)
        axes = [d for d, _ in adv]
        from ..ops.structural import gather_shape
        gshape = gather_shape(cur.shape, axes, [t.shape for _, t in adv], False)
        v = self.scatter_value(self.cast_for_store(self.tensor(value), view.dtype), gshape, adv)
        new = self.b.one("tensor.scatter", cur.v, v.v, *idx, axes=axes)
        self.write_all(view, Tensor(new))


def _mask_next_to_ints(adv, ints) -> bool:
    """Whether the advanced indices are one 1-D boolean mask and integers, all on adjacent
    dims (``x[mask, k]``, ``x[k, mask]``)."""
    if len(adv) != 1 or adv[0][1].dtype != "i1" or adv[0][1].type.rank != 1:
        return False
    dims = sorted([adv[0][0]] + [dim for _, dim, _, _ in ints])
    return dims == list(range(dims[0], dims[0] + len(dims)))


def view_dim(spec, d: int) -> int:
    """Where dim ``d`` of an array lands in its basic-index view ``x[spec]``."""
    out = k = 0
    for it in spec:
        if it[0] == "n":
            out += 1
            continue
        if k == d:
            return out
        if it[0] not in "ci":
            out += 1
        k += 1
    raise IndexError(d)


def _is_none(i) -> bool:
    return isinstance(i, Const) and i.value is None


def _is_ellipsis(i) -> bool:
    return isinstance(i, Const) and i.value is Ellipsis
