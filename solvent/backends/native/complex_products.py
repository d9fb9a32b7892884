"""Complex matrix products (``tensor.dot_general`` on complex64/complex128): always a BLAS
call (``rules_complex.refuses`` requires a bound BLAS), never an inline loop of complex
multiply-adds.

- one free dim of size 1: gemv; a vector dot (M = N = 1) too, of ``a`` as a 1 x K matrix:
  zdotu/cdotu return a complex value, whose calling convention differs between C ABIs
  (and between Cython's complex types), where gemv writes its result into memory;
- ``X.T @ X`` of one X: syrk; otherwise gemm, per batch;
- a contraction of length 0, or an empty result: zeros (gemv returns without writing);
- a conjugated operand (``A.conj().T @ B``, ``np.vdot``, a ``tensor.conj`` read only by
  products, left unmaterialized by ``bufferize._fuse_transpose``) is BLAS's 'C' flag where
  the routine takes its operand transposed in column-major terms (gemm: a transposed
  row-major operand; gemv: see ``_matvec``); a gemm operand not transposed is copied once,
  conjugated, in the layout the product needs.

Identity: ``conj(a)^T`` is what 'C' computes, element for element the product of the
conjugated values, so the sums are BLAS's own either way.
"""
from __future__ import annotations

from ...ir.core import Operation
from .context import BufRef
from .rules_complex import conj
from .types import const


def _conjugated(ctx, v):
    """The source buffer of ``v`` when ``v`` is an unmaterialized conjugate of one."""
    owner = v.owner
    if isinstance(owner, Operation) and owner.name == "tensor.conj" and \
            owner in ctx.plan.fused:
        src = ctx.get(owner.operands[0])
        return src if isinstance(src, BufRef) else False
    return None


def arranged(ctx, op, v, order, alt, conj_when=()):
    """(buffer, transposed, conjugate) of operand ``v`` in ``order`` (or ``alt``, then
    transposed), as ``rules_linalg._arranged``; a conjugated operand comes as its source
    buffer with ``conjugate`` set where its ``transposed`` is in ``conj_when``, else as a
    conjugated copy."""
    from .rules_linalg import _arranged, copy_in_order
    src = _conjugated(ctx, v)
    if src is None:
        return (*_arranged(ctx, op, v, order, alt), False)
    rank = len(order)
    if src is not False:
        if order == list(range(rank)) and False in conj_when:
            return src, False, True
        if alt == list(range(rank)) and True in conj_when:
            return src, True, True
    # the conjugate, element by element (a fused value), copied in the layout needed
    return copy_in_order(ctx, op, ctx.get(v), order, tuple(v.type.shape[d] for d in order),
                         v.type.dtype), False, False


def complex_dot(ctx, op, sym, dt, B, M, N, K, orders, out):
    """Lower complex product ``op`` (batch B, M x K times K x N) into ``out``; ``orders``:
    the (order, alt) layouts of each operand, as ``rules_linalg._dot`` computes them."""
    from .rules_linalg import _gemm, _syrk
    if K == 0 or M * N * B == 0:
        _flat_loop(ctx, out, B * M * N, lambda x: const(dt, 0))
        return
    if M == 1 or N == 1:
        _matvec(ctx, op, sym, dt, B, M, N, K, orders, out)
        return
    (la, la_alt), (lb, lb_alt) = orders
    a, b = op.operands
    A, ta, ca = arranged(ctx, op, a, la, la_alt, (True,))
    Bm, tb, cb = arranged(ctx, op, b, lb, lb_alt, (True,))
    if B == 1 and A.ptr is Bm.ptr and ta != tb and not (ca or cb):
        _syrk(ctx, sym + "syrk", dt, M, K, A, ta, out)
    else:
        _gemm(ctx, sym + "gemm", dt, B, M, N, K, A, ta, Bm, tb, out, ca=ca, cb=cb)


def _matvec(ctx, op, sym, dt, B, M, N, K, orders, out):
    """gemv, the matrix being ``a`` when N = 1 (a vector dot too: a 1 x K matrix), else
    ``b``. gemv reads a row-major matrix contracted over its columns as 'T', where a
    conjugated matrix is 'C'; one contracted over its rows is 'N', where the conjugate is
    had from ``conj(M) v = conj(M conj(v))``: the vector and the result conjugated, O(n)
    work, never the matrix. A vector whose conjugate gemv needs is copied conjugated."""
    from .rules_linalg import _gemv
    (la, la_alt), (lb, lb_alt) = orders
    a, b = op.operands
    A, ta, ca = arranged(ctx, op, a, la, la_alt, (False, True))
    Bm, tb, cb = arranged(ctx, op, b, lb, lb_alt, (False, True))
    if N == 1:
        as_t, mconj, vconj = not ta, ca, cb
    else:
        as_t, mconj, vconj = tb, cb, ca
    flip = mconj and not as_t
    if vconj != flip:   # gemv must read the conjugate of the stored vector
        vec = Bm if N == 1 else A
        copy = ctx.scratch(op, (B * K,), dt)
        _flat_loop(ctx, copy, B * K, lambda idx: conj(ctx, dt, ctx.load(
            BufRef(vec.ptr, (B * K,), dt), idx)))
        if N == 1:
            Bm = copy
        else:
            A = copy
    _gemv(ctx, sym + "gemv", dt, B, M, N, K, A, ta, Bm, tb, out, conj=mconj and as_t)
    if flip:
        flat = BufRef(out.ptr, (B * M * N,), dt)
        _flat_loop(ctx, out, B * M * N, lambda idx: conj(ctx, dt, ctx.load(flat, idx)))


def _flat_loop(ctx, buf, n, value):
    """``buf.flat[i] = value(idx)`` for i < n."""
    flat = BufRef(buf.ptr, (n,), buf.dtype)
    ctx.loop_nest((n,), lambda idx: ctx.store(flat, idx, value(idx)))
