"""IR types: value tensors (rank 0 is a scalar) and mutable array references.

Shapes are static: solvent specializes every compilation on the shapes of the call's
arguments, so each dimension is a Python int.
"""
from __future__ import annotations

from dataclasses import dataclass

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
        if not all(isinstance(d, int) and d >= 0 for d in self.shape):
            raise ValueError(f"bad shape {self.shape!r}")

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    def __str__(self) -> str:
        if not self.shape:
            return self.dtype
        return "tensor<" + "x".join(str(d) for d in self.shape) + "x" + self.dtype + ">"


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
        dims = "".join(f"{d}x" for d in self.shape)
        return f"ref<{dims}{self.dtype}>"


Type = TensorType | RefType


def scalar(dtype: str) -> TensorType:
    return TensorType((), dtype)


def parse_type(text: str) -> Type:
    """Inverse of ``str(type)``."""
    text = text.strip()
    if text in DTYPES:
        return TensorType((), text)
    for prefix, cls in (("tensor<", TensorType), ("ref<", RefType)):
        if text.startswith(prefix) and text.endswith(">"):
            parts = text[len(prefix):-1].split("x")
            dims, dt = parts[:-1], parts[-1]
            return cls(tuple(int(d) for d in dims), dt)
    raise ValueError(f"cannot parse type {text!r}")
