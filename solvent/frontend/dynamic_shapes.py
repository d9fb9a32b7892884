"""Values whose lengths follow run-time data (a ``?`` dim, see ``ir/types.py``).

A slice whose bounds are loop variables or values read from arrays (``A[i, :j]``,
``vals[rowptr[i]:rowptr[i + 1]]``) becomes a run-time slice item ``["r", ...]`` with NumPy's
slice semantics (negative bounds count from the end, out-of-range bounds clamp); a
boolean-mask read ``x[mask]`` is ``tensor.mask_select``; ``np.nonzero``, ``np.flatnonzero``
and ``np.argwhere`` read rows of ``tensor.nonzero``. ``len()`` and ``.shape`` of such a
value are run-time integers (``tensor.dim``).

Where NumPy would check lengths (broadcasting two operands, a contraction, assigning into a
slice) and one of them is known only at run time, a run-time check raises NumPy's error at
the source line. Where NumPy would *broadcast* a run-time length of 1 against another
length, solvent raises instead (it compiled the operation for equal lengths): a refusal,
never a different answer.
"""
from __future__ import annotations

import numpy as np

from ..ir.types import DYN, is_static
from .values import Const, Tensor


class DynamicShapeMixin:
    def dim(self, x, axis: int):
        """The length of ``x``'s dim ``axis``: a Const when static, else an i64 Tensor."""
        n = x.shape[axis]
        if n is not DYN:
            return Const(n)
        # a Python int, as len() and .shape give
        return Tensor(self.b.one("tensor.dim", self.tensor(x).v, axis=axis), weak=True)

    def runtime_slice(self, it, dyn: list):
        """``["r", j, k, step]`` for ``x[lower:upper:step]`` with run-time bounds, or
        ``["r", j, k, 0, m]`` when the step itself is computed at run time (then checked
        not to be zero, NumPy's ValueError)."""
        run_step = None
        if it.step is not None and not isinstance(it.step, Const) \
                and not getattr(it.step, "deps", None):
            t = self.tensor(it.step)
            if t.type.rank or t.dtype[0] not in "iu":
                raise TypeError(f"{self.b.loc}: slice indices must be integers or None, got "
                                f"{t.type}")
            run_step = self.convert(t, "i64")
            self.check(self.ufunc(np.not_equal, run_step, Const(0)), "ValueError",
                       "slice step cannot be zero")
            step = 0
        else:
            step = 1 if it.step is None else self.static_int(it.step, "a slice step")
        if step == 0 and run_step is None:
            raise ValueError(f"{self.b.loc}: slice step cannot be zero")
        js = []
        for p in (it.lower, it.upper):
            if p is None or (isinstance(p, Const) and p.value is None):
                js.append(-1)
                continue
            t = self.tensor(p)
            if t.type.rank or (t.dtype[0] not in "iu"):
                raise TypeError(f"{self.b.loc}: slice indices must be integers or None, got "
                                f"{t.type}")
            dyn.append(self.convert(t, "i64").v)
            js.append(len(dyn) - 1)
        if run_step is None:
            return ["r", js[0], js[1], step]
        dyn.append(run_step.v)
        return ["r", js[0], js[1], 0, len(dyn) - 1]

    def check_dims_agree(self, pairs, what: str, error: str = "ValueError") -> None:
        """Run-time checks that each (length, length) pair is equal, where one is ``?``;
        ``error`` (NumPy's exception) otherwise. ``pairs``: [(x, axis, y, axis)]."""
        for x, ax, y, ay in pairs:
            n, m = x.shape[ax], y.shape[ay]
            if n is not DYN and m is not DYN:
                continue
            a, b = self.dim(x, ax), self.dim(y, ay)
            self.check(self.ufunc(np.equal, a, b), error,
                       f"{what}: a length of {{}} against "
                       f"{'another run-time length' if m is DYN else m} (solvent compiled this "
                       "for equal lengths; NumPy would broadcast a length of 1, or raise)", a)

    def check_broadcast(self, ts, out_shape, what: str = "operands could not be broadcast "
                        "together", error: str = "ValueError") -> None:
        """Run-time checks for a broadcast where some dims are ``?``: every ``?`` dim equals
        the static length of the result, or the first ``?`` operand's length."""
        if all(is_static(t.shape) for t in ts):
            return
        rank = len(out_shape)
        pairs = []
        for d in range(rank):
            first = None
            for t in ts:
                k = t.type.rank - rank + d
                if k < 0 or t.shape[k] == 1:
                    continue
                if first is None:
                    first = (t, k)
                elif t.shape[k] is DYN or first[0].shape[first[1]] is DYN:
                    pairs.append((t, k) + first)
        self.check_dims_agree(pairs, what, error)  # NumPy's words

    def store_runtime_shaped(self, v, target_shape, lengths):
        """The value stored by ``x[...] = v`` into a slice of shape ``target_shape`` when
        either has a ``?`` dim (``lengths``: the slice's length per dim, Const or Tensor): a
        scalar fills the slice (``update_slice`` takes a rank-0 value for a run-time slice);
        an array must have the slice's shape, its run-time lengths checked (NumPy's
        broadcasting of a length-1 value is refused, not guessed)."""
        if v.type.rank == 0:
            if is_static(target_shape):
                return self.broadcast(v, target_shape)
            return v
        if v.type.rank != len(target_shape) or any(
                a is not DYN and b is not DYN and a != b for a, b in zip(v.shape, target_shape)):
            raise self.unsupported(f"assigning a value of shape {v.shape} into a slice of shape "
                                   f"{target_shape} (a run-time length): solvent assigns a "
                                   "scalar or a value of the slice's own shape")
        for d, n in enumerate(lengths):
            if v.shape[d] is DYN or target_shape[d] is DYN:
                m = self.dim(v, d)
                self.check(self.ufunc(np.equal, m, n), "ValueError",
                           f"could not broadcast input array of length {{}} along axis {d} "
                           "into a slice of another length (solvent does not broadcast a "
                           "run-time length of 1)", m)
        return v

    def index_arrays(self, adv) -> list:
        """The IR values (i64) of advanced indices ``adv`` ([(axis, Tensor)]). Where some
        have a run-time length (``np.nonzero``'s rows, ``np.where(mask)``) their lengths
        are checked to agree at run time: NumPy's IndexError otherwise."""
        idx = [self.convert(i, "i64") for _, i in adv]
        if len(idx) > 1:
            rank = max(i.type.rank for i in idx)
            self.check_broadcast(idx, [None] * rank, "shape mismatch: indexing arrays could "
                                 "not be broadcast together", "IndexError")
        return [i.v for i in idx]

    def scatter_value(self, v, gshape, adv):
        """The value scattered by ``x[idx] = v`` / ``np.add.at(x, idx, v)``, of the gathered
        shape ``gshape``. Where that has a run-time length (1-D index arrays of run-time
        length: one, or several whose lengths index_arrays checks agree) a scalar is
        repeated that many times (``tensor.fill``), and an array must have that length
        (checked at run time, NumPy's ValueError otherwise)."""
        runtime = [t for _, t in adv if t.type.rank == 1 and t.shape[0] is DYN]
        if is_static(gshape) or len(gshape) != 1 or not runtime or \
                any(t.type.rank > 1 for _, t in adv):
            return self.broadcast(v, gshape)
        idx = runtime[0]
        if v.type.rank == 1 and v.shape[0] == 1:   # one value broadcasts, as in NumPy
            v = Tensor(self.b.one("tensor.reshape", v.v, shape=[]))
        if v.type.rank == 0:
            n = self.convert(self.tensor(self.dim(idx, 0)), "i64")
            return Tensor(self.b.one("tensor.fill", v.v, n.v))
        if v.type.rank != 1:
            raise self.unsupported(f"assigning a value of shape {v.shape} through an index "
                                   "array of run-time length: solvent assigns a scalar or a "
                                   "1-D value of the index's length")
        self.check_dims_agree([(v, 0, idx, 0)], "shape mismatch: value array could not be "
                              "broadcast to indexing result")
        return v

    def store_through_mask(self, view, cur, mask, v):
        """``a[mask] = values`` with a mask of ``a``'s full shape: ``a.ravel()[flatnonzero(
        mask)] = values``, both sides in C order (the IR's reshape is row-major), so one
        index array of run-time length serves any rank."""
        flat = [int(np.prod(cur.shape))] if is_static(cur.shape) else [-1]
        if flat == [-1] and cur.type.rank > 1:
            raise self.unsupported("assigning values through a boolean mask of a "
                                   "multi-dimensional array of run-time shape",
                                   "use a[...] = np.where(mask, values, a)")
        if cur.type.rank > 1:
            cur = Tensor(self.b.one("tensor.reshape", cur.v, shape=flat))
            mask = Tensor(self.b.one("tensor.reshape", mask.v, shape=flat))
        idx = Tensor(self.b.one("tensor.slice", self.nonzero_rows(mask).v,
                                spec=[["c", 0], ["r", -1, -1, 1]]))
        v = self.scatter_value(self.cast_for_store(v, cur.dtype), (DYN,), [(0, idx)])
        new = Tensor(self.b.one("tensor.scatter", cur.v, v.v, idx.v, axes=[0]))
        if view.type.rank > 1:
            new = Tensor(self.b.one("tensor.reshape", new.v, shape=list(view.shape)))
        self.write_all(view, new)

    def slice_lengths(self, ref, spec, dyn):
        """Per result dim of ``ref[spec]``: its length (Const, or an i64 Tensor for a run-time
        slice, computed as ``len(range(*slice(a, b, step).indices(n)))``)."""
        out, d = [], 0
        for it in spec:
            if it[0] == "n":
                out.append(Const(1))
                continue
            if it[0] == "r":
                n = self.dim(ref, d)
                a, b = (None if j < 0 else Tensor(dyn[j]) for j in it[1:3])
                if len(it) == 5:   # a run-time step: the length for its sign
                    step = Tensor(dyn[it[4]])
                    out.append(self.select(self.ufunc(np.greater_equal, step, Const(0)),
                                           self._range_len(n, a, b, step, 1),
                                           self._range_len(n, a, b, step, -1)))
                else:
                    out.append(self._range_len(n, a, b, it[3]))
            elif it[0] == "s":
                out.append(Const(len(range(*it[1:]))))
            elif it[0] == "d":
                out.append(Const(it[2]))
            d += 1
        return out

    def _range_len(self, n, a, b, step, sign=None):
        """``len(range(*slice(a, b, step).indices(n)))``; ``step`` an int, or a Tensor whose
        sign is ``sign`` (1 or -1; the result is meaningless for the other sign)."""
        u, mx, mn = self.ufunc, np.maximum, np.minimum
        add, sub = np.add, np.subtract

        def bound(x, default, lo, hi):
            if x is None:
                return default
            wrapped = self.select(u(np.less, x, Const(0)), u(add, x, n), x)
            return u(mn, u(mx, wrapped, lo), hi)
        if sign is None:
            sign, step = (1, Const(step)) if step > 0 else (-1, Const(-step))
        else:   # |step|, never 0 (a zero step has failed its check; 1 keeps this total)
            step = u(mx, u(np.multiply, step, Const(sign)), Const(1))
        if sign > 0:
            start = bound(a, Const(0), Const(0), n)
            stop = bound(b, n, Const(0), n)
            span = u(sub, stop, start)
        else:
            last = u(sub, n, Const(1))
            start = bound(a, last, Const(-1), last)
            stop = bound(b, Const(-1), Const(-1), last)
            span = u(sub, start, stop)
        return u(mx, u(np.floor_divide, u(add, span, u(sub, step, Const(1))), step), Const(0))

    # --- boolean masks and the nonzero family ------------------------------------------------
    def mask_select(self, x, mask) -> Tensor:
        x, m = self.tensor(x), self.tensor(mask)
        if m.type.rank == 0:
            raise self.unsupported("a 0-d boolean index (x[True]) adds a dimension",
                                   "use np.where")
        self.check_mask_shape(m, x)
        return Tensor(self.b.one("tensor.mask_select", x.v, m.v))

    def check_mask_shape(self, m, x) -> None:
        """NumPy's IndexError for a boolean index ``m`` that does not match ``x``'s leading
        dims: at compile time where both lengths are known, else by a run-time check."""
        if m.type.rank > x.type.rank:
            raise IndexError(f"{self.b.loc}: too many indices for array: array is "
                             f"{x.type.rank}-dimensional, but {m.type.rank} were indexed")
        for d, (a, n) in enumerate(zip(m.shape, x.shape)):
            msg = (f"boolean index did not match indexed array along axis {d}; size of axis "
                   f"is {{}} but size of corresponding boolean axis is "
                   f"{'another length' if a is DYN else a}")
            if a is not DYN and n is not DYN:
                if a != n:
                    raise IndexError(f"{self.b.loc}: {msg.format(n)}")
                continue
            la, ln = self.dim(m, d), self.dim(x, d)
            self.check(self.ufunc(np.equal, la, ln), "IndexError", msg, ln)

    def nonzero_rows(self, x) -> Tensor:
        """``np.array(np.nonzero(x))``: (x.ndim, ?) i64."""
        t = self.tensor(x)
        if t.type.rank == 0:
            raise ValueError(f"{self.b.loc}: Calling nonzero on 0d arrays is not allowed. Use "
                             "np.atleast_1d(scalar).nonzero() instead.")
        if not is_static(t.shape):
            raise self.unsupported("np.nonzero of an array whose shape is known only at run time")
        return Tensor(self.b.one("tensor.nonzero", t.v))
