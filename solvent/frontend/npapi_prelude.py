"""NumPy functions written in the NumPy style solvent compiles, inlined where they are called.

Each function here implements the NumPy function named in its ``@prelude`` with the same
results and dtypes, using only constructs the frontend translates (slices, ufuncs,
reductions, ``np.where``, compile-time loops over shapes). Being ordinary solvent input,
each one is optimized, differentiated and lowered to every backend like user code. Errors
and run-time checks inside them report the caller's line.

Identities relied on are stated per function; ``tests/frontend/test_numpy_prelude.py``
compares every one with NumPy.
"""
from __future__ import annotations

import math

import numpy as np

PRELUDE: dict = {}  # NumPy function -> its implementation here

# the named tuples NumPy's array-API unique functions return
UniqueAllResult = type(np.unique_all(np.zeros(1)))
UniqueCountsResult = type(np.unique_counts(np.zeros(1)))
UniqueInverseResult = type(np.unique_inverse(np.zeros(1)))


def prelude(*np_fns):
    def deco(fn):
        for f in np_fns:
            PRELUDE[f] = fn
        return fn
    return deco


@prelude(np.diff)
def diff(a, n=1, axis=-1, prepend=None, append=None):
    """n-th discrete difference along ``axis``: out[i] = a[i+1] - a[i], n times; ``prepend``
    and ``append`` are joined to ``a`` along ``axis`` first (a scalar as one slice), as in
    NumPy (which also promotes the dtype of the join)."""
    if n == 0:
        return a
    if prepend is not None or append is not None:
        x = np.asarray(a)
        ax = axis % x.ndim
        one = x.shape[:ax] + (1,) + x.shape[ax + 1:]
        if prepend is not None:
            p = np.asarray(prepend)
            x = np.concatenate((np.broadcast_to(p, one) if p.ndim == 0 else p, x), axis=ax)
        if append is not None:
            q = np.asarray(append)
            x = np.concatenate((x, np.broadcast_to(q, one) if q.ndim == 0 else q), axis=ax)
        return diff(x, n, ax)
    x = np.moveaxis(np.asarray(a), axis, -1)
    if x.dtype == np.bool_:   # NumPy: not_equal for booleans (bool - bool raises)
        d = np.moveaxis(x[..., 1:] != x[..., :-1], -1, axis)
    else:
        d = np.moveaxis(x[..., 1:] - x[..., :-1], -1, axis)
    return diff(d, n - 1, axis)   # n is a compile-time count: inlined n times



@prelude(np.unique)
def unique(ar, return_index=False, return_inverse=False, return_counts=False,
           equal_nan=True, axis=None, sorted=True):
    """Sorted distinct values of the flattened array, or with ``axis`` the distinct
    sub-arrays along it (unique_along), a run-time length (the native backend or the
    interpreter runs it; XLA refuses it), optionally with each one's first index, the
    inverse map (shaped like ``ar``; 1-D with ``axis``) and the counts. NaNs count as one
    value with ``equal_nan``, as in NumPy. With ``sorted=False`` NumPy leaves the order
    unspecified; solvent's is sorted."""
    if axis is not None and np.ndim(ar) > 1:    # NumPy ignores axis on a 1-D array
        return unique_along(ar, axis, return_index, return_inverse, return_counts)
    a = np.ravel(ar)
    perm = np.argsort(a, kind="stable")   # stable: perm[new] are first occurrences
    s = a[perm]
    new = np.ones(s.shape, dtype=np.bool_)
    if equal_nan:                         # x != x only for NaN
        new[1:] = (s[1:] != s[:-1]) & ~((s[1:] != s[1:]) & (s[:-1] != s[:-1]))
    else:
        new[1:] = s[1:] != s[:-1]
    out = (s[new],)
    if return_index:
        out = out + (perm[new],)
    group = np.cumsum(new) - 1            # the distinct value each sorted entry is
    if return_inverse:
        inv = np.zeros(a.shape, dtype=np.int64)
        np.add.at(inv, perm, group)       # perm is a permutation: inv[perm] = group
        out = out + (np.reshape(inv, np.shape(ar)),)
    if return_counts:
        counts = np.zeros(a.shape, dtype=np.int64)
        np.add.at(counts, group, 1)
        out = out + (counts[:len(out[0])],)
    if len(out) == 1:
        return out[0]
    return out

@prelude(np.unique_all)
def unique_all(x):
    """NumPy's array-API ``unique_all``: values, first indices, inverse indices (shaped like
    ``x``) and counts, as a ``UniqueAllResult``; NaNs are distinct values."""
    values, indices, inverse, counts = unique(x, True, True, True, False)
    return UniqueAllResult(values, indices, inverse, counts)


@prelude(np.unique_counts)
def unique_counts(x):
    """NumPy's ``unique_counts``: a ``UniqueCountsResult`` (values, counts)."""
    values, counts = unique(x, False, False, True, False)
    return UniqueCountsResult(values, counts)


@prelude(np.unique_inverse)
def unique_inverse(x):
    """NumPy's ``unique_inverse``: a ``UniqueInverseResult`` (values, inverse indices shaped
    like ``x``)."""
    values, inverse = unique(x, False, True, False, False)
    return UniqueInverseResult(values, inverse)


@prelude(np.unique_values)
def unique_values(x):
    """NumPy's ``unique_values``: the distinct values, NaNs distinct. NumPy's order is
    unspecified (hash-based); solvent's is sorted."""
    return unique(x, False, False, False, False)


def unique_along(ar, axis, return_index, return_inverse, return_counts):
    """np.unique(ar, axis=axis): the distinct sub-arrays ar[..., i, ...] along ``axis`` in
    lexicographic order, as NumPy orders them (it views each one as a record of its
    elements: compared element by element, NaN after every number, and NaN never equal to
    NaN, so equal_nan does not apply). The order comes from stable argsorts by each
    element, last to first (a radix sort: ties keep the order of the sort before), so the
    first index is the first occurrence; the inverse is 1-D, as NumPy gives it."""
    a = np.moveaxis(ar, axis, 0)
    n = a.shape[0]
    rows = np.reshape(a, (n, -1))
    perm = np.arange(n)
    for k in range(rows.shape[1] - 1, -1, -1):     # a compile-time count: unrolled
        perm = perm[np.argsort(rows[perm, k], kind="stable")]
    s = rows[perm]
    new = np.ones(n, dtype=np.bool_)
    new[1:] = np.any(s[1:] != s[:-1], axis=1)
    first = perm[new]
    out = (np.moveaxis(a[first], 0, axis),)
    if return_index:
        out = out + (first,)
    group = np.cumsum(new) - 1
    if return_inverse:
        inv = np.zeros(n, dtype=np.int64)
        np.add.at(inv, perm, group)
        out = out + (inv,)
    if return_counts:
        counts = np.zeros(n, dtype=np.int64)
        np.add.at(counts, group, 1)
        out = out + (counts[:len(first)],)
    if len(out) == 1:
        return out[0]
    return out


@prelude(np.meshgrid)
def meshgrid(x, y, indexing="xy"):
    """Two 1-D coordinate vectors to two 2-D grids ('xy': shape (len(y), len(x)))."""
    if indexing == "xy":
        return (np.broadcast_to(x[np.newaxis, :], (y.shape[0], x.shape[0])).copy(),
                np.broadcast_to(y[:, np.newaxis], (y.shape[0], x.shape[0])).copy())
    return (np.broadcast_to(x[:, np.newaxis], (x.shape[0], y.shape[0])).copy(),
            np.broadcast_to(y[np.newaxis, :], (x.shape[0], y.shape[0])).copy())


@prelude(np.average)
def average(a, axis=None, weights=None):
    """sum(a * w) / sum(w) along ``axis`` (w broadcast along it); plain mean without w."""
    if weights is None:
        return np.mean(a, axis=axis)
    if axis is None or np.ndim(weights) == np.ndim(a):
        w = np.broadcast_to(weights, np.shape(a))
        return np.sum(a * w, axis=axis) / np.sum(w, axis=axis)
    ax = axis % np.ndim(a)
    w = np.reshape(weights, (-1,) + (1,) * (np.ndim(a) - ax - 1))
    return np.sum(a * w, axis=axis) / np.sum(weights)


@prelude(np.cov)
def cov(m, rowvar=True, bias=False, ddof=None):
    """Covariance of the rows (variables) of ``m``: X X^H / (N - ddof), X centred."""
    x = np.atleast_2d(m) if rowvar else np.atleast_2d(m).T
    x = x.astype(np.result_type(x.dtype, np.float64))
    if ddof is None:
        ddof = 0 if bias else 1
    n = x.shape[1]
    xc = x - np.mean(x, axis=1, keepdims=True)
    c = (xc @ np.conj(xc).T) / (n - ddof)
    if np.ndim(m) == 1:
        return np.squeeze(c)   # a 0-d array, as NumPy returns
    return c


@prelude(np.corrcoef)
def corrcoef(x, rowvar=True):
    """cov / sqrt(diag(cov) diag(cov)^T), clipped to [-1, 1] as NumPy does for reals."""
    c = cov(x, rowvar)
    if np.ndim(c) == 0:
        return c / c
    d = np.sqrt(np.real(np.diag(c)))
    r = c / d[:, np.newaxis] / d[np.newaxis, :]
    return np.clip(r, -1, 1)


@prelude(np.kron)
def kron(a, b):
    """Kronecker product of two 2-D (or 1-D) arrays: blocks a[i, j] * b."""
    if np.ndim(a) == 1 and np.ndim(b) == 1:
        return np.reshape(a[:, np.newaxis] * b[np.newaxis, :], (a.shape[0] * b.shape[0],))
    a2, b2 = np.atleast_2d(a), np.atleast_2d(b)
    p = a2[:, np.newaxis, :, np.newaxis] * b2[np.newaxis, :, np.newaxis, :]
    return np.reshape(p, (a2.shape[0] * b2.shape[0], a2.shape[1] * b2.shape[1]))


@prelude(np.linalg.matrix_power)
def matrix_power(a, n):
    """a @ a @ ... (n >= 1 factors, by repeated squaring); identity for n == 0; n < 0
    through the inverse."""
    if n == 0:
        return np.eye(a.shape[0], dtype=a.dtype)
    if n < 0:
        a = np.linalg.inv(a)
        n = -n
    result = a
    k = n - 1
    base = a
    while k > 0:   # a compile-time loop: n is a compile-time integer
        if k % 2 == 1:
            result = result @ base
        k = k // 2
        if k > 0:
            base = base @ base
    return result


@prelude(np.isclose)
def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """|a - b| <= atol + rtol * |b|, infinities equal only to themselves. As in NumPy, b is
    made inexact first (result_type(b, 1.0)): |b| of an integer's minimum would wrap."""
    b = b * 1.0
    finite = np.isfinite(a) & np.isfinite(b)
    close = np.abs(a - b) <= atol + rtol * np.abs(b)
    same_inf = ~finite & (a == b)
    out = (finite & close) | same_inf
    if equal_nan:
        out = out | (np.isnan(a) & np.isnan(b))
    return out


@prelude(np.allclose)
def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return bool(np.all(isclose(a, b, rtol, atol, equal_nan)))


@prelude(np.polyval)
def polyval(p, x):
    """Horner's rule over the coefficients, highest power first, as NumPy's own loop
    (y starts as zeros_like(x), so the result's dtype is its promotion)."""
    y = np.zeros_like(x)
    for pv in p:
        y = y * x + pv
    return y


@prelude(np.trapezoid)
def trapezoid(y, x=None, dx=1.0, axis=-1):
    """The trapezoidal rule along ``axis``: sum(d * (y[1:] + y[:-1]) / 2), d the spacing
    (``dx``, or the differences of ``x``, 1-D or shaped like ``y``)."""
    yy = np.moveaxis(np.asarray(y), axis, -1)
    if x is None:
        d = dx
    elif np.ndim(x) == 1:
        d = np.diff(x)
    else:
        d = np.moveaxis(np.diff(x, axis=axis), axis, -1)
    return (d * (yy[..., 1:] + yy[..., :-1]) / 2.0).sum(-1)


def _nan_as(a, fill):
    """``a`` with its NaNs replaced by ``fill`` (integer and bool arrays have none)."""
    x = np.asarray(a)
    return np.where(np.isnan(x), fill, x) if x.dtype.kind in "fc" else x


@prelude(np.nansum)
def nansum(a, axis=None, dtype=None, keepdims=False):
    """The sum with NaNs counted as zero (integers: the sum)."""
    return np.sum(_nan_as(a, 0), axis=axis, dtype=dtype, keepdims=keepdims)


@prelude(np.nanprod)
def nanprod(a, axis=None, dtype=None, keepdims=False):
    """The product with NaNs counted as one."""
    return np.prod(_nan_as(a, 1), axis=axis, dtype=dtype, keepdims=keepdims)


def _nan_extreme(a, axis, keepdims, extreme, fill):
    """np.nanmax/np.nanmin: ``extreme`` (np.max/np.min) with NaNs replaced by ``fill`` (the
    value that never wins); NaN where every value is NaN (NumPy also warns)."""
    x = np.asarray(a)
    if x.dtype.kind not in "fc":
        return extreme(x, axis=axis, keepdims=keepdims)
    nan = np.isnan(x)
    m = extreme(np.where(nan, fill, x), axis=axis, keepdims=keepdims)
    return np.where(np.all(nan, axis=axis, keepdims=keepdims), np.nan, m).astype(x.dtype)[()]


@prelude(np.nanmax)
def nanmax(a, axis=None, keepdims=False):
    """The largest value ignoring NaNs."""
    return _nan_extreme(a, axis, keepdims, np.max, -np.inf)


@prelude(np.nanmin)
def nanmin(a, axis=None, keepdims=False):
    """The smallest value ignoring NaNs."""
    return _nan_extreme(a, axis, keepdims, np.min, np.inf)


@prelude(np.nanmean)
def nanmean(a, axis=None, keepdims=False):
    """The mean of the values that are not NaN (0/0, NaN, where there are none)."""
    x = np.asarray(a)
    if x.dtype.kind not in "fc":
        return np.mean(x, axis=axis, keepdims=keepdims)
    nan = np.isnan(x)
    total = np.sum(_nan_as(x, 0), axis=axis, keepdims=keepdims)
    # NumPy divides into the sum's own dtype (float32 stays float32)
    return (total / np.sum(~nan, axis=axis, keepdims=keepdims)).astype(total.dtype)[()]


@prelude(np.cross)
def cross(a, b):
    """The cross product of 3-vectors along the last axis (broadcast over the others), or
    the scalar z-component of 2-vectors, as NumPy computes each component."""
    x, y = np.asarray(a), np.asarray(b)
    if x.shape[-1] == 2 and y.shape[-1] == 2:
        return x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]
    assert x.shape[-1] == 3 and y.shape[-1] == 3, \
        "solvent's np.cross takes 2- or 3-vectors on the last axis of both arguments"
    return np.stack((x[..., 1] * y[..., 2] - x[..., 2] * y[..., 1],
                     x[..., 2] * y[..., 0] - x[..., 0] * y[..., 2],
                     x[..., 0] * y[..., 1] - x[..., 1] * y[..., 0]), axis=-1)


@prelude(np.vdot)
def vdot(a, b):
    """The dot product of the flattened arrays, the first one conjugated."""
    return np.dot(np.ravel(np.conj(a)), np.ravel(b))


@prelude(np.column_stack)
def column_stack(tup):
    """1-D arrays become columns, 2-D ones stay; joined along axis 1."""
    return np.concatenate(tuple(np.reshape(t, (-1, 1)) if np.ndim(t) < 2 else t
                                for t in tup), axis=1)


@prelude(np.isin)
def isin(element, test_elements, assume_unique=False, invert=False):
    """Whether each element is among ``test_elements``, by a binary search in their sorted
    copy ((n + m) log m, not NumPy's n x m comparison table for small inputs: the same
    booleans; NaN is never found)."""
    e = np.asarray(element)
    t = np.sort(np.ravel(test_elements))
    if t.shape[0] == 0:
        found = np.zeros(e.shape, dtype=np.bool_)
    else:
        k = np.minimum(np.searchsorted(t, e), t.shape[0] - 1)
        found = t[k] == e
    return ~found if invert else found


@prelude(math.isclose)
def math_isclose(a, b, rel_tol=1e-09, abs_tol=0.0):
    """Python's rule: equal, or both finite and |a - b| <= max(rel_tol * max(|a|, |b|),
    abs_tol); a Python bool."""
    close = abs(a - b) <= max(rel_tol * max(abs(a), abs(b)), abs_tol)
    finite = np.logical_and(np.isfinite(a), np.isfinite(b))
    return bool(np.logical_or(a == b, np.logical_and(finite, close)))


@prelude(np.count_nonzero)
def count_nonzero(a, axis=None):
    return np.sum(a != 0, axis=axis)


@prelude(np.angle)
def angle(z, deg=False):
    """arctan2(z.imag, z.real) (NumPy's own definition): 0 or pi for real input, float32
    for complex64, in degrees with ``deg``."""
    a = np.arctan2(np.imag(z), np.real(z))
    if deg:
        return a * (180.0 / np.pi)
    return a


@prelude(np.nan_to_num)
def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN -> nan, +inf -> posinf (largest finite value by default), -inf -> neginf."""
    big = np.finfo(np.real(x).dtype).max
    hi = big if posinf is None else posinf
    lo = -big if neginf is None else neginf
    out = np.where(np.isnan(x), nan, x)
    out = np.where(np.isinf(out) & (out > 0), hi, out)
    return np.where(np.isinf(out) & (out < 0), lo, out).astype(np.asarray(x).dtype)


@prelude(np.convolve)
def convolve(a, v, mode="full"):
    """Discrete linear convolution of two 1-D arrays: out[k] = sum_j a[j] v[k - j]."""
    n, m = a.shape[0], v.shape[0]
    if m > n:
        return convolve(v, a, mode)
    dt = np.result_type(a, v)
    full = np.zeros(n + m - 1, dtype=dt)
    for j in range(m):   # m is a compile-time length: one shifted, scaled copy per tap
        full[j:j + n] += v[j] * a
    if mode == "full":
        return full
    if mode == "same":
        start = (m - 1) // 2
        return full[start:start + n]
    return full[m - 1:n]


@prelude(np.interp)
def interp(x, xp, fp, left=None, right=None, period=None):
    """Piecewise-linear interpolation on increasing ``xp``; ``left``/``right`` (fp[0] /
    fp[-1] by default) outside. With ``period`` the points are taken modulo it, sorted and
    extended by one point at each end, as NumPy does (left/right are then ignored)."""
    xp = np.asarray(xp)
    fp = np.asarray(fp)
    xv = np.asarray(x).astype(np.float64)
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = None
        right = None
        xv = xv % period
        xp = xp.astype(np.float64) % period
        order = np.argsort(xp)
        xp = xp[order]
        fp = fp[order]
        xp = np.concatenate((xp[-1:] - period, xp, xp[0:1] + period))
        fp = np.concatenate((fp[-1:], fp, fp[0:1]))
    k = np.sum(xp[np.newaxis, :] <= np.reshape(xv, (-1, 1)), axis=1)  # searchsorted 'right'
    k = np.clip(k, 1, xp.shape[0] - 1)
    x0, x1 = xp[k - 1], xp[k]
    y0, y1 = fp[k - 1], fp[k]
    t = (np.reshape(xv, (-1,)) - x0) / (x1 - x0)
    y = y0 + t * (y1 - y0)
    lo = fp[0] if left is None else left
    hi = fp[-1] if right is None else right
    y = np.where(np.reshape(xv, (-1,)) < xp[0], lo, y)
    y = np.where(np.reshape(xv, (-1,)) > xp[-1], hi, y)
    y = np.where(np.reshape(xv, (-1,)) == xp[-1], fp[-1], y)
    y = y.astype(np.result_type(fp.dtype, np.float64))
    if np.ndim(x) == 0:
        return y[0]   # a NumPy scalar, as NumPy returns for a scalar x
    return np.reshape(y, np.shape(x))


@prelude(np.searchsorted)
def searchsorted(a, v, side="left", sorter=None):
    """Insertion points of ``v`` in sorted ``a`` (``a[sorter]`` with ``sorter``): the count
    of a's elements < v ('left') or <= v ('right')."""
    if sorter is not None:
        a = np.asarray(a)[sorter]
    vv = np.reshape(np.asarray(v), (-1, 1))
    if side == "left":
        k = np.sum(a[np.newaxis, :] < vv, axis=1)
    else:
        k = np.sum(a[np.newaxis, :] <= vv, axis=1)
    if np.ndim(v) == 0:
        return k[0]
    return np.reshape(k, np.shape(v))


@prelude(np.take)
def take(a, indices, axis=None, mode="raise"):
    """``mode``: 'raise' (an index out of range is an IndexError), 'wrap' (taken modulo the
    length), 'clip' (clipped into range: negative indices become 0, as NumPy does)."""
    if axis is None:
        a = np.ravel(a)
        axis = 0
    n = np.shape(a)[axis]
    if mode == "wrap":
        indices = np.mod(indices, n)
    elif mode == "clip":
        indices = np.clip(indices, 0, n - 1)
    elif mode != "raise":
        raise ValueError("clipmode must be one of 'clip', 'raise', or 'wrap'")
    return np.moveaxis(np.moveaxis(a, axis, 0)[indices], 0, axis) if np.ndim(indices) \
        else np.moveaxis(a, axis, 0)[indices]


@prelude(np.ptp)
def ptp(a, axis=None, keepdims=False):
    return np.max(a, axis=axis, keepdims=keepdims) - np.min(a, axis=axis, keepdims=keepdims)


def put(a, ind, v, mode="raise"):
    """a.flat[ind] = v in place (v repeated to the length of ind, negative indices from the
    end, the last of duplicate indices wins); npapi_math registers it for 1- to 3-D arrays
    and NumPy's default mode='raise'."""
    flat = np.ravel(np.asarray(ind))
    n = flat.shape[0]
    vals = np.ravel(np.asarray(v, dtype=a.dtype))
    vals = vals[np.arange(n) % vals.shape[0]] if n else vals[:0]
    if n == 0:
        return
    if a.ndim == 1:
        a[flat] = vals                     # wraps negatives and raises as NumPy does
        return
    if a.size == 0:
        np.ravel(a)[flat] = vals           # raises IndexError, as NumPy does
        return
    size = a.size
    k = np.where(flat < 0, flat + size, flat)
    k = np.where((k < 0) | (k >= size), size + np.abs(flat), k)  # out of range: raises
    last = k % a.shape[-1]                 # unravelled in C order; the first not wrapped
    if a.ndim == 2:
        a[k // a.shape[1], last] = vals
    else:
        a[k // (a.shape[1] * a.shape[2]), (k // a.shape[2]) % a.shape[1], last] = vals


@prelude(np.take_along_axis)
def take_along_axis(arr, indices, axis):
    """arr[i0, ..., indices[i0, ..., ik, ...], ...]: ``indices`` along ``axis``, an arange
    broadcast along every other axis (NumPy's fancy-index construction, any rank)."""
    if axis is None:
        return np.ravel(arr)[indices]
    nd = np.ndim(arr)
    ax = axis % nd
    index = tuple(indices if d == ax else np.reshape(
        np.arange(arr.shape[d]), tuple(arr.shape[d] if e == d else 1 for e in range(nd)))
        for d in range(nd))
    return arr[index]


@prelude(np.histogram)
def histogram(a, bins=10, range=None, density=None, weights=None):
    """Counts (or summed ``weights``, or a ``density``) of ``a`` in ``bins`` equal bins over
    ``range`` (the last bin closed), or in the bins between the edges of a 1-D ``bins``,
    and the bin edges; ``range`` defaults to (min, max), widened by 0.5 each way when they
    are equal. Equal bins follow NumPy's own algorithm step for step (so every count
    agrees): the bin from ``(x - lo) / (hi - lo) * bins``, corrected by one where that
    rounding crosses an edge, then one scatter-add: O(n). Given edges, a value's bin is
    the number of edges at or below it (O(n * bins)). Values outside go to an overflow
    slot that is dropped. Weights are summed in double precision and cast back to their
    dtype, as NumPy's bincount does."""
    if isinstance(bins, str):
        raise NotImplementedError(f"np.histogram with bins={bins!r} (NumPy's bin-width "
                                  "estimators): pass a number of bins or the edges")
    x = np.ravel(a)
    if np.ndim(bins) == 1:
        edges = np.asarray(bins)
        nb = edges.shape[0] - 1
        k = np.sum(edges[np.newaxis, :] <= x[:, np.newaxis], axis=1) - 1
        k = np.where(x == edges[-1], nb - 1, k)
        k = np.where((x >= edges[0]) & (x <= edges[-1]), k, nb)
    else:
        nb = bins
        if range is None:
            lo, hi = (0, 1) if x.shape[0] == 0 else (np.min(x), np.max(x))
        else:
            lo, hi = range[0], range[1]
        edt = np.result_type(lo, hi, x)        # NumPy's bin type: float32 data, float32 edges
        if edt.kind in "iub":
            edt = np.result_type(edt, 1.0)
        lo, hi = _outer_range(x, (lo, hi))
        edges = np.linspace(lo, hi, bins + 1).astype(edt)
        keep = (x >= lo) & (x <= hi)
        x = x.astype(edt)                      # NumPy compares with the edges in their type
        k = ((x - lo) / (hi - lo) * bins).astype(np.int64)
        k = np.clip(k, 0, bins - 1)
        k = np.where(x < edges[k], k - 1, k)
        k = np.where((x >= edges[np.minimum(k + 1, bins)]) & (k != bins - 1), k + 1, k)
        k = np.where(keep, np.clip(k, 0, bins - 1), bins)
    if weights is None:
        counts = np.zeros(nb + 1, dtype=np.int64)
        np.add.at(counts, k, 1)
    else:
        w = np.ravel(weights)
        acc = np.zeros(nb + 1, dtype=np.result_type(w.dtype, np.float64))
        np.add.at(acc, k, w)
        counts = acc.astype(w.dtype)
    n = counts[:nb]
    if density:
        db = np.diff(edges).astype(np.float64)
        return n / db / n.sum(), edges
    return n, edges


@prelude(np.partition)
def partition(a, kth, axis=-1, kind="introselect", order=None):
    """np.partition as a full sort along ``axis`` (``None``: of the flattened array): the
    element at each ``kth`` is where a sort puts it, smaller ones before, larger after,
    which is all NumPy promises; the order inside the two sides, which NumPy leaves
    undefined (its introselect's), is here the sorted one."""
    if order is not None:
        raise NotImplementedError("np.partition(order=...): solvent has no structured arrays")
    if axis is None:
        return np.sort(np.ravel(a))
    return np.sort(a, axis=axis)


@prelude(np.argpartition)
def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    """np.argpartition as a stable argsort along ``axis`` (``None``: of the flattened array):
    the index at each ``kth`` is that of the element a sort puts there, as NumPy promises;
    the order of the indices on either side (undefined in NumPy) is the sorted one."""
    if order is not None:
        raise NotImplementedError("np.argpartition(order=...): solvent has no structured "
                                  "arrays")
    if axis is None:
        return np.argsort(np.ravel(a), kind="stable")
    return np.argsort(a, axis=axis, kind="stable")


@prelude(np.histogram2d)
def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    """NumPy's histogram2d (its histogramdd for two axes, step for step): ``bins`` a count,
    a pair of counts or edge arrays, or one edge array for both axes; each axis's bin is
    the number of its edges at or below the value (searchsorted right), a value on the
    last edge counted in the last bin, values outside dropped; float64 counts (summed
    ``weights``), divided by the bin areas and the total for ``density``."""
    if isinstance(bins, str):
        raise NotImplementedError(f"np.histogram2d with bins={bins!r}: pass counts or edges")
    sample = np.stack((np.ravel(x), np.ravel(y)), axis=1)
    if np.ndim(bins) == 0 or len(bins) != 2:
        bx, by = bins, bins
    else:
        bx, by = bins[0], bins[1]
    rx, ry = (None, None) if range is None else (range[0], range[1])
    ex = _outer_edges(sample[:, 0], bx, rx)
    ey = _outer_edges(sample[:, 1], by, ry)
    nx, ny = ex.shape[0] + 1, ey.shape[0] + 1          # an outlier slot at each end
    ix = np.searchsorted(ex, sample[:, 0], side="right")
    iy = np.searchsorted(ey, sample[:, 1], side="right")
    ix = np.where(sample[:, 0] == ex[-1], ix - 1, ix)
    iy = np.where(sample[:, 1] == ey[-1], iy - 1, iy)
    flat = np.zeros(nx * ny)
    if weights is None:
        np.add.at(flat, ix * ny + iy, 1.0)
    else:
        np.add.at(flat, ix * ny + iy, np.ravel(weights).astype(np.float64))
    hist = flat.reshape(nx, ny)[1:-1, 1:-1]
    if density:
        s = hist.sum()
        hist = hist / np.diff(ex).reshape(nx - 2, 1)
        hist = hist / np.diff(ey).reshape(1, ny - 2)
        hist = hist / s
    return hist, ex, ey


def _outer_edges(s, bins, range):
    """histogramdd's edges of one axis: the given 1-D edges, or ``bins`` equal bins over
    ``range`` (default: the data's min and max, widened by 0.5 each way when equal)."""
    if np.ndim(bins) == 1:
        return np.asarray(bins)
    if bins < 1:
        raise ValueError("`bins[i]` must be positive, when an integer")
    lo, hi = _outer_range(s, range)
    return np.linspace(lo, hi, bins + 1)


def _outer_range(s, range):
    """NumPy's _get_outer_edges: ``range``, or the data's (min, max), (0, 1) for no data;
    widened by 0.5 each way when the two are equal."""
    if range is not None:
        lo, hi = range[0], range[1]
    elif s.shape[0] == 0:
        lo, hi = 0, 1
    else:
        lo, hi = np.min(s), np.max(s)
    return np.where(lo == hi, lo - 0.5, lo), np.where(lo == hi, hi + 0.5, hi)


def linspace_arrays(start, stop, num, endpoint, axis):
    """np.linspace with array endpoints (already in the float dtype NumPy computes in), step
    for step as NumPy does: a new leading axis of ``num`` samples, moved to ``axis``; where a
    step is zero (denormal ranges) the samples are y / div * delta instead of y * step."""
    div = num - 1 if endpoint else num
    delta = stop - start
    y = np.arange(num).astype(delta.dtype).reshape((num,) + (1,) * delta.ndim)
    if div > 0:
        step = delta / div
        y = np.where(np.any(step == 0), y / div * delta, y * step)
    else:
        y = y * delta
    y = y + start
    if endpoint and num > 1:
        y[-1] = stop
    if axis != 0:
        y = np.moveaxis(y, 0, axis)
    return y


def bincount(x, weights, length):
    """Counts (or summed weights, float64) of each value 0..length-1 in ``x``; npapi_math
    registers it, checking ``x`` and computing ``length`` (max(x) + 1 at run time, or
    ``minlength``)."""
    counts = np.zeros(length, dtype=np.int64 if weights is None else np.float64)
    if weights is None:
        np.add.at(counts, x, 1)
    else:
        np.add.at(counts, x, weights)
    return counts


def dgtsv(dl, d, du, b, overwrite_dl=0, overwrite_d=0, overwrite_du=0, overwrite_b=0):
    """LAPACK's dgtsv (tridiagonal solve, Gaussian elimination with partial pivoting), step
    for step, so every output agrees with SciPy's: (dl2, d2, du2, x, info) with the factors
    left in dl2/d2/du2 and info = k > 0 where the k-th pivot is exactly zero (x is then b as
    far as elimination got, unsolved). Works on copies: the inputs are never overwritten (the
    overwrite_* flags only allow it in SciPy). npapi_decompositions registers it, refusing
    n = 1 as SciPy's wrapper does."""
    n = d.shape[0]
    dl = dl.astype(np.float64)
    d = d.astype(np.float64)
    du = du.astype(np.float64)
    x = b.astype(np.float64)
    info = 0
    for i in range(n - 1):
        if abs(d[i]) >= abs(dl[i]):          # no row interchange
            if d[i] == 0.0:
                info = i + 1
                break
            fact = dl[i] / d[i]
            d[i + 1] -= fact * du[i]
            x[i + 1] -= fact * x[i]
            if i < n - 2:
                dl[i] = 0.0
        else:                                # interchange rows i and i + 1
            fact = d[i] / dl[i]
            d[i] = dl[i]
            temp = d[i + 1]
            d[i + 1] = du[i] - fact * temp
            if i < n - 2:
                dl[i] = du[i + 1]
                du[i + 1] = -fact * dl[i]
            du[i] = temp
            tx = x[i] * 1.0
            x[i] = x[i + 1]
            x[i + 1] = tx - fact * x[i + 1]
    if info == 0 and d[n - 1] == 0.0:
        info = n
    if info == 0:                            # back substitution
        x[n - 1] = x[n - 1] / d[n - 1]
        x[n - 2] = (x[n - 2] - du[n - 2] * x[n - 1]) / d[n - 2]
        for i in range(n - 3, -1, -1):
            x[i] = (x[i] - du[i] * x[i + 1] - dl[i] * x[i + 2]) / d[i]
    return dl, d, du, x, info


@prelude(np.fix)
def fix(x):
    """Round toward zero; NumPy keeps integer and bool dtypes and returns floats as floats."""
    return np.trunc(x)


@prelude(np.rot90)
def rot90(m, k=1, axes=(0, 1)):
    """NumPy's own definition: flips and one swap of ``axes``; ``k`` turns of 90 degrees
    from the first axis towards the second."""
    a0, a1 = axes
    k = k % 4
    if k == 0:
        return m[...]
    if k == 2:
        return np.flip(np.flip(m, a0), a1)
    if k == 1:
        return np.swapaxes(np.flip(m, a1), a0, a1)
    return np.flip(np.swapaxes(m, a0, a1), a1)


@prelude(np.unravel_index)
def unravel_index(indices, shape, order="C"):
    """Flat indices to a tuple of int64 coordinates, one per dimension of ``shape`` (known at
    compile time); 'C' varies the last dimension fastest, 'F' the first. An index outside
    [0, prod(shape)) is NumPy's ValueError, naming the first such index.
    Identity: i = sum_k c_k * stride_k with 0 <= c_k < shape[k]."""
    dims = (shape,) if np.ndim(shape) == 0 else tuple(shape)
    if order != "C" and order != "F":
        raise ValueError("only 'C' or 'F' order is permitted")
    size = 1
    for d in dims:
        size = size * d
    idx = np.asarray(indices).astype(np.int64)
    bad = (idx < 0) | (idx >= size)
    if np.any(bad):
        first = np.ravel(idx)[np.argmax(np.ravel(bad))]
        raise ValueError(f"index {first} is out of bounds for array with size {size}")
    rest = idx
    out = ()
    if order == "C":
        for d in dims[::-1]:                # a tuple: unrolled
            out = (rest % d,) + out
            rest = rest // d
    else:
        for d in dims:
            out = out + (rest % d,)
            rest = rest // d
    return out


@prelude(np.diagonal)
def diagonal(a, offset=0, axis1=0, axis2=1):
    """The diagonal ``offset`` of the planes (axis1, axis2), on the last axis of the result
    (NumPy's order). NumPy returns a read-only view; this is a copy, which no code can
    tell apart since the view cannot be written. Identity: out[..., i] = b[..., i, i + offset]
    (offset >= 0) or b[..., i - offset, i], b = a with axis1, axis2 moved last."""
    nd = np.ndim(a)
    if axis1 % nd == axis2 % nd:
        raise ValueError("axis1 and axis2 cannot be the same")
    b = np.moveaxis(a, [axis1, axis2], [-2, -1])
    rows = np.arange(max(0, -offset), min(b.shape[-2], b.shape[-1] - offset))
    return b[..., rows, rows + offset]


@prelude(np.fill_diagonal)
def fill_diagonal(a, val, wrap=False):
    """a.flat[:end:step] = val in place, NumPy's definition: for 2-D, step a.shape[1] + 1 and
    end a.shape[1] ** 2 (the whole array with ``wrap``, so tall matrices restart the
    diagonal below a skipped row); for more dims, which must be equal, the main diagonal.
    ``val`` is repeated to the number of slots."""
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    if a.ndim == 2:
        m = a.shape[1]
        end = a.shape[0] * m if wrap else min(m * m, a.shape[0] * m)
        k = np.arange(0, end, m + 1)
        rows, cols = k // m, k % m
    else:
        for d in a.shape:
            if d != a.shape[0]:
                raise ValueError("All dimensions of input must be of equal length")
        rows = np.arange(a.shape[0])
    n = rows.shape[0]
    vals = np.ravel(np.asarray(val, dtype=a.dtype))
    vals = vals[np.arange(n) % vals.shape[0]] if n and vals.shape[0] else vals[:0]
    if n == 0 or vals.shape[0] == 0:
        return
    if a.ndim == 2:
        a[rows, cols] = vals
    elif a.ndim == 3:
        a[rows, rows, rows] = vals
    else:
        a[rows, rows, rows, rows] = vals


def gradient_along(f, axis, h, edge_order):
    """np.gradient of ``f`` along ``axis`` (npapi_math._gradient normalizes the arguments):
    second-order central differences inside, one-sided differences of ``edge_order`` 1 or 2
    at the ends, spacing ``h`` a scalar or the axis's coordinates (NumPy's non-uniform
    formulas, and its uniform ones where the coordinates turn out evenly spaced, which NumPy
    decides at run time as this does). Integer input gives float64."""
    x = np.asarray(f)
    if x.dtype.kind in "iub":
        x = x.astype(np.float64)
    if x.shape[axis] < edge_order + 1:
        raise ValueError("Shape of array too small to calculate a numerical gradient, "
                         "at least (edge_order + 1) elements are required.")
    y = np.moveaxis(x, axis, -1)
    if np.ndim(h) == 0:
        g = _gradient_uniform(y, h, edge_order)
    else:
        if np.ndim(h) != 1:
            raise ValueError("distances must be either scalars or 1d")
        if h.shape[0] != y.shape[-1]:
            raise ValueError("when 1d, distances must match the length of the corresponding "
                             "dimension")
        d = np.diff(h)
        if d.dtype.kind in "iub":
            d = d.astype(np.float64)
        even = np.all(d == d[0])
        g = np.where(even, _gradient_uniform(y, d[0], edge_order),
                     _gradient_spaced(y, d, edge_order))
    return np.moveaxis(g, -1, axis)


def _gradient_uniform(y, h, edge_order):
    """np.gradient along the last axis of ``y`` with spacing ``h`` (NumPy's expressions)."""
    mid = (y[..., 2:] - y[..., :-2]) / (2.0 * h)
    if edge_order == 1:
        first = (y[..., 1:2] - y[..., 0:1]) / h
        last = (y[..., -1:] - y[..., -2:-1]) / h
    else:
        first = (-1.5 / h) * y[..., 0:1] + (2.0 / h) * y[..., 1:2] + (-0.5 / h) * y[..., 2:3]
        last = (0.5 / h) * y[..., -3:-2] + (-2.0 / h) * y[..., -2:-1] + (1.5 / h) * y[..., -1:]
    return np.concatenate((first, mid, last), axis=-1)


def _gradient_spaced(y, d, edge_order):
    """np.gradient along the last axis of ``y`` at coordinates whose differences are ``d``."""
    d1, d2 = d[:-1], d[1:]
    a = -d2 / (d1 * (d1 + d2))
    b = (d2 - d1) / (d1 * d2)
    c = d1 / (d2 * (d1 + d2))
    mid = a * y[..., :-2] + b * y[..., 1:-1] + c * y[..., 2:]
    if edge_order == 1:
        first = (y[..., 1:2] - y[..., 0:1]) / d[0]
        last = (y[..., -1:] - y[..., -2:-1]) / d[-1]
    else:
        e1, e2 = d[0], d[1]
        first = (-(2.0 * e1 + e2) / (e1 * (e1 + e2)) * y[..., 0:1]
                 + (e1 + e2) / (e1 * e2) * y[..., 1:2] - e1 / (e2 * (e1 + e2)) * y[..., 2:3])
        e1, e2 = d[-2], d[-1]
        last = (e2 / (e1 * (e1 + e2)) * y[..., -3:-2] - (e2 + e1) / (e1 * e2) * y[..., -2:-1]
                + (2.0 * e2 + e1) / (e2 * (e1 + e2)) * y[..., -1:])
    return np.concatenate((first, mid, last), axis=-1)


@prelude(np.array_equal)
def array_equal(a1, a2, equal_nan=False):
    """True when the shapes are the same and every element equal (NaN equal to NaN with
    ``equal_nan``)."""
    x, y = np.asarray(a1), np.asarray(a2)
    if x.shape != y.shape:
        return False
    same = x == y
    if equal_nan:
        same = same | (np.isnan(x) & np.isnan(y))
    return bool(np.all(same))


def all_equal(x, y):
    """np.array_equiv's answer for arrays that broadcast together."""
    return bool(np.all(x == y))


@prelude(np.linalg.matrix_rank)
def matrix_rank(A, tol=None, hermitian=False):
    """The number of singular values above ``tol`` (NumPy's default: S.max() * max(M, N)
    * eps of the dtype); a 0-d or 1-D input is rank 1 unless all zero."""
    x = np.asarray(A)
    if x.ndim < 2:
        return int(not np.all(x == 0))
    s = np.linalg.svd(x, compute_uv=False)
    if tol is None:
        tol = np.max(s, axis=-1, keepdims=True) * max(x.shape[-2:]) * np.finfo(s.dtype).eps
    else:
        tol = np.asarray(tol)[..., np.newaxis]
    return np.count_nonzero(s > tol, axis=-1)


@prelude(np.linalg.norm)
def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's np.linalg.norm, case by case as NumPy decides them: with ``axis=None`` the
    2-norm of the flattened array for ``ord=None`` (``'fro'`` of a matrix, ``2`` of a
    vector); one axis: vector norms (inf, -inf, 0, 1, 2, any p); two axes: matrix norms
    (2 / -2 / 'nuc' from the singular values, 1 / -1 / inf / -inf from column or row sums of
    absolute values, 'fro')."""
    x = np.asarray(x)
    if x.dtype.kind not in "fc":
        x = x.astype(float)
    nd = x.ndim
    if axis is None:
        if ord is None or (ord in ("f", "fro") and nd == 2) or (ord == 2 and nd == 1):
            if x.dtype.kind == "c":
                sq = np.sum(x.real * x.real) + np.sum(x.imag * x.imag)
            else:
                sq = np.sum(x * x)
            r = np.sqrt(sq)
            if keepdims:
                return np.reshape(r, (1,) * nd)
            return r
        if nd == 1:
            axis = (0,)
        elif nd == 2:
            axis = (0, 1)
        else:
            raise ValueError("Improper number of dimensions to norm.")
    elif not isinstance(axis, tuple):
        axis = (int(axis),)
    if len(axis) == 1:
        if ord == np.inf:
            return np.max(np.abs(x), axis=axis, keepdims=keepdims)
        if ord == -np.inf:
            return np.min(np.abs(x), axis=axis, keepdims=keepdims)
        if ord == 0:
            return np.sum((x != 0).astype(x.real.dtype), axis=axis, keepdims=keepdims)
        if ord == 1:
            return np.sum(np.abs(x), axis=axis, keepdims=keepdims)
        if ord is None or ord == 2:
            return np.sqrt(np.sum((x.conj() * x).real, axis=axis, keepdims=keepdims))
        if isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        absx = np.abs(x) ** ord
        r = np.sum(absx, axis=axis, keepdims=keepdims)
        return r ** np.asarray(1.0 / ord).astype(r.dtype)   # NumPy: reciprocal(ord, dtype=)
    if len(axis) != 2:
        raise ValueError("Improper number of dimensions to norm.")
    row_axis = axis[0] % nd
    col_axis = axis[1] % nd
    if row_axis == col_axis:
        raise ValueError("Duplicate axes given.")
    if ord == 2 or ord == -2 or ord == "nuc":
        s = np.linalg.svd(np.moveaxis(x, (row_axis, col_axis), (-2, -1)), compute_uv=False)
        if ord == 2:
            r = np.max(s, axis=-1)
        elif ord == -2:
            r = np.min(s, axis=-1)
        else:
            r = np.sum(s, axis=-1)
    elif ord == 1 or ord == -1:
        c = col_axis - 1 if col_axis > row_axis else col_axis
        sums = np.sum(np.abs(x), axis=row_axis)
        r = np.max(sums, axis=c) if ord == 1 else np.min(sums, axis=c)
    elif ord == np.inf or ord == -np.inf:
        rr = row_axis - 1 if row_axis > col_axis else row_axis
        sums = np.sum(np.abs(x), axis=col_axis)
        r = np.max(sums, axis=rr) if ord == np.inf else np.min(sums, axis=rr)
    elif ord is None or ord == "fro" or ord == "f":
        r = np.sqrt(np.sum((x.conj() * x).real, axis=axis))
    else:
        raise ValueError("Invalid norm order for matrices.")
    if keepdims:
        return np.expand_dims(r, (min(row_axis, col_axis), max(row_axis, col_axis)))
    return r


@prelude(np.linalg.cond)
def cond(x, p=None):
    """NumPy's np.linalg.cond for the 2-norm (p None, 2 or -2): the ratio of the largest
    and smallest singular values, inf where it is NaN and the matrix holds no NaN."""
    if not (p is None or p == 2 or p == -2):
        raise NotImplementedError("np.linalg.cond with p other than None, 2, -2 (NumPy "
                                  "inverts the matrix for those)")
    s = np.linalg.svd(x, compute_uv=False)
    if p == -2:
        r = s[..., -1] / s[..., 0]
    else:
        r = s[..., 0] / s[..., -1]
    bad = np.isnan(r) & ~np.any(np.isnan(x), axis=(-2, -1))
    return np.where(bad, np.inf, r)


@prelude(np.heaviside)
def heaviside(x1, x2):
    """0 where x1 < 0, x2 where x1 == 0, 1 where x1 > 0 (NaN stays NaN), in the float type
    NumPy's loop takes for the two (NEP 50: a Python x2 is weak)."""
    dt = np.result_type(x1, x2, 1.0)
    a = np.asarray(x1).astype(dt)
    b = np.asarray(x2).astype(dt)
    r = np.where(a < 0, 0, np.where(a > 0, 1, b)).astype(dt)
    return np.where(np.isnan(a), a, r)[()]


@prelude(np.ix_)
def ix_(*args):
    """Open-mesh index arrays: the k-th 1-D sequence shaped (1, .., n, .., 1) along axis
    k; a boolean sequence stands for the indices of its True entries."""
    nd = len(args)
    out = []
    for k, seq in enumerate(args):
        a = np.asarray(seq)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == np.bool_:
            a = np.nonzero(a)[0]
        out.append(np.reshape(a, (1,) * k + (-1,) + (1,) * (nd - k - 1)))
    return tuple(out)


def _fft_plan(a, s, axes):
    """NumPy's (axis, length) pairs of an n-dimensional transform: all axes, or the last
    len(s); a length None keeps the axis' own."""
    if axes is None:
        n = a.ndim if s is None else len(s)
        axes = tuple(range(a.ndim - n, a.ndim))
    sizes = (None,) * len(axes) if s is None else tuple(s)
    if len(sizes) != len(axes):
        raise ValueError("Shape and axes have different lengths.")
    return tuple(zip(axes, sizes))


def _each_axis(transform, a, s, axes, norm):
    """``transform`` (np.fft.fft or ifft) along each axis of the plan, the last first, as
    NumPy computes an n-dimensional transform."""
    a = np.asarray(a)
    for ax, n in _fft_plan(a, s, axes)[::-1]:
        a = transform(a, n=n, axis=ax, norm=norm)
    return a


@prelude(np.fft.fftn)
def fftn(a, s=None, axes=None, norm=None):
    """The n-dimensional FFT: one 1-D FFT per axis, the last first."""
    return _each_axis(np.fft.fft, a, s, axes, norm)


@prelude(np.fft.ifftn)
def ifftn(a, s=None, axes=None, norm=None):
    """The n-dimensional inverse FFT: one 1-D inverse per axis, the last first."""
    return _each_axis(np.fft.ifft, a, s, axes, norm)


@prelude(np.fft.fft2)
def fft2(a, s=None, axes=(-2, -1), norm=None):
    return fftn(a, s, axes, norm)


@prelude(np.fft.ifft2)
def ifft2(a, s=None, axes=(-2, -1), norm=None):
    return ifftn(a, s, axes, norm)


@prelude(np.fft.rfftn)
def rfftn(a, s=None, axes=None, norm=None):
    """The real n-dimensional FFT: rfft along the last axis, then FFTs along the others."""
    a = np.asarray(a)
    plan = _fft_plan(a, s, axes)
    a = np.fft.rfft(a, n=plan[-1][1], axis=plan[-1][0], norm=norm)
    for ax, n in plan[:-1][::-1]:
        a = np.fft.fft(a, n=n, axis=ax, norm=norm)
    return a


@prelude(np.fft.irfftn)
def irfftn(a, s=None, axes=None, norm=None):
    """The inverse of rfftn: inverse FFTs along all axes but the last, then irfft."""
    a = np.asarray(a)
    plan = _fft_plan(a, s, axes)
    for ax, n in plan[:-1]:
        a = np.fft.ifft(a, n=n, axis=ax, norm=norm)
    return np.fft.irfft(a, n=plan[-1][1], axis=plan[-1][0], norm=norm)


@prelude(np.fft.rfft2)
def rfft2(a, s=None, axes=(-2, -1), norm=None):
    return rfftn(a, s, axes, norm)


@prelude(np.fft.irfft2)
def irfft2(a, s=None, axes=(-2, -1), norm=None):
    return irfftn(a, s, axes, norm)


def _list_depth(x):
    if isinstance(x, list):
        return 1 + _list_depth(x[0])
    return 0


def _max_ndim(x):
    if isinstance(x, list):
        m = 0
        for y in x:
            m = max(m, _max_ndim(y))
        return m
    return np.ndim(x)


def _block_level(x, depth, nd):
    if isinstance(x, list):
        parts = []
        for y in x:
            parts.append(_block_level(y, depth - 1, nd))
        return np.concatenate(parts, axis=-depth)
    a = np.asarray(x)
    return np.reshape(a, (1,) * (nd - a.ndim) + a.shape)


@prelude(np.block)
def block(arrays):
    """An array assembled from nested lists of blocks: the innermost lists joined along
    the last axis, the next along the one before, ...; each block first given the result's
    number of dimensions by leading axes of length 1 (NumPy's rule)."""
    if not isinstance(arrays, list):
        return np.array(arrays)
    depth = _list_depth(arrays)
    return _block_level(arrays, depth, max(depth, _max_ndim(arrays)))


@prelude(np.place)
def place(arr, mask, vals):
    """arr's elements where ``mask`` is true take ``vals`` in turn (cycled), in place."""
    flat = np.ravel(mask).astype(np.bool_)
    v = np.ravel(np.asarray(vals))
    if not np.can_cast(v.dtype, arr.dtype):
        raise TypeError(f"Cannot cast array data from {v.dtype!r} to {arr.dtype!r} "
                        "according to the rule 'safe'")
    v = v.astype(arr.dtype)
    if v.shape[0] == 0:
        if np.any(flat):
            raise ValueError("Cannot insert from an empty array!")
        return None
    k = (np.cumsum(flat) - 1) % v.shape[0]
    arr[...] = np.reshape(np.where(flat, v[k], np.ravel(arr)), arr.shape)
    return None


@prelude(np.divmod)
def divmod_(x1, x2):
    """NumPy's divmod ufunc: (floor_divide, remainder), each with NumPy's rules."""
    return np.floor_divide(x1, x2), np.remainder(x1, x2)


@prelude(np.apply_along_axis)
def apply_along_axis(func1d, axis, arr, *args, **kwargs):
    """``func1d`` of every 1-D slice of ``arr`` along ``axis``, one call per slice (a loop
    the backends compile); its result's dimensions take the place of ``axis``, and its dtype
    is that of the first slice's result, as in NumPy."""
    a = np.asarray(arr)
    ax = axis % a.ndim
    rows = np.reshape(np.moveaxis(a, ax, -1), (-1, a.shape[ax]))
    first = np.asarray(func1d(rows[0], *args, **kwargs))
    out = np.empty((rows.shape[0],) + first.shape, dtype=first.dtype)
    for i in range(rows.shape[0]):
        out[i] = func1d(rows[i], *args, **kwargs)
    outer = a.shape[:ax] + a.shape[ax + 1:]
    res = np.reshape(out, outer + first.shape)
    for k in tuple(range(first.ndim)):      # a tuple: unrolled, each axis known
        res = np.moveaxis(res, len(outer) + k, ax + k)
    return res


def vectorized_call(pyfunc, otypes, *args):
    """What ``np.vectorize(pyfunc, otypes)(*args)`` computes: ``pyfunc`` of every element of
    the broadcast arguments (a loop the backends compile), in the dtype of ``otypes`` or of
    the first element's result, as NumPy decides it; an empty input needs ``otypes``. Not a
    prelude of its own: called for a ``np.vectorize`` object (expressions.vectorized)."""
    arrs = np.broadcast_arrays(*[np.asarray(a) for a in args])
    flat = [np.ravel(a) for a in arrs]
    n = flat[0].shape[0]
    if otypes:
        dt = otypes[0]
    else:
        if n == 0:
            raise ValueError("cannot call `vectorize` on size 0 inputs unless `otypes` is set")
        dt = np.asarray(pyfunc(*[f[0] for f in flat])).dtype
    out = np.empty(n, dtype=dt)
    for i in range(n):
        out[i] = pyfunc(*[f[i] for f in flat])
    return np.reshape(out, arrs[0].shape)   # a 0-d array for scalars, as NumPy gives


@prelude(np.sinc)
def sinc(x):
    """sin(pi x) / (pi x), 1 at 0: NumPy's own expression (x = 0 replaced by 1e-20)."""
    y = np.pi * np.where(x == 0, 1.0e-20, x)
    return np.sin(y) / y


@prelude(np.gcd)
def gcd(x1, x2):
    """The greatest common divisor of integers, elementwise, non-negative (Euclid's
    algorithm on all elements at once until every remainder is zero)."""
    z = x1 * 0 + x2 * 0        # NumPy's promotion of the two (a Python int is weak), broadcast
    a = np.abs(x1 + z)
    b = np.abs(x2 + z)
    while np.any(b != 0):
        nz = b != 0
        r = np.where(nz, a % np.where(nz, b, 1), 0)
        a = np.where(nz, b, a)
        b = r
    return a


@prelude(np.lcm)
def lcm(x1, x2):
    """|x1 / gcd(x1, x2) * x2|, 0 where either is 0, as NumPy computes it."""
    g = gcd(x1, x2)
    return np.abs(np.where(g == 0, 0, (x1 + g * 0) // np.where(g == 0, 1, g)) * x2)


# --- joining, splitting, inserting ------------------------------------------------------------
@prelude(np.append)
def append(arr, values, axis=None):
    """arr and values joined: both flattened without ``axis``, along it with one."""
    if axis is None:
        return np.concatenate((np.ravel(arr), np.ravel(values)))
    return np.concatenate((arr, values), axis=axis)


@prelude(np.insert)
def insert(arr, obj, values, axis=None):
    """``values`` before position ``obj`` (an integer known at compile time) of the flattened
    array, or along ``axis``; ``values`` broadcast to one slice (NumPy's rule for a scalar
    ``obj``)."""
    x = np.ravel(arr) if axis is None else np.asarray(arr)
    ax = 0 if axis is None else axis % x.ndim
    n = x.shape[ax]
    if obj < -n or obj > n:
        raise IndexError("index is out of bounds for the axis")
    k = obj + n if obj < 0 else obj
    y = np.moveaxis(x, ax, 0)
    v = np.broadcast_to(np.asarray(values).astype(x.dtype), (1,) + y.shape[1:])
    return np.moveaxis(np.concatenate((y[:k], v, y[k:]), axis=0), 0, ax)


@prelude(np.delete)
def delete(arr, obj, axis=None):
    """The array without the positions ``obj`` (an integer or a sequence of integers known
    at compile time) of the flattened array or along ``axis``."""
    x = np.ravel(arr) if axis is None else np.asarray(arr)
    ax = 0 if axis is None else axis % x.ndim
    n = x.shape[ax]
    gone = [i % n for i in (obj if np.ndim(obj) else (obj,))]
    keep = [i for i in range(n) if i not in gone]
    return np.moveaxis(np.moveaxis(x, ax, 0)[keep], 0, ax)


@prelude(np.array_split)
def array_split(ary, indices_or_sections, axis=0):
    """Pieces along ``axis``: n pieces of near-equal length (the first ones one longer) or the
    pieces between the given indices (known at compile time); a list."""
    x = np.asarray(ary)
    ax = axis % x.ndim
    n = x.shape[ax]
    y = np.moveaxis(x, ax, 0)
    if np.ndim(indices_or_sections) == 0:
        sections = indices_or_sections
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        each, extra = n // sections, n % sections
        bounds = [k * each + min(k, extra) for k in range(sections + 1)]
    else:
        bounds = [0] + [min(max(i, 0), n) for i in indices_or_sections] + [n]
    return [np.moveaxis(y[bounds[k]:max(bounds[k], bounds[k + 1])], 0, ax)
            for k in range(len(bounds) - 1)]


@prelude(np.split)
def split(ary, indices_or_sections, axis=0):
    """np.array_split, where a number of sections must divide the axis."""
    if np.ndim(indices_or_sections) == 0 and np.shape(ary)[axis] % indices_or_sections != 0:
        raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


@prelude(np.hsplit)
def hsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 1 if np.ndim(ary) > 1 else 0)


@prelude(np.vsplit)
def vsplit(ary, indices_or_sections):
    return split(ary, indices_or_sections, 0)


@prelude(np.dstack)
def dstack(tup):
    """Arrays stacked along a third axis (1-D (n,) as (1, n, 1), 2-D (m, n) as (m, n, 1))."""
    return np.concatenate([np.atleast_3d(a) for a in tup], axis=2)


@prelude(np.atleast_3d)
def atleast_3d(a):
    x = np.asarray(a)
    if x.ndim == 0:
        return np.reshape(x, (1, 1, 1))
    if x.ndim == 1:
        return x[np.newaxis, :, np.newaxis]
    if x.ndim == 2:
        return x[:, :, np.newaxis]
    return x


@prelude(np.broadcast_arrays)
def broadcast_arrays(*args):
    """The arrays broadcast to their common shape: an array of that shape itself (as NumPy
    returns it), the others copies here where NumPy gives views it warns against writing."""
    shape = np.broadcast_shapes(*[np.shape(a) for a in args])
    return tuple(a if np.shape(a) == shape else np.broadcast_to(a, shape).copy()
                 for a in args)


@prelude(np.ediff1d)
def ediff1d(ary, to_end=None, to_begin=None):
    d = np.diff(np.ravel(ary))
    if to_begin is not None:
        d = np.concatenate((np.ravel(np.asarray(to_begin)).astype(d.dtype), d))
    if to_end is not None:
        d = np.concatenate((d, np.ravel(np.asarray(to_end)).astype(d.dtype)))
    return d


# --- lookups, spectra, spaces -----------------------------------------------------------------
@prelude(np.digitize)
def digitize(x, bins, right=False):
    """The index of the bin each x falls in, for increasing ``bins`` (NumPy's
    searchsorted(bins, x, side='left' if right else 'right'))."""
    return np.searchsorted(np.asarray(bins), x, side="left" if right else "right")


@prelude(np.fft.fftshift)
def fftshift(x, axes=None):
    """The zero-frequency term moved to the middle: a roll by n // 2 along each axis."""
    a = np.asarray(x)
    axs = tuple(k for k in range(a.ndim)) if axes is None else \
        tuple(axes) if np.ndim(axes) else (axes,)
    return np.roll(a, tuple(a.shape[k] // 2 for k in axs), axis=axs)


@prelude(np.fft.ifftshift)
def ifftshift(x, axes=None):
    """fftshift undone: a roll by -(n // 2) along each axis."""
    a = np.asarray(x)
    axs = tuple(k for k in range(a.ndim)) if axes is None else \
        tuple(axes) if np.ndim(axes) else (axes,)
    return np.roll(a, tuple(-(a.shape[k] // 2) for k in axs), axis=axs)


@prelude(np.logspace)
def logspace(start, stop, num=50, endpoint=True, base=10.0):
    """base ** linspace(start, stop, num), as NumPy computes it."""
    y = np.linspace(start, stop, num, endpoint=endpoint)
    return np.power(base, y)


@prelude(np.iscomplexobj)
def iscomplexobj(x):
    return np.asarray(x).dtype.kind == "c"


@prelude(np.isrealobj)
def isrealobj(x):
    return np.asarray(x).dtype.kind != "c"


# --- NaN-ignoring statistics ------------------------------------------------------------------
@prelude(np.nanargmax)
def nanargmax(a, axis=None):
    """argmax with NaNs ignored; ValueError where a slice is all NaN (NumPy's message)."""
    x = np.asarray(a)
    if np.any(np.all(np.isnan(x), axis=axis)):
        raise ValueError("All-NaN slice encountered")
    return np.argmax(np.where(np.isnan(x), -np.inf, x), axis=axis)


@prelude(np.nanargmin)
def nanargmin(a, axis=None):
    """argmin with NaNs ignored; ValueError where a slice is all NaN (NumPy's message)."""
    x = np.asarray(a)
    if np.any(np.all(np.isnan(x), axis=axis)):
        raise ValueError("All-NaN slice encountered")
    return np.argmin(np.where(np.isnan(x), np.inf, x), axis=axis)


@prelude(np.nanvar)
def nanvar(a, axis=None, ddof=0, keepdims=False):
    """The variance of the non-NaN values: sum(|x - mean|^2) / (count - ddof)."""
    x = np.asarray(a)
    ok = ~np.isnan(x)
    count = np.sum(ok, axis=axis, keepdims=True)
    mean = np.sum(np.where(ok, x, 0), axis=axis, keepdims=True) / count
    d = np.where(ok, x - mean, 0)
    return np.sum(d * d, axis=axis, keepdims=keepdims) / (
        np.sum(ok, axis=axis, keepdims=keepdims) - ddof)


@prelude(np.nanstd)
def nanstd(a, axis=None, ddof=0, keepdims=False):
    return np.sqrt(nanvar(a, axis=axis, ddof=ddof, keepdims=keepdims))


# --- polynomials ------------------------------------------------------------------------------
@prelude(np.polyder)
def polyder(p, m=1):
    """The m-th derivative of the coefficients (highest power first)."""
    c = np.asarray(p)
    if m == 0:
        return c
    return polyder(c[:-1] * np.arange(c.shape[0] - 1, 0, -1), m - 1)   # m known: inlined m times


@prelude(np.polyint)
def polyint(p, m=1, k=0.0):
    """The m-th antiderivative (integration constant ``k`` each time)."""
    c = np.asarray(p)
    if m == 0:
        return c
    return polyint(np.concatenate((c / np.arange(c.shape[0], 0, -1), np.full(1, k))), m - 1, k)


@prelude(np.polyadd)
def polyadd(a1, a2):
    a, b = np.atleast_1d(a1), np.atleast_1d(a2)
    n = max(a.shape[0], b.shape[0])
    z = a[:1] * 0 + b[:1] * 0
    return (np.concatenate((np.zeros(n - a.shape[0], z.dtype), a))
            + np.concatenate((np.zeros(n - b.shape[0], z.dtype), b)))


@prelude(np.polysub)
def polysub(a1, a2):
    return polyadd(a1, -np.atleast_1d(a2))


@prelude(np.polymul)
def polymul(a1, a2):
    return np.convolve(np.atleast_1d(a1), np.atleast_1d(a2))


@prelude(np.vander)
def vander(x, N=None, increasing=False):
    """Columns of powers of x: x**(N-1) ... x**0 (``increasing``: x**0 first)."""
    v = np.asarray(x)
    n = v.shape[0] if N is None else N
    p = np.arange(n) if increasing else np.arange(n - 1, -1, -1)
    return v[:, np.newaxis] ** p[np.newaxis, :]


# --- choices ----------------------------------------------------------------------------------
@prelude(np.select)
def select(condlist, choicelist, default=0):
    """The value of the first true condition's choice, ``default`` where none holds."""
    out = default + 0 * np.asarray(choicelist[0])   # a Python default is weak (NEP 50)
    for k in range(len(condlist) - 1, -1, -1):
        out = np.where(condlist[k], choicelist[k], out)
    return out


@prelude(np.linalg.multi_dot)
def multi_dot(arrays):
    """The product of the matrices left to right (NumPy reorders for speed; the value is
    the same up to rounding)."""
    out = arrays[0]
    for m in arrays[1:]:     # a sequence of known length: unrolled
        out = out @ m
    return out


@prelude(np.float_power)
def float_power(x1, x2):
    """x1 ** x2 in float64 (complex128 for complex input)."""
    a, b = np.asarray(x1), np.asarray(x2)
    dt = np.complex128 if a.dtype.kind == "c" or b.dtype.kind == "c" else np.float64
    if b.ndim == 0 and a.ndim:
        b = np.full(a.shape, b)   # C's pow everywhere: float_power has no square-root case
    return np.power(a.astype(dt), b.astype(dt))


@prelude(np.correlate)
def correlate(a, v, mode="valid"):
    """c[k] = sum_n a[n + k] conj(v[n]): a convolution with v reversed and conjugated."""
    return np.convolve(a, np.conj(v)[::-1], mode)


# --- NaN-ignoring order statistics ------------------------------------------------------------
def _nan_sorted(a, axis):
    """(values sorted along the axis, NaN last; that axis; the count of non-NaN values along
    it, kept as a length-1 axis). Integers are counted in float64, as NumPy does."""
    x = np.asarray(a)
    if x.dtype.kind in "iub":
        x = x.astype(np.float64)
    if axis is None:
        x = np.ravel(x)
        ax = 0
    else:
        ax = axis % x.ndim
    return np.sort(x, axis=ax), ax, np.sum(~np.isnan(x), axis=ax, keepdims=True)


def _nan_lerp(s, ax, count, q):
    """NumPy's linear quantile ``q`` of the first ``count`` values of sorted ``s`` along
    ``ax`` (virtual index count*q + (1 - q) - 1; NaN where count is 0)."""
    v = count * q + (1 - q) - 1
    below = np.floor(v)
    prev = np.clip(below, 0, count - 1).astype(np.int64)
    nxt = np.clip(below + 1, 0, count - 1).astype(np.int64)
    g = (v - below).astype(s.dtype)
    lo = np.take_along_axis(s, np.maximum(prev, 0), axis=ax)
    hi = np.take_along_axis(s, np.maximum(nxt, 0), axis=ax)
    d = hi - lo
    r = np.where(g >= 0.5, hi - d * (1 - g), lo + d * g)
    return np.where(count == 0, np.nan, r)


@prelude(np.nanquantile)
def nanquantile(a, q, axis=None, keepdims=False):
    """The quantiles of the non-NaN values (NumPy's linear method); NaN for an all-NaN slice
    (NumPy warns)."""
    s, ax, count = _nan_sorted(a, axis)
    if np.ndim(q) == 0:
        r = _nan_lerp(s, ax, count, q)
        return r if keepdims and axis is not None else np.squeeze(r, axis=ax) \
            if axis is not None else r[0]
    s = s.astype(np.result_type(s.dtype, np.float64))   # q as a list: a float64 array
    parts = [_nan_lerp(s, ax, count, qq) for qq in q]
    if axis is None:
        return np.stack([p[0] for p in parts])
    if keepdims:
        return np.stack(parts)
    return np.stack([np.squeeze(p, axis=ax) for p in parts])


@prelude(np.nanpercentile)
def nanpercentile(a, q, axis=None, keepdims=False):
    qq = np.true_divide(q, 100)
    return nanquantile(a, qq, axis=axis, keepdims=keepdims)


@prelude(np.nanmedian)
def nanmedian(a, axis=None, keepdims=False):
    """The median of the non-NaN values: the middle one, or the mean of the middle two."""
    s, ax, count = _nan_sorted(a, axis)
    lo = np.take_along_axis(s, np.maximum((count - 1) // 2, 0), axis=ax)
    hi = np.take_along_axis(s, np.maximum(count // 2, 0), axis=ax)
    r = np.where(count == 0, np.nan, (lo + hi) / 2)
    if axis is None:
        return r[0]
    return r if keepdims else np.squeeze(r, axis=ax)


# --- index helpers ----------------------------------------------------------------------------
@prelude(np.tril_indices)
def tril_indices(n, k=0, m=None):
    """The (row, column) indices of the lower triangle, row by row (n, k, m known at
    compile time)."""
    cols = n if m is None else m
    counts = [min(max(i + k + 1, 0), cols) for i in range(n)]
    rows = np.repeat(np.arange(n), counts)
    parts = tuple(np.arange(c) for c in counts if c > 0)
    return rows, (np.concatenate(parts) if len(parts) else np.zeros(0, np.int64))


@prelude(np.triu_indices)
def triu_indices(n, k=0, m=None):
    """The (row, column) indices of the upper triangle, row by row."""
    cols = n if m is None else m
    starts = [min(max(i + k, 0), cols) for i in range(n)]
    rows = np.repeat(np.arange(n), [cols - s for s in starts])
    parts = tuple(np.arange(s, cols) for s in starts if s < cols)
    return rows, (np.concatenate(parts) if len(parts) else np.zeros(0, np.int64))


@prelude(np.ravel_multi_index)
def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    """The flat index of each coordinate tuple in an array of shape ``dims`` (C or F order);
    a coordinate outside its dimension is NumPy's ValueError."""
    if mode != "raise":
        raise NotImplementedError("ravel_multi_index with mode other than 'raise'")
    out = 0 * np.asarray(multi_index[0])
    for c, d in zip(multi_index, dims):
        if np.any((np.asarray(c) < 0) | (np.asarray(c) >= d)):
            raise ValueError("invalid entry in coordinates array")
    strides = [math.prod(dims[k + 1:]) for k in range(len(dims))] if order == "C" else \
        [math.prod(dims[:k]) for k in range(len(dims))]
    for c, st in zip(multi_index, strides):      # sequences of known length: unrolled
        out = out + np.asarray(c) * st
    return out.astype(np.int64)


@prelude(np.geomspace)
def geomspace(start, stop, num=50, endpoint=True):
    """Numbers spaced evenly on a log scale from start to stop (positive endpoints), the
    endpoints exact as NumPy makes them."""
    y = np.logspace(np.log10(start), np.log10(stop), num, endpoint=endpoint)
    y[0] = start
    if endpoint and num > 1:
        y[-1] = stop
    return y


@prelude(np.lexsort)
def lexsort(keys):
    """The stable sort order by the last key, then the one before, ... (1-D keys)."""
    order = np.argsort(keys[0], kind="stable")
    for key in keys[1:]:      # a sequence of known length: unrolled
        order = order[np.argsort(np.asarray(key)[order], kind="stable")]
    return order


@prelude(np.polyfit)
def polyfit(x, y, deg, rcond=None):
    """Least-squares polynomial coefficients (highest power first) as NumPy computes them:
    the Vandermonde matrix with its columns scaled to unit norm, lstsq, the scale undone."""
    xx = np.asarray(x) + 0.0
    yy = np.asarray(y) + 0.0
    order = deg + 1
    if rcond is None:
        rcond = xx.shape[0] * np.finfo(xx.dtype).eps
    lhs = vander(xx, order)
    scale = np.sqrt((lhs * lhs).sum(axis=0))
    lhs = lhs / scale
    c = np.linalg.lstsq(lhs, yy, rcond=rcond)[0]
    return (c.T / scale).T


@prelude(np.unwrap)
def unwrap(p, discont=None, axis=-1, period=6.283185307179586):
    """Phase jumps larger than ``discont`` (period / 2 by default) taken out by adding
    multiples of ``period`` (NumPy's own expressions, along the last axis)."""
    x = np.moveaxis(np.asarray(p) + 0.0, axis, -1)
    d = discont if discont is not None else period / 2
    dd = x[..., 1:] - x[..., :-1]
    half = period / 2
    ddmod = np.mod(dd + half, period) - half
    ddmod = np.where((ddmod == -half) & (dd > 0), half, ddmod)
    correct = np.where(np.abs(dd) < d, 0.0, ddmod - dd)
    up = np.concatenate((x[..., :1], x[..., 1:] + np.cumsum(correct, axis=-1)), axis=-1)
    return np.moveaxis(up, -1, axis)


@prelude(np.union1d)
def union1d(ar1, ar2):
    return np.unique(np.concatenate((np.ravel(ar1), np.ravel(ar2))))


@prelude(np.intersect1d)
def intersect1d(ar1, ar2):
    """The sorted values in both (a length known at run time: native backend)."""
    a = np.unique(ar1)
    return a[np.any(a[:, np.newaxis] == np.ravel(ar2)[np.newaxis, :], axis=1)]


@prelude(np.setdiff1d)
def setdiff1d(ar1, ar2):
    """The sorted values of ar1 not in ar2 (a length known at run time: native backend)."""
    a = np.unique(ar1)
    return a[~np.any(a[:, np.newaxis] == np.ravel(ar2)[np.newaxis, :], axis=1)]
