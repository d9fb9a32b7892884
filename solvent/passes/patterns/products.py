"""Matrix-product identities: a product computed twice, once spelled transposed, is computed
once. Exact: each element of ``(X Y)^T`` and of ``Y^T X^T`` is the same sum of the same
products (a*b == b*a), in the same order of the contracted index."""
from __future__ import annotations

from ...ir.rewrite import Pattern, defining
from ._samples import unary_chain


def matrix_base(v, transposed=False):
    """(base value, transposed) of a matrix operand, looking through 2-D transposes."""
    while (t := defining(v, "tensor.transpose")) is not None and list(t.attrs["perm"]) == [1, 0]:
        v, transposed = t.operands[0], not transposed
    return v, transposed


def matrix_operands(op):
    """((left base, transposed), (right base, transposed)) of a matrix product
    ``left[M, K] @ right[K, N]`` (rank-2 operands, one contracted dim, no batch dims); None
    for any other dot_general."""
    a, b = op.operands
    if op.attrs["lhs_batch"] or a.type.rank != 2 or b.type.rank != 2 or \
            len(op.attrs["lhs_contract"]) != 1:
        return None
    (lc,), (rc,) = op.attrs["lhs_contract"], op.attrs["rhs_contract"]
    return matrix_base(a, lc == 0), matrix_base(b, rc == 1)


def is_gram(op) -> bool:
    """The product is ``X^T X`` or ``X X^T`` of one matrix ``X`` (a symmetric result: BLAS
    syrk computes it with half the multiply-adds, as NumPy's matmul does)."""
    key = matrix_operands(op)
    return key is not None and key[0][0] is key[1][0] and key[0][1] != key[1][1]


def _same(k1, k2):
    return all(x[0] is y[0] and x[1] == y[1] for x, y in zip(k1, k2))


def _reuse_product(op, rw):
    key = matrix_operands(op)
    if key is None:
        return False
    (lv, lt), (rv, rt) = key
    flipped = ((rv, not rt), (lv, not lt))       # (L R)^T = R^T L^T
    for other in op.parent.ops:
        if other is op:
            return False
        if other.name != "tensor.dot_general" or not other.results[0].has_uses:
            continue
        k = matrix_operands(other)
        if k is None:
            continue
        if _same(k, key):                       # the same product, spelled differently
            rw.replace_op(op, [other.results[0]])
            return True
        if _same(k, flipped):
            rw.replace_op(op, [rw.one("tensor.transpose", other.results[0], perm=[1, 0])])
            return True
    return False


def _sym2k(b, x):
    """x^T y + y^T x with y = 2x (a symmetric rank-2k product)."""
    y = b.one("tensor.add", x, x)
    d = dict(lhs_batch=[], rhs_batch=[], lhs_contract=[1], rhs_contract=[0])
    p = b.one("tensor.dot_general", b.one("tensor.transpose", x, perm=[1, 0]), y, **d)
    q = b.one("tensor.dot_general", b.one("tensor.transpose", y, perm=[1, 0]), x, **d)
    return b.one("tensor.add", p, q)


PRODUCTS = [
    Pattern("product-reuse", "tensor.dot_general", _reuse_product,
            "dot(Y^T, X^T) -> transpose(dot(X, Y)), dot(X', Y') -> dot(X, Y) when X', Y' are "
            "X, Y spelled through transposes or contracted dims, and dot(X, Y) comes earlier "
            "in the same block (A.T @ B + B.T @ A does one matrix product, not two)",
            sample=unary_chain(_sym2k, "f64", rank=2)),
]
