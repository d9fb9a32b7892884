"""Analyses of the tensor IR: affine subscripts (affine.py), the accesses of a loop to each
carried array (accesses.py), reductions (reductions.py), the loop dependence test
(dependence.py) and its one-line-per-loop report (explain.py)."""
from .affine import Affine, LoopInfo
from .dependence import CARRIED, INDEPENDENT, REDUCTION, LoopReport, analyze, classify_loop
from .explain import explain_loops, tensor_ir

__all__ = ["Affine", "LoopInfo", "LoopReport", "analyze", "classify_loop", "explain_loops",
           "tensor_ir", "INDEPENDENT", "REDUCTION", "CARRIED"]
