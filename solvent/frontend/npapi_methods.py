"""Array attributes (``.shape``, ``.T``...) and methods (``.sum()``, ``.copy()``...)."""
from __future__ import annotations

import numpy as np

from ..ir.types import np_dtype
from . import npapi_creation as cr
from . import npapi_math as nm
from . import npapi_decompositions as nd
from . import npapi_pymath  # noqa: F401  (registers the math module's functions)
from . import npapi_print  # noqa: F401  (registers print)
from .emit import full_spec
from .values import ArrayRef, Const, Tensor, TupleVal


def _prelude_impl(fn):
    from .npapi_prelude import PRELUDE
    try:
        return PRELUDE.get(fn)
    except TypeError:  # unhashable
        return None


# ``x.name(...)`` is ``np.name(x, ...)`` for these methods
METHOD_FUNCTIONS = {
    "sum": np.sum, "prod": np.prod, "max": np.max, "min": np.min, "mean": np.mean,
    "argmax": np.argmax, "argmin": np.argmin, "any": np.any, "all": np.all,
    "std": np.std, "var": np.var, "cumsum": np.cumsum, "cumprod": np.cumprod,
    "dot": np.dot, "clip": np.clip, "round": np.round, "ravel": np.ravel,
    "squeeze": np.squeeze, "repeat": np.repeat, "trace": np.trace,
    "conj": np.conjugate, "conjugate": np.conjugate, "argsort": np.argsort,
    "diagonal": np.diagonal, "swapaxes": np.swapaxes, "nonzero": np.nonzero,
}
# methods with their own translation in ``call_method`` (what each does, for the coverage
# document; a test checks that every name here is handled and no other is)
OWN_METHODS = {
    "sort": "in place, as np.sort along the last axis",
    "reshape": "view or copy as NumPy's layout rule decides", "transpose": "view",
    "copy": "new array", "flatten": "new 1-D array",
    "astype": "new array of the dtype (copy=False and its own dtype: the array itself)",
    "fill": "in place, on an array variable", "item": "the element as a Python scalar",
}
ATTRIBUTES = ("shape", "ndim", "size", "dtype", "itemsize", "T", "real", "imag")


class ApiMixin:
    def function_handler(self, fn):
        try:
            h = cr.FUNCTIONS.get(fn)
        except TypeError:  # unhashable
            h = None
        if h is not None:
            return h
        impl = _prelude_impl(fn)
        if impl is not None:
            def inline(fe, *args, **kwargs):
                return fe.inline_call(impl, list(args), kwargs, None, keep_loc=True)
            inline.python_result = True  # the implementation returns what NumPy returns
            return inline
        if nm.is_ufunc_method(fn):
            return lambda fe, *args, **kwargs: nm._ufunc_method(fe, fn, args, kwargs)
        return None

    def tensor_type(self, x):
        if isinstance(x, (Tensor, ArrayRef)):
            return x.type
        return self.tensor(x).type

    def truth_array(self, x: Tensor) -> Tensor:
        return x if x.dtype == "i1" else self.ufunc(np.not_equal, x, Const(0))

    def matmul(self, a, b):
        return nm.matmul(self, a, b)

    def add_at(self, target, indices, values=Const(1)):
        if not isinstance(target, ArrayRef):
            raise self.unsupported("np.add.at needs an array variable as its first argument")
        items = list(indices.items) if hasattr(indices, "items") else [indices]
        spec, dyn, adv = self.analyze_index(target.shape, items, target)
        if not adv:
            cur = self.getitem(target, items)
            self.setitem(target, items, self.ufunc(np.add, cur, values))
            return Const(None)
        if dyn or spec != full_spec(target.shape):
            raise self.unsupported("np.add.at mixing slices and index arrays")
        from ..ops.structural import gather_shape
        cur = self.read(target)
        idx = self.index_arrays(adv)
        axes = [d for d, _ in adv]
        gshape = gather_shape(cur.shape, axes, [t.shape for _, t in adv], False)
        v = self.scatter_value(self.cast_for_store(self.tensor(values), cur.dtype), gshape, adv)
        new = self.b.one("tensor.scatter_add", cur.v, v.v, *idx, axes=axes)
        self.write_all(target, Tensor(new))
        return Const(None)

    # --- attributes -----------------------------------------------------------------------
    def array_attribute(self, x, name):
        t = x.type
        if name == "shape":
            if not t.static:
                return TupleVal(tuple(self.dim(x, d) for d in range(t.rank)))
            return Const(tuple(t.shape))
        if name == "ndim":
            return Const(t.rank)
        if name == "size":
            if not t.static:
                n = Const(1)
                for d in range(t.rank):
                    n = self.ufunc(np.multiply, n, self.dim(x, d))
                return n
            return Const(t.size)
        if name == "dtype":
            return Const(np_dtype(t.dtype))
        if name == "itemsize":
            return Const(np_dtype(t.dtype).itemsize)
        if name == "T":
            return cr._transpose(self, x)
        if name in ("real", "imag"):
            return self.complex_part(x, name)
        raise self.unsupported(f"array attribute .{name} is not supported")

    def complex_part(self, x, which: str):
        """``x.real`` / ``x.imag``: views of an array variable, as in NumPy."""
        t = self.tensor_type(x) if not isinstance(x, Const) else self.tensor(x).type
        if t.dtype[0] != "c":
            if which == "real":
                return x
            return cr.filled(self, t.shape, Const(0), t.dtype)
        if isinstance(x, ArrayRef):
            from ..ir.types import TensorType
            real_dt = {"c64": "f32", "c128": "f64"}[t.dtype]
            return ArrayRef(x.buf, x.chain + (("part", which),), TensorType(t.shape, real_dt))
        v = self.tensor(x)
        return Tensor(self.b.one(f"tensor.{which}", v.v), weak=v.weak, deps=v.deps)

    # --- methods --------------------------------------------------------------------------
    def call_method(self, x, name, args, kwargs):
        if name == "sort":
            return nd.sort_method(self, x, *args, **kwargs)
        if name in ("real", "imag"):
            return self.complex_part(x, name)
        if name in ("reshape", "transpose"):
            if len(args) > 1 or (args and isinstance(args[0], Const)
                                 and isinstance(args[0].value, int)):
                args = [Const(tuple(self.static(a, "a shape") for a in args))]
            fn = cr._reshape if name == "reshape" else cr._transpose
            return fn(self, x, *args, **kwargs)
        if name == "copy":
            return cr._copy(self, x)
        if name == "flatten":
            return cr._copy(self, cr._ravel(self, x))
        if name == "astype":
            return astype(self, x, *args, **kwargs)
        if name == "fill":
            if not isinstance(x, ArrayRef):
                raise self.unsupported(".fill() on a temporary value")
            self.write_all(x, args[0])
            return Const(None)
        if name in ("conj", "conjugate") and self.tensor_type(x).dtype[0] != "c":
            return x  # NumPy: a real array's .conj() is the array itself (np.conj copies)
        if name == "item":
            t = self.tensor(x)
            if len(args) == 1 and t.type.rank > 1:  # one index: into the flattened array
                t = self.tensor(cr._ravel(self, x))
                t = self.tensor(self.getitem(t, list(args)))
            elif args:
                t = self.tensor(self.getitem(x, list(args)))
            if t.type.rank and t.type.size != 1:
                raise ValueError(f"{self.b.loc}: can only convert an array of size 1")
            t = Tensor(self.b.one("tensor.reshape", t.v, shape=[])) if t.type.rank else t
            return Tensor(t.v, weak=True)
        fn = METHOD_FUNCTIONS.get(name)
        if fn is None:
            raise self.unsupported(f"array method .{name}() is not supported")
        if isinstance(fn, np.ufunc):
            return self.ufunc(fn, x)
        impl = _prelude_impl(fn)
        if impl is not None:
            return self.inline_call(impl, [x, *args], kwargs, None, keep_loc=True)
        handler = cr.FUNCTIONS[fn]
        return handler(self, x, *args, **kwargs)


def astype(fe, x, dtype, order=None, casting=None, subok=None, copy=None):
    """``x.astype(dtype, order='K', casting='unsafe', subok=True, copy=True)``: a new array of
    ``dtype``; with ``copy=False`` and ``x``'s own dtype, NumPy returns ``x`` itself (writes
    through the result reach ``x``). A cast ``casting`` forbids is NumPy's TypeError."""
    dt = cr.static_dtype(fe, dtype)
    src = fe.tensor_type(x).dtype
    how = "K" if order is None else fe.static(order, "order")
    if how not in ("K", "A", "C", "F"):
        raise ValueError(f"{fe.b.loc}: order must be one of 'C', 'F', 'A', or 'K' (got {how!r})")
    rule = "unsafe" if casting is None else fe.static(casting, "casting")
    if not np.can_cast(np_dtype(src), np_dtype(dt), casting=rule):
        msg = (f"Cannot cast array data from dtype('{np_dtype(src)}') to "
               f"dtype('{np_dtype(dt)}') according to the rule '{rule}'")
        if fe.raise_now():
            raise TypeError(f"{fe.b.loc}: {msg}")
        fe.check(Const(False), "TypeError", msg)    # where it runs, as NumPy raises it
    if dt == src and copy is not None and not fe.static(copy, "copy"):
        if not isinstance(x, ArrayRef) or how == "K":
            return x    # no copy needed: the array itself
        if how == "C" and cr.is_c_contiguous(*cr.view_strides(x)):
            return x
        raise fe.unsupported(f"astype(copy=False, order={how!r}) of an array variable (NumPy "
                             "returns the array itself or a copy depending on its memory layout)",
                             "use order='K' (the default)")
    t = fe.tensor(x)
    out = fe.convert(t, dt) if dt != src else fe.tensor(cr._copy(fe, x))
    return Tensor(out.v, deps=out.deps, array0d=True) if not out.type.rank else out
