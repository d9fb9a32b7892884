"""Functions NumPy lacks that scientists call inside kernels: math.erf / math.erfc and
scipy.special.erf / erfc (ops tensor.erf / tensor.erfc: libm on the native backend, XLA's
erf), np.sinc, np.gcd / np.lcm (npapi_prelude), and math functions of numbers known at
compile time (math.factorial(5), math.comb(n, 2)). Each against Python / NumPy / SciPy on
the same source, on every backend."""
from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.special

import solvent
from differential import case, run_cases


def normal_cdf(x, mu, s):
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        out[i] = 0.5 * (1.0 + math.erf((x[i] - mu) / (s * math.sqrt(2.0))))
    return out, math.erfc(0.5), math.erf(mu)


def vectorized(x):
    return (scipy.special.erf(x), scipy.special.erfc(x), scipy.special.erf(1.0),
            scipy.special.erf(np.arange(3)))


def divisors(x, a, b):
    return (np.sinc(x), np.gcd(a, b), np.lcm(a, b), np.gcd(a, 6), np.lcm(12, b),
            math.factorial(5), math.comb(5, 2), math.isqrt(17))


X = np.array([-2.5, -0.3, 0.0, 0.7, 3.1, 6.0])
SPECIAL = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0])
test_special_functions = run_cases([
    case(normal_cdf, X, 0.3, 1.5),
    case(normal_cdf, X.astype(np.float32), 0.3, 1.5, id="normal_cdf_f32"),
    case(vectorized, X),
    case(vectorized, np.asfortranarray(np.stack([X, X[::-1]]).astype(np.float32)),
         id="vectorized_f32_fortran"),
    case(vectorized, SPECIAL, id="vectorized_inf_nan"),
    case(divisors, np.array([0.0, 0.5, -1.5, 2.0, 0.0]), np.array([12, -18, 7, 0, 0]),
         np.array([8, 12, 0, 5, 0])),
    case(divisors, np.array([0.0, 0.25], np.float32), np.array([12, -18], np.int8),
         np.array([8, 12], np.int8), id="divisors_int8"),
])


def test_erf_gradient_is_two_over_root_pi_exp_minus_x_squared():
    def f(x):
        return np.sum(scipy.special.erf(x) + 3.0 * scipy.special.erfc(2.0 * x))
    x = np.array([-1.0, 0.2, 0.9])
    g = solvent.grad(f)(x)
    want = 2 / np.sqrt(np.pi) * (np.exp(-x * x) - 6.0 * np.exp(-4.0 * x * x))
    assert np.allclose(g, want, rtol=1e-12)


def test_a_math_function_of_constants_raises_as_python():
    def f(x):
        return x * math.factorial(-1)
    with pytest.raises(ValueError, match="factorial"):
        solvent.jit(f)(np.ones(2))
