"""Raising scalar loop nests into tensor operations: raise_loops.py (the pass: independent
loops, reductions, partial raising), batching.py and indexing.py (the batching rules per op
family), slots.py (what each carried value becomes), contraction.py (multiply-and-sum
into dot_general)."""
