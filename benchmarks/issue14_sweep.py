#!/usr/bin/env python
"""Issue 14's items, each run the way a stranger calls it, on every backend and under
automatic choice, against plain NumPy running the same source.

Usage::

    PYTHONPATH=. python benchmarks/issue14_sweep.py [--items substring] [--backends xla,native,interp,auto]

For every item of ``benchmarks/issue14_items.py`` and every backend, each case (argument
set) runs through ``tests/differential.check`` (return values with types, dtypes and shapes,
in-place effects on the arguments, returned-argument identity). Where NumPy raises, solvent
must raise the same exception type. A cell reads

- ``ok``: every case agrees with NumPy;
- ``refused: <reason>``: solvent raised ``UnsupportedError`` (the first case's reason);
- ``WRONG: <what>``: a case gave another answer (a silent wrong answer: a bug);
- ``type: <what>``: the values agree, a scalar's type does not: Python's ``max``/``min``
  return whichever operand wins, so the type can depend on the data, which compiled code
  cannot follow (solvent returns the promoted type);
- ``error: <what>``: a case raised something NumPy does not.

The last column is the item's verdict: supported (every backend that may be chosen
automatically agrees, auto included), or refused with the reason auto gives. The script
exits non-zero when any cell is WRONG or error.
"""
from __future__ import annotations

import argparse
import os
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))
sys.path.insert(0, HERE)

import solvent  # noqa: E402
from differential import check, copy_keep_layout  # noqa: E402
from issue14_items import ITEMS  # noqa: E402


def run_case(fn, args, backend):
    """'ok', ('refused', why), ('WRONG', why) or ('error', why) for one case."""
    try:
        with np.errstate(all="ignore"):
            fn(*[copy_keep_layout(a) for a in args])
        numpy_raises = None
    except Exception as e:   # noqa: BLE001 - NumPy's own exception is the expected one
        numpy_raises = type(e)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if numpy_raises is None:
                check(fn, *args, backend=None if backend == "auto" else backend)
                return "ok", ""
            solvent.jit(fn, backend=None if backend == "auto" else backend)(
                *[copy_keep_layout(a) for a in args])
            return "WRONG", f"NumPy raises {numpy_raises.__name__}, solvent returned"
    except solvent.UnsupportedError as e:
        return "refused", " ".join(str(e).split())
    except AssertionError as e:
        if numpy_raises is AssertionError:
            return "ok", ""
        why = " ".join(str(e).split())[:300]
        return ("type" if same_values(fn, args, backend) else "WRONG"), why
    except Exception as e:   # noqa: BLE001
        if numpy_raises is not None and isinstance(e, numpy_raises):
            return "ok", ""
        return "error", f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"


def same_values(fn, args, backend):
    """Whether solvent's values equal NumPy's once types are set aside (a Python scalar
    whose type Python picks by the data, as ``min(1, np.int8(v))`` does)."""
    def flat(r):
        return [y for x in r for y in flat(x)] if isinstance(r, tuple) else [r]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exp = flat(fn(*[copy_keep_layout(a) for a in args]))
        got = flat(solvent.jit(fn, backend=None if backend == "auto" else backend)(
            *[copy_keep_layout(a) for a in args]))
    return len(exp) == len(got) and all(
        np.shape(g) == np.shape(e) and np.allclose(np.asarray(g, complex),
                                                   np.asarray(e, complex), equal_nan=True)
        for g, e in zip(got, exp))


def describe(args):
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            lay = "F" if a.flags.f_contiguous and not a.flags.c_contiguous else (
                "C" if a.flags.c_contiguous else "strided")
            out.append(f"{a.dtype}{list(a.shape)}{lay}")
        else:
            out.append(repr(a) if not callable(a) else getattr(a, "__name__", "fn"))
    return "(" + ", ".join(out) + ")"


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--items", default="", help="only items whose name contains this")
    p.add_argument("--backends", default="xla,native,interp,auto")
    p.add_argument("--verbose", action="store_true", help="print every failing case")
    opts = p.parse_args(argv)
    backends = opts.backends.split(",")
    bad = 0
    rows = []
    for bullet, item, fn, cases in ITEMS:
        if opts.items not in item:
            continue
        cells = {}
        for be in backends:
            results = [(run_case(fn, args, be), args) for args in cases]
            worst = next((r for r in results if r[0][0] in ("WRONG", "error")), None) or \
                next((r for r in results if r[0][0] == "refused"), None) or \
                next((r for r in results if r[0][0] == "type"), None)
            if worst is None:
                cells[be] = ("ok", "")
            else:
                (kind, why), args = worst
                n_bad = sum(1 for r in results if r[0][0] == kind)
                cells[be] = (kind, f"{why} [{n_bad}/{len(cases)} cases; first {describe(args)}]")
                bad += kind in ("WRONG", "error")
                if opts.verbose:
                    for (k, w), a in results:
                        if k != "ok":
                            print(f"  {item} [{be}] {describe(a)}: {k}: {w}")
        auto = cells.get("auto", ("ok", ""))
        verdict = {"ok": "supported", "type": "supported (scalar type: see cell)"}.get(
            auto[0], f"{auto[0]}: {auto[1]}")
        rows.append((bullet, item, cells, verdict))
        line = " | ".join(f"{be}: {k}" for be, (k, _) in cells.items())
        print(f"{bullet:22s} {item[:58]:58s} {line}", flush=True)
    print()
    print("| bullet | item | " + " | ".join(backends) + " | verdict |")
    print("|---|---|" + "---|" * len(backends) + "---|")
    for bullet, item, cells, verdict in rows:
        short = [k if k == "ok" else f"{k}: {w[:160]}" for k, w in
                 (cells[be] for be in backends)]
        print(f"| {bullet} | {item} | " + " | ".join(short) + f" | {verdict[:200]} |")
    n_ok = sum(1 for r in rows if r[3].startswith("supported"))
    print(f"\n{n_ok} of {len(rows)} items supported under automatic choice; "
          f"{bad} WRONG/error cells")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
