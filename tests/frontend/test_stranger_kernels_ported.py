"""More kernels as strangers write them, ported from C, Fortran and textbooks: tuple swaps of
elements and rows (views, copies, fancy indices), writes through loop rows, overlapping
in-place updates (``x[1:] = x[:-1]``, ``A += A.T``), Gauss-Seidel and SOR sweeps, LU with
partial pivoting, conjugate gradients with a while loop, RK4 with a helper function, the game
of life (nested comprehension over np.roll), power iteration and the Mandelbrot set with
``complex(re, im)`` (an internal TypeError before). Differential against NumPy on every
backend that accepts each (XLA refuses the run-time slices of lu_pivot, with the line)."""
from __future__ import annotations

import numpy as np
import pytest

import solvent
from differential import check

def gauss_seidel(u, iters):
    n = u.shape[0]
    for _ in range(iters):
        for i in range(1, n - 1):
            u[i] = 0.5 * (u[i - 1] + u[i + 1])
    return u

def flat_index(a, n, m):
    out = np.zeros(n)
    for i in range(n):
        for j in range(m):
            out[i] += a[i * m + j]
    return out

def while_true(x):
    i = 0
    while True:
        if i >= x.shape[0] or x[i] < 0:
            break
        i += 1
    return i

def rows_inplace(A):
    for row in A:
        row *= 2
    return A

def iter_values(x):
    total = 0.0
    for v in x:
        total += v * v
    return total

def swap_elems(a, i, j):
    a[i], a[j] = a[j], a[i]
    return a

def swap_rows_views(A, i, j):
    A[i, :], A[j, :] = A[j, :].copy(), A[i, :].copy()
    return A

def swap_rows_fancy(A, i, j):
    A[[i, j]] = A[[j, i]]
    return A

    out = np.empty_like(x)
    k = 0
    for i in reversed(range(x.shape[0])):
        out[k] = x[i]
        k += 1
    return out

def enumerate_rows(A):
    s = np.zeros(A.shape[1])
    for i, row in enumerate(A):
        s += i * row
    return s

def half_loop(x):
    n = x.shape[0] // 2
    for i in range(n):
        x[i], x[-1 - i] = x[-1 - i], x[i]
    return x

def sor(u, f, omega, h, sweeps):
    n = u.shape[0]
    for s in range(sweeps):
        for i in range(1, n - 1):
            for j in range(1, n - 1):
                r = (u[i - 1, j] + u[i + 1, j] + u[i, j - 1] + u[i, j + 1] - h * h * f[i, j]) * 0.25
                u[i, j] += omega * (r - u[i, j])
    return u

def aliasing_view_rhs(x):
    x[1:] = x[:-1]          # NumPy: memmove semantics (copy of RHS)
    return x

def aliasing_view_aug(x):
    x[1:] += x[:-1]         # NumPy: buffered; result well defined
    return x

def transpose_inplace_add(A):
    A += A.T                # NumPy: overlap detection makes a copy
    return A

def lu_pivot(A):
    A = A.copy()
    n = A.shape[0]
    piv = np.arange(n)
    for k in range(n - 1):
        p = k + np.argmax(np.abs(A[k:, k]))
        if p != k:
            A[[k, p]] = A[[p, k]]
            piv[[k, p]] = piv[[p, k]]
        A[k + 1:, k] /= A[k, k]
        A[k + 1:, k + 1:] -= np.outer(A[k + 1:, k], A[k, k + 1:])
    return A, piv

def cg(A, b, tol, maxit):
    x = np.zeros_like(b)
    r = b - A @ x
    p = r.copy()
    rs = r @ r
    it = 0
    while np.sqrt(rs) > tol and it < maxit:
        Ap = A @ p
        alpha = rs / (p @ Ap)
        x += alpha * p
        r -= alpha * Ap
        rs_new = r @ r
        p = r + (rs_new / rs) * p
        rs = rs_new
        it += 1
    return x, it

def f_rhs(t, y):
    return np.array([y[1], -y[0] - 0.1 * y[1]])

def rk4(y0, h, n):
    y = y0.copy()
    t = 0.0
    for _ in range(n):
        k1 = f_rhs(t, y)
        k2 = f_rhs(t + h / 2, y + h / 2 * k1)
        k3 = f_rhs(t + h / 2, y + h / 2 * k2)
        k4 = f_rhs(t + h, y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        t += h
    return y, t

def life(g, steps):
    for _ in range(steps):
        nb = sum(np.roll(np.roll(g, i, 0), j, 1) for i in (-1, 0, 1) for j in (-1, 0, 1) if (i, j) != (0, 0))
        g = ((nb == 3) | ((g == 1) & (nb == 2))).astype(np.int8)
    return g

def power_iter(A, iters):
    v = np.ones(A.shape[0])
    lam = 0.0
    for _ in range(iters):
        w = A @ v
        lam = np.linalg.norm(w)
        v = w / lam
    return lam, v

def mandel(cr, ci, maxit):
    out = np.zeros(cr.shape, dtype=np.int32)
    for i in range(cr.shape[0]):
        for j in range(cr.shape[1]):
            c = complex(cr[i, j], ci[i, j])
            z = 0j
            k = 0
            while abs(z) <= 2.0 and k < maxit:
                z = z * z + c
                k += 1
            out[i, j] = k
    return out


def _cases(rng):
    A = rng.random((4, 4))
    M = rng.random((6, 6))
    S = M @ M.T + 6 * np.eye(6)
    yy, xx = np.mgrid[-1.2:1.2:7j, -2:0.6:9j]
    return [
        (gauss_seidel, (rng.random(8), 3)), (flat_index, (rng.random(12), 3, 4)),
        (while_true, (np.array([1.0, 2.0, -1.0, 3.0]),)), (while_true, (np.ones(2),)),
        (rows_inplace, (A.copy(),)), (iter_values, (rng.random(5).astype(np.float32),)),
        (swap_elems, (rng.random(5), 1, 3)), (swap_rows_views, (A.copy(), 0, 2)),
        (swap_rows_fancy, (np.asfortranarray(A), 0, 2)), (enumerate_rows, (A.copy(),)),
        (half_loop, (rng.random(7),)), (half_loop, ((rng.random(6) * 9).astype(np.int8),)),
        (sor, (rng.random((6, 6)), rng.random((6, 6)), 1.5, 0.1, 2)),
        (aliasing_view_rhs, (rng.random(6),)), (aliasing_view_aug, (rng.random(6),)),
        (transpose_inplace_add, (A.copy(),)), (transpose_inplace_add, (np.asfortranarray(A),)),
        (lu_pivot, (M,)), (lu_pivot, (np.asfortranarray(M.astype(np.float32)),)),
        (cg, (S, rng.random(6), 1e-10, 50)), (rk4, (np.array([1.0, 0.0]), 0.01, 100)),
        (life, ((rng.random((8, 8)) > 0.6).astype(np.int8), 3)), (power_iter, (S, 30)),
        (mandel, (xx, yy, 50)),
    ]


@pytest.mark.parametrize("backend", ["native", "xla", "interp"])
def test_ported_kernels_match_numpy(backend):
    for fn, args in _cases(np.random.default_rng(7)):
        if backend == "xla" and fn is lu_pivot:   # run-time slice lengths: refused, the line
            with pytest.raises(solvent.UnsupportedError,
                               match=r"known only at run time.*ported\.py:\d+|ported\.py:\d+.*run time"):
                solvent.jit(fn, backend="xla")(*args)
            continue
        check(fn, *args, backend=backend)
