"""Which functions are one streaming pass over memory (for the automatic backend choice).

A function without loops or products whose work is cheap elementwise arithmetic over large
arrays (``alpha * x + beta * y``, ``y += a * x``, ``a[:] = b + s * c``, ``a + trace``) is
memory-bound: its time is the bytes it moves. The native backend reads the caller's arrays
in place and computes a written argument in the caller's own buffer; the XLA backend copies
every argument NumPy did not align to 64 bytes (large NumPy arrays are 16-byte aligned) into
an aligned buffer and copies a written argument back, two to three times the traffic.
Measured on the corpus (ms per call, NumPy / native / XLA, 2-core host under load, NumPy
and solvent alternating in one process): saxpy_inplace_f32 6.7 / 8.1 / 18.7, stream_triad
16.0 / 15.4 / 38.3, axpby 18.7 / 9.6 / 18.9, go_fast 25.2 / 19.3 / 99.7.

Transcendental functions (exp, tanh, ...) are not cheap here: XLA's vectorized versions beat
the native backend's libm calls, and such functions are compute-bound anyway. Other work
(a reduction, a gather, a transcendental on a few elements) is allowed when its elements
(results and operands) are at most ``1 / OTHER_SHARE`` of the streamed elements (go_fast:
tanh of the 3000-element diagonal beside a 9M-element add).
"""
from __future__ import annotations

from ..ir.core import Function
from ..ir.registry import get

# elementwise ops that cost about one load/store per element on either backend
CHEAP = frozenset(f"tensor.{n}" for n in (
    "neg", "abs", "add", "sub", "mul", "div", "max", "min", "fmax", "fmin", "square", "sign",
    "floor", "ceil", "trunc", "copysign", "and", "or", "xor", "not", "invert", "bitand",
    "bitor", "bitxor", "shl", "shr", "eq", "ne", "lt", "le", "gt", "ge", "select", "convert",
    "isnan", "isinf", "isfinite"))
# data movement the native backend does without computing (or that is part of the pass)
MOVES = frozenset(("tensor.constant", "tensor.broadcast_to", "tensor.reshape",
                   "tensor.slice", "tensor.update_slice"))
OTHER_SHARE = 16


def _elements(t) -> int:
    n = 1
    for d in getattr(t, "shape", ()):
        n *= d if isinstance(d, int) else 1
    return n


def single_pass(fn: Function) -> tuple[bool, int]:
    """(whether ``fn`` is one streaming pass, the elements its cheap ops produce)."""
    streamed = other = 0
    for op in fn.walk():
        record = get(op.name)
        if record.terminator:
            continue
        if op.regions or record.loop_like or op.name == "tensor.dot_general":
            return False, 0
        if any(getattr(v.type, "dtype", "")[:1] == "c" for v in list(op.operands) + op.results):
            return False, 0  # complex arithmetic: not measured on the native side
        size = sum(_elements(r.type) for r in op.results)
        if op.name in CHEAP:
            streamed += size
        elif op.name == "tensor.gather":
            other += 2 * size  # reads only the elements it gathers
        elif op.name not in MOVES:
            other += size + sum(_elements(v.type) for v in op.operands)
    return streamed > 0 and other * OTHER_SHARE <= streamed, streamed
