"""The pass pipelines, in order, in one place: the primal program's (``ORDER``) and the
cleanup of a gradient program after differentiation (``GRADIENT_ORDER``).

``build_pipeline(options)`` makes the pass objects (``build_gradient_pipeline(options)`` the
gradient's); ``options`` maps a pass name to its
options (``{"if_to_select": {"max_ops": 16}}``), so a benchmark A/Bs a choice by passing an
option. ``run_pipeline`` runs them with the verifier before the first and after the last,
and after each one under test (``SOLVENT_VERIFY_EACH=1``, set by ``tests/conftest.py``):
there a malformed program names the pass that made it; outside tests the verifier runs in
between cost a first call 20-40 ms (levinson: 36 runs, 42 ms CPU of 456 ms) and catch
nothing the last one would let through to a backend.
"""
from __future__ import annotations

import os

from ..ir.core import Function
from ..ir.verifier import verify
from .base import Pass
from .canonicalize import Canonicalize
from .checks_to_values import ChecksToValues
from .cse import CSE
from .dce import DCE
from .flag_checks import FlagChecks
from .forward_slots import ForwardSlots
from .functionalize import Functionalize
from .gradient_rules import GradientRules
from .halo_shifts import HaloShifts
from .hoist_checks import HoistChecks
from .if_to_select import IfToSelect
from .late_updates import LateUpdates
from .licm import LICM
from .lower_barriers import LowerBarriers
from .mark_parallel import MarkParallel
from .merge_windows import MergeWindows
from .prove_checks import ProveChecks
from .raising.contraction import RaiseContractions
from .raising.raise_loops import RaiseLoops
from .selects_to_branches import SelectsToBranches
from .sink_updates import SinkUpdates
from .undo_writes import UndoWrites
from .speculate_checks import SpeculateChecks
from .split_products_native import SplitProductsNative
from .version_checks import VersionChecks

# the order: barriers (solvent/simt) lowered first, on the array level, then functionalize
# (refs -> tensors), checks proven or hoisted out of loops
# and then made values before any other pass may move or drop ops, then cleanup around the
# passes that restructure control flow;
# raising runs after if-conversion and LICM (selects and hoisted invariants batch simply);
# LICM runs again after raising: a raised inner loop's batched index checks on arrays the
# outer loop never changes are invariant in it (spmv_ell_loops: 1.95M -> 0.55M elements a
# time step natively, native 31.8 -> ~21 ms, CPU, loaded host);
# versioning and speculation (native only) before the checks become values: the clean copy
# carries none;
# natively, products over a concatenation that raising made are split whatever their depth
# (split_products_native), before the last cleanup;
# the parallel marks go on the loops the backends will see; natively, a scalar select left
# in a loop that reads memory for one arm only becomes a branch again, last
ORDER = [LowerBarriers, Functionalize, ProveChecks, HoistChecks, VersionChecks, SpeculateChecks,
         FlagChecks,
         ChecksToValues, Canonicalize, CSE, IfToSelect,
         LICM, RaiseLoops, Canonicalize, LICM, RaiseContractions, HaloShifts,
         SplitProductsNative, CSE, Canonicalize, DCE, MarkParallel, SelectsToBranches]


# a gradient program (autodiff.api), after ``transform.vjp_function`` made it from the
# optimized primal: cotangent slots read before they are written (a fresh copy of the
# program, which the rewriting that follows needs), the gradient rule sets, a cotangent
# zeroed over a block and added back there, a reverse stencil's shifted-window updates
# merged, cleanup; the parallel marks proven again (vjp_function dropped the primal's: its
# copies of the loops carry tapes); then, where cse would no longer fold them back, a window
# written into an array still read afterwards written back after its last read instead of
# copying the array per trip, and an update of an array read later in its block moved after
# those reads
GRADIENT_ORDER = [ForwardSlots, GradientRules, SinkUpdates, MergeWindows, CSE, DCE,
                  MarkParallel, UndoWrites, LateUpdates]


def build_pipeline(options: dict | None = None, order: list | None = None) -> list[Pass]:
    """The pass objects of ``order`` (default ``ORDER``), each with ``options`` for its
    name."""
    order = ORDER if order is None else order
    options = dict(options or {})
    known = {cls.name for cls in order}
    unknown = set(options) - known
    if unknown:
        raise ValueError(f"no pass named {', '.join(sorted(unknown))}; passes: "
                         f"{', '.join(cls.name for cls in order)}")
    return [cls(**options.get(cls.name, {})) for cls in order]


def build_gradient_pipeline(options: dict | None = None) -> list[Pass]:
    return build_pipeline(options, GRADIENT_ORDER)


def verify_each_default() -> bool:
    """Whether the verifier runs after every pass: under test (``SOLVENT_VERIFY_EACH=1``)."""
    return os.environ.get("SOLVENT_VERIFY_EACH", "") not in ("", "0")


def shared_prefix(passes: list[Pass], names) -> int:
    """How many passes at the head of ``passes`` come before the first pass named in
    ``names`` (the passes whose options a backend's ``pass_defaults`` set): those run the
    same whichever backend is chosen."""
    for i, p in enumerate(passes):
        if p.name in names:
            return i
    return len(passes)


def run_pipeline(fn: Function, verify_each: bool | None = None, trace=None,
                 passes: list[Pass] | None = None, start: bool = True) -> Function:
    """Run every pass; ``trace(name, fn)`` sees the IR after each stage. The verifier runs
    on the input (unless ``start`` is False: ``fn`` is the output of an earlier, verified
    part of the pipeline) and on the output, and after every pass when ``verify_each``
    (default: ``verify_each_default()``)."""
    if verify_each is None:
        verify_each = verify_each_default()
    if start:
        verify(fn)
        if trace:
            trace("frontend", fn)
    passes = passes if passes is not None else build_pipeline()
    for i, p in enumerate(passes):
        fn = p.run(fn)
        if verify_each or i == len(passes) - 1:
            verify(fn, tensor_only=p.tensor_only)
        if trace and not p.idle:
            trace(p.name, fn)
    return fn
