"""Run a generated program under NumPy (the oracle) and solvent on each backend; classify.

Outcomes per program: ``accepted`` (every backend agrees with NumPy), ``refused`` (some
backend raised ``UnsupportedError``, the rest agree), ``mismatch`` (a difference, or any other
exception). When NumPy itself raises, solvent must raise the same exception class (or refuse).
Comparison is tests/differential.py's ``check``.
"""
from __future__ import annotations

import copy
import dataclasses
import warnings

import numpy as np

import differential
import solvent
from solvent.errors import UnsupportedError

BACKENDS = ("xla", "interp")


@dataclasses.dataclass
class Outcome:
    status: str                       # accepted / refused / mismatch / invalid
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


def run_one(fn, args, backend, np_exc, loose=None):
    """'' if solvent agrees with NumPy on this backend, 'refused', or a mismatch class."""
    differential._JITS.pop((fn, backend), None)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if np_exc is not None:
                try:
                    with np.errstate(all="ignore"):
                        solvent.jit(fn, backend=backend)(*copy.deepcopy(args))
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
        return classify_assertion(str(e)), str(e)
    except Exception as e:                      # noqa: BLE001 - an internal error is a mismatch
        return f"crash-{type(e).__name__}", f"{type(e).__name__}: {e}"
    finally:
        differential._JITS.pop((fn, backend), None)
    return "", ""


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
    refused, bad, details = False, [], []
    loose = lowest_precision(args)
    for b in backends:
        cls, detail = run_one(fn, args, b, np_exc, loose)
        if cls == "refused":
            refused = True
        elif cls:
            bad.append((b, cls))
            details.append(f"[{b}] {detail}")
    if bad:
        return Outcome("mismatch", ";".join(f"{b}:{c}" for b, c in bad), "\n".join(details),
                       tuple(b for b, _ in bad))
    return Outcome("refused" if refused else "accepted")
