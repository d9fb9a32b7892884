"""The pass pipeline, in order, in one place.

``build_pipeline(options)`` makes the pass objects; ``options`` maps a pass name to its
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
from .functionalize import Functionalize
from .halo_shifts import HaloShifts
from .hoist_checks import HoistChecks
from .if_to_select import IfToSelect
from .licm import LICM
from .lower_barriers import LowerBarriers
from .mark_parallel import MarkParallel
from .prove_checks import ProveChecks
from .raising.contraction import RaiseContractions
from .raising.raise_loops import RaiseLoops
from .version_checks import VersionChecks

# the order: barriers (solvent/simt) lowered first, on the array level, then functionalize
# (refs -> tensors), checks proven or hoisted out of loops
# and then made values before any other pass may move or drop ops, then cleanup around the
# passes that restructure control flow;
# raising runs after if-conversion and LICM (selects and hoisted invariants batch simply);
# LICM runs again after raising: a raised inner loop's batched index checks on arrays the
# outer loop never changes are invariant in it (spmv_ell_loops: 1.95M -> 0.55M elements a
# time step natively, native 31.8 -> ~21 ms, CPU, loaded host);
# versioning (native only) before the checks become values: the clean copy carries none;
# the parallel marks go on last, on the loops the backends will see
ORDER = [LowerBarriers, Functionalize, ProveChecks, HoistChecks, VersionChecks, ChecksToValues,
         Canonicalize, CSE, IfToSelect,
         LICM, RaiseLoops, Canonicalize, LICM, RaiseContractions, HaloShifts, CSE, Canonicalize, DCE,
         MarkParallel]


def build_pipeline(options: dict | None = None) -> list[Pass]:
    options = dict(options or {})
    known = {cls.name for cls in ORDER}
    unknown = set(options) - known
    if unknown:
        raise ValueError(f"no pass named {', '.join(sorted(unknown))}; passes: "
                         f"{', '.join(cls.name for cls in ORDER)}")
    return [cls(**options.get(cls.name, {})) for cls in ORDER]


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
