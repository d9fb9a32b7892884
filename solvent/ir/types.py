"""IR types: value tensors (rank 0 is a scalar) and mutable array references.

solvent specializes every compilation on the shapes of the call's arguments, so most
dimensions are Python ints. A dimension that follows run-time data (a slice ``x[a:b]`` with
loop-variable bounds, a boolean-mask read, ``np.nonzero``) is ``DYN`` (``None``), printed
``?`` as in MLIR (``tensor<?xf64>``); the value carries its size at run time and
``tensor.dim`` reads it as an i64. A backend that needs static shapes says so in
``accepts``.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

# The dtypes solvent compiles, by their short IR name.
DTYPES: dict[str, np.dtype] = {
    "i1": np.dtype(np.bool_),
    "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16),
    "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64),
    "u8": np.dtype(np.uint8),
    "u16": np.dtype(np.uint16),
    "u32": np.dtype(np.uint32),
    "u64": np.dtype(np.uint64),
    "f16": np.dtype(np.float16),
    "f32": np.dtype(np.float32),
    "f64": np.dtype(np.float64),
    "c64": np.dtype(np.complex64),
    "c128": np.dtype(np.complex128),
}
_NAME_OF = {dt: name for name, dt in DTYPES.items()}

# A dimension known only at run time.
DYN = None


def is_static(shape) -> bool:
    return DYN not in shape   # a tuple's ``in`` (identity, then ==: no int equals None)


def dims_agree(a, b) -> bool:
    """Shapes that may be equal at run time: same rank, equal where both are static."""
    return len(a) == len(b) and all(x is DYN or y is DYN or x == y for x, y in zip(a, b))


def _dim_text(d) -> str:
    return "?" if d is DYN else str(d)


def _parse_dim(text: str):
    return DYN if text == "?" else int(text)


def _check_shape(shape) -> None:
    for d in shape:   # a loop, not all(...): every type built runs it
        if d is not DYN and not (isinstance(d, int) and d >= 0):
            raise ValueError(f"bad shape {shape!r}")


def dtype_name(dt) -> str:
    """IR name of a NumPy dtype; raises KeyError for dtypes solvent does not compile."""
    return _NAME_OF[np.dtype(dt)]


def np_dtype(name: str) -> np.dtype:
    return DTYPES[name]


def is_float(name: str) -> bool:
    return name.startswith("f")


def is_complex(name: str) -> bool:
    return name.startswith("c")


def is_int(name: str) -> bool:
    return name[0] in "iu" and name != "i1"


def is_bool(name: str) -> bool:
    return name == "i1"


@dataclass(frozen=True)
class TensorType:
    """A value: an immutable n-d array of ``dtype`` (rank 0 is a scalar)."""

    shape: tuple[int, ...]
    dtype: str

    def __post_init__(self):
        if self.dtype not in DTYPES:
            raise ValueError(f"unknown dtype {self.dtype!r}")
        _check_shape(self.shape)

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def static(self) -> bool:
        return is_static(self.shape)

    @property
    def size(self) -> int:
        if not self.static:
            raise ValueError(f"the size of {self} is known only at run time")
        return int(np.prod(self.shape, dtype=np.int64))

    def __str__(self) -> str:
        if not self.shape:
            return self.dtype
        return "tensor<" + "x".join(_dim_text(d) for d in self.shape) + "x" + self.dtype + ">"


@dataclass(frozen=True)
class RefType:
    """A mutable array buffer (array level only; functionalization removes every ref)."""

    shape: tuple[int, ...]
    dtype: str

    @property
    def rank(self) -> int:
        return len(self.shape)

    def tensor(self) -> TensorType:
        return TensorType(self.shape, self.dtype)

    def __str__(self) -> str:
        dims = "".join(f"{_dim_text(d)}x" for d in self.shape)
        return f"ref<{dims}{self.dtype}>"


Type = TensorType | RefType


def scalar(dtype: str) -> TensorType:
    return TensorType((), dtype)


@lru_cache(maxsize=4096)
def parse_type(text: str) -> Type:
    """Inverse of ``str(type)``. Types are immutable, so one text's type is built once
    and shared (the parser reads the same few types on every line)."""
    text = text.strip()
    if text in DTYPES:
        return TensorType((), text)
    for prefix, cls in (("tensor<", TensorType), ("ref<", RefType)):
        if text.startswith(prefix) and text.endswith(">"):
            parts = text[len(prefix):-1].split("x")
            dims, dt = parts[:-1], parts[-1]
            return cls(tuple(_parse_dim(d) for d in dims), dt)
    raise ValueError(f"cannot parse type {text!r}")
