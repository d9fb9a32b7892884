"""LLVM types of solvent dtypes. Booleans are ``i1`` in registers and one byte in memory
(NumPy's bool layout); unsigned integers share LLVM's sign-less integer types and are told
apart by the dtype name where an operation depends on the sign."""
from __future__ import annotations

from llvmlite import ir

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
F32 = ir.FloatType()
F64 = ir.DoubleType()

# dtypes the native backend compiles (complex and float16 are refused by accepts())
SUPPORTED = ("i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64")

_REG = {"i1": I1, "i8": I8, "i16": ir.IntType(16), "i32": I32, "i64": I64,
        "u8": I8, "u16": ir.IntType(16), "u32": I32, "u64": I64, "f32": F32, "f64": F64}


def reg_type(dtype: str) -> ir.Type:
    """The type of a scalar of ``dtype`` in a register."""
    return _REG[dtype]


def mem_type(dtype: str) -> ir.Type:
    """The type of one element of ``dtype`` in memory."""
    return I8 if dtype == "i1" else _REG[dtype]


def bits(dtype: str) -> int:
    return 1 if dtype == "i1" else _REG[dtype].width if dtype[0] in "iu" else (
        32 if dtype == "f32" else 64)


def is_float(dtype: str) -> bool:
    return dtype[0] == "f"


def is_signed(dtype: str) -> bool:
    return dtype[0] == "i" and dtype != "i1"


def is_unsigned(dtype: str) -> bool:
    return dtype[0] == "u" or dtype == "i1"


def const(dtype: str, value) -> ir.Constant:
    """A constant of ``dtype`` (integers in two's complement, as NumPy stores them)."""
    t = reg_type(dtype)
    if is_float(dtype):
        return ir.Constant(t, float(value))
    v = int(value)
    w = t.width
    v &= (1 << w) - 1
    if w > 1 and v >= 1 << (w - 1):
        v -= 1 << w
    return ir.Constant(t, v)
