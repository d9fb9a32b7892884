"""Float32 matrix products below XLA_FASTER_MADDS go native under automatic choice (one
sgemm call); their results match NumPy's: transposed, strided and sliced operands, sizes 0
and 1, the elementwise work around them, float64 and int beside them (integer-valued data, so
any summation order gives the same float32 result)."""
import numpy as np
import pytest

import solvent
from differential import check


def scaled(alpha, a, b):
    return alpha * (a @ b) + 1.0


def attention(q, k, v):
    s = q @ k.T / np.float32(8.0)
    e = np.exp(s - s.max(axis=1, keepdims=True))
    return (e / e.sum(axis=1, keepdims=True)) @ v


def _ints(shape, dtype, seed):
    return np.random.default_rng(seed).integers(-4, 5, shape).astype(dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64"])
@pytest.mark.parametrize("n", [0, 1, 3, 300])
def test_products_match_numpy_under_auto(dtype, n):
    a, b = _ints((n, n + 2), dtype, 1), _ints((n + 2, n), dtype, 2)
    check(scaled, 2, a, b, backend=None)
    if n > 2:
        check(scaled, 2, a[:, ::2], b[::2, :], backend=None)          # strided
        check(scaled, 2, b.T, a.T, backend=None)                      # transposed
        check(scaled, 2, a[1:, 1:], b[1:, 1:-1], backend=None)        # sliced


def test_a_float32_attention_goes_native_and_matches_numpy():
    # two products of 2^26 multiply-adds: on XLA before XLA_FASTER_MADDS went to 2^31
    q, k, v = (np.random.default_rng(s).standard_normal((256, 1024)).astype(np.float32) / 32
               for s in range(3))
    assert "## backend: native" in solvent.explain(attention, q, k, v)
    check(attention, q, k, v, backend=None)
