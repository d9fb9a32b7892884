"""LLVM types of solvent dtypes. Booleans are ``i1`` in registers and one byte in memory
(NumPy's bool layout); unsigned integers share LLVM's sign-less integer types and are told
apart by the dtype name where an operation depends on the sign. A complex scalar is the
literal struct ``{float, float}`` / ``{double, double}`` (real, imaginary), in registers and
in memory: NumPy's complex64/complex128 layout."""
from __future__ import annotations

from llvmlite import ir

I1 = ir.IntType(1)
I8 = ir.IntType(8)
I32 = ir.IntType(32)
I64 = ir.IntType(64)
F32 = ir.FloatType()
F64 = ir.DoubleType()

C64 = ir.LiteralStructType([F32, F32])
C128 = ir.LiteralStructType([F64, F64])

# dtypes the native backend compiles everywhere (float16 is refused by accepts())
SUPPORTED = ("i1", "i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64", "f32", "f64")
# complex dtypes: compiled only by the ops rules_complex.py lists (accepts() refuses others)
COMPLEX = ("c64", "c128")

_REG = {"i1": I1, "i8": I8, "i16": ir.IntType(16), "i32": I32, "i64": I64,
        "u8": I8, "u16": ir.IntType(16), "u32": I32, "u64": I64, "f32": F32, "f64": F64,
        "c64": C64, "c128": C128}


def reg_type(dtype: str) -> ir.Type:
    """The type of a scalar of ``dtype`` in a register."""
    return _REG[dtype]


def mem_type(dtype: str) -> ir.Type:
    """The type of one element of ``dtype`` in memory."""
    return I8 if dtype == "i1" else _REG[dtype]


def bits(dtype: str) -> int:
    return 1 if dtype == "i1" else _REG[dtype].width if dtype[0] in "iu" else (
        32 if dtype == "f32" else 64 if dtype in ("f64", "c64") else 128)


def is_complex(dtype: str) -> bool:
    return dtype[0] == "c"


def part(dtype: str) -> str:
    """The dtype of a complex dtype's real and imaginary parts."""
    return "f32" if dtype == "c64" else "f64"


def is_float(dtype: str) -> bool:
    return dtype[0] == "f"


def is_signed(dtype: str) -> bool:
    return dtype[0] == "i" and dtype != "i1"


def is_unsigned(dtype: str) -> bool:
    return dtype[0] == "u" or dtype == "i1"


def const(dtype: str, value) -> ir.Constant:
    """A constant of ``dtype`` (integers in two's complement, as NumPy stores them)."""
    t = reg_type(dtype)
    if is_complex(dtype):
        v = complex(value)
        return ir.Constant(t, [const(part(dtype), v.real), const(part(dtype), v.imag)])
    if is_float(dtype):
        return ir.Constant(t, float(value))
    v = int(value)
    w = t.width
    v &= (1 << w) - 1
    if w > 1 and v >= 1 << (w - 1):
        v -= 1 << w
    return ir.Constant(t, v)
