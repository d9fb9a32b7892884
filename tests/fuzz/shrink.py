"""Reduce a mismatching program to a small reproducer and save it as a regression test.

Greedy, to a fixed point: drop statements (at any depth, blocks whole or their header lines
kept with fewer children), drop else branches, drop returned values, drop unused parameters,
shrink the shape sizes n and m, make arrays float64 and C-ordered, replace expressions inside a
statement by simpler leaves. A candidate is kept when the driver still reports a mismatch of the
same class on the same backends.
"""
from __future__ import annotations

import copy
import os
import re

import numpy as np

from driver import BACKENDS, run_program


def _same(prog, cls):
    try:
        o = run_program(prog)
    except Exception:               # noqa: BLE001 - a candidate that breaks the driver is not kept
        return False
    return o.status == "mismatch" and o.cls == cls


def _stmt_paths(stmts, prefix=()):
    for k, s in enumerate(stmts):
        yield prefix + (("b", k),)
        if s.body is not None:
            yield from _stmt_paths(s.body, prefix + (("b", k), ("body",)))
        if s.orelse is not None:
            yield from _stmt_paths(s.orelse, prefix + (("b", k), ("orelse",)))


def _container(prog, path):
    """The list holding the statement at ``path`` and its index."""
    lst = prog.body
    for step in path[:-1]:
        if step[0] == "b":
            cur = lst[step[1]]
        else:
            lst = getattr(cur, step[0])
    return lst, path[-1][1]


def _candidates(prog):
    # drop one statement
    for path in sorted(_stmt_paths(prog.body), key=len):
        c = copy.deepcopy(prog)
        lst, k = _container(c, path)
        s = lst.pop(k)
        if not _COUNTER.match(s.lines[0]):   # a while loop's counter keeps it bounded
            yield c
        # replace a block by its children (unwrap a loop / if)
        if s.body:
            c2 = copy.deepcopy(prog)
            lst2, k2 = _container(c2, path)
            blk = lst2.pop(k2)
            lst2[k2:k2] = blk.body
            yield c2
        if s.orelse is not None:
            c3 = copy.deepcopy(prog)
            lst3, k3 = _container(c3, path)
            lst3[k3].orelse = None
            yield c3
    for k in range(len(prog.returns)):
        c = copy.deepcopy(prog)
        del c.returns[k]
        yield c
    if prog.helpers:
        c = copy.deepcopy(prog)
        c.helpers = []
        yield c
    src = prog.render()
    for k, p in enumerate(prog.params):
        body_src = src.split(f"def {prog.name}(", 1)[1].split("\n", 1)[1]
        if not re.search(rf"\b{p.name}\b", body_src):
            c = copy.deepcopy(prog)
            del c.params[k]
            yield c
    for attr in ("n", "m"):
        for v in (0, 1, 2, 3):
            if v < getattr(prog, attr):
                c = copy.deepcopy(prog)
                setattr(c, attr, v)
                yield c
    for k, p in enumerate(prog.params):
        if p.what == "array":
            if p.layout != "C":
                c = copy.deepcopy(prog)
                c.params[k].layout = "C"
                yield c
            if p.dtype != "float64":
                c = copy.deepcopy(prog)
                c.params[k].dtype = "float64"
                yield c
    # simplify expressions: replace a parenthesized or call subexpression by an operand
    for path in _stmt_paths(prog.body):
        lst, k = _container(prog, path)
        for li, line in enumerate(lst[k].lines):
            for new in _simpler_lines(line):
                c = copy.deepcopy(prog)
                l2, k2 = _container(c, path)
                l2[k2].lines[li] = new
                yield c
    for ri, r in enumerate(prog.returns):
        for new in _simpler_exprs(r):
            c = copy.deepcopy(prog)
            c.returns[ri] = new
            yield c


_COUNTER = re.compile(r"^c\d+ \+= 1$")
_CALL = re.compile(r"np\.\w+\(")


def _simpler_exprs(e):
    """Expressions obtained by replacing one call or parenthesized group by a constant or an
    argument of it."""
    out = []
    for m in list(_CALL.finditer(e)) + [mm for mm in re.finditer(r"\(", e)]:
        start = m.start()
        depth, end = 0, None
        for j in range(m.end() - 1, len(e)):
            if e[j] == "(":
                depth += 1
            elif e[j] == ")":
                depth -= 1
                if depth == 0:
                    end = j
                    break
        if end is None:
            continue
        inner = e[m.end():end]
        args = _split_args(inner)
        for a in args[:2]:
            out.append(e[:start] + "(" + a + ")" + e[end + 1:])
        out.append(e[:start] + "1.0" + e[end + 1:])
    return [o for o in out if o != e][:12]


def _split_args(s):
    parts, depth, cur = [], 0, ""
    for ch in s:
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    parts.append(cur.strip())
    return [p for p in parts if p]


def _simpler_lines(line):
    m = re.match(r"^(.*?(?:\+=|-=|\*=|(?<![=!<>])=(?!=)))\s(.*)$", line)
    if not m or line.startswith(("for ", "while ", "if ")):
        return []
    lhs, rhs = m.group(1), m.group(2)
    return [f"{lhs} {r}" for r in _simpler_exprs(rhs)]


def shrink(prog, cls, budget=400):
    """The smallest program found that still mismatches with class ``cls``."""
    best = copy.deepcopy(prog)
    tries = 0
    changed = True
    while changed and tries < budget:
        changed = False
        for cand in _candidates(best):
            tries += 1
            if tries >= budget:
                break
            if _same(cand, cls):
                best = cand
                changed = True
                break
    return best


# --- saving a reproducer ---------------------------------------------------------------------
def _arg_source(p, n, m, rng):
    a = __import__("gen").make_arg(p, n, m, rng)
    if p.what != "array":
        return repr(a)
    if p.layout == "S":
        base = a.base if a.base is not None else a
        full = np.asarray(base).reshape(tuple(2 * s for s in a.shape))
        expr = f"np.array({full.tolist()!r}, dtype=np.{a.dtype})"
        return expr + "[" + ", ".join(["::2"] * a.ndim) + "]"
    expr = f"np.array({a.tolist()!r}, dtype=np.{a.dtype})"
    if a.size == 0:
        expr = f"np.zeros({a.shape!r}, dtype=np.{a.dtype})"
    if p.layout == "F":
        expr = f"np.asfortranarray({expr})"
    return expr


def regression_source(prog, outcome, fixed=False) -> str:
    """A pytest file: the kernel, its arguments as literals, one test comparing with NumPy."""
    rng = np.random.default_rng(prog.seed)
    args = ",\n        ".join(_arg_source(p, prog.n, prog.m, rng) for p in prog.params)
    kernel = prog.render().split("import numpy as np\n", 1)[1].strip("\n")
    params = []
    for b in BACKENDS:
        if b in outcome.backends and not fixed:
            lines = [ln for ln in outcome.detail.splitlines() if ln.startswith(f"[{b}]")]
            reason = (lines[0] if lines else outcome.cls)[:160]
            params.append(f'pytest.param("{b}", marks=pytest.mark.xfail(strict=True, reason=\n'
                          f'        {reason!r}))')
        else:
            params.append(f'"{b}"')
    test_body = (
        f"    args = ARGS()\n"
        f"    try:\n"
        f"        with np.errstate(all=\"ignore\"):\n"
        f"            {prog.name}(*copy.deepcopy(args))\n"
        f"    except Exception as e:  # NumPy raises: solvent must raise the same class\n"
        f"        with pytest.raises(type(e)):\n"
        f"            solvent.jit({prog.name}, backend=backend)(*args)\n"
        f"        return\n"
        f"    check({prog.name}, *args, backend=backend)\n")
    return (
        f'"""Fuzzer reproducer (seed {prog.seed}): {outcome.cls}.\n\n'
        f"Found by tests/fuzz (benchmarks/fuzz.py), shrunk by tests/fuzz/shrink.py.\n"
        f'"""\n'
        f"import copy\nimport math  # noqa: F401\n\nimport numpy as np\nimport pytest\n\n"
        f"import solvent\nfrom differential import check\n\n\n"
        f"{kernel}\n\n\n"
        f"def ARGS():\n    return (\n        {args},\n    )\n\n\n"
        f"@pytest.mark.parametrize(\"backend\", [\n    " + ",\n    ".join(params) + "])\n"
        f"def test_fuzz_{prog.seed}(backend):\n" + test_body)


def save_regression(prog, outcome, directory=None) -> str:
    directory = directory or os.path.join(os.path.dirname(__file__), "regressions")
    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"test_fuzz_{prog.seed}.py")
    with open(path, "w") as f:
        f.write(regression_source(prog, outcome))
    return path
