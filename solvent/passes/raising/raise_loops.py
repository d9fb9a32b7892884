"""Raising loops into tensor operations ("multi-dimensionalization").

Every ``loop.for`` is tried innermost first; a loop is raised when

1. the dependence test (analysis/dependence.py) classifies it as independent or a
   reduction — a loop with a real loop-carried dependence is never raised;
2. its bounds and step are constants (the trip count ``N`` is known), and
3. every op of its body has a batching rule (batching.py, indexing.py) and every value it
   carries has a meaning slots.py can build (reduction, independent array, ...).

Then the loop is replaced by the batched body: ops over the whole index space, built in
front of the loop (slices, strided where the subscript is ``a*i+b``; iota for the loop
variable; elementwise ops and selects; gathers for reads with non-affine subscripts;
reduce ops for reductions; update_slice for the writes). A loop with zero trips is
replaced by its initial values. Raising an inner loop leaves its parent with tensor ops in
its body, so the parent may be raised next: nests of independent loops become
multi-dimensional ops, and a sequential outer loop (a time loop, a sweep, a pivot loop)
keeps its loop around its raised inner loops (partial raising). A sequential loop *inside*
an independent one (a time loop per element, written innermost as ported from C; a row's
recurrence) is interchanged: it is kept, in front, carrying the values of every iteration
of the independent loop, which become tensor ops in its body (batching.Batch.inner_loop;
only a body of scalar work, and a trip count the same in every iteration).

Identity: for an independent loop, running the iterations in any order, or all at once,
gives the same arrays (no iteration reads or writes an element another one writes);
reductions are reassociated (exact except for floating sums and products, whose rounding
may change as NumPy's own pairwise summation does). Each raised loop is logged on the
function (``Function.raised``) and each loop left with its reason (``Function.not_raised``);
``analysis.explain_loops`` prints both.

Loops with bounds that depend on an outer loop variable (triangular ``for j in range(i)``,
a factorization's ``for i in range(k + 1, n)``) are batched over the widest range their
bounds take over the nest, with a mask of the iterations that run: masked-off iterations
write back the old elements, contribute the identity to reductions and raise no error.
That computes up to twice the triangle, once, instead of a scalar loop (``max_masked``
bounds the range; above it the loop stays a loop).

A sweep (an independent loop of constant bounds directly inside a carried loop or a
``while`` loop, its body elementwise work once its inner loops are raised) may stay a loop
instead (option ``sweep_min_work``, which the native backend sets): mark_parallel then marks
it and the thread pool runs its rows, where the op raised over the whole domain would run on
one thread. Only under a loop that stays a loop when every sweep raises (found on a copy:
``for k: for i: for j: C[i, j] += A[i, k] * B[k, j]`` raises whole into a dot_general).
"""
from __future__ import annotations

from dataclasses import dataclass

from ...analysis.affine import LOOPS, LoopInfo
from ...analysis.dependence import CARRIED, INDEPENDENT, REDUCTION, classify_loop
from ...analysis.work import body_cost
from ...ir.core import Function, clone_function
from ...ir.rewrite import apply_patterns
from ..patterns.shapes import WHOLE_ARRAY
from ..base import Pass
from .batching import Batch, Refuse
from .delinearize import delinearize
from .slots import Slots, error_slots
from .versioning import version


def _body_elements(loop) -> int:
    """The largest static value the loop body computes per iteration, in elements (not the
    new versions of carried arrays, which update in place)."""
    return max((r.type.size for op in loop.regions[0].block.walk() for r in op.results
                if op.name != "tensor.update_slice" and not op.regions
                and getattr(r.type, "static", True) and hasattr(r.type, "size")), default=1)


def _refuse_runtime_shapes(loop) -> None:
    """The batching rules take static shapes only: a value of run-time shape in the body (a
    slice ``A[i, i:]`` whose length follows the loop variable, a mask read) is a different
    shape in every iteration and has no batched form (batching it as a full row summed the
    whole matrix for ``A[i, i:].sum()``)."""
    for op in loop.regions[0].block.walk():
        for r in op.results:
            if not getattr(r.type, "static", True):
                line = op.loc.line if op.loc is not None else "?"
                raise Refuse(f"the value of {op.name} at line {line} has a run-time shape "
                             f"({r.type})")


def _carried_bound_loop(info: LoopInfo, lb, ub):
    """The loop, if any, whose variable the bounds ``lb``/``ub`` move with and that is
    carried (a sequential loop that stays a loop)."""
    for atom in list(lb.terms) + list(ub.terms):
        outer = info.iv_loop(atom)
        if outer is not None and classify_loop(info, outer).kind == CARRIED:
            return outer
    return None


def _sweep_under_carried(info: LoopInfo, loop, report):
    """The carried loop around ``loop`` when ``loop`` is a sweep that may stay a parallel
    loop: independent, of constant bounds, its body work on rows or checkless scalar work
    (no loop left in it, no contraction: a sum of products raises into a dot_general, which
    BLAS runs better over the whole sweep), directly inside a carried loop (a time step) or
    a while loop."""
    if report.kind != INDEPENDENT:
        return None
    lb, ub, _ = info.loop_bounds(loop)
    if not (lb.is_const and ub.is_const):
        return None   # bounds that move with an outer loop: masked_under_carried decides
    around = info.enclosing_loops(loop)
    outer = around[-1] if around else None
    if outer is None or outer.name == "loop.for" and classify_loop(info, outer).kind != CARRIED:
        return None
    body = loop.regions[0].block
    if any(op.regions or op.name == "tensor.dot_general" for op in body.walk()) or \
            _sums_products(body):
        return None
    if any(s in ("first_error", "error_payload") for s in report.slots) and not any(
            r.type.rank > 0 for op in body.walk() if op.name != "tensor.update_slice"
            for r in op.results):
        # scalar work with run-time checks: as a loop each check may leave it early, which
        # keeps LLVM from vectorizing it (a math.exp sweep over 100k points 15 ms on one
        # thread against 0.8 ms raised, where the checks become flags over the whole row)
        return None
    return outer


def _sums_products(block) -> bool:
    """A sum and an elementwise product of two arrays in ``block``: the shape of what
    raise_contractions makes a dot_general, a BLAS call over the whole sweep raised (a
    matrix product, not one matrix-vector product per row)."""
    names = [(op.name, op) for op in block.walk()]
    return any(n == "tensor.reduce_sum" for n, _ in names) and any(
        n == "tensor.mul" and all(v.type.rank > 0 for v in op.operands) for n, op in names)


def _try_raise(info: LoopInfo, loop, report, max_masked: int,
               max_body_elements: int = 1 << 16, gathers: bool = True,
               masked_under_carried: bool = True, strided_interchange: bool = True,
               data_gathers: bool = True, reads_before_overwrite: bool = True,
               sweeps: "_Sweeps | None" = None) -> str:
    """Raise ``loop`` (returns what it became) or raise Refuse."""
    if report.kind == CARRIED and report.reads_before_overwrite and \
            not reads_before_overwrite:
        raise Refuse(f"{report.reason}: its reads come before the overwrites, but native code "
                     "runs it in place faster than the batch, which copies the array first "
                     "(reads_before_overwrite=False)")
    if report.kind == CARRIED and not error_slots(info, loop) and \
            not report.reads_before_overwrite:
        raise Refuse(report.reason)
    used = set()   # the options that let it raise (Function.raised_with)
    outer = _sweep_under_carried(info, loop, report) if sweeps is not None else None
    if outer is not None and outer in sweeps.kept_under:
        work = _sweep_work(info, loop)
        if work >= sweeps.min_work:
            line = outer.loc.line if outer.loc is not None else "?"
            raise Refuse(f"it sweeps independent rows inside the carried loop at line "
                         f"{line}: kept as a parallel loop (estimated work {work} >= "
                         f"sweep_min_work {sweeps.min_work})")
    if outer is not None:
        sweeps.raised_under.append(outer)
    _refuse_runtime_shapes(loop)
    per_iteration = _body_elements(loop) if report.kind == REDUCTION else 0
    if per_iteration > max_body_elements:
        # a reduction whose body is vectorized work already (its loop overhead is
        # amortized): raising would materialize trips x that before reducing (syrk's k loop
        # of n x n outer products: 14M elements, 10x slower on XLA than the loop);
        # independent loops write their values out anyway, so they are not limited
        raise Refuse(f"its body already computes {per_iteration} elements per iteration "
                     f"(above max_body_elements)")
    lb, ub, step = info.loop_bounds(loop)
    if step is None:
        raise Refuse("the step is not a constant")
    partial = not (lb.is_const and ub.is_const)
    if partial:
        # bounds that move with an outer loop: batch the widest range, masked
        lo, hi = info.bounds(lb)[0], info.bounds(ub)[1]
        if step != 1 or lo is None or hi is None or \
                any(info.inside(o, loop) for o in loop.operands[:2]):
            raise Refuse("the trip count is not a compile-time constant (bounds "
                         f"{info.render(lb)}..{info.render(ub)}: symbolic, or a stride)")
        if hi - lo > max_masked:
            raise Refuse(f"a masked range of {hi - lo} iterations is above max_masked")
        outer = _carried_bound_loop(info, lb, ub)
        if outer is not None and masked_under_carried:
            used.add("masked_under_carried")
        elif outer is not None:
            line = outer.loc.line if outer.loc is not None else "?"
            raise Refuse(f"its bounds follow the loop at line {line}, which is carried: the "
                         "masked batch would run the widest range on every trip of it "
                         "(masked_under_carried=False)")
        trips = range(lo, hi)
    else:
        trips = range(lb.const, ub.const, step)
    if len(trips) == 0:
        loop.replace_with(list(loop.operands[3:]))
        return "nothing (no trips)"
    b = Batch(info, loop, len(trips), trips.start, step, partial, strided_interchange)
    try:
        slots = Slots(b)
        slots.plan()
        b.run(loop.regions[0].block)
        results = slots.results()
        if not gathers and ("gather" in b.what or "own-element gather" in b.what):
            raise Refuse("its reads need a gather (gathers=False)")
        if not data_gathers and "gather" in b.what:
            raise Refuse("its reads need a gather of data (data_gathers=False)")
        if "gather" in b.what:
            used.add("data_gathers")   # raised only because data_gathers is on
    except Refuse:
        b.abandon()
        raise
    loop.replace_with(results)
    info.fn.raised_with.update(used | b.options_used)
    return ", ".join(sorted(b.what)) or "its initial values"


def _sweep_work(info: LoopInfo, loop) -> int:
    """Trip count x estimated work of one iteration (analysis/work.py)."""
    lb, ub, step = info.loop_bounds(loop)
    trips = len(range(lb.const, ub.const, step)) if step else 0
    return trips * body_cost(loop.regions[0].block)


class _Sweeps:
    """Sweeps under carried loops (``_sweep_under_carried``): the carried loops whose sweeps
    of at least ``min_work`` stay loops, and those under which one was raised
    (Function.raised_with names ``sweep_min_work`` when one of these is still a loop at
    the end)."""

    def __init__(self, kept_under=(), min_work: int = 0):
        self.kept_under = set(kept_under)
        self.min_work = min_work
        self.raised_under: list = []


def _may_keep_a_sweep(info: LoopInfo, min_work: int) -> bool:
    """Whether some loop of constant bounds directly inside a carried or while loop has,
    as written, a quarter of ``min_work`` or more (raising its inner loops changes the
    estimate a little: the margin keeps every sweep that may reach it)."""
    for m in info.loops:
        around = info.enclosing_loops(m)
        if m.name != "loop.for" or not around:
            continue
        lb, ub, step = info.loop_bounds(m)
        if lb.is_const and ub.is_const and step and 4 * _sweep_work(info, m) >= min_work \
                and (around[-1].name != "loop.for" or
                     classify_loop(info, around[-1]).kind == CARRIED):
            return True
    return False


def _loops_left_when_sweeps_raise(fn: Function, opts: tuple, versioned: bool,
                                  min_work: int) -> set:
    """The loops of ``fn`` still loops after raising a copy with every sweep raised: a
    loop carried as written may raise once its sweeps have (a matrix product written
    ``for k: for i: for j: C[i, j] += ...`` is a reduction over ``k`` of raised outer
    products, one dot_general); the sweeps under it are then raised, not kept. Empty,
    without raising a copy, when no sweep can reach ``min_work``."""
    if not _may_keep_a_sweep(LoopInfo(fn), min_work):
        return set()
    trial = clone_function(fn)
    pairs = list(zip(fn.walk(), trial.walk()))   # the same program order
    raise_loops(trial, *opts[:4], versioned, *opts[4:6], sweep_min_work=-1,
                reads_before_overwrite=opts[6])
    left = {id(op) for op in trial.walk() if op.name in LOOPS}
    return {a for a, b in pairs if a.name in LOOPS and id(b) in left}


def raise_loops(fn: Function, max_masked: int = 1 << 16,
                max_body_elements: int = 1 << 16, gathers: bool = True,
                masked_under_carried: bool = True, versioned: bool = True,
                strided_interchange: bool = True, data_gathers: bool = True,
                sweep_min_work: int = -1, reads_before_overwrite: bool = True) -> int:
    """Raise every loop that can be; returns how many were."""
    delinearize(fn)
    refused: dict = {}
    tried: set = set()
    opts = (max_masked, max_body_elements, gathers, masked_under_carried, strided_interchange,
            data_gathers, reads_before_overwrite)
    sweeps = _Sweeps() if sweep_min_work < 0 else \
        _Sweeps(_loops_left_when_sweeps_raise(fn, opts, versioned, sweep_min_work),
                sweep_min_work)
    count = 0
    while True:
        info = LoopInfo(fn)
        todo = [m for m in reversed(info.loops) if m.name == "loop.for" and m not in refused]
        if not todo:
            # every loop left is refused: a carried nest may still raise under a guard
            if versioned and _version_carried(fn, refused, tried, opts):
                count += 1
                continue
            break
        loop = todo[0]
        report = classify_loop(info, loop)
        where = f"line {report.line if report.line is not None else '?'}: loop {report.var}"
        try:
            what = _try_raise(info, loop, report, *opts, sweeps)
        except Refuse as e:
            # a loop the analysis finds carried: its dependence is the reason
            refused[loop] = report.reason if report.kind == CARRIED and \
                not report.reads_before_overwrite else str(e)
            continue
        kind = report.kind if report.kind != CARRIED else \
            "its reads come before later iterations overwrite what they read: batched " \
            "from the array as it was before the loop" if report.reads_before_overwrite else \
            "independent but for its run-time checks, batched as first-failure selects"
        fn.raised.append(f"{where}: raised ({kind}) into {what}")
        count += 1
        # a raised loop that filled a whole array (``for j in range(n): p[j] = ...``) is an
        # update of every element: the array's old value is then no longer read, which
        # the parent loop's analysis needs to see (a scratch row filled anew per iteration)
        apply_patterns(fn, WHOLE_ARRAY)
    for loop, why in refused.items():
        if loop.parent is not None:
            fn.not_raised[loop] = why
    if sweeps.raised_under:
        left = {id(op) for op in fn.walk()}
        if any(id(o) in left for o in sweeps.raised_under):
            fn.raised_with.add("sweep_min_work")
    return count


def _version_carried(fn: Function, refused: dict, tried: set, opts: tuple) -> bool:
    """Version the outermost carried nest that versioning.py can batch under a guard."""
    info = LoopInfo(fn)

    def raise_nest(loops) -> bool:
        for m in reversed(loops):
            inner = LoopInfo(fn)
            report = classify_loop(inner, m)
            if report.kind == CARRIED:
                return False
            try:
                _try_raise(inner, m, report, *opts)
            except Refuse:
                return False
        return True

    for loop in info.loops:
        if loop not in refused or loop in tried or loop.parent is None:
            continue
        tried.add(loop)
        report = classify_loop(info, loop)
        what = version(info, loop, raise_nest)
        if what is not None:
            fn.raised.append(f"line {report.line if report.line is not None else '?'}: loop "
                             f"{report.var}: versioned ({report.reason}) into {what}")
            # the fallback nest is the loops as written: versioning it again would test
            # the same writes once more
            tried.update(op for op in loop.walk() if op.name == "loop.for")
            apply_patterns(fn, WHOLE_ARRAY)
            return True
    return False


class RaiseLoops(Pass):
    """Loops whose iterations are independent (or reduce) become tensor ops."""

    name = "raise_loops"

    @dataclass(frozen=True)
    class Options:
        enabled: bool = True
        # a loop whose bounds move with an outer loop (``for j in range(i)``) is raised over
        # its widest range with a mask when that range is at most this many iterations
        max_masked: int = 1 << 16
        # a reduction loop whose body already computes more elements than this per iteration
        # stays a loop (raising it would materialize trips times as many before reducing)
        max_body_elements: int = 1 << 16
        # False: a loop whose raised form reads through a gather (a subscript that is not
        # an in-bounds strided slice) stays a loop; native code reads such elements
        # faster in the loop (solvent.kernel on native sets it)
        gathers: bool = True
        # False: a loop whose bounds move with a carried loop (a factorization's
        # ``for i in range(k + 1, n)`` inside the sequential ``k`` loop) stays a loop. Its
        # masked batch computes the widest range on every trip of the carried loop (3x the
        # work of LU's triangle); XLA gains from it (no scalar iterations), native code runs
        # the triangle itself (NativeBackend.pass_defaults sets it)
        masked_under_carried: bool = True
        # False: a carried nest whose conflicting writes may store the old values
        # (Floyd-Warshall's pivot row and column) stays a loop instead of being batched
        # under a run-time guard with the loop as the fallback (versioning.py)
        versioned: bool = True
        # False: a sequential inner loop that walks the last (contiguous) axis of an array
        # the loop around it indexes by row is not interchanged with it: interchanged, each
        # step would read a column (XLA gains anyway, from no scalar iterations; native code
        # reads the rows in order faster: NativeBackend.pass_defaults sets it)
        strided_interchange: bool = True
        # False: as ``gathers=False`` for gathers from an array all iterations share
        # (``x[idx[i]]``, a shifted row ``best[i, c - w]``), not for a per-iteration array's
        # own element (indexing._own_element: the first failing iteration's error code
        # picked out of a raised inner loop, cheap; ufunc_mix_loops keeps its raising). Native code runs such a loop as a loop faster than its
        # batched form (a gather, a select and separate passes per row): knapsack_items
        # 0.220 -> 0.120 ms, axis_stats_loops 21.3 -> 17.2 ms (NativeBackend.pass_defaults)
        data_gathers: bool = True
        # >= 0: an independent loop directly inside a carried loop (a time step's sweep
        # over rows, its inner loops raised) whose body is elementwise work, and whose
        # trip count x estimated work per iteration (analysis/work.py) is at least this,
        # stays a loop; mark_parallel marks it and native code runs its rows on the thread
        # pool, where the raised op over the whole domain would run on one thread. -1:
        # every sweep raises. The native backend sets its pool's default threshold
        # (NativeBackend.pass_defaults): a smaller sweep would run on one thread anyway,
        # and raised it fuses with its neighbours
        sweep_min_work: int = -1
        # False: a loop whose only dependence is a read before a later iteration overwrites
        # the element (``a[i] += a[i + 1]``) stays a loop. Raised, it reads the array as it
        # was before the loop, which natively needs a copy of it first: a[i] += a[i + 1]
        # over 1M float64, 1.33 ms raised against 0.47 ms as the loop (Numba 0.41);
        # XLA gains from no scalar iterations (NativeBackend.pass_defaults sets it)
        reads_before_overwrite: bool = True

    def run(self, fn: Function) -> Function:
        if self.options.enabled:
            raise_loops(fn, self.options.max_masked, self.options.max_body_elements,
                        self.options.gathers, self.options.masked_under_carried,
                        self.options.versioned, self.options.strided_interchange,
                        self.options.data_gathers, self.options.sweep_min_work,
                        self.options.reads_before_overwrite)
        return fn
