"""Kernels called the way a stranger would: Fortran-ordered and strided arrays, int8 and
complex64, 3-D grids, one thread, empty arrays, in-place updates, weak Python scalars."""
import numpy as np
import pytest
from numba import cuda

import solvent


def scale_2d(a, x, out):
    i, j = cuda.grid(2)
    if i < out.shape[0] and j < out.shape[1]:
        out[i, j] = a * x[i, j]


def triple(x, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * 3


def fma_complex(x, y, out):
    i = cuda.grid(1)
    if i < x.size:
        out[i] = x[i] * y[i] + 1j


def coords_3d(out):
    x, y, z = cuda.grid(3)
    if z < out.shape[0] and y < out.shape[1] and x < out.shape[2]:
        out[z, y, x] = x + 10 * y + 100 * z + cuda.blockDim.z * 1000


def bump(x):
    i = cuda.grid(1)
    if i < x.size:
        x[i] += 1


def weak_counter(x, out):
    # a Python int kept across a barrier stays weak: int8 * 2 stays int8 and wraps (NEP 50);
    # a strong int64 would give 200 instead of -56
    sd = cuda.shared.array(4, dtype=np.int8)
    tx = cuda.threadIdx.x
    two = 2
    sd[tx] = x[tx]
    cuda.syncthreads()
    out[tx] = sd[3 - tx] * two * 0.5


def test_fortran_ordered_and_strided_arrays():
    x = np.asfortranarray(np.arange(35.0).reshape(5, 7))
    out = np.asfortranarray(np.zeros((5, 7)))
    solvent.kernel(scale_2d)[(1, 1), (8, 8)](1.5, x, out)
    np.testing.assert_array_equal(out, 1.5 * x)
    big = np.arange(40.0).reshape(5, 8)
    out2 = np.zeros((5, 4))
    solvent.kernel(scale_2d)[(2, 2), (4, 4)](2, big[:, ::2], out2)
    np.testing.assert_array_equal(out2, 2 * big[:, ::2])


def test_int8_wraps_like_numpy():
    x = np.array([100, -100, 5, 127], np.int8)
    out = np.zeros(4, np.int8)
    solvent.kernel(triple)[1, 4](x, out)
    np.testing.assert_array_equal(out, x * 3)


def test_complex64():
    r = np.random.default_rng(0)
    x = (r.random(9) + 1j * r.random(9)).astype(np.complex64)
    y = (r.random(9) + 1j * r.random(9)).astype(np.complex64)
    out = np.zeros(9, np.complex64)
    solvent.kernel(fma_complex)[3, 4](x, y, out)
    np.testing.assert_allclose(out, x * y + 1j, rtol=1e-6)


def test_three_dimensional_grid_and_blocks():
    out = np.zeros((3, 5, 6), np.int64)
    solvent.kernel(coords_3d)[(2, 3, 2), (4, 2, 2)](out)
    z, y, x = np.indices(out.shape)
    np.testing.assert_array_equal(out, x + 10 * y + 100 * z + 2000)


@pytest.mark.parametrize("n, cfg", [(0, (1, 32)), (1, (1, 1)), (5, (5, 1))])
def test_empty_single_and_one_thread_per_block(n, cfg):
    x = np.arange(n, dtype=np.float64)
    out = np.full(n, -1.0)
    solvent.kernel(triple)[cfg](x, out)
    np.testing.assert_array_equal(out, 3 * x)


def test_in_place_update_of_an_argument():
    x = np.arange(10)
    solvent.kernel(bump)[3, 4](x)
    np.testing.assert_array_equal(x, np.arange(1, 11))


def test_weak_scalar_kept_across_a_barrier():
    x = np.array([1, 2, 3, 100], np.int8)
    out = np.zeros(4)
    solvent.kernel(weak_counter)[1, 4](x, out)
    np.testing.assert_array_equal(out, x[::-1] * 2 * 0.5)
    assert out[0] == -28.0
