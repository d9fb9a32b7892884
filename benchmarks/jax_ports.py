"""Hand-written, idiomatic JAX ports of corpus kernels (solvent/corpus/*.py).

Conventions
-----------
* Each port has the same name and takes the same positional arguments as the corpus
  ``kernel`` (NumPy arrays and Python scalars).  Integer arguments that fix shapes or
  trip counts are static (``static_argnums``).
* Each port returns a tuple ``(kernel_return_values..., mutated_args...)``: first the
  values the NumPy kernel returns (a returned tuple is flattened, ``None`` contributes
  nothing), then the final values of the array arguments the NumPy kernel mutates in
  place, in argument order.  E.g. ``gemm`` mutates ``C`` and returns nothing -> ``(C,)``;
  ``laplace_converge`` returns ``(it, err)`` and mutates ``u`` -> ``(it, err, u)``.
* Ports are written functionally (``.at[]`` updates, ``lax.fori_loop`` / ``scan`` /
  ``while_loop``) and where a JAX user would naturally restructure a loop into a
  vectorised or library form (trmm, syrk, cholesky, kmeans, histogram, ...), they do.
* float64 must be enabled only in scope: call ports through :func:`call`, which runs
  them under ``jax.enable_x64(True)``, blocks until ready and converts the outputs to
  NumPy.  Nothing here touches the global JAX configuration.
"""
from functools import partial

import numpy as np
import jax
import jax.numpy as jnp
from jax import lax

# --------------------------------------------------------------------------- helpers


def call(port, *args):
    """Run ``port`` (a function or a name in this module) with float64 enabled in scope.

    Returns a tuple of NumPy arrays / scalars (already synchronised)."""
    fn = globals()[port] if isinstance(port, str) else port
    with jax.enable_x64(True):
        out = fn(*args)
        out = jax.block_until_ready(out)
    return tuple(np.asarray(o) for o in out)


def get(name):
    return globals()[name]


# --------------------------------------------------------------------------- linalg


@jax.jit
def gemm(alpha, beta, C, A, B):
    return (beta * C + alpha * A @ B,)


@jax.jit
def gemver(alpha, beta, A, u1, v1, u2, v2, w, x, y, z):
    A = A + jnp.outer(u1, v1) + jnp.outer(u2, v2)
    x = x + beta * y @ A + z
    w = w + alpha * A @ x
    return A, w, x


@jax.jit
def atax(A, x):
    return ((A @ x) @ A,)


@jax.jit
def bicg(A, p, r):
    return r @ A, A @ p


@jax.jit
def mvt(x1, x2, y_1, y_2, A):
    return x1 + A @ y_1, x2 + A.T @ y_2


@jax.jit
def two_mm(alpha, beta, A, B, C, D):
    return (beta * D + (alpha * A @ B) @ C,)


@jax.jit
def three_mm(A, B, C, D):
    return ((A @ B) @ (C @ D),)


@jax.jit
def syrk(alpha, beta, C, A):
    n = C.shape[0]
    lower = jnp.tril(jnp.ones((n, n), dtype=bool))
    return (jnp.where(lower, beta * C + alpha * (A @ A.T), C),)


@jax.jit
def trmm(alpha, A, B):
    return (alpha * (B + jnp.tril(A, -1).T @ B),)


@jax.jit
def cholesky(A):
    return (jnp.linalg.cholesky(A),)


@jax.jit
def lstsq_normal(X, y, lam):
    G = X.T @ X + lam * jnp.eye(X.shape[1], dtype=X.dtype)
    L = jnp.linalg.cholesky(G)
    z = jax.scipy.linalg.solve_triangular(L, X.T @ y, lower=True)
    w = jax.scipy.linalg.solve_triangular(L.T, z, lower=False)
    Ginv = jnp.linalg.inv(G)
    return w, jnp.linalg.norm(y - X @ w), Ginv


@jax.jit
def floyd_warshall(path):
    def body(k, p):
        return jnp.minimum(p, p[:, k][:, None] + p[k, :][None, :])

    return (lax.fori_loop(0, path.shape[0], body, path),)


@partial(jax.jit, static_argnums=3)
def spmv_ell(vals, cols, x, iters):
    def body(it, x):
        y = jnp.sum(vals * x[cols], axis=1)
        return y / jnp.sqrt(jnp.sum(y * y))

    return (lax.fori_loop(0, iters, body, x),)


# --------------------------------------------------------------------------- stencils


@partial(jax.jit, static_argnums=0)
def jacobi_1d(TSTEPS, A, B):
    def body(t, AB):
        A, B = AB
        B = B.at[1:-1].set(0.33333 * (A[:-2] + A[1:-1] + A[2:]))
        A = A.at[1:-1].set(0.33333 * (B[:-2] + B[1:-1] + B[2:]))
        return A, B

    return lax.fori_loop(1, TSTEPS, body, (A, B))


def _jac2(A):
    return 0.2 * (A[1:-1, 1:-1] + A[1:-1, :-2] + A[1:-1, 2:] + A[2:, 1:-1] + A[:-2, 1:-1])


@partial(jax.jit, static_argnums=0)
def jacobi_2d(TSTEPS, A, B):
    def body(t, AB):
        A, B = AB
        B = B.at[1:-1, 1:-1].set(_jac2(A))
        A = A.at[1:-1, 1:-1].set(_jac2(B))
        return A, B

    return lax.fori_loop(1, TSTEPS, body, (A, B))


def _heat3(A):
    c = A[1:-1, 1:-1, 1:-1]
    return (0.125 * (A[2:, 1:-1, 1:-1] - 2.0 * c + A[:-2, 1:-1, 1:-1])
            + 0.125 * (A[1:-1, 2:, 1:-1] - 2.0 * c + A[1:-1, :-2, 1:-1])
            + 0.125 * (A[1:-1, 1:-1, 2:] - 2.0 * c + A[1:-1, 1:-1, :-2])
            + c)


@partial(jax.jit, static_argnums=0)
def heat_3d(TSTEPS, A, B):
    def body(t, AB):
        A, B = AB
        B = B.at[1:-1, 1:-1, 1:-1].set(_heat3(A))
        A = A.at[1:-1, 1:-1, 1:-1].set(_heat3(B))
        return A, B

    return lax.fori_loop(1, TSTEPS, body, (A, B))


def _heat2(A):
    return 0.125 * (A[2:, 1:-1] - 2.0 * A[1:-1, 1:-1] + A[:-2, 1:-1]) + A[1:-1, 1:-1]


@partial(jax.jit, static_argnums=0)
def heat_2d_slices(TSTEPS, A, B):
    def body(t, AB):
        A, B = AB
        B = B.at[1:-1, 1:-1].set(_heat2(A))
        A = A.at[1:-1, 1:-1].set(_heat2(B))
        return A, B

    A, B = lax.fori_loop(0, TSTEPS, body, (A, B))
    return A, A, B  # returns A, and mutates A and B


@partial(jax.jit, static_argnums=0)
def seidel_2d(TSTEPS, A):
    N = A.shape[0]

    def row(i, A):
        up, cur, dn = A[i - 1], A[i], A[i + 1]
        new = (cur[1:-1] + up[:-2] + up[1:-1] + up[2:] + cur[2:] + dn[:-2] + dn[1:-1] + dn[2:])

        def step(prev, v):
            r = (v + prev) / 9.0
            return r, r

        _, vals = lax.scan(step, cur[0], new)
        return A.at[i, 1:-1].set(vals)

    def sweep(t, A):
        return lax.fori_loop(1, N - 1, row, A)

    return (lax.fori_loop(0, TSTEPS - 1, sweep, A),)


@partial(jax.jit, static_argnums=0)
def fdtd_2d(TMAX, ex, ey, hz, _fict_):
    def body(t, s):
        ex, ey, hz = s
        ey = ey.at[0, :].set(_fict_[t])
        ey = ey.at[1:, :].set(ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :]))
        ex = ex.at[:, 1:].set(ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1]))
        hz = hz.at[:-1, :-1].set(
            hz[:-1, :-1] - 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1] - ey[:-1, :-1]))
        return ex, ey, hz

    return lax.fori_loop(0, TMAX, body, (ex, ey, hz))


@partial(jax.jit, static_argnums=1)
def blur_f32(img, iters):
    def body(it, o):
        return o.at[1:-1, 1:-1].set(
            0.25 * o[1:-1, 1:-1]
            + 0.125 * (o[:-2, 1:-1] + o[2:, 1:-1] + o[1:-1, :-2] + o[1:-1, 2:])
            + 0.0625 * (o[:-2, :-2] + o[:-2, 2:] + o[2:, :-2] + o[2:, 2:]))

    out = lax.fori_loop(0, iters, body, img)
    return out, out.sum(axis=0)


@jax.jit
def laplace_converge(u, tol, max_iter):
    def cond(s):
        u, err, it = s
        return (err > tol) & (it < max_iter)

    def body(s):
        u, err, it = s
        new = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:])
        err = jnp.max(jnp.abs(new - u[1:-1, 1:-1]))
        return u.at[1:-1, 1:-1].set(new), err, it + 1

    u, err, it = lax.while_loop(cond, body, (u, jnp.asarray(tol + 1.0, u.dtype), jnp.asarray(0)))
    return it, err, u


# --------------------------------------------------------------------------- reductions


@jax.jit
def row_col_norms(A):
    row = jnp.sqrt(jnp.sum(A * A, axis=1))
    col = jnp.sqrt(jnp.sum(A ** 2, axis=0))
    return row, col, jnp.linalg.norm(A), (A / row[:, None]).max(axis=1)


@jax.jit
def axis_stats(X):
    mu = X.mean(axis=0)
    sd = X.std(axis=0)
    z = (X - mu) / sd
    return (mu, sd, X.var(axis=1), jnp.argmax(X, axis=1), jnp.argmin(X, axis=0),
            jnp.min(z, axis=0, keepdims=True), jnp.any(X > 0.99, axis=1), jnp.all(X > 0.0),
            jnp.prod(1.0 + 0.001 * X, axis=0))


@jax.jit
def prefix_sum(x, Y):
    c = jnp.cumsum(x)
    Y = jnp.cumsum(Y, axis=1)
    return c, c[-1] - Y[-1, -1], Y


# --------------------------------------------------------------------------- ml


@jax.jit
def softmax(x):
    e = jnp.exp(x - jnp.max(x, axis=-1, keepdims=True))
    return (e / jnp.sum(e, axis=-1, keepdims=True),)


@jax.jit
def mlp_forward(X, W1, b1, W2, b2, W3, b3):
    h = jax.nn.relu(X @ W1 + b1)
    h = jax.nn.relu(h @ W2 + b2)
    return (jnp.tanh(h @ W3 + b3),)


@jax.jit
def layernorm(x, gamma, beta, eps):
    mean = jnp.mean(x, axis=-1, keepdims=True)
    var = jnp.var(x, axis=-1, keepdims=True)
    return (gamma * (x - mean) / jnp.sqrt(var + eps) + beta,)


@jax.jit
def attention(Q, K, V):
    s = jnp.einsum('hid,hjd->hij', Q, K) / jnp.sqrt(Q.shape[-1])
    return (jax.nn.softmax(s, axis=-1) @ V,)


@jax.jit
def conv1d(x, w, b):
    # A Python loop over the (static) taps unrolls at trace time; on CPU this was
    # ~1.7x faster than lax.conv_general_dilated for float64.
    K = w.shape[2]
    L_out = x.shape[1] - K + 1
    out = sum(w[:, :, k] @ x[:, k:k + L_out] for k in range(K))
    return (jax.nn.relu(out + b[:, None]),)


@partial(jax.jit, static_argnums=2)
def kmeans(X, C, iters):
    k = C.shape[0]

    def body(it, s):
        C, labels = s
        d = jnp.sum((X[:, None, :] - C[None, :, :]) ** 2, axis=2)
        labels = jnp.argmin(d, axis=1)
        onehot = (labels[:, None] == jnp.arange(k)[None, :]).astype(X.dtype)
        cnt = onehot.sum(axis=0)
        sums = onehot.T @ X
        C = jnp.where(cnt[:, None] > 0, sums / jnp.maximum(cnt, 1.0)[:, None], C)
        return C, labels

    C, labels = lax.fori_loop(0, iters, body, (C, jnp.zeros(X.shape[0], dtype=jnp.int64)))
    return labels, C


@partial(jax.jit, static_argnums=4)
def logreg_gd(X, y, w, lr, iters):
    n = X.shape[0]

    def body(it, w):
        p = jax.nn.sigmoid(X @ w)
        return w - lr * (X.T @ (p - y) / n)

    w = lax.fori_loop(0, iters, body, w)
    p = jax.nn.sigmoid(X @ w)
    loss = -jnp.mean(y * jnp.log(p + 1e-12) + (1.0 - y) * jnp.log(1.0 - p + 1e-12))
    return loss, w


# --------------------------------------------------------------------------- nbody


@partial(jax.jit, static_argnums=6)
def nbody(pos, vel, mass, G, dt, softening, steps):
    def body(s, pv):
        pos, vel = pv
        d = pos[None, :, :] - pos[:, None, :]
        inv_r3 = (jnp.sum(d * d, axis=2) + softening ** 2) ** -1.5
        acc = G * jnp.einsum('ijk,ij->ik', d, inv_r3 * mass[None, :])
        vel = vel + dt * acc
        return pos + dt * vel, vel

    pos, vel = lax.fori_loop(0, steps, body, (pos, vel))
    ke = 0.5 * jnp.sum(mass * jnp.sum(vel ** 2, axis=1))
    return ke, pos, vel


# --------------------------------------------------------------------------- scalar-loop kernels, vectorised


@partial(jax.jit, static_argnums=2)
def mandelbrot_scalar(xs, ys, maxiter):
    cr = jnp.broadcast_to(xs[None, :], (ys.shape[0], xs.shape[0]))
    ci = jnp.broadcast_to(ys[:, None], (ys.shape[0], xs.shape[0]))

    def body(it, s):
        zr, zi, k = s
        active = zr * zr + zi * zi <= 4.0
        nzr = zr * zr - zi * zi + cr
        nzi = 2.0 * zr * zi + ci
        return jnp.where(active, nzr, zr), jnp.where(active, nzi, zi), k + active.astype(k.dtype)

    z0 = jnp.zeros_like(cr)
    _, _, k = lax.fori_loop(0, maxiter, body, (z0, z0, jnp.zeros(cr.shape, jnp.int64)))
    return (k,)


@partial(jax.jit, static_argnums=1)
def histogram(x, nbins, lo, hi):
    idx = jnp.floor((x - lo) * (nbins / (hi - lo))).astype(jnp.int64)
    valid = (idx >= 0) & (idx < nbins)
    counts = jnp.zeros(nbins, jnp.int64).at[jnp.where(valid, idx, 0)].add(valid.astype(jnp.int64))
    return (counts,)


@jax.jit
def soft_threshold(x, y, thresh):
    y = jnp.where(x > thresh, x - thresh, jnp.where(x < -thresh, x + thresh, 0.0))
    return jnp.sum(y * y), jnp.sum(x > thresh), y


@jax.jit
def find_first(x, target):
    hit = jnp.cumsum(x, axis=1) > target
    return (jnp.where(hit.any(axis=1), jnp.argmax(hit, axis=1), -1),)


@jax.jit
def gcd_pairs(a, b):
    def cond(s):
        return jnp.any(s[1] != 0)

    def body(s):
        x, y = s
        nz = y != 0
        return jnp.where(nz, y, x), jnp.where(nz, x % jnp.where(nz, y, 1), 0)

    x, _ = lax.while_loop(cond, body, (a, b))
    return (x,)


@jax.jit
def go_fast(a):
    return (a + jnp.sum(jnp.tanh(jnp.diagonal(a))),)


# --------------------------------------------------------------------------- misc


@partial(jax.jit, static_argnums=(4, 5, 6))
def mandelbrot_vec(xmin, xmax, ymin, ymax, xn, yn, maxiter):
    X = jnp.linspace(xmin, xmax, xn)
    Y = jnp.linspace(ymin, ymax, yn)
    C = X[None, :] + 1j * Y[:, None]

    def body(n, s):
        Z, N = s
        inside = jnp.abs(Z) < 2.0
        return jnp.where(inside, Z * Z + C, Z), jnp.where(inside, n + 1, N)

    Z, N = lax.fori_loop(0, maxiter, body, (jnp.zeros_like(C), jnp.zeros(C.shape, jnp.int64)))
    return N, jnp.abs(Z)


@jax.jit
def dft(x):
    n = x.shape[0]
    k = jnp.arange(n)
    kk = jnp.outer(k, k)
    X = jnp.exp(-2j * jnp.pi * kk / n) @ x
    xr = (jnp.exp(2j * jnp.pi * kk / n) @ X) / n
    return X, jnp.abs(X) ** 2, xr


@partial(jax.jit, static_argnums=2)
def int_hash(a, b, rounds):
    def body(r, h):
        h = (h * 31 + b) % 1000003
        return h + (h // 7) % 13

    h = lax.fori_loop(0, rounds, body, a)
    return h, h // 97, h % 97, jnp.sum(h % 2)


@partial(jax.jit, static_argnums=3)
def polar_helper(x, y, omega, steps):
    r = jnp.sqrt(x * x + y * y)
    th = jnp.arctan2(y, x)

    def body(s, th):
        a = th + omega * r
        return a - 2.0 * jnp.pi * jnp.floor((a + jnp.pi) / (2.0 * jnp.pi))

    th = lax.fori_loop(0, steps, body, th)
    return r * jnp.cos(th), r * jnp.sin(th)


@jax.jit
def arc_distance(theta_1, phi_1, theta_2, phi_2):
    temp = (jnp.sin((theta_2 - theta_1) / 2) ** 2
            + jnp.cos(theta_1) * jnp.cos(theta_2) * jnp.sin((phi_2 - phi_1) / 2) ** 2)
    return (2 * jnp.arctan2(jnp.sqrt(temp), jnp.sqrt(1 - temp)),)


@jax.jit
def array_ops(a, b):
    c = jnp.concatenate((a, b), axis=0)
    s = jnp.stack((a, b), axis=0)
    h = jnp.hstack((a, jnp.flip(b, axis=1)))
    v = jnp.vstack((a.T, b[::-1, :].T))
    m = s.transpose(1, 0, 2).reshape(a.shape[0], 2 * a.shape[1])
    return (c.sum(axis=1), s.mean(axis=0), h @ v, jnp.repeat(a[:, 0], 2),
            jnp.triu(a) + jnp.tril(b, -1), m.ravel()[::3], a.ravel()[-5:])


@jax.jit
def ufunc_mix(x, y):
    a = jnp.clip(x, 0.1, 0.9)
    b = jnp.power(a, 1.5) + jnp.log(a) * jnp.sign(y - 0.5)
    c = jnp.tan(a) - jnp.ceil(y * 4.0) / 4.0
    d = jnp.minimum(b, c) + jnp.maximum(jnp.abs(b), 0.5)
    return jnp.tanh(d), jnp.floor(b * 10.0)
