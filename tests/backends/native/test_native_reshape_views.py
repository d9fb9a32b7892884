"""A static reshape of a stored array is read in place by its consumer (bufferize
``_view_reshape``: concatenate, transpose, slice, elementwise ops and reductions read each
element at its C-order offset in the source, no copy), and np.stack(..).sum/mean over the
stacked axis is a chain of adds (pattern sum-of-stack). NumPy is the oracle: C, Fortran and
strided inputs, sizes 0 and 1, and a source overwritten after the reshape."""
import numpy as np
import pytest

import solvent

from differential import check


def stack_mean(a, b):
    return np.stack((a, b), axis=0).mean(axis=0)


def stack3_sum_keep(a, b):
    return np.stack((a, b, a * 2.0), axis=1).sum(axis=1, keepdims=True)


def stacked_rows(a, b):
    s = np.stack((a, b), axis=0)
    m = s.transpose(1, 0, 2).reshape(a.shape[0], 2 * a.shape[1])
    return m.flatten()[::3]


def flat_cat(a, b):
    return np.concatenate((a.reshape(-1), (b * 3.0).reshape(-1)))


def flat_add(a, b):
    return a.reshape(-1) + b.T.reshape(-1)


def reshaped_product(a, b):
    return a.reshape(a.shape[1], a.shape[0]).T @ b


def overwritten_after(a, b):
    x = a * 2.0
    y = x.reshape(-1).copy()
    x[0, 0] = 5.0
    return y + 1.0, x


KERNELS = [stack_mean, stack3_sum_keep, stacked_rows, flat_cat, flat_add, overwritten_after]


def _pair(n, m, order="C", strided=False):
    rng = np.random.default_rng(n * 7 + m)
    if strided:
        a, b = rng.random((n, 2 * m))[:, ::2], rng.random((2 * n, m))[::2]
    else:
        a, b = rng.random((n, m)), rng.random((n, m))
    return np.asarray(a, order=order), np.asarray(b, order=order)


@pytest.fixture
def every_reshape_a_view(monkeypatch):
    """Small reshapes are copied (bufferize.VIEW_MIN); the small cases read them in place."""
    from solvent.backends.native import bufferize
    monkeypatch.setattr(bufferize, "VIEW_MIN", 1)


@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("nm", [(0, 3), (1, 1), (4, 5)], ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("kernel", KERNELS, ids=lambda f: f.__name__)
def test_native_matches_numpy(kernel, nm, layout, every_reshape_a_view):
    if kernel is overwritten_after and nm[0] == 0:
        pytest.skip("x[0, 0] of an empty array raises in both")
    a, b = _pair(*nm, order="F" if layout == "F" else "C", strided=layout == "strided")
    check(kernel, a, b, backend="native")


@pytest.mark.parametrize("n", [1, 6])
def test_reshaped_product_and_auto_match_numpy(n, every_reshape_a_view):
    a, b = _pair(n, n + 1)
    check(reshaped_product, a, _pair(n + 1, 3)[0], backend="native")
    check(stack_mean, a, b, backend=None)
    check(stacked_rows, a, b, backend=None)


def test_reshapes_are_views_and_the_stack_sum_adds():
    """The compiled plan gives the reshapes no buffer of their own, and stack(..).mean(0)
    keeps no concatenation; a reshape whose source is overwritten before it is read is
    copied (the overwrite would show through a view)."""
    from solvent.backends.native.bufferize import VIEW_MIN, Plan
    a, b = _pair(64, 65)   # reshapes of at least VIEW_MIN elements
    assert a.size >= VIEW_MIN
    check(stacked_rows, a, b, backend="native")
    c = solvent.jit(stacked_rows, backend="native").compile((a, b))
    plan = Plan(c.fn)
    reshapes = [op for op in c.fn.walk() if op.name == "tensor.reshape"]
    assert reshapes and all(op in plan.fused for op in reshapes)
    m = solvent.jit(stack_mean, backend="native").compile((a, b))
    assert not any(op.name in ("tensor.concatenate", "tensor.reduce_sum") for op in m.fn.walk())
    o = solvent.jit(overwritten_after, backend="native").compile((a, b))
    plan = Plan(o.fn)
    assert [op for op in o.fn.walk() if op.name == "tensor.reshape" and op not in plan.fused]
