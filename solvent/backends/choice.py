"""Automatic backend choice: a cost model over the optimized IR.

XLA compiles tensor programs well (fused elementwise passes, vectorized, all cores) but runs
each iteration of a loop it cannot vectorize as an XLA ``While`` step, about 1 µs each, and
it needs every shape at compile time. The native backend compiles loops to machine code
(nanoseconds per scalar iteration) and takes run-time shapes. So:

- a function whose loops do mostly scalar work (element reads/writes and rank-0
  arithmetic, the code of Gauss-Seidel sweeps, dynamic programming, scans) goes native;
- so does one whose loops slice rows, columns or triangles at a position that follows the
  loop index (factorizations, Floyd-Warshall, rank-1 updates), which XLA runs as a dynamic
  slice and a copy of the carried array per step;
- a loop-free function of plain element work goes native (``array_work``: elementwise
  arithmetic, comparisons, reductions, slices; C-math-library calls such as exp, sin, tanh
  or pow to a non-trivial exponent, weighted ``LIBM_COST``, or ``CHECKED_LIBM_COST`` where a
  run-time check tests each result (math.exp's range error), plus data movement (concatenate,
  transposes not feeding a product, gathers) under ``XLA_SHARE`` of the rest): the native
  backend runs it as fused loops over NumPy's own buffers, while XLA first copies every
  argument of 64 KiB or more that is not 64-byte aligned (NumPy aligns to 16) and runs its
  column reductions slowly. Where libm calls or data movement weigh more, XLA's vectorized
  math and fused indexing win: XLA; a program of data movement alone (no element work to
  fuse it into) goes native (``ArrayWork.only_moves``);
- a function whose loops step through array work goes native while one iteration writes
  at most ``STEP_WORK`` array elements natively with little data movement (``step_work``:
  time steps of stencils, n-body steps, convergence loops), where an XLA ``While`` step costs
  more than the work itself. Only what the native backend writes to memory counts: a value
  it computes inside its consumer's loop (``bufferize.Plan.fused``: a stencil's right-hand
  side inside the update's loop) costs no pass of its own, as in XLA's fused step
  (1200^2 Jacobi step, 4 steps: native 12.8 ms, XLA 39.7; blur_f32 at 1000: 8.8 and 17.2;
  fdtd_2d 6.1 and 11.8, CPU time, loaded 2-core host). Steps whose native temporaries are
  larger go to XLA, whose fused step then beats the native backend's op-by-op loops (the
  threshold was set on the all-ops count, before native fusion; not re-calibrated on the
  written count). A step whose arrays are all 1-D goes
  native at any size: the native backend's fused 1-D loops are contiguous vectorized
  streams, as fast as XLA's, without its While step (jacobi_1d at 400000 points, 5.6M
  elements a step: native 8.4 ms, XLA 14.6);
- a function whose work is dominated by float32/float64/complex matrix products
  (``dot_work``: the products' multiply-adds at least ``DOT_SHARE`` times every other op's
  elements, or so little work in all that dispatch decides, ``SMALL_WORK``) goes
  native, where each product is one BLAS gemm/gemv/syrk call into the library NumPy itself
  calls (``native/blas_library.py``; multithreaded, on the caller's buffers in place) and a
  call costs a few microseconds; XLA:CPU's own dot emitter is slower than OpenBLAS for
  float64, and each XLA call costs tens of microseconds of dispatch. Measured with
  benchmarks/products.py;
- a function that is one streaming pass of cheap elementwise work goes native
  (``streaming.single_pass``: memory-bound, and the native backend works in the caller's
  buffers where XLA copies arguments);
- whichever backend accepts, when only one does (XLA refuses run-time shapes; the native
  backend refuses ops it has no rule for).

The constants were set from ``benchmarks/corpus_ab.py backend --clock cpu`` on a loaded
2-core machine (CPU time: XLA's and OpenBLAS's threads counted, not their wall-clock
speed-up); on a quiet many-core machine XLA's threads favour it on large loop-free work.

``choose`` returns the name and a one-line reason that ``solvent.explain`` prints.
"""
from __future__ import annotations

from dataclasses import dataclass

from ..ir.core import Function, Operation
from ..ir.registry import get
from ..passes.patterns.products import is_gram
from .streaming import single_pass


@dataclass
class LoopWork:
    loops: int = 0
    scalar_ops: int = 0      # rank-0 results inside loops (element accesses included)
    element_accesses: int = 0
    array_ops: int = 0       # ops inside loops producing arrays (rank >= 1)
    scalar_bodies: int = 0   # loops whose own body (nested loops aside) is scalar work
    moving_windows: int = 0  # array slices/updates at a position that moves with the loop

    @property
    def scalar_loops(self) -> bool:
        """Some loop does scalar work on array elements in its own body: XLA would run it
        one While step (about 1 us) per iteration."""
        return self.scalar_bodies > 0

    @property
    def sequential_array_loops(self) -> bool:
        """Some loop reads or writes array rows/columns whose position follows the loop
        (A[k, :], C[i, :i+1]): XLA runs each step as a dynamic slice and update of the whole
        carried array; the native backend updates in place."""
        return self.moving_windows > 0


def loop_work(fn: Function) -> LoopWork:
    w = LoopWork()

    def body_counts(block) -> tuple[int, int, int]:
        """Work of one iteration of a loop whose body is ``block``; the branches of an ``if``
        in it are part of the iteration (nested loops are counted as loops of their own)."""
        scalar = access = array = 0
        for op in block.ops:
            record = get(op.name)
            if record.region_branch:
                for region in op.regions:
                    s, a, r = body_counts(region.block)
                    scalar, access, array = scalar + s, access + a, array + r
                continue
            if op.regions or record.terminator:
                continue
            if op.name in ("tensor.slice", "tensor.update_slice") and \
                    any(it[0] in "id" for it in op.attrs.get("spec", ())) and \
                    (op.results[0].type.rank if op.name == "tensor.slice"
                     else op.operands[1].type.rank):
                w.moving_windows += 1
            if op.results and all(r.type.rank == 0 for r in op.results):
                scalar += 1
                access += op.name == "tensor.slice"
            elif op.name == "tensor.update_slice" and op.operands[1].type.rank == 0:
                scalar += 1
                access += 1
            elif op.results:
                array += 1
        return scalar, access, array

    def visit(op: Operation) -> None:
        record = get(op.name)
        if record.loop_like:
            w.loops += 1
            for region in op.regions:
                scalar, access, array = body_counts(region.block)
                w.scalar_ops += scalar
                w.element_accesses += access
                w.array_ops += array
                if access and scalar >= 2 * array:
                    w.scalar_bodies += 1
        for region in op.regions:
            for inner in region.block.ops:
                visit(inner)

    for op in fn.body.ops:
        visit(op)
    return w


# products' multiply-adds per element of other work above which a function counts as
# dot-dominated (a product of n x n matrices does n multiply-adds per result element, so
# a product with a contraction of 64 or more outweighs the elementwise work around it: a
# BLAS multiply-add costs tens of times less than an element of exp, division or a copy)
DOT_SHARE = 64
# below this many multiply-adds and elements in all, a call is dominated by dispatch
# (XLA's ~15-30 us against the native backend's few us) and any product goes native
SMALL_WORK = 1 << 16
BLAS_DTYPES = ("f32", "f64", "c64", "c128")
# dtypes whose large matrix-matrix products run faster in XLA:CPU's own dot than in
# OpenBLAS: float32 (XLA / NumPy / native's SciPy sgemm, ms, alternating in one process on the
# 2-core host under load: gram_f32 128 / 288 / 331, attention_f32 31 / 317 / 324,
# normal_eq_f32 179 / 349 / 482); they count as products of another kind, so such a function
# stays on XLA. Only matrix-matrix products of at least XLA_FASTER_MADDS multiply-adds: XLA's
# float32 matrix-vector products ran at 0.02-0.36x NumPy's (n = 1024, 4096; 0.02x transposed),
# its 64^3 and 256^3 products at 0.08x and 0.6x, where the native backend's sgemv/sgemm ran
# at 0.7-1.0x (benchmarks/products.py, OPENBLAS_NUM_THREADS=1, quiet host); at 1024^3 XLA
# ran 1.9x, the native sgemm 1.0x. Nor a Gram product X^T X (or X X^T): the native backend
# calls ssyrk for it, half the multiply-adds of XLA's dot (gram_f32, normal_eq_f32 at 0.54x
# NumPy on XLA, CPU time with every side on one thread).
# Re-measured on 2026-11-27 (solvent.jit(a @ b) per backend, float32 n x n x n, min of 5,
# OPENBLAS_NUM_THREADS=1, loaded 2-core host; native / XLA / NumPy, ms CPU time then wall):
# 256: 0.63 / 1.60 / 0.49, 0.53 / 1.64 / 0.47; 512: 4.5 / 5.9 / 4.1, 8.6 / 9.8 / 8.0; 1024:
# 32.6 / 49.7 / 31.8, 64.6 / 92.0 / 62.3: the native sgemm wins up to 1024^3 by either clock
# (attention_f32, two 2^26 products: native 4.1 ms, XLA 6.7, NumPy 4.6); XLA's earlier 1.9x at
# 1024^3 was its two threads on a quiet host against a one-thread OpenBLAS.
# Re-measured at ef893a2 (CPU ms, OPENBLAS_NUM_THREADS=1, loaded 2-core host, min of 7, XLA /
# native A @ B in float32): 256x1024x256 3.1 / 1.8, 256x256x1024 2.0 / 1.8, 512^3 3.7 / 3.5,
# 512x1024x512 7.6 / 6.9, 1024x512x1024 14.5 / 13.3, 1024^3 39.4 / 30.9; attention_f32 in
# corpus_ab 4.4 / 3.5: XLA's dot is no longer faster at any size, so no dtype is listed
XLA_FASTER: tuple = ()
XLA_FASTER_MADDS = 1 << 26
# ops that move no data on the native backend (a transposed operand is a BLAS flag, a
# reshape of a contiguous buffer a new shape): not counted as work around the products
_VIEWS = ("tensor.transpose", "tensor.reshape")


@dataclass
class DotWork:
    products: int = 0        # dot_general ops whose dtype BLAS takes
    # of which batched matrix products, or batched along axes that are not the operands'
    # leading ones: native loop nests of their own (a row-wise multiply-sum, batched on
    # leading axes with no free axis, is a fused streaming loop natively and does not count)
    batched: int = 0
    other_products: int = 0  # dot_general ops of other dtypes (complex, integers)
    madds: int = 0           # multiply-adds of the BLAS-able products
    elements: int = 0        # result elements of every other op

    @property
    def dominated(self) -> bool:
        return self.products > 0 and not self.other_products and (
            self.madds >= DOT_SHARE * max(self.elements, 1)
            or self.madds + self.elements <= SMALL_WORK)


# a batched matrix product on leading batch axes whose every batch does at least this many
# multiply-adds is one BLAS gemm call per batch natively (rules_linalg._dot; smaller ones are
# an inline loop nest)
GEMM_MIN_MADDS = 512


def _loop_nest_batch(op) -> bool:
    """A batched dot_general the native backend runs as a loop nest slower than XLA's dot:
    batches along axes that are not leading (a column-wise multiply-sum walks memory across
    rows: axis_stats' column variances, XLA 40-46 ms, native 47-56), or a batched matrix
    product (free axes on both sides) too small per batch for a gemm call. A batched matrix
    product on leading axes is one gemm per batch: einsum('bik,bkj->bij') alone, CPU ms XLA /
    native, 8000 batches of 16x32x16: 19.8 / 14.5; 128 of 64^3: 6.9 / 4.6; 4 of 512x32x512:
    4.6 / 4.5 (attention: 12.5 / 9.2 with its softmax; batched_matmul's tanh stays on XLA for
    its short rows, ``_libm_call``)."""
    lb, rb = list(op.attrs["lhs_batch"]), list(op.attrs["rhs_batch"])
    if not lb:
        return False
    leading = lb == list(range(len(lb))) and rb == list(range(len(rb)))
    if not leading:
        return True
    free = [x.type.rank - len(op.attrs[f"{s}_batch"]) - len(op.attrs[f"{s}_contract"])
            for x, s in zip(op.operands, ("lhs", "rhs"))]
    if min(free) == 0:
        return False
    a, b = op.operands
    per_batch = _elements(op.results[0]) // max(1, _prod_dims(a.type, lb))
    for d in op.attrs["lhs_contract"]:
        per_batch *= a.type.shape[d] if isinstance(a.type.shape[d], int) else 1
    return per_batch < GEMM_MIN_MADDS


def _prod_dims(t, dims) -> int:
    n = 1
    for d in dims:
        n *= t.shape[d] if isinstance(t.shape[d], int) else 1
    return n


def dot_work(fn: Function, fused=frozenset()) -> DotWork:
    """Multiply-adds of matrix products against the elements every other op produces (a
    loop body counted once: the rule compares shares, not totals). Ops in ``fused`` are not
    counted: the native backend computes them inside their consumer's loop
    (``bufferize.Plan.fused``, as in ``step_work``), so they write nothing there; array_ops
    (one 500x1004x500 product among stacks, flips and triangles; 63.8 multiply-adds per
    element counting the add the native backend fuses, 68.1 without) ran natively in 18.9
    ms against XLA's 21.7 (corpus_ab.py backend --kernels array_ops --clock cpu --stat min
    --repeat 5, OpenBLAS and XLA on one thread, loaded 2-core host; auto 18.8, native)."""
    w = DotWork()
    for op in fn.walk():
        if get(op.name).terminator or op.regions or op.name in _VIEWS or op in fused or \
                _stacked_windows(op, fused):
            continue
        if op.name == "tensor.dot_general":
            a = op.operands[0].type
            out = op.results[0].type
            k = 1   # a run-time length (a ? dim) counts as 1: its size is unknown here
            for d in op.attrs["lhs_contract"]:
                k *= a.shape[d] if isinstance(a.shape[d], int) else 1
            n = 1
            for d in out.shape:
                n *= d if isinstance(d, int) else 1
            if a.dtype not in BLAS_DTYPES or (a.dtype in XLA_FASTER and _matrix_matrix(op)
                                              and not is_gram(op) and n * k >= XLA_FASTER_MADDS):
                w.other_products += 1
                continue
            w.products += 1
            w.batched += _loop_nest_batch(op)
            w.madds += n * k
        else:
            for r in op.results:
                shape = getattr(r.type, "shape", ())
                n = 1
                for d in shape:
                    n *= d if isinstance(d, int) else 1
                w.elements += n
    return w


def _stacked_windows(op, fused) -> bool:
    """A concatenation read only by matrix products whose every operand the native backend
    reads in place (``fused``: windows of stored arrays, raised conv1d's im2col stack): the
    operand copy of a GEMM that XLA makes as well, not work on the native side's account
    (conv1d_loops at n = 20000, CPU ms: native 9.0-9.8, XLA 12.6-18.5)."""
    return op.name == "tensor.concatenate" and bool(fused) and \
        all(isinstance(o.owner, Operation) and o.owner in fused for o in op.operands) and \
        all(u.name == "tensor.dot_general" for u, _ in op.results[0].live_uses())


def _matrix_matrix(op: Operation) -> bool:
    """Both operands of the product keep a free dim longer than 1 (not a matrix-vector or
    vector-vector product)."""
    free = []
    for v, batch, contract in zip(op.operands, ("lhs_batch", "rhs_batch"),
                                  ("lhs_contract", "rhs_contract")):
        used = set(op.attrs[batch]) | set(op.attrs[contract])
        free.append(any(d != 1 for i, d in enumerate(v.type.shape) if i not in used))
    return all(free)


# data movement that XLA folds into its fused loops' indexing and the native backend runs
# as a copy of its own (a transpose feeding only matrix products is a BLAS flag instead)
_MOVES = ("tensor.concatenate", "tensor.transpose", "tensor.reverse", "tensor.gather",
          "tensor.pad")
# a loop-free program goes native while its C-math-library elements (weighted LIBM_COST: a
# libm call per element natively, a vectorized polynomial on XLA) and its copies (_MOVES)
# stay under this share of its other elements
XLA_SHARE = 0.25
LIBM_COST = 4
# a C-math result that a run-time check also tests per element (isnan(sin(x)) for math's
# domain error, isinf(exp(x)) for its range error; a loop of math.* calls raised whole)
# weighs half as much against native: XLA then runs the call's fusion and the check's
# reduction apart, and that costs it more than the call itself (measured: the Gaussian
# centroid of mgrid_gaussian with an isinf(exp(z)) check reduced by np.any, XLA 17 -> 59-62
# ms, native 26 -> 32; arc_distance_loops, six checked calls: XLA 120 ms, native 74)
CHECKED_LIBM_COST = 2
_CHECKS = ("tensor.isnan", "tensor.isinf", "tensor.isfinite")
# a check decided from the argument (frontend/npapi_pymath.py: sqrt's x < 0, exp's x >
# log(DBL_MAX), asin's |x| > 1): the argument compared with a constant beside the call
_ARGUMENT_CHECKS = ("tensor.lt", "tensor.gt", "tensor.le", "tensor.ge", "tensor.eq",
                    "tensor.abs", "tensor.isinf")


def _checked(op) -> bool:
    """Whether a run-time check tests ``op``'s result, or its argument beside it."""
    if any(u.name in _CHECKS for u, _ in op.results[0].live_uses()):
        return True
    return bool(op.operands) and any(
        u is not op and u.name in _ARGUMENT_CHECKS and (
            u.name in ("tensor.abs", "tensor.isinf") or
            any(o.owner is not None and getattr(o.owner, "name", "") == "tensor.constant"
                for o in u.operands))
        for u, _ in op.operands[0].live_uses())
# a loop whose array ops produce at most this many elements per iteration goes native
# (see ``step_work``)
STEP_WORK = 4_000_000


def _elements(v) -> int:
    n = 1
    for d in getattr(v.type, "shape", ()):
        n *= d if isinstance(d, int) else 1
    return n


# a C math function with a vector variant runs at scalar speed natively when the innermost
# axis of its result is shorter than this: the loop nest's inner loop is too short for
# LLVM's vector loop, and every element goes through its scalar remainder (np.tanh of 2M
# float64, CPU ms XLA / native by last axis: 8: 7.4 / 55.6, 16: 7.4 / 56.7, 40: 6.0 / 40.7,
# 64: 7.2 / 9.6, 128: 6.9 / 9.2; the same for sin, sinh)
VECTOR_MATH_MIN_ROW = 64


def _short_rows(v) -> bool:
    shape = getattr(v.type, "shape", ())
    return len(shape) >= 2 and isinstance(shape[-1], int) and shape[-1] < VECTOR_MATH_MIN_ROW


def _libm_call(op) -> bool:
    """Whether ``op`` is one scalar C math call per element natively (a function with a
    vector variant in the C library is vectorized instead, engine.vector_math, unless its
    rows are short: ``VECTOR_MATH_MIN_ROW``; a complex one never is)."""
    from .native.rules_complex import C_LIBRARY
    from .native.scalar_math import LIBM_CALLS, POW_ARITHMETIC, scalar_libm_calls
    short = op.name.rpartition(".")[2]
    dtype = getattr(op.results[0].type, "dtype", "") if op.results else ""
    if dtype.startswith("c"):
        # complex exp, log, sqrt, sin...: the C library's cexp... per element natively (its
        # bits are NumPy's), never vectorized (dft's two exp of 600 x 600 complex values:
        # native 10.0 ms against XLA's 7.5 each, loaded host; the whole kernel quiet,
        # native 31.8-46.8 ms against XLA's 21.4)
        return short in C_LIBRARY
    if not dtype.startswith("f"):
        return False
    if short not in scalar_libm_calls() and not (short in LIBM_CALLS
                                                 and _short_rows(op.results[0])):
        return False
    if short == "pow":   # x ** 2 is x * x once LLVM sees the constant (converted or not)
        e = op.operands[1].owner
        while e is not None and e.name == "tensor.convert":
            e = e.operands[0].owner
        return not (e is not None and e.name == "tensor.constant"
                    and e.attrs.get("value") in POW_ARITHMETIC)
    return True


@dataclass
class ArrayWork:
    """Result elements of a loop-free program's array ops, by how each backend runs them."""
    plain: int = 0   # elementwise arithmetic, comparisons, reductions, slices...
    libm: int = 0    # elements computed by a C math library call natively (exp, sin, pow...)
    checked: int = 0  # of which checked per element (a math domain or range error)
    moves: int = 0   # elements copied by concatenate/transpose/reverse/gather/pad
    checks: int = 0  # of plain, elements that only decide a run-time error (index checks)

    @property
    def only_moves(self) -> bool:
        """Nothing but data movement (a transpose, concatenation or gather copied out, no
        element work for XLA to fuse it into): natively one copy that reads NumPy's buffers
        in place, on XLA a boundary copy of each unaligned argument and then the move.
        benchmarks/ops_vs_numpy.py, n = 1e5 / 1e7, CPU time, NumPy time / solvent time,
        XLA -> native: m.T.copy() 0.27 / 0.62 -> 1.76 / 1.03, np.concatenate 0.12 / 0.21 ->
        1.03 / 0.90, x[idx] 0.15 / 0.76 -> 0.62 / 0.84, m.T.reshape(-1) 0.31 / 0.49 ->
        0.72 / 0.93. The checks of a gather's indices (compares read only by the error
        result) are not element work XLA could fuse the move into: x[idx] alone counts as
        data movement too."""
        return self.moves > 0 and self.plain == self.checks and self.libm == 0

    @property
    def native_friendly(self) -> bool:
        libm = LIBM_COST * (self.libm - self.checked) + CHECKED_LIBM_COST * self.checked
        return libm + self.moves < XLA_SHARE * max(self.plain, 1) or self.only_moves


def _data_ops(fn: Function) -> set | None:
    """The ops that the function's results other than its error code and payload (returned
    last where ``fn.errors``) depend on; None without errors (every op)."""
    ret = fn.body.terminator
    if not fn.errors or len(ret.operands) < 2:
        return None
    seen: set = set()
    todo = [v for v in ret.operands[:-2]]
    while todo:
        op = todo.pop().owner
        if not isinstance(op, Operation) or op in seen:
            continue
        seen.add(op)
        for inner in op.walk():
            todo.extend(inner.operands)
    return seen


def array_work(fn: Function) -> ArrayWork:
    """Values computed from constants alone (np.pad's zero rows: a broadcast and a
    conversion of 0) are not counted: they are fills, not work XLA fuses a move into; np.pad
    of 1e5 float64 then goes native, 2.03x NumPy against XLA's 0.11x (ops_vs_numpy.py --ops
    pad, CPU time, one thread)."""
    w = ArrayWork()
    data = _data_ops(fn)
    constant: set = set()
    for op in fn.walk():
        if op.name == "tensor.constant" or op.results and not op.regions and op.operands and \
                all(isinstance(o.owner, Operation) and o.owner in constant
                    for o in op.operands):
            constant.add(op)
            continue
        if get(op.name).terminator or op.regions or not op.results or \
                op.name in ("tensor.reshape", "tensor.constant"):
            continue
        n = sum(_elements(r) for r in op.results)
        if n <= 1:
            continue
        if _libm_call(op):
            w.libm += n
            w.checked += n if _checked(op) else 0
        elif op.name in _MOVES and not (op.name == "tensor.transpose" and all(
                u.name == "tensor.dot_general" for u, _ in op.results[0].live_uses()) and
                op.results[0].live_uses()):
            w.moves += n
        else:
            w.plain += n
            w.checks += n if data is not None and op.parent is fn.body and \
                op not in data else 0
    return w


def _gather_into_product(op) -> bool:
    """A gather read only by matrix products: XLA materializes it too (its dot does not
    fuse an operand's indexing), and the native backend's gather loop is no slower than
    XLA's, so it counts as work, not data movement. An ELLPACK product in a power
    iteration (np.sum(vals * x[cols], axis=1), raised to a batched dot_general), CPU ms XLA /
    native at 1000, 20000, 100000, 400000 rows of 8: 0.47 / 0.14, 9.0 / 3.0, 38 / 29,
    239 / 217. A gather feeding elementwise work stays a move: XLA computes it inside that
    work's loop (x = 0.5 * (x + x[idx]) at 10^6: XLA 134 ms, native 187)."""
    uses = op.results[0].live_uses() if op.name == "tensor.gather" else ()
    return bool(uses) and all(u.name == "tensor.dot_general" for u, _ in uses)


@dataclass
class StepWork:
    elements: int = 0   # result elements of the array ops of one iteration
    moves: int = 0      # of which data movement (_MOVES: gathers, transposes...)
    rank: int = 0       # the highest rank of those results

    @property
    def native_friendly(self) -> bool:
        return (self.elements <= STEP_WORK or self.rank <= 1) and \
            self.moves < XLA_SHARE * max(self.elements, 1)


def step_work(fn: Function, fused=frozenset()) -> StepWork:
    """The array work of one iteration of the loop that does the most (ops of nested loops
    count with their own loop; the branches of an ``if`` with the iteration). Ops in
    ``fused`` are not counted: the native backend computes them inside their consumer's
    loop (``bufferize.Plan.fused``), so they write nothing; what is left is the passes over
    memory it makes."""
    def body(block, w: StepWork) -> StepWork:
        for op in block.ops:
            if get(op.name).region_branch:
                for r in op.regions:
                    body(r.block, w)
            elif op.results and not op.regions and not get(op.name).terminator and \
                    op not in fused and op.name not in ("tensor.reshape", "tensor.constant"):
                n = sum(_elements(r) for r in op.results if r.type.rank)
                w.elements += n
                w.moves += n if op.name in _MOVES and not _gather_into_product(op) else 0
                w.rank = max([w.rank] + [r.type.rank for r in op.results])
        return w
    best = StepWork()
    for op in fn.walk():
        if get(op.name).loop_like:
            for r in op.regions:
                w = body(r.block, StepWork())
                best = w if w.elements > best.elements else best
    return best


def choose(fn: Function, accepted: dict[str, str], refused: dict[str, str]) -> tuple[str, str]:
    """Pick among the backends that accepted ``fn`` (name -> their reason), in the order
    given; ``refused`` (name -> reason) is quoted in the explanation."""
    if not accepted:
        raise ValueError("no backend accepted the function")
    names = list(accepted)
    if len(names) == 1:
        (only,) = names
        why = "; ".join(f"{n} refuses it: {r}" for n, r in refused.items())
        return only, f"{only}: the only backend that accepts it" + (f" ({why})" if why else "")
    w = loop_work(fn)
    if "native" in accepted and w.scalar_loops:
        return "native", (f"native: its loops do scalar work ({w.scalar_ops} scalar ops, "
                          f"{w.element_accesses} element accesses, {w.array_ops} array ops in "
                          f"{w.loops} loop(s)); XLA would pay ~1 us per iteration")
    if "native" in accepted and w.sequential_array_loops:
        return "native", (f"native: {w.moving_windows} array slice(s) or update(s) move with "
                          "a loop index (rows, columns, triangles): updated in place natively, "
                          "a dynamic slice and copy per step on XLA")
    d = dot_work(fn)
    if "native" in accepted and d.products and not d.dominated:
        from .native.bufferize import Plan
        d = dot_work(fn, Plan(fn).fused)
    if "native" in accepted:
        if d.dominated:
            return "native", (f"native: {d.products} matrix product(s) do {d.madds} "
                              f"multiply-adds against {d.elements} elements of other work; "
                              "each product is one BLAS call (the library NumPy's "
                              "matmul calls, where found)")
    if "native" in accepted:
        streams, elements = single_pass(fn)
        if streams:
            return "native", (f"native: one streaming pass ({elements} elements of cheap "
                              "elementwise work, no loops or products): read and written in "
                              "the caller's arrays in place, where XLA copies unaligned and "
                              "written arguments (backends/streaming.py)")
    # a product XLA does better (large float32) or BLAS cannot (integers) keeps the
    # element-work rules below from sending the program native
    # (nor a batched product native runs as a loop nest of its own: _loop_nest_batch)
    if "native" in accepted and not w.loops and not d.other_products and not d.batched:
        a = array_work(fn)
        if a.only_moves:
            return "native", (f"native: a loop-free program of data movement only ({a.moves} "
                              "elements copied by transposes, concatenations or gathers): one "
                              "native copy from NumPy's arrays in place, where XLA first "
                              "copies each argument that is not 64-byte aligned")
        if a.native_friendly:
            return "native", (f"native: a loop-free program of plain element work ({a.plain} "
                              f"elements; {a.libm} by C math library calls ({a.checked} of "
                              f"them checked per element), {a.moves} copied "
                              "by data movement): native fused loops read NumPy's arrays in "
                              "place, XLA first copies each one that is not 64-byte aligned")
    if "native" in accepted and w.loops and not d.other_products:
        from .native.bufferize import Plan
        step = step_work(fn, Plan(fn).fused)
        if step.native_friendly:
            if step.elements > STEP_WORK:
                return "native", (f"native: its loops' iterations work on 1-D arrays only "
                                  f"({step.elements} elements, {step.moves} moved): fused "
                                  "1-D loops natively, as fast as XLA's, without a While step")
            return "native", (f"native: its loops' iterations write at most {step.elements} "
                              f"array elements natively ({step.moves} moved; values computed "
                              f"inside their consumer's loop not counted), at most {STEP_WORK}: "
                              "an XLA While step costs more than that work natively")
    if "xla" in accepted:
        what = ("no loops" if not w.loops else
                f"{w.array_ops} array ops and {w.scalar_ops} scalar ops in {w.loops} loop(s)")
        return "xla", f"xla: a tensor program ({what}) that XLA fuses and vectorizes"
    return names[0], f"{names[0]}: {accepted[names[0]]}"
