"""Run-time shapes: slices whose bounds are loop variables or values read from arrays,
boolean-mask reads, the nonzero family, and what people do with such values, differentially
against NumPy on the interpreter and the native backend. XLA, which needs static shapes,
refuses with the construct and its line; automatic choice then picks native.

Inputs are drawn at random (seeded) the way a stranger would call: scalar arguments first,
Fortran-ordered and strided arrays, int8/float32 data, empty and one-element sizes, slice
bounds that are negative or far out of range (NumPy clamps them, so must solvent).
"""
from __future__ import annotations

import numpy as np
import pytest

import solvent
from differential import check, jitted

BACKENDS = ["interp", "native"]
SEEDS = range(4)


# --- kernels (module level: solvent reads their source) ---------------------------------------
def row_prefix_dots(A, x):
    n = A.shape[0]
    y = np.zeros(n)
    for i in range(n):
        for j in range(A.shape[1] + 2):
            y[i] += A[i, :j] @ x[:j]        # j runs past the end: the slice clamps
    return y


def segment_sums(lo, hi, v):
    out = np.zeros(lo.shape[0], v.dtype)
    for k in range(lo.shape[0]):
        out[k] = v[lo[k]:hi[k]].sum()
    return out


def segment_steps(lo, hi, v):
    n = lo.shape[0]
    fwd = np.zeros(n, np.int64)
    back = np.zeros(n)
    for k in range(n):
        fwd[k] = len(v[lo[k]:hi[k]:2])
        back[k] = np.sum(v[hi[k]:lo[k]:-3])
    return fwd, back


def segment_open_ends(k, v):
    head = v[:k]
    tail = v[k:]
    return len(head), len(tail), head.sum() - tail.sum(), v[-k:]


def segment_max(lo, hi, v):
    out = np.zeros(lo.shape[0])
    for k in range(lo.shape[0]):
        out[k] = np.max(v[lo[k]:hi[k]])
    return out


def mask_stats(t, z):
    inside = z[np.abs(z) < t]
    return inside.sum(), len(inside), inside, inside * 2


def mask_mean_then_write(t, z):
    m = np.abs(z) < t
    s = np.mean(z[m]) if m.any() else 0.0
    z[m] = -1
    return s


def mask_leading(m, z):
    rows = z[m]
    return rows, rows.sum(axis=0)


def nonzero_family(a):
    r, c = np.nonzero(a)
    return r, c, np.flatnonzero(a), np.argwhere(a)


def nonzero_1d_use(x):
    idx = np.flatnonzero(x > 0)
    return x[idx].sum(), len(idx), idx


def csr_spmv(vals, cols, rowptr, x):
    m = rowptr.shape[0] - 1
    y = np.zeros(m, vals.dtype)
    for i in range(m):
        y[i] = vals[rowptr[i]:rowptr[i + 1]] @ x[cols[rowptr[i]:rowptr[i + 1]]]
    return y


def triangle_fill(A, B):
    n = A.shape[0]
    for i in range(n):
        B[i, :i] = A[i, :i] * 2
        B[i, i:] = -1
    return B


def lower_solve(L, b):
    n = b.shape[0]
    x = np.zeros(n, L.dtype)
    for i in range(n):
        x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    return x


def lu_rows(A):
    n = A.shape[0]
    for i in range(n):
        A[i, i:] -= A[i, :i] @ A[:i, i:]                     # vector @ matrix
        A[i + 1:, i] = (A[i + 1:, i] - A[i + 1:, :i] @ A[:i, i]) / A[i, i]   # matrix @ vector
    return A


def pick_selected(k, z):
    inside = z[z > 0]
    return inside[k], inside[-1]


def mismatched_add(k, v):
    return v[:k] + v[1:]


# --- inputs -----------------------------------------------------------------------------
def _rng(seed):
    return np.random.default_rng(1000 + seed)


def _bounds(rng, m, n):
    """Slice bounds well outside [-n, n]: NumPy clamps them."""
    return (rng.integers(-n - 3, n + 4, m).astype(np.int64),
            rng.integers(-n - 3, n + 4, m).astype(np.int32))


def _csr(rng, m, n, dt):
    dense = (rng.standard_normal((m, n)) * (rng.random((m, n)) < 0.4)).astype(dt)
    rowptr = np.concatenate([[0], np.cumsum((dense != 0).sum(1))]).astype(np.int64)
    return dense[dense != 0], np.nonzero(dense)[1].astype(np.int32), rowptr


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_slices_from_loop_variables(backend, seed):
    rng = _rng(seed)
    m, n = int(rng.integers(0, 5)), int(rng.integers(0, 6))
    A = np.asfortranarray(rng.standard_normal((m, n)))
    check(row_prefix_dots, A, rng.standard_normal(n + 3)[::1][:n], backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_slices_from_array_values_clamp_like_numpy(backend, seed):
    rng = _rng(seed)
    n = int(rng.integers(0, 7))
    lo, hi = _bounds(rng, 6, n)
    v = rng.standard_normal(2 * n)[::2].astype(np.float32)        # strided float32
    check(segment_sums, lo, hi, v, backend=backend)
    check(segment_steps, lo, hi, v.astype(np.float64), backend=backend)
    check(segment_sums, lo, hi, rng.integers(-100, 100, n).astype(np.int8), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("k", [-9, -3, -1, 0, 1, 4, 9])
def test_open_ended_slices_with_negative_bounds(backend, k):
    v = np.arange(6.0) ** 2
    # k is an argument: solvent specializes on it (a static slice) or keeps it run-time
    check(segment_open_ends, k, v, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_max_of_an_empty_run_time_slice_raises_like_numpy(backend):
    v = np.arange(5.0)
    lo, hi = np.array([0, 3], np.int64), np.array([2, 3], np.int64)
    with pytest.raises(ValueError, match="zero-size array to reduction operation max"):
        segment_max(lo, hi, v)
    with pytest.raises(ValueError, match="zero-size array to reduction operation max") as e:
        jitted(segment_max, backend)(lo, hi, v.copy())
    assert "test_dynamic_shapes.py" in str(e.value)
    check(segment_max, lo, np.array([2, 5], np.int64), v, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_boolean_mask_reads(backend, seed):
    rng = _rng(seed)
    n = int(rng.integers(0, 9))
    z = rng.standard_normal(n) * 2
    for t in (0.0, 1.5, 100.0):          # all false, some, all true
        check(mask_stats, t, z, backend=backend)
        check(mask_stats, np.float32(t), z.astype(np.float32), backend=backend)
    z2 = np.asfortranarray(rng.standard_normal((3, n)))           # a 2-d mask flattens in C order
    check(mask_stats, 1.0, z2, backend=backend)
    check(mask_mean_then_write, 1.0, z2, backend=backend)
    zi = rng.integers(-5, 5, (n, 2)).astype(np.int8)
    check(mask_leading, zi[:, 0] > 0, zi, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_nonzero_family(backend, seed):
    rng = _rng(seed)
    a = np.asfortranarray(rng.integers(-1, 2, (int(rng.integers(0, 4)), 5)).astype(np.int8))
    check(nonzero_family, a, backend=backend)
    check(nonzero_family, a.astype(bool), backend=backend)
    check(nonzero_1d_use, rng.standard_normal(int(rng.integers(0, 8))), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_gather_by_a_run_time_index_vector(backend, seed):
    rng = _rng(seed)
    m, n = int(rng.integers(1, 6)), int(rng.integers(1, 7))
    for dt in (np.float64, np.float32):
        vals, cols, rowptr = _csr(rng, m, n, dt)
        check(csr_spmv, vals, cols, rowptr, rng.standard_normal(n).astype(dt), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_assign_run_time_slices_and_solve(backend, seed):
    rng = _rng(seed)
    n = int(rng.integers(0, 6))
    check(triangle_fill, rng.standard_normal((n, n)), np.asfortranarray(np.zeros((n, n))),
          backend=backend)
    L = np.tril(rng.standard_normal((n, n))) + 4 * np.eye(n)
    check(lower_solve, L, rng.standard_normal(n), backend=backend)
    check(lower_solve, L.astype(np.float32), rng.standard_normal(n).astype(np.float32),
          backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", SEEDS)
def test_matrix_products_with_run_time_lengths(backend, seed):
    rng = _rng(seed)
    n = int(rng.integers(0, 7))
    A = np.asfortranarray(rng.random((n, n)) + n * np.eye(n))
    check(lu_rows, A, backend=backend)
    check(lu_rows, A.astype(np.float32), backend=backend)


def test_complex64_runs_on_the_interpreter():
    rng = _rng(0)
    z = (rng.standard_normal(7) + 1j * rng.standard_normal(7)).astype(np.complex64)
    check(mask_stats, 1.0, z, backend="interp")
    L = (np.tril(rng.standard_normal((4, 4))) + 4 * np.eye(4)).astype(np.complex64)
    check(lower_solve, L, np.ones(4, np.complex64), backend="interp")


@pytest.mark.parametrize("backend", BACKENDS)
def test_run_time_lengths_that_differ_raise(backend):
    v = np.arange(5.0)
    check(mismatched_add, 4, v, backend=backend)
    with pytest.raises(ValueError, match="broadcast") as e:
        jitted(mismatched_add, backend)(2, v)
    assert "test_dynamic_shapes.py" in str(e.value)


@pytest.mark.parametrize("backend", BACKENDS)
def test_index_into_a_run_time_length_is_checked(backend):
    z = np.array([3.0, -1.0, 2.0, 5.0])
    check(pick_selected, 1, z, backend=backend)
    check(pick_selected, -3, z, backend=backend)
    with pytest.raises(IndexError, match="out of bounds") as e:
        jitted(pick_selected, backend)(3, z.copy())
    assert "test_dynamic_shapes.py" in str(e.value)


def test_gather_index_out_of_bounds_raises_and_leaves_arrays_alone():
    rng = _rng(0)
    vals, cols, rowptr = _csr(rng, 4, 5, np.float64)
    cols[-1] = 7
    x = rng.standard_normal(5)
    before = [a.copy() for a in (vals, cols, rowptr, x)]
    with pytest.raises(IndexError, match="out of bounds") as e:
        jitted(csr_spmv, "native")(vals, cols, rowptr, x)
    assert "test_dynamic_shapes.py" in str(e.value)
    for a, b in zip((vals, cols, rowptr, x), before):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("fn, args, construct, line", [
    (csr_spmv, (np.ones(2), np.zeros(2, np.int32), np.array([0, 1, 2]), np.ones(2)),
     "a slice with run-time bounds", "vals[rowptr[i]:rowptr[i + 1]]"),
    (mask_stats, (1.0, np.ones(3)), "a boolean-mask read x[mask]", "z[np.abs(z) < t]"),
    (nonzero_family, (np.eye(2),), "np.nonzero/np.flatnonzero/np.argwhere", "np.nonzero(a)"),
])
def test_xla_refuses_naming_construct_and_line(fn, args, construct, line):
    import inspect
    with pytest.raises(solvent.UnsupportedError) as e:
        solvent.jit(fn, backend="xla")(*args)
    msg = str(e.value)
    src, first = inspect.getsourcelines(fn)
    lineno = first + next(k for k, s in enumerate(src) if line in s)
    assert construct in msg and "XLA takes only tensors whose shapes are static" in msg, msg
    assert f"test_dynamic_shapes.py:{lineno}:" in msg, msg
    auto = solvent.jit(fn)
    assert "## backend: native" in auto.explain(*args)


def squares_inside(z):
    return np.sum(z[z > 0] ** 2)


def test_gradients_through_run_time_shapes_are_refused_with_the_line():
    with pytest.raises(solvent.DifferentiationError, match="run-time shapes") as e:
        solvent.grad(squares_inside)(np.array([1.0, -2.0, 3.0]))
    assert "test_dynamic_shapes.py" in str(e.value) and "x[mask]" in str(e.value)
