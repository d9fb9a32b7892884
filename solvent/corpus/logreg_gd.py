"""Logistic regression trained by gradient descent, using a plain Python helper function (sigmoid). Category: ml."""
import numpy as np


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def kernel(X, y, w, lr, iters):
    n = X.shape[0]
    for it in range(iters):
        p = sigmoid(X @ w)
        grad = X.T @ (p - y) / n
        w -= lr * grad
    p = sigmoid(X @ w)
    loss = -np.mean(y * np.log(p + 1e-12) + (1.0 - y) * np.log(1.0 - p + 1e-12))
    return loss


def make_args(n, rng):
    X = rng.standard_normal((10 * n, n))
    wt = rng.standard_normal(n)
    y = (X @ wt > 0.0).astype(np.float64)
    return (X, y, np.zeros(n), 0.5, 20)


SIZES = (8, 24)
BENCH_SIZE = 600
JAX_PORT = "logreg_gd"
NUMBA_OK = False  # numba: calls a plain (non-jitted) Python helper, which nopython mode cannot type
