"""A product over a concatenation along a contracted axis, split into the pieces' products
whatever their depth, natively (the pattern and its identity: patterns/split_products.py).

Canonicalization splits only pieces of at least ``MIN_PIECE_DEPTH`` multiply-adds per
result element: below it each piece's product streams the whole result through memory
again. The native backend sums such a chain of products in place instead: each add of a
sum of gemm products is computed where it stands (``bufferize.SUM_OF_PRODUCTS``) and its
product becomes one gemm with beta = 1 into the running sum's buffer
(``accumulate_products``), so the pieces cost one buffer the size of the result, and the
concatenation (a copy of every piece) is never made; a piece that is a window of a
unit-axis reshape (``slice-of-unit-reshape``) is read as a window of the array itself, which
BLAS reads in place. conv1d_loops natively (seven shifted windows of x stacked for one
product of depth 112, 32 x 19994 results): 1.43x faster in-process (7.35 -> 5.13 ms, one
thread, CPU time, ``notes/s23/sumprod_ab.py``), its vectorized twin 5.2-5.3 ms. Not in
canonicalization for every backend: XLA sums the pieces' products through memory (the
gate's measurement in patterns/split_products.py), and automatic choice reads the
unsplit program (its stacked-windows rule picks native for conv1d_loops). The native
backend turns it on (``pass_defaults``).
"""
from __future__ import annotations

from ..ir.core import Function
from ..ir.rewrite import apply_patterns
from .base import BackendPass
from .patterns.split_products import NATIVE_SPLIT


class SplitProductsNative(BackendPass):
    name = "split_products_native"

    def transform(self, fn: Function) -> int:
        return apply_patterns(fn, NATIVE_SPLIT)
