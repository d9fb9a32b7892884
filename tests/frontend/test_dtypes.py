"""Differential tests: NEP 50 promotion, integer wraparound, bool arithmetic, complex dtypes,
scalar types of results (Python scalar vs NumPy scalar)."""
import numpy as np

from differential import case, run_cases

rng = np.random.default_rng(1)
F64 = rng.standard_normal(5)
F32 = F64.astype(np.float32)
I64 = rng.integers(-50, 50, 5)
I32 = I64.astype(np.int32)
I8 = np.array([100, -100, 127, -128, 5], dtype=np.int8)
U8 = np.array([250, 3, 0, 128, 255], dtype=np.uint8)
BOOL = np.array([True, False, True, True, False])
BOOL2 = np.array([True, True, False, True, False])
C128 = (rng.standard_normal(4) + 1j * rng.standard_normal(4))
C64 = C128.astype(np.complex64)
CM = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))


# --- NEP 50 ------------------------------------------------------------------------------------
def pyfloat_times_f32(F):
    return 2.5 * F, F + 1.0, F / 3.0, F - 1


def int_array_div_int(I):
    return I / 2, I // 2, I * 2, I + 1


def npf32_times_pyfloat(F):
    s = F[0]
    return s * 2.5, s + 1, s / 2


def npf32_ctor_times_pyfloat(x):
    return np.float32(x) * 2.0, np.float32(x) + np.float32(1.0)


def int8_plus_pyint(I):
    return I + 3, I * 2, I - 1, I // 3


def int8_elem_plus_pyint(I):
    return I[0] + 100, I[2] + 1


def uint8_wrap(U):
    return U + 10, U * 2, U - 5


def int32_overflow(I):
    return I * 100000000, I + 2147483647


def f32_plus_npf64(F):
    return F + np.float64(1.5), F * F[0]


def f32_plus_f64_array(F, G):
    return F + G, F * G


def mixed_int_arrays(I, J):
    return I + J, I * J


def int_plus_float_array(I, F):
    return I + F, I * 1.5


def int8_with_int64_array(A, B):
    return A + B


def runtime_pyint_with_f32(F, k):
    return F * k, k * F, F + k


def runtime_pyfloat_with_i32(I, x):
    return I * x, I + x


def npi64_scalar_with_i8(I, k):
    return I + k


def f32_mean_sum(F):
    return F.sum(), F.mean(), np.sqrt(F[0] * F[0])


def bool_arith(B, C):
    return B + C, B * C, B & C, B | C, B ^ C, ~B, B + 1, B * 1.5, B.sum(), B - 0


def bool_scalar_arith(B):
    return B[0] + B[2], B[0] * 3, True + True, B[1] + 1.5


def py_bool_args(p, q):
    return p and q, p or q, not p, p & q


def py_bool_arith(p, q):
    return p + q, p * 2, p - q


def astype_chain(F):
    return F.astype(np.int32), F.astype(np.float32), (F * 10).astype(np.int8), F.astype(bool)


def astype_wrap(I):
    return (I * 10).astype(np.int8), I.astype(np.uint8)


def unsigned_mix(U, I):
    return U + I, U * 2


def f16_ops(H):
    return H * 2.0, H + H, np.sqrt(np.abs(H))


# --- scalar result types ------------------------------------------------------------------------
def ret_py_int(n):
    return n * 2 + 1


def ret_py_float(x):
    return x * 2.0


def ret_int_true_div(n):
    return n / 4


def ret_elem(F):
    return F[0], F[1] * 2, F[2] + 1.0


def ret_elem_f32(F):
    return F[0], F[1] * 2, F[0] + F[1]


def ret_elem_int(I):
    return I[0], I[1] + 1, I[2] // 2, I[0] / 2


def ret_shape_len(F):
    return F.shape[0], len(F), F.ndim, F.size


def ret_np_ctor(x):
    return np.float64(x), np.float32(x), np.int32(x)


def ret_bool(x):
    return x > 0, 1 > 0


def ret_elem_bool(F):
    return F[0] > 0, BOOL_OUT(F)


def BOOL_OUT(F):
    return F[1] == F[1]


def ret_sum_types(F, I, B):
    return F.sum(), I.sum(), B.sum(), I.max(), B.any(), F.argmax()


# --- complex -----------------------------------------------------------------------------------
def complex_arith(Z, W):
    return Z + W, Z * W, Z / W, Z - 1j, 2 * Z, Z ** 2


def complex_funcs(Z):
    return np.abs(Z), np.conj(Z), Z.conj(), np.exp(Z), np.conjugate(Z)


def complex_real_imag_attr(Z):
    return Z.real, Z.imag


def complex_real_imag_fn(Z):
    return np.real(Z), np.imag(Z)


def real_imag_of_real(F):
    r = F.real
    r[0] = 5.0
    return F.imag, F.real * 2


def complex_more(Z):
    return np.sqrt(Z), np.log(Z), Z * Z.conj()


def complex_from_real(F):
    Z = F + 1j * F[::-1]
    return Z, np.abs(Z), Z.sum()


def complex_scalar(z):
    return z * 2, abs(z), z * z, z / (1 + 1j)


def complex_scalar_attrs(z):
    return z.real, z.imag


def complex_c64(Z):
    return Z * 2.0, Z + 1j, np.abs(Z), np.exp(Z)


def complex_matmul(M, Z):
    return M @ Z, M.T @ M.conj(), M.sum(axis=0)


def complex_reduce(M):
    return M.sum(), M.mean(), M.prod(), np.cumsum(M)


def complex_elem(Z):
    z = Z[1]
    return z, z * 1j, abs(z)


cases = [
    case(pyfloat_times_f32, F32),
    case(int_array_div_int, I64),
    case(int_array_div_int, I32, id="int32_array_div_int"),
    case(npf32_times_pyfloat, F32),
    case(npf32_ctor_times_pyfloat, 1.5),
    case(int8_plus_pyint, I8),
    case(int8_elem_plus_pyint, I8),
    case(uint8_wrap, U8),
    case(int32_overflow, I32),
    case(f32_plus_npf64, F32),
    case(f32_plus_f64_array, F32, F64),
    case(mixed_int_arrays, I32, I64),
    case(mixed_int_arrays, I8, U8, id="int8_uint8"),
    case(int_plus_float_array, I32, F32),
    case(int8_with_int64_array, I8, I64),
    case(runtime_pyint_with_f32, F32, 3),
    case(runtime_pyfloat_with_i32, I32, 0.5),
    case(npi64_scalar_with_i8, I8, np.int64(3)),
    case(npi64_scalar_with_i8, I8, np.int8(3), id="npi8_scalar_with_i8"),
    case(f32_mean_sum, F32),
    case(bool_arith, BOOL, BOOL2),
    case(bool_scalar_arith, BOOL),
    case(py_bool_args, True, False),
    case(py_bool_arith, True, False),
    case(astype_chain, F64 * 3),
    case(astype_wrap, I64),
    case(unsigned_mix, U8, I8),
    case(f16_ops, F64.astype(np.float16)),
    case(ret_py_int, 5),
    case(ret_py_float, 1.25),
    case(ret_py_float, 3, id="ret_py_float_from_int"),
    case(ret_int_true_div, 7),
    case(ret_elem, F64),
    case(ret_elem_f32, F32),
    case(ret_elem_int, I32),
    case(ret_elem_int, I64, id="ret_elem_int64"),
    case(ret_shape_len, F64),
    case(ret_np_ctor, 2.75),
    case(ret_bool, 2.0),
    case(ret_elem_bool, F64),
    case(ret_sum_types, F32, I32, BOOL),
    case(complex_arith, C128, C128[::-1].copy()),
    case(complex_funcs, C128),
    case(complex_real_imag_attr, C128),
    case(complex_real_imag_fn, C128),
    case(real_imag_of_real, F64),
    case(complex_more, C128),
    case(complex_from_real, F64),
    case(complex_scalar, 1.5 - 2j),
    case(complex_scalar_attrs, 1.5 - 2j),
    case(complex_scalar, np.complex128(1.5 - 2j), id="complex_scalar_np"),
    case(complex_scalar, np.complex64(1.5 - 2j), id="complex_scalar_np64"),
    case(complex_c64, C64),
    case(complex_matmul, CM, C128[:3].copy()),
    case(complex_reduce, CM),
    case(complex_elem, C128),
]

test_dtypes = run_cases(cases)
