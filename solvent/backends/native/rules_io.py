"""Native lowering of ``io.print`` (ops/io.py): a call back into Python, which formats the
text exactly as the interpreter and XLA do (``io.emit``).

Each print site gets a key into ``SITES`` (its attributes and operand dtypes and ranks). The
code stores a pointer to every operand's elements (a scalar spilled to the stack; an array
in C order, copied first when it is a fused value or has run-time strides) and their dims,
then calls ``solvent_print(key, ptrs, dims)``, a ctypes callback that takes the GIL, copies
the elements into NumPy arrays and prints. A print runs in program order: loops holding one
are never raised or run in parallel (the op is not pure).
"""
from __future__ import annotations

import ctypes
import math

import numpy as np
from llvmlite import ir

from ...ir.types import np_dtype
from ...ops import io
from .context import Lazy
from .types import I8, I64, mem_type

SITES: dict[int, tuple] = {}


def _callback(key, ptrs, dims):
    attrs, kinds = SITES[key]
    values, d = [], 0
    for k, (dtype, rank) in enumerate(kinds):
        shape = tuple(dims[d + j] for j in range(rank))
        d += rank
        dt = np_dtype(dtype)
        n = math.prod(shape)
        raw = ctypes.string_at(ptrs[k], n * dt.itemsize) if n else b""
        values.append(np.frombuffer(raw, dtype=dt, count=n).reshape(shape).copy())
    io.emit(attrs, values)


_CFUNC = ctypes.CFUNCTYPE(None, ctypes.c_int64, ctypes.POINTER(ctypes.c_void_p),
                          ctypes.POINTER(ctypes.c_int64))
_CALLBACK = _CFUNC(_callback)   # kept alive for the process: compiled code calls it
_BOUND = False


def _bind():
    global _BOUND
    if not _BOUND:
        import llvmlite.binding as llvm
        llvm.add_symbol("solvent_print", ctypes.cast(_CALLBACK, ctypes.c_void_p).value)
        _BOUND = True


def _print(op, ctx):
    _bind()
    b, ab = ctx.b, ctx.alloca_builder
    key = len(SITES)
    SITES[key] = (op.attrs, [(v.type.dtype, v.type.rank) for v in op.operands])
    i8p = ir.PointerType(I8)
    n = len(op.operands)
    total = sum(v.type.rank for v in op.operands)
    ptrs = ab.alloca(ir.ArrayType(i8p, max(n, 1)))
    dims = ab.alloca(ir.ArrayType(I64, max(total, 1)))
    zero = ir.Constant(I64, 0)
    d = 0
    for k, v in enumerate(op.operands):
        x, dtype = ctx.get(v), v.type.dtype
        if v.type.rank == 0:
            slot = ab.alloca(mem_type(dtype))
            b.store(b.zext(x, I8) if dtype == "i1" else x, slot)
            p = slot
        else:
            shape = ctx.dims(v)
            if isinstance(x, Lazy) or x.run_strides is not None:
                buf = ctx.alloc(shape, dtype)
                ctx.copy(buf, x)
                x = buf
            p = x.ptr
            for j, n_j in enumerate(shape):
                b.store(ctx.as_value(n_j), b.gep(dims, [zero, ir.Constant(I64, d + j)]))
            d += len(shape)
        b.store(b.bitcast(p, i8p), b.gep(ptrs, [zero, ir.Constant(I64, k)]))
    fn = ctx.module.globals.get("solvent_print") or ir.Function(
        ctx.module, ir.FunctionType(ir.VoidType(), [I64, i8p.as_pointer(), I64.as_pointer()]),
        "solvent_print")
    b.call(fn, [ir.Constant(I64, key), b.gep(ptrs, [zero, zero]), b.gep(dims, [zero, zero])])
    return []


RULES = {"io.print": _print}
