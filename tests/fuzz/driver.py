"""Run a generated program under NumPy (the oracle) and solvent on each backend; classify.

Outcomes per program: ``accepted`` (every backend agrees with NumPy), ``refused`` (some
backend raised ``UnsupportedError``, the rest agree), ``ill-conditioned`` (a backend differs
from NumPy by no more than NumPy's own result moves when the float inputs move by a few ulps),
``reciprocal-division`` (an XLA difference that disappears when XLA divides exactly: the
documented ``x / s`` -> ``x * (1/s)`` rewrite, see ``SOLVENT_XLA_EXACT_DIVISION``),
``signed-zero`` (solvent equals NumPy's answer with the other sign on the zeros that max/min
pick among equal zeros: ``np.max([0.0, -0.0])`` is ``-0.0`` or ``0.0`` depending on NumPy's
SIMD width, IEEE leaves it open, and ``1 / max`` makes it infinite),
``mismatch`` (a difference, or any other exception). When NumPy itself raises, solvent must
raise the same exception class (or refuse). Comparison is tests/differential.py's ``check``.

Why ``ill-conditioned`` exists: no two correct float implementations agree to the bit (XLA
rewrites ``x / broadcast(s)`` as ``x * (1/s)``, its ``exp``/``sin`` are not glibc's, reductions
sum in another order), and a generated program may amplify that ulp without bound: ``s %
(s / 3)`` is 0 or ``s / 3`` depending on one rounding, ``np.sin`` of a float32 sum of 1e7
magnifies its last bit. Such a program's answer is not determined by its float inputs to the
precision the comparison asks for, so the driver measures how far NumPy's own answer moves
under a few-ulp perturbation of every float input (``output_spreads``, output by output) and
compares each output within its own spread (an output that jumps, an integer that changes
or a NaN that appears, excuses only itself). A difference beyond it stays a mismatch; the count of ill-conditioned programs is
reported separately by benchmarks/fuzz.py, never folded into ``accepted``.
"""
from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import os
import textwrap
import types
import warnings

import numpy as np

import differential
import solvent
from solvent.errors import UnsupportedError
from solvent.ops.elementwise import EXACT_DIVISION_ENV

BACKENDS = ("xla", "native", "interp")


EXCUSES = ("reciprocal-division", "signed-zero", "ill-conditioned")


@dataclasses.dataclass
class Outcome:
    status: str     # accepted / refused / mismatch / invalid, or an excuse (EXCUSES)
    cls: str = ""                     # class of the mismatch (per backend, joined)
    detail: str = ""
    backends: tuple = ()              # backends that mismatch


def classify_assertion(msg: str) -> str:
    first = msg.splitlines()[0] if msg else ""   # array reprs below it name their dtype
    if "values differ" in first:
        return "in-place" if "after the call" in first else "value"
    for key, name in (("dtype", "dtype"), ("identity", "identity"),
                      ("after the call", "in-place"), ("shape", "shape"),
                      ("gives", "type")):
        if key in first:
            return name
    return "value"


def _leaves(value, out):
    """The values of a (possibly nested) result, as arrays, in a fixed order."""
    if isinstance(value, (tuple, list)):
        for v in value:
            _leaves(v, out)
    elif isinstance(value, (np.ndarray, np.generic, bool, int, float, complex)):
        out.append(np.asarray(value))
    return out


def _outputs(fn, args, call=None):
    """``call(*args)``'s result (``call`` defaults to ``fn``: NumPy) and every array argument
    after the call, as a list of arrays in a fixed order; None when the call raises."""
    args = tuple(differential.copy_keep_layout(a) for a in args)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                ret = (call or fn)(*args)
    except Exception:                           # noqa: BLE001 - a perturbation may raise
        return None
    return _leaves(ret, []) + [a for a in args if isinstance(a, np.ndarray)]


def _perturbed(args, rng, ulps):
    """Copies of ``args`` with every float (array element or Python/NumPy scalar) moved by up
    to ``ulps`` ulps in a random direction; other values unchanged."""
    out = []
    for a in args:
        if isinstance(a, np.ndarray) and a.dtype.kind in "fc":
            b = differential.copy_keep_layout(a)
            eps = np.finfo(a.dtype).eps
            b[...] = a * (1 + eps * ulps * rng.uniform(-1, 1, a.shape)).astype(a.dtype)
            out.append(b)
        elif isinstance(a, (float, np.floating)) and not isinstance(a, bool):
            eps = np.finfo(np.float64 if isinstance(a, float) else type(a)).eps
            out.append(type(a)(a * (1 + eps * ulps * rng.uniform(-1, 1))))
        else:
            out.append(differential.copy_keep_layout(a))
    return tuple(out)


def output_spreads(fn, args, trials=8, ulps=4, seed=0):
    """How far each of NumPy's outputs (the result's leaves, then every array argument after
    the call) moves when every float input moves by up to ``ulps`` ulps, over ``trials``
    perturbations: a list with one float per output, the largest absolute change of a
    float output, 0.0 for an integer/bool output that stays the same, and inf for an output
    that jumps (an integer/bool output changes, a NaN or infinity appears or disappears, its
    shape or dtype changes). All inf when NumPy starts raising or the outputs change in
    number; None when NumPy raises on the inputs themselves."""
    base = _outputs(fn, args)
    if base is None:
        return None
    rng = np.random.default_rng(seed)
    spread = [0.0] * len(base)
    for _ in range(trials):
        moved = _outputs(fn, _perturbed(args, rng, ulps))
        if moved is None or len(moved) != len(base):
            return [float("inf")] * len(base)
        for k, (b, m) in enumerate(zip(base, moved)):
            spread[k] = max(spread[k], _moved_by(b, m))
    return spread


def _moved_by(b, m):
    if b.shape != m.shape or b.dtype != m.dtype:
        return float("inf")
    if b.size == 0:
        return 0.0
    if b.dtype.kind not in "fc":
        return 0.0 if np.array_equal(b, m) else float("inf")
    fin = np.isfinite(b) & np.isfinite(m)
    if not np.array_equal(np.isnan(b), np.isnan(m)) or not np.array_equal(b[~fin], m[~fin]):
        return float("inf")
    return float(np.max(np.abs(b[fin] - m[fin]))) if fin.any() else 0.0


def numpy_spread(fn, args, trials=8, ulps=4, seed=0):
    """``output_spreads`` summed up: ``(atol, exact_unstable)``, the largest change of a float
    output (inf when one jumps) and whether an integer/bool output changed. ``(0.0, False)``
    for a program whose answer the float inputs determine to the last bit at this input."""
    spread = output_spreads(fn, args, trials, ulps, seed)
    if not spread:
        return 0.0, False
    base = _outputs(fn, args)
    exact = any(s and b.dtype.kind not in "fc" for s, b in zip(spread, base))
    floats = [s for s, b in zip(spread, base) if b.dtype.kind in "fc"]
    return max(floats, default=0.0), exact


def run_one(fn, args, backend, np_exc, loose=None):
    """'' if solvent agrees with NumPy on this backend, 'refused', 'ill-conditioned', or a
    mismatch class."""
    differential._JITS.pop((fn, backend), None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if np_exc is not None:
                try:
                    with np.errstate(all="ignore"):
                        solvent.jit(fn, backend=backend, passes=differential.PASSES)(
                            *copy.deepcopy(args))
                except UnsupportedError:
                    return "refused", ""
                except Exception as e:          # noqa: BLE001 - any class is compared
                    if isinstance(e, type(np_exc)):
                        return "", ""
                    return f"numpy-raises-{type(np_exc).__name__}-solvent-{type(e).__name__}", \
                        f"{type(e).__name__}: {e}"
                return f"numpy-raises-{type(np_exc).__name__}-solvent-returns", str(np_exc)
            try:
                differential.check(fn, *args, backend=backend)
            except AssertionError as e:
                if loose is None or classify_assertion(str(e)) not in ("value", "in-place"):
                    raise
                # float16/float32 intermediates (np.sin of int8 is float16) stored into or
                # combined with float64 carry their own rounding: compare at that precision
                tols = differential._tols
                differential._tols = lambda dt: tols(np.dtype(loose)) if dt.kind in "fc" \
                    else tols(dt)
                try:
                    differential.check(fn, *args, backend=backend)
                finally:
                    differential._tols = tols
    except UnsupportedError:
        return "refused", ""
    except AssertionError as e:
        cls = classify_assertion(str(e))
        if cls in ("value", "in-place"):
            if backend == "xla" and _agrees_with_exact_division(fn, args):
                return "reciprocal-division", str(e)
            if _agrees_with_other_zero_sign(fn, args, backend):
                return "signed-zero", str(e)
            if _within_numpy_spread(fn, args, backend):
                return "ill-conditioned", str(e)
        return cls, str(e)
    except Exception as e:                      # noqa: BLE001 - an internal error is a mismatch
        return f"crash-{type(e).__name__}", f"{type(e).__name__}: {e}"
    finally:
        differential._JITS.pop((fn, backend), None)
    return "", ""


def _agrees_with_exact_division(fn, args):
    """True when XLA agrees with NumPy once it divides exactly (SOLVENT_XLA_EXACT_DIVISION=1):
    the difference is the documented reciprocal rewrite, amplified by the program."""
    old = os.environ.get(EXACT_DIVISION_ENV)
    os.environ[EXACT_DIVISION_ENV] = "1"
    differential._JITS.pop((fn, "xla"), None)
    try:
        differential.check(fn, *args, backend="xla")
    except AssertionError:
        return False
    finally:
        differential._JITS.pop((fn, "xla"), None)
        if old is None:
            del os.environ[EXACT_DIVISION_ENV]
        else:
            os.environ[EXACT_DIVISION_ENV] = old
    return True


def _flip_zero(r):
    if isinstance(r, np.ndarray):
        return np.where(r == 0, -r, r) if r.dtype.kind in "fc" else r
    return -r if isinstance(r, (float, np.floating)) and r == 0 else r


class _ZeroFlippingNumPy:
    """``numpy`` with max/min/maximum/minimum returning the other sign on zero results."""
    FLIPPED = ("max", "min", "amax", "amin", "maximum", "minimum", "nanmax", "nanmin")

    def __getattr__(self, name):
        f = getattr(np, name)
        if name in self.FLIPPED:
            return lambda *a, **k: _flip_zero(f(*a, **k))
        return f


class _MethodsToFunctions(ast.NodeTransformer):
    """``x.max(...)`` / ``x.min(...)`` -> ``np.max(x, ...)`` / ``np.min(x, ...)`` (the same
    values), so that _ZeroFlippingNumPy sees the array methods too."""

    def visit_Call(self, node):
        self.generic_visit(node)
        f = node.func
        if isinstance(f, ast.Attribute) and f.attr in ("max", "min") and \
                not (isinstance(f.value, ast.Name) and f.value.id == "np"):
            return ast.copy_location(ast.Call(
                func=ast.Attribute(value=ast.Name(id="np", ctx=ast.Load()), attr=f.attr,
                                   ctx=ast.Load()),
                args=[f.value] + node.args, keywords=node.keywords), node)
        return node


def _methods_as_functions(fn):
    """``fn`` recompiled with _MethodsToFunctions, or ``fn`` when its source is unknown."""
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
    except (OSError, TypeError):
        return fn
    tree.body[0].decorator_list = []
    tree = ast.fix_missing_locations(_MethodsToFunctions().visit(tree))
    ns: dict = {}
    exec(compile(tree, inspect.getsourcefile(fn) or "<fuzz>", "exec"), fn.__globals__, ns)
    return ns[fn.__name__]


def _with_zero_flipping_numpy(fn):
    """``fn`` (and the helpers of its module) reading ``np`` as _ZeroFlippingNumPy, its
    ``.max()``/``.min()`` calls as ``np.max``/``np.min``."""
    fn = _methods_as_functions(fn)
    g = dict(fn.__globals__)
    g["np"] = _ZeroFlippingNumPy()
    for k, v in list(g.items()):
        if isinstance(v, types.FunctionType) and v.__globals__ is fn.__globals__:
            g[k] = types.FunctionType(v.__code__, g, v.__name__, v.__defaults__, v.__closure__)
    # the rewritten function itself (the module's global of that name is the original)
    return types.FunctionType(fn.__code__, g, fn.__name__, fn.__defaults__, fn.__closure__)


def _agrees_with_other_zero_sign(fn, args, backend):
    """True when the backend equals NumPy's answer computed with the other sign on the
    zeros max/min return (see the module docstring)."""
    flipped = _with_zero_flipping_numpy(fn)
    jit = differential.jitted
    differential.jitted = lambda f, b: jit(fn, b)     # solvent compiles the user's source
    try:
        differential.check(flipped, *args, backend=backend)
    except AssertionError:
        return False
    except Exception:                               # noqa: BLE001 - NumPy raised: no excuse
        return False
    finally:
        differential.jitted = jit
        differential._JITS.pop((fn, backend), None)
    return True


def _within_numpy_spread(fn, args, backend):
    """True when every output of the backend differs from NumPy's by no more than (twice)
    NumPy's own output moves under a few-ulp perturbation of the float inputs (see the
    module docstring). Output by output: an output that jumps in NumPy (inf spread) is
    excused, every other output must agree within its own spread, so one unstable integer
    output does not excuse a wrong float array beside it."""
    spread = output_spreads(fn, args)
    if not spread or not any(spread):
        return False
    exp = _outputs(fn, args)
    got = _outputs(fn, args, call=differential.jitted(fn, backend))
    differential._JITS.pop((fn, backend), None)
    if got is None or len(got) != len(exp):
        return False
    for s, g, e in zip(spread, got, exp):
        if s == float("inf"):
            continue
        if g.shape != e.shape or g.dtype != e.dtype:
            return False
        if e.dtype.kind not in "fc" or e.size == 0:
            if not np.array_equal(g, e):
                return False
            continue
        rtol, atol = differential._tols(e.dtype)
        if not np.allclose(g, e, rtol=rtol, atol=max(atol, 2 * s), equal_nan=True):
            return False
    return True


def numpy_exception(fn, args):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with np.errstate(all="ignore"):
                fn(*copy.deepcopy(args))
    except Exception as e:                      # noqa: BLE001
        return e
    return None


def lowest_precision(args):
    """The narrowest float dtype NumPy computes in for these arguments' dtypes (ufuncs of
    int8/uint8/bool give float16, of int16/float32 float32), or None for float64 only."""
    kinds = {a.dtype for a in args if isinstance(a, np.ndarray)}
    if kinds & {np.dtype(np.int8), np.dtype(np.uint8), np.dtype(np.bool_)}:
        return "float16"
    if kinds & {np.dtype(np.int16), np.dtype(np.float32)}:
        return "float32"
    return None


def run_program(prog, backends=BACKENDS) -> Outcome:
    try:
        fn = prog.load()
    except SyntaxError as e:
        return Outcome("invalid", "syntax", str(e))
    args = prog.make_args()
    np_exc = numpy_exception(fn, args)
    refused, excused, bad, details = False, None, [], []
    loose = lowest_precision(args)
    for b in backends:
        cls, detail = run_one(fn, args, b, np_exc, loose)
        if cls == "refused":
            refused = True
        elif cls in EXCUSES:
            excused = cls
            details.append(f"[{b}] {detail}")
        elif cls:
            bad.append((b, cls))
            details.append(f"[{b}] {detail}")
    if bad:
        return Outcome("mismatch", ";".join(f"{b}:{c}" for b, c in bad), "\n".join(details),
                       tuple(b for b, _ in bad))
    if excused:
        return Outcome(excused, "", "\n".join(details))
    return Outcome("refused" if refused else "accepted")
