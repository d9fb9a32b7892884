"""A product contracted over a concatenated axis, split into the products of the pieces.

Identity (block matrix multiplication): with ``B = concatenate(B_0, .., B_m)`` along an axis
that a ``dot_general`` contracts, paired with axis ``l`` of ``A``,

    dot_general(A, B) == sum_i dot_general(A[.., o_i:o_i + n_i along l, ..], B_i)

(``o_i``, ``n_i``: piece ``i``'s offset and length on the axis). The same products, summed
in another grouping (the contracted index runs piece by piece, then the pieces' sums are
added), so floating results may differ in the last bits, as any two orders of a matrix
product's sum do (NumPy's own matmul sums in blocks). A piece of length 1 is contracted by
dropping the axis from both sides (``A`` read at ``o_i``, the piece's unit axis reshaped away).

Why: the concatenation is a copy of every piece that exists only to be read once by the
product. ``h @ np.vstack((a.T, b.T))`` becomes ``h[:, :n] @ a.T + h[:, n:] @ b.T``: no copy
of ``a`` or ``b`` at all (natively BLAS calls with transposed operands, the second summed
into the first's result). Only where every piece's product does at least
``MIN_PIECE_DEPTH`` multiply-adds per result element: with fewer, each product streams the
whole result through memory again, and one product over the copy is faster (a raised
convolution's windows ``x[:, k:k + L]`` stacked along ``k``, conv1d_loops: 16 channels per
window, split into 7 products: 14 ms natively against 6.5-7.6 ms for XLA's one product over
the stacked copy, wall time, 20000 columns). At most ``MAX_PIECES`` pieces (each adds a
product call); the concatenation must have no other reader.

Natively the split is made whatever the pieces' depth (``NATIVE_SPLIT``, run by
passes/split_products_native.py): there a sum of products is now one gemm with beta = 1 per
piece into one buffer (bufferize.SUM_OF_PRODUCTS), so no piece streams the result again
(the 14 ms above were measured before that; conv1d_loops split natively now runs 5.1 ms
against 7.4 ms stacked). The gate stays for canonicalization: XLA, and the program
automatic choice reads."""
from __future__ import annotations

from ...ir.rewrite import Pattern, defining
from ._samples import unary_chain
from .shapes import slice_of_unit_reshape, window_of_unit_reshape

MAX_PIECES = 16
# the least number of multiply-adds per result element in each piece's product: below it the
# pieces' products are bound by memory (each reads and adds into the whole result again)
MIN_PIECE_DEPTH = 64


def _drop(dims, d):
    """``dims`` (axis numbers) without axis ``d``, those after it shifted down."""
    return [x - (x > d) for x in dims if x != d]


def _piece_product(rw, op, side, a, piece, lax_, sax, off, n):
    """The product of ``piece`` (the concatenated operand's rows ``off .. off + n`` along its
    axis ``sax``) and the other operand ``a`` read at those rows along its axis ``lax_``."""
    attrs = {k: list(v) for k, v in op.attrs.items()}
    other = "rhs" if side == 0 else "lhs"
    key = "lhs" if side == 0 else "rhs"
    spec = [["s", 0, m, 1] for m in a.type.shape]
    if n == 1:
        spec[lax_] = ["c", off]
        a = rw.one("tensor.slice", a, spec=spec)
        shape = [m for d, m in enumerate(piece.type.shape) if d != sax]
        piece = rw.one("tensor.reshape", piece, shape=shape)
        for name, d in ((f"{other}_batch", lax_), (f"{other}_contract", lax_),
                        (f"{key}_batch", sax), (f"{key}_contract", sax)):
            attrs[name] = _drop(attrs[name], d)
    else:
        spec[lax_] = ["s", off, off + n, 1]
        a = rw.one("tensor.slice", a, spec=spec)
    xs = [piece, a] if side == 0 else [a, piece]
    return rw.one("tensor.dot_general", *xs, **attrs)


def _split_over_concatenation(op, rw, min_depth: int = MIN_PIECE_DEPTH):
    for side, key, other in ((1, "rhs", "lhs"), (0, "lhs", "rhs")):
        cat = defining(op.operands[side], "tensor.concatenate")
        if cat is None or len(cat.operands) > MAX_PIECES or \
                len(cat.results[0].live_uses()) != 1:
            continue
        sax = cat.attrs["axis"]
        contract = list(op.attrs[f"{key}_contract"])
        if sax not in contract:
            continue
        lax_ = op.attrs[f"{other}_contract"][contract.index(sax)]
        lens = [p.type.shape[sax] for p in cat.operands]
        if any(n is None or n == 0 for n in lens):
            continue
        shape = cat.results[0].type.shape
        depth = 1
        for d in contract:
            depth *= shape[d] if d != sax else min(lens)
        if depth < min_depth:
            continue
        a = op.operands[1 - side]
        if not a.type.static:
            continue
        total, off = None, 0
        for piece, n in zip(cat.operands, lens):
            prod = _piece_product(rw, op, side, a, piece, lax_, sax, off, n)
            total = prod if total is None else rw.one("tensor.add", total, prod)
            off += n
        rw.replace_op(op, [total])
        return True
    return False


def _sample(b, x):
    """concatenate(X, X, axis=1) [n, 2m, 64] contracted over its last two axes with
    concatenate(T[0] as one row, -T, T[1:]) [2m, 64, n], X and T being x and x.T spread over
    a third axis of 64 (at least MIN_PIECE_DEPTH multiply-adds per result element): a unit
    piece, a whole one and a sliced one (integers: every grouping of the sum is exact, so
    the results compare bit for bit)."""
    n, m = x.type.shape
    d = MIN_PIECE_DEPTH
    xs = b.one("tensor.broadcast_to", b.one("tensor.reshape", x, shape=[n, m, 1]),
               shape=[n, m, d])
    t = b.one("tensor.broadcast_to", b.one("tensor.reshape", b.one(
        "tensor.transpose", x, perm=[1, 0]), shape=[m, 1, n]), shape=[m, d, n])
    row = b.one("tensor.reshape", b.one("tensor.slice", t, spec=[
        ["c", 0], ["s", 0, d, 1], ["s", 0, n, 1]]), shape=[1, d, n])
    rest = b.one("tensor.slice", t, spec=[["s", 1, m, 1], ["s", 0, d, 1], ["s", 0, n, 1]])
    rhs = b.one("tensor.concatenate", row, b.one("tensor.neg", t), rest, axis=0)
    lhs = b.one("tensor.concatenate", xs, xs, axis=1)
    return b.one("tensor.dot_general", lhs, rhs, lhs_batch=[], rhs_batch=[],
                 lhs_contract=[1, 2], rhs_contract=[0, 1])


_BLOCK_PRODUCT = ("dot_general(A, concatenate(B_0..B_m) along a contracted axis) -> sum_i "
                  "dot_general(A's rows of piece i, B_i) (block product; the sum regrouped; "
                  "at most 16 pieces, the concatenation read only here")

SPLIT_PRODUCTS = [
    Pattern("split-product-over-concatenation", "tensor.dot_general",
            _split_over_concatenation,
            _BLOCK_PRODUCT + "; at least 64 multiply-adds per result element)",
            sample=unary_chain(_sample, "i64", rank=2)),
]


def _split_any_depth(op, rw):
    return _split_over_concatenation(op, rw, 0)


def _unit_windows(b, x):
    """x's windows [m, 1, n - 1] at offsets 0 and 1 of a unit-axis reshape, stacked along
    that axis (a raised convolution's stack), contracted over both stacked axes with a
    [3, m, 2] broadcast of x's first column: two pieces of depth m (integers: every
    grouping of the sum is exact)."""
    m, n = x.type.shape
    y = b.one("tensor.reshape", x, shape=[m, 1, n])
    k = max(n - 1, 0)
    wins = [b.one("tensor.slice", y, spec=[["s", 0, m, 1], ["s", 0, 1, 1],
                                           ["s", o, o + k, 1]]) for o in (0, 1)]
    cat = b.one("tensor.concatenate", *wins, axis=1)
    column = b.one("tensor.slice", x, spec=[["s", 0, m, 1], ["s", 0, 1, 1]])
    w = b.one("tensor.broadcast_to", b.one("tensor.reshape", column, shape=[1, m, 1]),
              shape=[3, m, 2])
    return b.one("tensor.dot_general", w, cat, lhs_batch=[], rhs_batch=[],
                 lhs_contract=[1, 2], rhs_contract=[0, 1])


# natively only (passes/split_products_native.py): the split whatever the pieces' depth, the
# native backend summing the pieces' products in place (gemm, beta = 1 into one buffer:
# accumulate_products, bufferize.SUM_OF_PRODUCTS), so no product streams the result through
# memory again; and a piece that is a window of a unit-axis reshape read as a window of the
# array itself, which BLAS reads in place
NATIVE_SPLIT = [
    Pattern("split-product-over-concatenation-any-depth", "tensor.dot_general",
            _split_any_depth, _BLOCK_PRODUCT + "; pieces of any depth)",
            sample=unary_chain(_unit_windows, "i64", rank=2)),
    Pattern("slice-of-unit-reshape", "tensor.slice", slice_of_unit_reshape,
            "reshape(x, x's shape with 1s put in)[spec] -> reshape(x[spec without the 1s' "
            "items], the result's shape)",
            sample=unary_chain(window_of_unit_reshape, "f64", rank=2)),
]
