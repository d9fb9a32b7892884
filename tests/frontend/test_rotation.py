"""Array names that trade buffers across loop iterations (``A, B = B, A``): NumPy's names
follow a permutation; solvent unrolls the loop body by the permutation's period (still one
loop op) and runs the remainder after it."""
import numpy as np
import pytest

import solvent
from differential import case, run_cases


def pingpong(A, B, T):
    for t in range(T):
        B[1:-1] = 0.5 * (A[:-2] + A[2:])
        A, B = B, A
    return A


def rotate3(A, B, C, T):
    for t in range(T):
        C[:] = A + 2.0 * B
        A, B, C = B, C, A
    return A, B, C


def pingpong_stepped(A, B, T, c):
    s = 0.0
    for t in range(1, T, 2):
        B[1:-1] = c * (A[:-2] + A[2:]) + t
        s += B[3]
        A, B = B, A
    return A, s


def swap_then_write_after(A, B, T):
    for t in range(T):
        B[:] = A * 1.5
        A, B = B, A
    A[0] = -1.0
    return B


rng = np.random.default_rng(7)
V, W, X = rng.random(10), rng.random(10), rng.random(10)

test_rotation = run_cases([
    case(pingpong, V, W, T, id=f"pingpong_T{T}") for T in (0, 1, 2, 5)
] + [
    case(rotate3, V[:4], W[:4], X[:4], T, id=f"rotate3_T{T}") for T in (1, 3, 4)
] + [
    case(pingpong_stepped, V, W, T, 0.5, id=f"stepped_T{T}") for T in (2, 6, 7)
] + [
    case(swap_then_write_after, V, W, T, id=f"write_after_T{T}") for T in (2, 3)
])


@pytest.mark.parametrize("T", [10, 1000])
def test_rotation_keeps_one_loop_op(T):
    fn = solvent.jit(pingpong).compile((np.ones(8), np.ones(8), T)).fn
    names = [op.name for op in fn.walk()]
    assert names.count("loop.for") == 1
    assert len(names) < 40
