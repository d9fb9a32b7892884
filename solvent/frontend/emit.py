"""Emitting IR for operations on the frontend's abstract values, with NumPy's typing rules.

Dtypes come from NumPy itself (``ufunc.resolve_dtypes``, NEP 50: Python scalars are weak),
so the compiled program has exactly the dtypes plain NumPy would produce.
"""
from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ..errors import NeedStatic, UnsupportedError
from ..ir.builder import Builder
from ..ir.registry import IRError
from ..ir.types import dtype_name, is_static, np_dtype
from ..ops import elementwise
from .python_int_conversion import (checked_float_store, checked_u64_store,
                                    stores_through_python_int)
from .values import ArrayRef, Const, Tensor, TupleVal
from .wide_ints import is_wide, is_wide_tensor, wide_constant, wide_operands

# NumPy ufunc -> IR op name (from the op tables: one source of truth).
UFUNC_OP = {fn: f"tensor.{name}" for table in (elementwise.UNARY, elementwise.BINARY)
            for name, (fn, *_rest) in table.items()}
UFUNC_OP[np.positive] = None  # identity

_PY_SCALARS = (bool, int, float, complex)
_COMPARISONS = (np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal)
# Python arithmetic on bools gives ints (NumPy's bool loops would give bools; ~True is -2).
_INT_ARITH = (np.add, np.subtract, np.multiply, np.floor_divide, np.remainder, np.power,
              np.negative, np.positive, np.invert)


def py_weak_dtype(value) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "i1"
    if isinstance(value, int):
        return "i64"
    if isinstance(value, float):
        return "f64"
    if isinstance(value, complex):
        return "c128"
    return dtype_name(np.asarray(value).dtype)


class Emitter:
    """Builds IR for frontend values. ``self.b`` is the builder, ``self.loc`` the source loc."""

    b: Builder

    # --- errors --------------------------------------------------------------------------
    def unsupported(self, msg: str, hint: str | None = None):
        return UnsupportedError(msg, self.b.loc, hint)

    def need_static(self, x, what: str):
        deps = getattr(x, "deps", frozenset())
        if deps:
            return NeedStatic(deps, what, self.b.loc)
        return self.unsupported(f"{what} must be known at compile time, but it is computed at "
                                "run time", "derive it from array shapes or integer arguments")

    # --- run-time checks (ops/checks.py) ---------------------------------------------------
    def raise_now(self) -> bool:
        """Whether an error found while translating may be raised at compile time: only
        where NumPy certainly reaches it first, i.e. the code always runs (not in a loop, a
        branch or a conditionally evaluated operand) and no run-time check comes before it
        (that check could fail first). Otherwise the error must become a run-time check
        that always fails where it is reached."""
        return not (self.in_loop or self.depth_in_branch or self.shared.get("check_guards")
                    or self.shared.get("checks_emitted"))

    def numpy_error(self, kind: str, message: str) -> None:
        """An error NumPy raises whenever this line runs (kind: an ops/checks.KINDS name):
        raised now if the line certainly runs, else a run-time check that always fails."""
        if self.raise_now():
            from ..ops.checks import KINDS
            raise KINDS[kind](f"{self.b.loc}: {message}")
        self.check(Const(False), kind, message)

    def check(self, ok, kind: str, message: str, payload=None) -> None:
        """At run time, raise ``kind(message)`` with this line unless ``ok`` holds.
        ``message`` may hold one ``{}``, filled with the integer ``payload``."""
        self.shared["checks_emitted"] = True
        ok = self.tensor(ok)
        for g in self.shared.setdefault("check_guards", []):
            ok = self.ufunc(np.logical_or, ok, self.ufunc(np.logical_not, g))
        if ok.type.rank:
            ok = Tensor(self.b.one("tensor.reduce_all", ok.v, axes=list(range(ok.type.rank)),
                                   keepdims=False))
        if ok.dtype != "i1":
            ok = self.ufunc(np.not_equal, ok, Const(0))
        operands = [ok.v]
        if payload is not None:
            operands.append(self.convert(self.tensor(payload), "i64").v)
        self.b.create("error.check", operands, {"kind": kind, "message": message})

    @contextmanager
    def guarded_checks(self):
        """Checks emitted inside hold only where every guard added is true: operands that
        Python evaluates conditionally (after ``and``/``or``, the arms of ``x if c else y``)
        are computed unconditionally here, so their checks must be conditional."""
        stack = self.shared.setdefault("check_guards", [])
        depth = len(stack)
        try:
            yield stack.append
        finally:
            del stack[depth:]

    def check_index(self, idx, n, axis: int) -> None:
        """NumPy's IndexError for a run-time index (scalar or array) outside ``-n..n-1``
        (``n``: an int, or a run-time length as a Tensor). For an index array, the message
        names its largest index if that one is too large, else its smallest (NumPy names
        the first bad one in order)."""
        idx = self.convert(self.tensor(idx), "i64")
        if idx.type.static and idx.type.size == 0:
            return  # an empty index array selects nothing: nothing can be out of bounds
        size = f"with size {n}" if isinstance(n, int) else "(its length is known only at " \
            "run time)"
        n = Const(n) if isinstance(n, int) else n
        ok = self.ufunc(np.logical_and, self.ufunc(np.greater_equal, idx, self.ufunc(
            np.negative, n)), self.ufunc(np.less, idx, n))
        payload = idx
        if idx.type.rank:
            axes = list(range(idx.type.rank))
            hi, lo = (Tensor(self.b.one(f"tensor.reduce_{k}", idx.v, axes=axes, keepdims=False))
                      for k in ("max", "min"))
            payload = self.select(self.ufunc(np.greater_equal, hi, n), hi, lo)
        self.check(ok, "IndexError", f"index {{}} is out of bounds for axis {axis} {size}",
                   payload)

    # --- conversions between abstract values ----------------------------------------------
    def static(self, x, what: str = "this value"):
        """The compile-time Python value of ``x``."""
        if isinstance(x, Const):
            return x.value
        if isinstance(x, TupleVal):
            return tuple(self.static(i, what) for i in x.items)
        raise self.need_static(x, what)

    def static_int(self, x, what: str) -> int:
        v = self.static(x, what)
        if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
            raise self.unsupported(f"{what} must be an integer, got {v!r}")
        return int(v)

    def constant(self, value, dtype: str | None = None, weak: bool | None = None) -> Tensor:
        if isinstance(value, np.ndarray):
            if value.ndim:
                raise self.unsupported("array constants are not supported",
                                       "pass the array as an argument")
            value = value[()]
        if weak is None:  # np.float64 subclasses float, but NumPy scalars are strong
            weak = type(value) in _PY_SCALARS
        if dtype is None:
            if is_wide(Const(value)):
                return wide_constant(self, value)   # 2**64 - 1: a weak uint64
            dtype = py_weak_dtype(value)
        return Tensor(self.b.constant(value, dtype), weak=weak)

    @staticmethod
    def strong(x):
        """``x`` as a NumPy function returns it: a scalar result is a NumPy scalar (strong
        under NEP 50: ``np.exp(0.5) + A32`` is float64), not a weak Python scalar."""
        if isinstance(x, Tensor) and x.weak:
            return Tensor(x.v, weak=False, deps=x.deps, array0d=x.array0d)
        if isinstance(x, Const) and type(x.value) in _PY_SCALARS:
            v = np.asarray(x.value)
            return Const(v[()]) if v.dtype != object else x
        return x

    def tensor(self, x) -> Tensor:
        """Any array-like abstract value as a Tensor (reads arrays at this point)."""
        if isinstance(x, Tensor):
            return x
        if isinstance(x, ArrayRef):
            return self.read(x)
        if isinstance(x, Const):
            v = x.value
            if isinstance(v, (_PY_SCALARS, np.generic)) and not isinstance(v, str):
                return self.constant(v)
            if isinstance(v, (tuple, list)):
                return self.from_list(list(v))
            raise self.unsupported(f"cannot use {type(v).__name__} {v!r} as an array")
        if isinstance(x, TupleVal):
            return self.from_list(list(x.items))
        raise self.unsupported(f"cannot use {type(x).__name__} as an array")

    def from_list(self, items: list) -> Tensor:
        """np.array([...]) of scalars / equal-shape arrays."""
        if not items:
            raise self.unsupported("empty lists are not supported as arrays")
        vals = [self.tensor(Const(i) if not isinstance(i, (Tensor, ArrayRef, Const, TupleVal))
                            else i) for i in items]
        dtype = self.result_dtype(vals)
        vals = [self.convert(v, dtype) for v in vals]
        shapes = {v.shape for v in vals}
        if len(shapes) != 1:
            raise self.unsupported("list items have different shapes")
        parts = [self.b.one("tensor.reshape", v.v, shape=[1] + list(v.shape)) for v in vals]
        if len(parts) == 1:
            return Tensor(parts[0])
        return Tensor(self.b.one("tensor.concatenate", *parts, axis=0))

    def result_dtype(self, vals: list[Tensor]) -> str:
        probes = [self.probe(v) for v in vals]
        return dtype_name(np.result_type(*probes))

    @staticmethod
    def probe(v: Tensor):
        """What NumPy's type resolution should see for ``v`` (NEP 50 weak scalars)."""
        return Emitter.probe_of(v.dtype, v.weak, v.type.rank)

    @staticmethod
    def probe_of(dtype: str, weak: bool, rank: int):
        """A dtype, or for a weak scalar a Python value of its kind (NEP 50: NumPy's
        ``result_type`` treats Python *values* as weak, not Python types)."""
        if weak and rank == 0:
            return {"i64": 0, "f64": 0.0, "c128": 0j}.get(dtype, np_dtype(dtype))
        return np_dtype(dtype)

    def convert(self, x: Tensor, dtype: str) -> Tensor:
        if x.dtype == dtype:
            return x
        return Tensor(self.b.one("tensor.convert", x.v, dtype=dtype), weak=x.weak, deps=x.deps)

    def broadcast(self, x: Tensor, shape) -> Tensor:
        shape = tuple(shape)
        if x.shape == shape:
            return x
        if not (is_static(shape) and is_static(x.shape)):
            raise self.unsupported(f"broadcasting shape {x.shape} to {shape}, a length known "
                                   "only at run time")
        if not _broadcasts_to(x.shape, shape):   # NumPy's error (a[0:3] = np.ones(4))
            raise ValueError(f"{self.b.loc}: could not broadcast input array from shape "
                             f"{x.shape} into shape {shape}")
        return Tensor(self.b.one("tensor.broadcast_to", x.v, shape=list(shape)), deps=x.deps)

    # --- elementwise ----------------------------------------------------------------------
    def ufunc(self, uf: np.ufunc, *args) -> Tensor | Const:
        if all(isinstance(a, Const) for a in args) and all(
                isinstance(a.value, (_PY_SCALARS, np.generic)) for a in args):
            with np.errstate(all="ignore"):
                try:
                    return Const(_python_apply(uf, [a.value for a in args]))
                except ZeroDivisionError as e:  # Python raises it: so does solvent
                    if not self.raise_now():
                        # only where it runs: a failing run-time check, 0 stands in
                        self.check(Const(False), "ZeroDivisionError", str(e))
                        return Const(0.0 if uf is np.true_divide else 0)
                    raise ZeroDivisionError(f"{self.b.loc}: {e}") from None
                except (OverflowError, ValueError) as e:
                    raise self.unsupported(f"{uf.__name__}: {e}") from None
        args = wide_operands(self, uf, args)   # 2**64 - 1 next to uint64 values, ...
        if isinstance(args, Tensor):
            return args
        ts = [self.tensor(a) for a in args]
        if all(t.weak for t in ts) and uf in _INT_ARITH and all(t.dtype == "i1" for t in ts):
            ts = [self.convert(t, "i64") for t in ts]  # Python: True + True == 2
        if uf is np.power and all(t.weak and t.dtype == "i64" for t in ts) and \
                isinstance(args[1], Const) and args[1].value < 0:
            ts = [self.convert(t, "f64") for t in ts]  # Python: 2 ** -1 == 0.5
        try:
            out_shape = elementwise.broadcast_shapes(*(t.shape for t in ts))
        except IRError:
            msg = ("operands could not be broadcast together with shapes "
                   f"{' '.join(str(t.shape) for t in ts)}")
            if self.raise_now() or not all(is_static(t.shape) for t in ts):
                raise ValueError(f"{self.b.loc}: {msg}") from None
            # code that may never run (NumPy raises only if it does): a failing run-time
            # check, and zeros of the largest operand's shape stand in for the others
            self.check(Const(False), "ValueError", msg)
            big = max(ts, key=lambda t: (len(t.shape), int(np.prod(t.shape))))
            ts = [t if _broadcasts_to(t.shape, big.shape)
                  else Tensor(self.filled(0, t.dtype, big.shape), weak=t.weak) for t in ts]
            out_shape = big.shape
        self.check_broadcast(ts, out_shape)
        probes = [self.probe(t) for t in ts]
        if all(not isinstance(p, np.dtype) for p in probes):
            probes = [np.dtype(type(p)) for p in probes]  # Python scalars only: defaults
        else:  # resolve_dtypes marks weak scalars by their Python type
            probes = [p if isinstance(p, np.dtype) else type(p) for p in probes]
        try:
            loop = uf.resolve_dtypes(tuple(probes) + (None,) * uf.nout)
        except TypeError as e:  # NumPy found no loop for these dtypes: NumPy's error
            if self.raise_now():   # (elsewhere refused: no result dtype to stand in with)
                kind = "TypeError" if type(e) is TypeError else "UFuncTypeError"
                self.numpy_error(kind, f"numpy.{uf.__name__}: {e}")
            raise self.unsupported(f"numpy.{uf.__name__} does not support these dtypes "
                                   f"({', '.join(t.dtype for t in ts)}): {e}") from None
        in_dt = [dtype_name(d) for d in loop[:uf.nin]]
        out_dt = dtype_name(loop[uf.nin])
        if uf in _COMPARISONS and in_dt[0] == "u64" and len(ts) == 2 and \
                sum(t.weak and t.dtype == "i64" for t in ts) == 1:
            return self._compare_u64_with_python_int(uf, ts)
        in_dt = self.python_int_operands(uf, args, ts, in_dt)
        ts = [self.convert(t, d) for t, d in zip(ts, in_dt)]
        if uf is np.power and in_dt[0][0] in "iu" and in_dt[0] != "i1" and \
                not all(t.weak for t in ts):
            self.check_nonnegative_exponent(args[1], ts[1])
        if uf in _COMPARISONS and sorted(in_dt) == ["i64", "u64"]:
            return self._compare_i64_u64(uf, ts, in_dt.index("i64"))
        if len(set(in_dt)) != 1:
            raise self.unsupported(f"numpy.{uf.__name__} with mixed loop dtypes {in_dt}")
        weak = all(t.weak for t in ts) and not any(t.type.rank for t in ts)
        deps = frozenset().union(*(t.deps for t in ts))
        rule = _LOOP_DTYPE_RULES.get(uf)
        if rule is not None:
            special = rule(self, ts, in_dt[0], out_dt)
            if isinstance(special, list):
                ts = special          # operands converted to what the op takes
            elif special is not None:
                return Tensor(special, weak=weak, deps=deps)
        opname = UFUNC_OP.get(uf, "missing")
        if opname is None:
            return ts[0]
        if opname == "missing":
            raise self.unsupported(f"numpy.{uf.__name__} is not supported yet")
        v = self.b.one(opname, *(t.v for t in ts))
        if v.type.dtype != out_dt:
            v = self.b.one("tensor.convert", v, dtype=out_dt)
        return Tensor(v, weak=weak, deps=deps)

    def python_int_operands(self, uf, args, ts, in_dt):
        """NEP 50 for Python ints meeting a narrower integer array: arithmetic raises
        OverflowError when the value does not fit (at compile time for a constant, by a
        run-time check otherwise); comparisons compare the true values (in int64)."""
        d = in_dt[0]
        if d[0] not in "iu" or d in ("i1", "i64") or len(ts) < 2:
            return in_dt
        pyints = [k for k, t in enumerate(ts) if t.weak and t.dtype == "i64"
                  and t.type.rank == 0]
        if not pyints or len(pyints) == len(ts):
            return in_dt
        if uf in (np.equal, np.not_equal, np.less, np.less_equal, np.greater,
                  np.greater_equal) and d != "u64":
            return ["i64"] * len(in_dt)
        for k in pyints:
            self.check_fits(ts[k], d)
        return in_dt

    def _compare_u64_with_python_int(self, uf, ts):
        """A uint64 value against a Python int, by their true values (NumPy 2)."""
        k = next(i for i, t in enumerate(ts) if t.weak and t.dtype == "i64")
        return self._compare_i64_u64(uf, ts, k)

    def _compare_i64_u64(self, uf, ts, k):
        """A signed value ``ts[k]`` (an int64 array or a Python int) against a uint64 by their
        true values (NumPy 2's mixed loop): a negative one is below every uint64, so the
        answer is a constant there; otherwise both compare as uint64 (the negative is
        clamped to 0 first: a Python int's conversion would check that it fits)."""
        neg = self.ufunc(np.less, ts[k], Const(0))
        signed = [self.select(neg, Const(0), t) if i == k else t for i, t in enumerate(ts)]
        ops = [Tensor(self.convert(t, "u64").v, weak=False, deps=t.deps) for t in signed]
        below = bool(uf(*[-1 if i == k else 1 for i in range(2)]))   # the signed one negative
        return self.select(neg, Const(below), self.ufunc(uf, *ops))

    def check_nonnegative_exponent(self, arg, exponent: Tensor) -> None:
        msg = "Integers to negative integer powers are not allowed."
        if isinstance(arg, Const) and isinstance(arg.value, (int, np.integer)):
            if int(arg.value) < 0:
                raise ValueError(f"{self.b.loc}: {msg}")
            return
        self.check(self.ufunc(np.greater_equal, exponent, Const(0)), "ValueError", msg)

    def filled(self, value, dtype: str, shape):
        c = self.b.constant(value, dtype)
        return self.b.one("tensor.broadcast_to", c, shape=list(shape)) if shape else c

    def select(self, cond, a, b) -> Tensor:
        c = self.tensor(cond)
        if c.dtype != "i1":
            c = self.ufunc(np.not_equal, c, Const(0))
        ta, tb = self.tensor(a), self.tensor(b)
        dt = self.result_dtype([ta, tb])
        ta, tb = self.convert(ta, dt), self.convert(tb, dt)
        weak = ta.weak and tb.weak and c.type.rank == 0
        return Tensor(self.b.one("tensor.select", c.v, ta.v, tb.v), weak=weak,
                      deps=c.deps | ta.deps | tb.deps)

    # --- reads through views ---------------------------------------------------------------
    def read(self, ref: ArrayRef) -> Tensor:
        buf = ref.buf
        t = None
        for step in ref.chain:
            if t is None and step[0] == "index":
                t = self.b.one("array.read", buf.ref, *step[2], spec=step[1])
                continue
            if t is None:
                t = self.read_full(buf.ref)
            t = self.apply_view(t, step)
        if t is None:
            t = self.read_full(buf.ref)
        return Tensor(t)

    def read_full(self, ref):
        return self.b.one("array.read", ref, spec=full_spec(ref.type.shape))

    def apply_view(self, t, step):
        kind = step[0]
        if kind == "index":
            return self.b.one("tensor.slice", t, *step[2], spec=step[1])
        if kind == "transpose":
            return self.b.one("tensor.transpose", t, perm=list(step[1]))
        if kind == "part":
            return self.b.one(f"tensor.{step[1]}", t)
        return self.b.one("tensor.reshape", t, shape=list(step[1]))

    def with_part(self, whole, new_part, which: str):
        """``whole`` (complex) with its real or imaginary part replaced by ``new_part``, exactly
        (``tensor.complex``: an infinite part or a -0.0 stays as written)."""
        keep = self.b.one("tensor.imag" if which == "real" else "tensor.real", whole)
        re, im = (new_part, keep) if which == "real" else (keep, new_part)
        return self.b.one("tensor.complex", re, im)

    def write(self, ref: ArrayRef, spec: list, dyn: list, value) -> None:
        """``ref[spec] = value`` through ref's views, with NumPy's broadcasting and casting."""
        buf = ref.buf
        if buf.guard:
            raise self.unsupported(buf.guard, "write into a fresh copy (x = x.copy()) first")
        spec, dyn, reshape_to = drop_newaxis(spec, dyn)
        from ..ops.indexspec import result_shape
        target_shape = result_shape(ref.shape, spec, len(dyn))
        v = self.tensor(value)
        if not (is_static(target_shape) and is_static(v.shape)):
            v = self.store_runtime_shaped(self.cast_for_store(v, ref.dtype), target_shape,
                                          self.slice_lengths(ref, spec, dyn))
        else:
            if v.type.rank and np.prod(v.shape) == np.prod(target_shape) and \
                    _squeeze(v.shape) == _squeeze(target_shape) and v.shape != target_shape:
                v = Tensor(self.b.one("tensor.reshape", v.v, shape=list(target_shape)))
            v = self.broadcast(self.cast_for_store(v, ref.dtype), target_shape)
        # Values at each level of the view chain, outermost first.
        levels = []
        t = None
        for step in ref.chain:
            if t is None and step[0] == "index":
                t = self.b.one("array.read", buf.ref, *step[2], spec=step[1])
            else:
                if t is None:
                    t = self.read_full(buf.ref)
                t = self.apply_view(t, step)
            levels.append(t)
        new = v.v
        if ref.chain:
            new = self.b.one("tensor.update_slice", levels[-1], new, *dyn, spec=spec)
        else:
            self.b.create("array.write", [new, buf.ref] + list(dyn), {"spec": spec})
            return
        for k in range(len(ref.chain) - 1, -1, -1):
            step = ref.chain[k]
            prev_shape = (levels[k - 1].type.shape if k else buf.ref.type.shape)
            if step[0] == "transpose":
                new = self.b.one("tensor.transpose", new, perm=[int(p) for p in np.argsort(step[1])])
                if k == 0:
                    self.b.create("array.write", [new, buf.ref], {"spec": full_spec(prev_shape)})
                    return
                continue
            if step[0] == "part":
                prev = levels[k - 1] if k else self.read_full(buf.ref)
                new = self.with_part(prev, new, step[1])
                if k == 0:
                    self.b.create("array.write", [new, buf.ref], {"spec": full_spec(prev_shape)})
                    return
                continue
            if step[0] == "reshape":
                new = self.b.one("tensor.reshape", new, shape=list(prev_shape))
                if k == 0:
                    self.b.create("array.write", [new, buf.ref], {"spec": full_spec(prev_shape)})
                    return
                continue
            sspec, sdyn, _ = drop_newaxis(step[1], list(step[2]))
            inner_shape = result_shape(prev_shape, sspec, len(sdyn))
            new = self.b.one("tensor.reshape", new, shape=list(inner_shape))
            if k == 0:
                self.b.create("array.write", [new, buf.ref] + sdyn, {"spec": sspec})
                return
            new = self.b.one("tensor.update_slice", levels[k - 1], new, *sdyn, spec=sspec)
        raise AssertionError("unreachable")

    def write_all(self, ref: ArrayRef, value) -> None:
        """``ref[...] = value``."""
        self.write(ref, full_spec(ref.shape), [], value)

    def cast_for_store(self, v: Tensor, dtype: str) -> Tensor:
        """NumPy's same-kind casting for ``a[...] = v`` (complex into real is an error)."""
        if v.dtype == dtype:
            return v
        if v.dtype[0] == "c" and dtype[0] != "c":
            raise self.unsupported(f"cannot store complex values into a {dtype} array",
                                   "take .real or use a complex array")
        if (self.is_python_int(v) and dtype[0] in "iu" and dtype not in ("i1", "i64")) or \
                (is_wide_tensor(v) and dtype[0] in "iu" and dtype != "i1"):
            self.check_fits(v, dtype)
        elif not v.weak and v.type.rank == 0 and v.dtype[0] in "iu" and \
                v.dtype not in ("i1", "u64") and dtype[0] == "i" and dtype != "i1" and \
                not np.can_cast(np_dtype(v.dtype), np_dtype(dtype), "safe"):
            # a NumPy integer scalar stored into a narrower signed array goes through a
            # Python int: ``a[i] = np.int64(825)`` (and ``a[i] *= s``) raise OverflowError;
            # into an unsigned array it wraps, as a cast (``u8[i] = np.int64(260)`` is 4)
            self.check_fits(v, dtype)
        elif not v.weak and v.dtype == "u64" and v.type.rank == 0 and dtype[0] == "i" and \
                dtype != "i1":
            return checked_u64_store(self, v, dtype)   # a[i] = np.uint64(2**63): OverflowError
        elif stores_through_python_int(v, dtype):
            return checked_float_store(self, v, dtype)   # a[i] = nan into ints: ValueError
        return self.convert(v, dtype)

    @staticmethod
    def is_python_int(v: Tensor) -> bool:
        return v.weak and v.dtype == "i64" and v.type.rank == 0

    def convert_python_int(self, v: Tensor, dtype: str, all_ints: bool = False) -> Tensor:
        """``v`` converted to ``dtype`` where NumPy builds an array or scalar of ``dtype`` from
        it (np.array(300, dtype=np.int8), np.full, np.int8(300)): a Python int must fit an
        integer dtype (OverflowError otherwise; NumPy integer scalars wrap). ``all_ints``:
        every integer scalar must fit, as for the items of a sequence."""
        if dtype[0] in "iu" and dtype not in ("i1", "i64") and v.type.rank == 0 and (
                self.is_python_int(v) or (all_ints and v.dtype[0] in "iu" and v.dtype != "i1")):
            self.check_fits(v, dtype)
        elif dtype[0] in "iu" and dtype != "i1" and is_wide_tensor(v):
            self.check_fits(v, dtype)          # np.full(n, 2**64 - 1, np.int64) raises
        return self.convert(v, dtype)

    def check_fits(self, v: Tensor, dtype: str) -> None:
        """NEP 50: a Python int stored into (or combined with) a narrower integer array must
        fit its dtype, else OverflowError — at compile time for a constant."""
        info = np.iinfo(np_dtype(dtype))
        owner = v.v.owner
        if getattr(owner, "name", None) == "tensor.constant":
            value = int(owner.attrs["value"])
            if not info.min <= value <= info.max:
                raise OverflowError(f"{self.b.loc}: Python integer {value} out of bounds for "
                                    f"{np_dtype(dtype)}")
            return
        # bounds outside the range of v's own dtype hold anyway (and are no constants of
        # it: uint64's maximum is not an int64)
        own = np.iinfo(np_dtype(v.dtype)) if v.dtype[0] in "iu" and v.dtype != "i1" else None
        tests = []
        if own is None or info.min > own.min:
            tests.append(self.ufunc(np.greater_equal, v, Const(info.min)))
        if own is None or info.max < own.max:
            tests.append(self.ufunc(np.less_equal, v, Const(info.max)))
        if not tests:
            return
        fits = tests[0] if len(tests) == 1 else self.ufunc(np.logical_and, *tests)
        self.check(fits, "OverflowError", f"Python integer {{}} out of bounds for "
                   f"{np_dtype(dtype)}", v)


# NumPy ufunc loops whose dtypes the op of the same name does not take: each rule returns
# the result value, a list of converted operands for the op, or None (the op takes them).
def _logical_operands(em, ts, dt, out_dt):
    """logical_not/and/or/xor of numbers: NumPy tests x != 0 (NaN is true)."""
    return None if dt == "i1" else [em.convert(t, "i1") for t in ts]


def _abs_of_unsigned(em, ts, dt, out_dt):
    return ts[0].v if dt == "i1" or dt[0] == "u" else None


def _float_predicate(answer):
    """isnan/isinf/isfinite of bool and integer values: a constant answer."""
    def rule(em, ts, dt, out_dt):
        return None if dt[0] in "fc" else em.filled(answer, "i1", ts[0].shape)
    return rule


def _complex_order(strict_real, cmp_imag):
    """NumPy orders complex numbers lexicographically: by real part, then imaginary part;
    the real parts decide only where neither imaginary part is NaN (NumPy's CLT/CGT:
    ``(inf + nan j) > 0`` is False)."""
    def rule(em, ts, dt, out_dt):
        if dt[0] != "c":
            return None
        b = em.b
        (ar, ai), (br, bi) = [(b.one("tensor.real", t.v), b.one("tensor.imag", t.v))
                              for t in ts]
        ordered = b.one("tensor.not", b.one("tensor.or", b.one("tensor.isnan", ai),
                                            b.one("tensor.isnan", bi)))
        first = b.one("tensor.and", b.one(strict_real, ar, br), ordered)
        tie = b.one("tensor.and", b.one("tensor.eq", ar, br), b.one(cmp_imag, ai, bi))
        return b.one("tensor.or", first, tie)
    return rule


def _scaled(num: float, den: float):
    """np.degrees/np.radians (rad2deg/deg2rad): NumPy's loop multiplies by num/den computed in
    the loop's own dtype (float32: float32(180) / float32(pi), not the rounded double)."""
    def rule(em, ts, dt, out_dt):
        from ..ir.types import np_dtype
        t = np_dtype(dt).type
        return em.ufunc(np.multiply, ts[0], em.constant(t(num) / t(den), dt, weak=False)).v
    return rule


def _complex_rint(em, ts, dt, out_dt):
    """rint of a complex value rounds each part (NumPy's loop does; XLA's has none)."""
    if dt[0] != "c":
        return None
    b = em.b
    re, im = (b.one("tensor.rint", b.one(f"tensor.{p}", ts[0].v)) for p in ("real", "imag"))
    return b.one("tensor.complex", re, im)


def _array_power_of_scalar(em, ts, dt, out_dt):
    """NumPy's float (and complex) ``power`` loop takes the square root where the exponent is one scalar
    0.5 across an array (``x ** 0.5``, ``np.power(x, 0.5)``): ``(-inf) ** 0.5`` is NaN and
    ``(-0.0) ** 0.5`` is -0.0 there, while C's ``pow`` (``tensor.pow``, and NumPy's own scalar
    ``np.float64(-inf) ** 0.5``) gives inf and 0.0. An array base with a scalar exponent
    follows the loop: a constant 0.5 is ``sqrt``; a run-time one selects ``sqrt`` where it
    is 0.5. A scalar base (``x[i] ** 0.5``) keeps ``pow``."""
    from ..ir.rewrite import constant_value, defining
    base, e = ts
    if dt[0] not in "fc" or not base.type.rank or e.type.rank:
        return None
    b = em.b
    conv = defining(e.v)    # x ** 2: the int constant converted to the float loop's dtype
    value = constant_value(conv.operands[0] if conv is not None and
                           conv.name == "tensor.convert" else e.v)
    if value is not None:
        return b.one("tensor.sqrt", base.v) if complex(value) == 0.5 else None
    if dt[0] == "c":
        return None   # (a run-time complex exponent keeps pow)
    half = b.one("tensor.eq", e.v, b.constant(0.5, dt))
    return b.one("tensor.select", half, b.one("tensor.sqrt", base.v),
                 b.one("tensor.pow", base.v, e.v))


def _integer_identity(em, ts, dt, out_dt):
    """floor/ceil/trunc of integers and bools: the values themselves (NumPy 2)."""
    return ts[0].v if np_dtype(dt).kind in "iub" else None


def _integer_reciprocal(em, ts, dt, out_dt):
    """1 / x in C for integers as NumPy's loop: 1 and -1 stay, all else is 0, but 0 gives
    what NumPy's loop gives here (the dtype's minimum for int32/int64, 0 for int8)."""
    if np_dtype(dt).kind not in "iu":
        return None
    x = ts[0]
    with np.errstate(all="ignore"):
        at_zero = int(np.reciprocal(np.zeros(1, np_dtype(dt)))[0])
    r = em.select(em.ufunc(np.equal, x, Const(1)), Const(1), Const(0))
    r = em.select(em.ufunc(np.equal, x, Const(0)), Const(at_zero), r)
    if np_dtype(dt).kind == "i":
        r = em.select(em.ufunc(np.equal, x, Const(-1)), Const(-1), r)
    return em.convert(r, dt).v


def _nan_free_extreme(plain):
    """fmax/fmin of values that hold no NaN (bools, integers) is maximum/minimum; complex
    fmax/fmin (NaN-aware, lexicographic) is refused with what to write instead."""
    def rule(em, ts, dt, out_dt):
        kind = np_dtype(dt).kind
        if kind in "biu":
            return em.ufunc(plain, *ts).v
        if kind == "c":
            raise em.unsupported(f"numpy.f{plain.__name__[:3]} of complex values is not "
                                 "supported yet", f"use np.{plain.__name__}")
        return None
    return rule


_LOOP_DTYPE_RULES = {
    np.fmax: _nan_free_extreme(np.maximum), np.fmin: _nan_free_extreme(np.minimum),
    np.floor: _integer_identity, np.ceil: _integer_identity, np.trunc: _integer_identity,
    np.reciprocal: _integer_reciprocal,
    np.power: _array_power_of_scalar,
    np.rint: _complex_rint,
    np.degrees: _scaled(180.0, np.pi), np.rad2deg: _scaled(180.0, np.pi),
    np.radians: _scaled(np.pi, 180.0), np.deg2rad: _scaled(np.pi, 180.0),
    np.logical_not: _logical_operands, np.logical_and: _logical_operands,
    np.logical_or: _logical_operands, np.logical_xor: _logical_operands,
    np.absolute: _abs_of_unsigned,
    np.isnan: _float_predicate(False), np.isinf: _float_predicate(False),
    np.isfinite: _float_predicate(True),
    np.less: _complex_order("tensor.lt", "tensor.lt"),
    np.less_equal: _complex_order("tensor.lt", "tensor.le"),
    np.greater: _complex_order("tensor.gt", "tensor.gt"),
    np.greater_equal: _complex_order("tensor.gt", "tensor.ge"),
}


def _broadcasts_to(shape, target) -> bool:
    try:
        return np.broadcast_shapes(shape, target) == tuple(target)
    except ValueError:
        return False


def full_spec(shape) -> list:
    return [["s", 0, n, 1] if n is not None else ["r", -1, -1, 1] for n in shape]


def drop_newaxis(spec, dyn):
    if all(it[0] != "n" for it in spec):
        return spec, list(dyn), None
    return [it for it in spec if it[0] != "n"], list(dyn), True


def _squeeze(shape):
    return tuple(d for d in shape if d != 1)


def _python_apply(uf, values):
    """Apply a ufunc to compile-time scalars the way Python/NumPy would at run time."""
    if all(isinstance(v, _PY_SCALARS) for v in values):
        import operator
        pyops = {np.add: operator.add, np.subtract: operator.sub, np.multiply: operator.mul,
                 np.true_divide: operator.truediv, np.floor_divide: operator.floordiv,
                 np.remainder: operator.mod, np.power: operator.pow,
                 np.negative: operator.neg, np.equal: operator.eq, np.not_equal: operator.ne,
                 np.less: operator.lt, np.less_equal: operator.le, np.greater: operator.gt,
                 np.greater_equal: operator.ge, np.bitwise_and: operator.and_,
                 np.bitwise_or: operator.or_, np.bitwise_xor: operator.xor,
                 np.left_shift: operator.lshift, np.right_shift: operator.rshift,
                 np.invert: operator.invert, np.positive: operator.pos}
        if uf in pyops:
            return pyops[uf](*values)
    r = uf(*values)
    return r
