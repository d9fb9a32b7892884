"""Sums of matrix products natively: each product of a sum of at least two gemm products is
one gemm with beta = 1 into the running sum's buffer (bufferize.SUM_OF_PRODUCTS,
accumulate_products), and a product over stacked windows (a raised convolution's
concatenation) is split into the windows' products first (split_products_native), read
where they lie. Results against NumPy; the summing read off explain's native notes."""
import numpy as np
import pytest

import solvent
from solvent.corpus import conv1d_loops


def taps(w, x):
    # a convolution written tap by tap, the way it is ported: seven products summed
    L = x.shape[1] - 6
    out = w[:, :, 0] @ x[:, 0:L]
    out += w[:, :, 1] @ x[:, 1:1 + L]
    out += w[:, :, 2] @ x[:, 2:2 + L]
    out += w[:, :, 3] @ x[:, 3:3 + L]
    out += w[:, :, 4] @ x[:, 4:4 + L]
    out += w[:, :, 5] @ x[:, 5:5 + L]
    out += w[:, :, 6] @ x[:, 6:6 + L]
    return out


def two_products(a, b, c, d, s):
    return np.maximum(a @ b + c @ d + s, 0.0)


def _summed(text: str) -> int:
    return text.count("adds itself into the sum's buffer")


@pytest.mark.parametrize("layout", ["C", "F"])
def test_products_written_tap_by_tap_sum_into_one_buffer(layout):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal((16, 300)), rng.standard_normal((32, 16, 7))
    if layout == "F":
        x, w = np.asfortranarray(x), np.asfortranarray(w)
    f = solvent.jit(taps, backend="native")
    np.testing.assert_allclose(f(w, x), taps(w, x), rtol=1e-10, atol=1e-10)
    assert _summed(f.explain(w, x)) == 6


def test_two_products_and_a_bias():
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((40, 30)), rng.standard_normal((30, 50))
    c, d = rng.standard_normal((40, 20)), rng.standard_normal((20, 50))
    f = solvent.jit(two_products, backend="native")
    np.testing.assert_allclose(f(a, b, c, d, 0.5), two_products(a, b, c, d, 0.5),
                               rtol=1e-10, atol=1e-10)
    assert _summed(f.explain(a, b, c, d, 0.5)) == 1


def test_a_raised_convolution_is_split_into_window_products():
    args = conv1d_loops.make_args(300, np.random.default_rng(0))
    f = solvent.jit(conv1d_loops.kernel, backend="native")
    text = f.explain(*args)
    final = text.split("## after mark_parallel", 1)[1].split("\n## ", 1)[0]
    assert "tensor.concatenate" not in final and final.count("tensor.dot_general") == 7
    assert _summed(text) == 6
    np.testing.assert_allclose(f(*args), conv1d_loops.kernel(*args), rtol=1e-10, atol=1e-10)
    off = solvent.jit(conv1d_loops.kernel, backend="native",
                      passes={"split_products_native": {"enabled": False}})
    stacked = off.explain(*args).split("## after mark_parallel", 1)[1].split("\n## ", 1)[0]
    assert "tensor.concatenate" in stacked and stacked.count("tensor.dot_general") == 1


@pytest.mark.parametrize("dtype", [np.float32, np.complex64, np.int8])
@pytest.mark.parametrize("layout", ["strided", "reversed"])
@pytest.mark.parametrize("cols", [7, 8, 40])
def test_tap_sums_as_a_stranger_calls_them(dtype, layout, cols):
    """Other dtypes (complex and integer products are no gemm: summed as before), strided
    and reversed arguments, one output column (cols = 7) up to many: NumPy's answer."""
    rng = np.random.default_rng(cols)
    x = (rng.standard_normal((16, 2 * cols)) * 3).astype(dtype)
    w = (rng.standard_normal((8, 16, 7)) * 3).astype(dtype)
    if np.issubdtype(dtype, np.complexfloating):
        x = x + 1j * x[::-1]
    x = x[:, ::2] if layout == "strided" else x[:, ::-1][:, :cols]
    want = taps(w, x)
    got = solvent.jit(taps, backend="native")(w, x)
    assert got.dtype == want.dtype and got.shape == want.shape
    if dtype == np.int8:
        np.testing.assert_array_equal(got, want)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)
