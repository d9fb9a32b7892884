"""np.linalg as NumPy defines it beyond the plain values: the norm of every order and axis
form, cond, the named tuples its decompositions return, float32 matrices factorized in
double precision (NumPy's ``_commonType``), and ``isinstance`` in compiled code."""
import numpy as np
import pytest

import solvent

from differential import case, check, run_cases

rng = np.random.default_rng(11)
A = rng.standard_normal((4, 5))
T = rng.standard_normal((3, 4, 5))
C = A + 1j * rng.standard_normal((4, 5))
V = rng.standard_normal(6)
SQ = rng.standard_normal((4, 4))
SPD = SQ @ SQ.T + 4 * np.eye(4)


def matrix_norms(a, t):
    """ord=2 with axis=(0, 1) is the spectral norm (it was the Frobenius norm); ord=1 over
    axes (1, 0) takes row sums (NumPy's row/column rule follows the axes given)."""
    return (np.linalg.norm(a, 2), np.linalg.norm(a, -2), np.linalg.norm(a, "nuc"),
            np.linalg.norm(a, 2, axis=(0, 1)), np.linalg.norm(a, 1, axis=(1, 0)),
            np.linalg.norm(a, -np.inf), np.linalg.norm(t, 2, axis=(2, 1)),
            np.linalg.norm(t, ord="fro", axis=(0, 2), keepdims=True),
            np.linalg.norm(t, np.inf, axis=(-1, -2), keepdims=True))


def vector_norms(v, c):
    return (np.linalg.norm(v, 3), np.linalg.norm(v, 0.5), np.linalg.norm(v, 0),
            np.linalg.norm(v, -np.inf), np.linalg.norm(v, -1, axis=0),
            np.linalg.norm(c, 3, axis=1), np.linalg.norm(c), np.linalg.norm(c, 2, axis=-1),
            np.linalg.norm(v, keepdims=True))


def norm_errors(v):
    return np.linalg.norm(v, "fro")


def conds(s, t):
    return np.linalg.cond(s), np.linalg.cond(s, -2), np.linalg.cond(t[:, :4, :4]), \
        np.linalg.cond(np.ones((3, 3)))


def named_results(s, a):
    h = np.linalg.eigh(s)
    q = np.linalg.qr(a)
    d = np.linalg.slogdet(s)
    w, v = h                        # a named tuple unpacks as a tuple
    return h.eigenvalues, v[:, -1] @ v[:, -1], q.R, d.logabsdet, d[0], h, w


def svd_named(a):
    u, s, vt = np.linalg.svd(a)
    return np.linalg.svd(a).S, u.shape, s, np.linalg.svd(a, full_matrices=False)


def types_known(a, n, x, t):
    """isinstance answered from the Python type the value has under NumPy."""
    return (isinstance(a, np.ndarray), isinstance(n, int), isinstance(n, float),
            isinstance(x, float), isinstance(t, tuple), isinstance((1, 2), (list, tuple)),
            isinstance(np.sum(a), np.floating), isinstance(a[0, 0], float),
            isinstance(a.shape, tuple), isinstance("s", str), isinstance(a, (int, float)))


def normalize_axis(a, axis):
    if isinstance(axis, int):
        axis = (axis,)
    out = a
    for ax in axis:
        out = np.cumsum(out, axis=ax)
    return out


cases = [
    case(matrix_norms, A, T),
    case(vector_norms, V, C),
    case(matrix_norms, A.astype(np.float32), T.astype(np.float32), id="matrix_norms_f32"),
    case(conds, SQ, T),
    case(named_results, SPD, A),
    case(svd_named, A),
    case(types_known, A, 3, 2.5, (1, 2)),
    case(normalize_axis, A, 1, id="normalize_axis_int"),
    case(normalize_axis, A, (0, 1), id="normalize_axis_tuple"),
]

test_numpy_rules = run_cases(cases)


def test_a_vector_norm_order_numpy_refuses_is_numpys_value_error():
    with pytest.raises(ValueError, match="Invalid norm order 'fro' for vectors"):
        solvent.jit(norm_errors)(V)


def linalg_f32(s, b):
    return (np.linalg.solve(s, b), np.linalg.inv(s), np.linalg.det(s), np.linalg.cholesky(s),
            np.linalg.eigvalsh(s), np.linalg.slogdet(s).logabsdet)


@pytest.mark.parametrize("backend", ["xla", "native"])
def test_float32_matrices_are_factorized_in_double_as_numpy_does(backend):
    """NumPy hands LAPACK float32 matrices as float64 and rounds the results: solvent gives
    the same float32 numbers to the last bit or next to it (a float32 factorization is
    several units in the last place away: det by ~16, eigvalsh by ~4)."""
    s, b = SPD.astype(np.float32), V[:4].astype(np.float32)
    got = solvent.jit(linalg_f32, backend=backend)(s, b)
    for g, w in zip(got, linalg_f32(s, b)):
        assert np.asarray(g).dtype == np.float32
        np.testing.assert_array_max_ulp(np.asarray(g), np.asarray(w), maxulp=1)


def half_solve(s):
    return np.linalg.inv(s)


def test_float16_is_refused_as_numpy_refuses_it():
    with pytest.raises(TypeError, match="float16 is unsupported in linalg"):
        solvent.jit(half_solve)(SPD.astype(np.float16))


def zero_d_kind(x):
    return isinstance(x, np.ndarray)


def test_isinstance_of_a_0d_argument_that_may_be_either_is_refused():
    """A 0-d argument compiles the same for np.float64(1.0) and np.array(1.0), which
    isinstance(x, np.ndarray) tells apart: refused with the line, never guessed."""
    with pytest.raises(solvent.UnsupportedError, match="isinstance"):
        solvent.jit(zero_d_kind)(np.float64(1.0))
    assert solvent.jit(zero_d_kind)(V) is True
