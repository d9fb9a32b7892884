"""The coverage document: what solvent compiles, generated from the frontend's own tables.

Every row comes from a table the translator dispatches on, so the document cannot drift
from the code: NumPy/SciPy/``math``/builtin functions from ``npapi_creation.FUNCTIONS``
(the handler's parameters are the arguments it accepts; its docstring's first sentence, when
it has one, states a limit), the NumPy-style prelude (``npapi_prelude.PRELUDE``), refusals
(``npapi_math.REFUSED``), ufuncs from the elementwise op tables (``ops/elementwise.py``: the
dtype kinds each accepts), ufunc methods, array methods and attributes
(``npapi_methods``). ``solvent coverage`` prints it; ``docs/COVERAGE.md`` is its output,
and ``tests/test_coverage_doc.py`` fails when the two differ.
"""
from __future__ import annotations

import inspect

import numpy as np

from .frontend import npapi_creation as cr
from .frontend import npapi_decompositions  # noqa: F401  (registers its handlers)
from .frontend import npapi_math as nm
from .frontend import npapi_methods as nmeth
from .frontend.emit import UFUNC_OP
from .frontend.expressions import MATH_UFUNC
from .frontend.npapi_prelude import PRELUDE
from .ops.elementwise import BINARY, UNARY

_KINDS = {"b": "bool", "i": "int", "f": "float", "c": "complex"}
_MODULE_PREFIX = {"numpy": "np", "numpy.linalg": "np.linalg", "numpy.fft": "np.fft",
                  "builtins": "", "math": "math"}


def _qualname(fn) -> str:
    if type(fn).__name__ == "fortran":  # an f2py wrapper: SciPy's LAPACK (<fortran dgtsv>)
        return "scipy.linalg.lapack." + repr(fn).split()[-1].rstrip(">")
    module = getattr(fn, "__module__", None) or "numpy"
    if isinstance(fn, np.ufunc) and getattr(np, fn.__name__, None) is not fn:
        module = "scipy.special"   # a ufunc of SciPy's (they carry no __module__)
    if module.startswith("scipy.linalg"):
        prefix = "scipy.linalg"
    else:
        prefix = _MODULE_PREFIX.get(module, module)
    name = getattr(fn, "__name__", str(fn))
    return f"{prefix}.{name}" if prefix else name


def _params(handler, skip_first: int) -> str:
    try:
        sig = inspect.signature(handler)
    except (TypeError, ValueError):
        return ""
    ps = list(sig.parameters.values())[skip_first:]
    out = []
    for p in ps:
        if p.kind is p.VAR_POSITIONAL:
            out.append(f"*{p.name}")
        elif p.kind is p.VAR_KEYWORD:
            continue  # a catch-all (lambdas forwarding): not a promise
        elif p.default is inspect.Parameter.empty:
            out.append(p.name)
        else:
            out.append(f"{p.name}=")
    return ", ".join(out)


def _first_sentence(doc: str | None) -> str:
    if not doc:
        return ""
    text = " ".join(doc.strip().split())
    end = text.find(". ")
    return (text if end < 0 else text[:end + 1]).replace("|", "\\|")


def _function_rows():
    rows = []
    for fn, handler in cr.FUNCTIONS.items():
        if fn in nm.REFUSED or fn in MATH_UFUNC:
            continue
        rows.append((_qualname(fn), "lowered", _params(handler, 1),
                     _first_sentence(handler.__doc__)))
    for fn, impl in PRELUDE.items():
        rows.append((_qualname(fn), "prelude (NumPy-style source, inlined)",
                     _params(impl, 0), _first_sentence(impl.__doc__)))
    return sorted(rows, key=lambda r: (r[0].split(".")[0] != "np", r[0]))


def _ufunc_rows():
    kinds = {}
    for table in (UNARY, BINARY):
        for name, (fn, _jax, k, _rule) in table.items():
            kinds[fn] = ", ".join(_KINDS[c] for c in k)
    rows = []
    for fn in UFUNC_OP:
        if not isinstance(fn, np.ufunc):   # np.real/imag/angle: functions, listed as such
            continue
        rows.append((f"np.{fn.__name__}", kinds.get(fn, "every dtype (identity)")))
    for mf, uf in MATH_UFUNC.items():
        rows.append((f"math.{mf.__name__}", f"as np.{uf.__name__}, Python float result"))
    return sorted(rows)


# What each statement / expression the translator dispatches on (``stmt_X`` / ``expr_X``)
# covers; ``_python_rows`` refuses to generate the document if the two sets differ.
SYNTAX = {
    "stmt_Assign": "`x = ...`, tuple unpacking (a starred target `n, *rest = A.shape` takes a "
                   "list), `x[...] = v` (elements, slices with "
                   "broadcasting, integer-array and boolean-mask stores; `a[mask] = values` "
                   "with an array of values for a mask of any rank, in C order, on the native "
                   "backend and the interpreter), chained targets",
    "stmt_AugAssign": "`x += v` and friends, in place on arrays as in NumPy",
    "stmt_AnnAssign": "`x: float = v`",
    "stmt_Expr": "calls for their effect (`np.add.at(...)`, `x.sort()`), docstrings",
    "stmt_Pass": "`pass`",
    "stmt_If": "`if`/`elif`/`else`; a name assigned on one path only must be dead after "
               "it (read-before-write liveness)",
    "stmt_For": "`for` over `range`, `reversed(range(...))` with a literal step (a "
                "counting-down range), over arrays (rows are views) and `reversed(x)`, "
                "`enumerate`, `zip`, `zip(*S)` (`zip(*np.nonzero(m))`), "
                "tuples (unrolled); `for`-`else` (the clause runs when no break of the "
                "loop was taken)",
    "stmt_While": "`while`, `while`-`else`",
    "stmt_Break": "`break` (the rest of the iteration runs under a flag)",
    "stmt_Continue": "`continue`",
    "stmt_Return": "`return` of values, tuples and dicts, also under run-time conditions and "
                   "inside loops (a break out of each, desugar.py); every path returns the "
                   "same kind of value",
    "stmt_Assert": ("`assert` on run-time values raises `AssertionError` with the line; the "
                    "message a string, one run-time integer or an f-string with one integer "
                    "field"),
    "stmt_Raise": "`raise ValueError(\"...\")` and the other built-in exceptions the runtime "
                  "knows (ValueError, IndexError, TypeError, RuntimeError, ArithmeticError, "
                  "ZeroDivisionError, OverflowError, FloatingPointError, LookupError, "
                  "KeyError, NotImplementedError, AssertionError, Exception, "
                  "np.linalg.LinAlgError): raised with the line where the statement is "
                  "reached (a while loop ends there); the message a string, or an f-string "
                  "with one integer field",
    "stmt_Delete": "`del name`",
    "stmt_FunctionDef": "functions defined inside the kernel, inlined where called",
    "stmt_Import": "`import numpy as np` inside the kernel",
    "stmt_ImportFrom": "`from math import sqrt` inside the kernel",
    "expr_Attribute": "module attributes (np.pi), array attributes and methods",
    "expr_BinOp": "arithmetic with NumPy broadcasting and promotion, `@`; tuple `+` and `*`",
    "expr_BoolOp": "`and` / `or` (on Python values as Python does)",
    "expr_Call": "the functions below, plain Python helpers (inlined), lambdas and "
                 "functions passed as arguments, `functools.partial` objects and "
                 "`@functools.cache`/`lru_cache` helpers (inlined), `np.vectorize` objects "
                 "(the function once per element; not with `signature=`/`excluded=`)",
    "expr_Compare": "comparisons, chained on scalars (`0 < x < 1`); `a.shape == b.shape` "
                    "is a Python bool",
    "expr_Constant": "numbers, strings, `None`",
    "expr_Dict": "dict literals with keys written in the code (`**d` of such a dict too), "
                 "`dict(a=x)`, `dict(d, k=v)` and namedtuple classes called: read by key, "
                 "`.get`, `.items()`, `in`, `len`, `f(**d)`; built on both paths of an `if` "
                 "with the same keys; returned as a dict or namedtuple; `d[k] = v` and "
                 "`d[k] += v` with keys written in the code, except inside a loop around "
                 "the dict or while another name holds it (refused with the line)",
    "expr_IfExp": "`a if c else b`",
    "expr_NamedExpr": "`(n := expr)`",
    "expr_Lambda": "small `lambda`s, inlined at the call",
    "expr_JoinedStr": "f-strings: constant ones anywhere; with run-time fields (format specs "
                      "known at compile time) as arguments of `print`, which prints in program "
                      "order on every backend",
    "expr_List": "list literals (as tuples / array arguments); `append` on a list grows "
                 "it: straight-line, or in a `for` loop over `range` with a trip count known "
                 "at compile time (then the list is an array of its items; appended under a "
                 "condition or before a break, its length is known only at run time: native "
                 "and the interpreter), used as NumPy and Python use lists: `np.array(L)`, "
                 "`len`, indexing, iteration, `sum`/`max`/`min`, returned as a list; list "
                 "arithmetic, printing and growth in while loops or nested loops are refused; "
                 "`L[i] = v` on a list of numbers (`counts = [0] * n; counts[k] += 1`) makes "
                 "it a buffer of its items (a store Python would keep as another type is "
                 "refused); `[x] * n` with `n` an integer argument repeats, `+` concatenates, "
                 "`==` between lists is Python's one bool",
    "expr_ListComp": "list comprehensions with `for` clauses over ranges, tuples, lists, "
                     "arrays, `enumerate` or `zip` of known length, nested as Python nests "
                     "them (unrolled, at most 256 items; "
                     "`if` clauses known at compile time)",
    "expr_GeneratorExp": "generator expressions as list comprehensions, for `sum`, `max`, "
                         "`min`, `any`, `all`, `tuple`, `list`, `np.array`",
    "expr_Name": "names: arguments, locals, module globals and closure variables (numbers and functions read at compile time, arrays passed on every call)",
    "expr_Slice": "slices: negative, open, stepped, `None` stops, run-time bounds "
                  "(a run-time length: native backend)",
    "expr_Subscript": "indexing with integers, slices, `None`, `...`, integer arrays "
                      "(gathers), boolean masks (a run-time length: native backend); "
                      "values of run-time length too, read and written (native backend)",
    "expr_Tuple": "tuple literals",
    "expr_UnaryOp": "`-x`, `+x`, `~x`, `not x`",
}


def _python_rows():
    from .frontend.statements import _HINTS
    from .frontend.translator import Translator
    handled = sorted(n for n in dir(Translator) if n.startswith(("stmt_", "expr_")))
    if sorted(SYNTAX) != handled:
        raise RuntimeError(f"coverage.SYNTAX is stale: the translator handles {handled}")
    rows = [(n.split("_", 1)[1], what) for n, what in SYNTAX.items()]
    refused = [(k, hint) for k, hint in sorted(_HINTS.items()) if "stmt_" + k not in SYNTAX]
    return rows, refused


def generate() -> str:
    fns = _function_rows()
    ufs = _ufunc_rows()
    py, py_refused = _python_rows()
    lines = [
        "# What solvent compiles",
        "",
        "Generated by `solvent coverage` from the frontend's tables (solvent/coverage.py);",
        "do not edit by hand. A test fails when this file and the code disagree.",
        "",
        "## Python",
        "",
        "Statements and expressions the translator handles (one row per node type it "
        "dispatches on); any other raises `UnsupportedError` naming the line.",
        "",
        "| node | what |", "|---|---|",
    ]
    lines += [f"| `{n}` | {what} |" for n, what in py]
    lines += ["", "Refused, with what to do instead: " + "; ".join(
        f"`{k}` ({hint})" for k, hint in py_refused) + ".", ""]
    lines += [
        f"{len(fns)} functions, {len(ufs)} ufuncs, {len(nmeth.METHOD_FUNCTIONS) + len(nmeth.OWN_METHODS)}"
        f" array methods, {len(nmeth.ATTRIBUTES)} array attributes; {len(nm.REFUSED)} functions "
        "refused with a reason.",
        "",
        "## Functions",
        "",
        "`lowered`: translated to IR ops directly; `prelude`: an implementation written in the",
        "NumPy style solvent compiles (solvent/frontend/npapi_prelude.py), inlined at the call.",
        "Arguments are the parameters the translation takes (`name=`: optional); any other",
        "argument is refused with `UnsupportedError` naming the line.",
        "",
        "| function | how | arguments | note |",
        "|---|---|---|---|",
    ]
    lines += [f"| `{n}` | {how} | {args} | {note} |" for n, how, args, note in fns]
    lines += ["", "## Ufuncs (elementwise, with NumPy broadcasting and type promotion)", "",
              "Operators map to these (`+` is np.add, `<` np.less...). A ufunc also takes "
              "`out=` (an array variable).", "",
              "| ufunc | dtypes |", "|---|---|"]
    lines += [f"| `{n}` | {k} |" for n, k in ufs]
    lines += ["", "## Ufunc methods", "",
              "- `outer`: every ufunc above",
              "- `reduce`: " + ", ".join(f"`np.{u.__name__}`" for u in nm.UFUNC_REDUCE),
              "- `accumulate`: " + ", ".join(f"`np.{u.__name__}`" for u in nm.UFUNC_ACCUMULATE),
              "- `at`: " + ", ".join(f"`np.{u.__name__}`" for u in nm.UFUNC_AT),
              "", "## Array methods and attributes", "",
              "| method | meaning |", "|---|---|"]
    meth = [(f".{m}()", f"as `{_qualname(f)}(x, ...)`")
            for m, f in nmeth.METHOD_FUNCTIONS.items()]
    meth += [(f".{m}()", what) for m, what in nmeth.OWN_METHODS.items()]
    lines += [f"| `{m}` | {w} |" for m, w in sorted(meth)]
    lines += ["", "Attributes: " + ", ".join(f"`.{a}`" for a in nmeth.ATTRIBUTES) + ".",
              "", "## Refused, with a reason", "",
              "| function | why | instead |", "|---|---|---|"]
    lines += [f"| `{_qualname(f)}` | {why} | {hint} |"
              for f, (why, hint) in sorted(nm.REFUSED.items(), key=lambda kv: kv[0].__name__)]
    if not nm.REFUSED:
        lines[-2:] = ["No NumPy function is refused outright today."]
    lines += ["", "`np.random.*` inside a compiled function is refused: draw the numbers "
              "before the call and pass them in.", ""]
    return "\n".join(lines)


def count_numpy_functions(text: str) -> int:
    """How many distinct ``np.``/``scipy.`` names the document lists (functions + ufuncs)."""
    import re
    return len(set(re.findall(r"`((?:np|scipy)\.[\w.]+)`", text)))


if __name__ == "__main__":  # pragma: no cover
    print(generate())
