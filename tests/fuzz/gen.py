"""Random valid kernels in the style solvent's frontend accepts, for differential fuzzing.

A program is data (``Program``): parameters (arrays with dtype, shape kind and layout, run-time
scalars, compile-time values), a body of statements (nested for/if/while blocks hold
children) and a return list. ``render`` turns it into Python source; the shrinker edits the
data and renders again.

Validity without running the program: every expression carries a *probe*, a one-element
NumPy value of the same type class, dtype and ndim as the real value. An operation is only
generated if NumPy accepts it on the probes (dtype errors such as ``bool - bool``, ``//`` on
complex or a same_kind cast violation in a store are rejected here). Shapes are kept
consistent by construction: every array is of kind ``v`` (n,), ``w`` (m,) or ``M`` (n, m), and
only kinds that broadcast are combined. Loop indices range over an axis of the arrays they
index. What is left (e.g. ``max`` of an empty array) makes NumPy raise; the driver then
requires solvent to raise the same exception class.
"""
from __future__ import annotations

import dataclasses
import linecache
import random
import warnings

import numpy as np

DTYPES = ["float64", "float32", "int64", "int32", "int16", "int8", "uint8", "complex128",
          "bool"]
KIND_NDIM = {"s": 0, "v": 1, "w": 1, "M": 2}


@dataclasses.dataclass
class Param:
    name: str
    what: str            # "array", "int", "float", "static"
    dtype: str = ""
    kind: str = ""       # v / w / M for arrays
    layout: str = "C"    # C, F (2-D only), S (strided: every other element of a bigger array)
    value: object = None  # scalars and compile-time values


@dataclasses.dataclass
class Stmt:
    lines: list            # header or simple statement lines
    body: list | None = None    # children (for blocks)
    orelse: list | None = None  # children of else


@dataclasses.dataclass
class Program:
    seed: int
    n: int
    m: int
    params: list
    helpers: list          # source lines of helper functions
    body: list
    returns: list          # expression strings

    @property
    def name(self):
        return f"kernel_{self.seed}"

    def render(self) -> str:
        out = ["import math", "import numpy as np", ""]
        for h in self.helpers:
            out += h + [""]
        out.append(f"def {self.name}({', '.join(p.name for p in self.params)}):")
        body = []
        _render(self.body, 1, body)
        out += body
        if self.returns:
            out.append("    return " + ", ".join(self.returns) + ("," if len(self.returns) == 1 and False else ""))
        elif not body:
            out.append("    pass")
        return "\n".join(out) + "\n"

    def load(self):
        """The kernel as a function whose source ``inspect.getsource`` can read."""
        src = self.render()
        filename = f"<solvent-fuzz-{self.seed}-{abs(hash(src))}>"
        linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
        ns = {"__name__": f"fuzz_{self.seed}"}
        with warnings.catch_warnings():   # a shrunk candidate may index a constant
            warnings.simplefilter("ignore", SyntaxWarning)
            code = compile(src, filename, "exec")
        exec(code, ns)
        return ns[self.name]

    def make_args(self):
        rng = np.random.default_rng(self.seed)
        return tuple(make_arg(p, self.n, self.m, rng) for p in self.params)


def _render(stmts, depth, out):
    pad = "    " * depth
    for s in stmts:
        for ln in s.lines:
            out.append(pad + ln)
        if s.body is not None:
            if s.body:
                _render(s.body, depth + 1, out)
            else:
                out.append(pad + "    pass")
        if s.orelse is not None:
            out.append(pad + "else:")
            if s.orelse:
                _render(s.orelse, depth + 1, out)
            else:
                out.append(pad + "    pass")


def shape_of(kind, n, m):
    return {"v": (n,), "w": (m,), "M": (n, m)}[kind]


def make_arg(p: Param, n, m, rng):
    if p.what != "array":
        return p.value
    shape = shape_of(p.kind, n, m)
    big = tuple(2 * s for s in shape) if p.layout == "S" else shape
    dt = np.dtype(p.dtype)
    if dt.kind == "b":
        a = rng.random(big) < 0.5
    elif dt.kind == "u":
        a = rng.integers(0, 12, big).astype(dt)
    elif dt.kind == "i":
        a = rng.integers(-9, 10, big).astype(dt)
    elif dt.kind == "c":
        a = (rng.standard_normal(big) + 1j * rng.standard_normal(big)).astype(dt)
    else:
        a = rng.standard_normal(big).astype(dt)
    if p.layout == "S":
        a = a[(slice(None, None, 2),) * len(shape)]
    elif p.layout == "F":
        a = np.asfortranarray(a)
    return a


# --- expressions ------------------------------------------------------------------------------
@dataclasses.dataclass
class Expr:
    src: str
    kind: str      # s / v / w / M
    probe: object  # one-element NumPy/Python value of the same type class and dtype


def probe_for(dtype, kind, weak=False):
    if kind == "s" and weak:
        return {"b": True, "i": 1, "u": 1, "f": 1.0, "c": 1j}[np.dtype(dtype).kind]
    a = np.ones((1,) * KIND_NDIM[kind], dtype=dtype)
    return a[()] if kind == "s" else a


def _try(f, *probes):
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = f(*probes)
    except Exception:
        return None
    return r


BINOPS = ["+", "-", "*", "/", "//", "%", "**", "&", "|", "<", ">", "==", "!="]
UFUNCS1 = ["np.sqrt", "np.abs", "np.exp", "np.sin", "np.cos", "np.tanh", "np.floor", "np.sign",
           "np.negative", "np.square", "np.log1p", "np.isnan", "np.logical_not"]
UFUNCS2 = ["np.maximum", "np.minimum", "np.arctan2", "np.hypot", "np.logical_and"]


def _pyop(op):
    return {"+": lambda a, b: a + b, "-": lambda a, b: a - b, "*": lambda a, b: a * b,
            "/": lambda a, b: a / b, "//": lambda a, b: a // b, "%": lambda a, b: a % b,
            "**": lambda a, b: a ** b, "&": lambda a, b: a & b, "|": lambda a, b: a | b,
            "<": lambda a, b: a < b, ">": lambda a, b: a > b, "==": lambda a, b: a == b,
            "!=": lambda a, b: a != b}[op]


def bkind(k1, k2):
    """Kind of a broadcast of two kinds, or None if they do not combine."""
    if k1 == "s":
        return k2
    if k2 == "s" or k1 == k2:
        return k1
    if {k1, k2} == {"M", "w"}:
        return "M"
    return None


class Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)
        self.seed = seed
        self.arrays: list[Param] = []
        self.scalars: list[Expr] = []   # run-time scalars in scope
        self.locals: list[Expr] = []    # local arrays / scalars bound by name
        self.statics: list[Param] = []
        self.loop_vars: list[tuple[str, str, int, int]] = []  # (name, axis kind, lo, hi)
        self.counter = 0
        self.helpers = []

    def fresh(self, base):
        self.counter += 1
        return f"{base}{self.counter}"

    # leaves
    def leaf(self, kind):
        r = self.r
        cands = []
        for p in self.arrays:
            if p.kind == kind:
                cands.append(Expr(p.name, kind, probe_for(p.dtype, kind)))
            if kind == "s" and self.loop_vars:
                for (iv, ax, lo, hi) in self.loop_vars:
                    if p.kind == ax:
                        cands.append(self.elem(p, iv, lo, hi))
                    if p.kind == "M" and ax == "v":
                        inner = [lv for lv in self.loop_vars if lv[1] == "w"]
                        if inner:
                            jv = inner[-1]
                            cands.append(Expr(f"{p.name}[{iv}, {jv[0]}]", "s",
                                              probe_for(p.dtype, "s")))
                    if r.random() < 0.3:
                        cands.append(self.moving_slice(p, iv, ax))
            if kind == "v" and p.kind == "M":
                cands.append(Expr(f"{p.name}[:, {r.choice(['0', '-1'])}]" if False else
                                  f"{p.name}.sum(axis=1)", "v",
                                  _try(lambda a: a.sum(axis=1), probe_for(p.dtype, "M"))))
            if kind in ("v", "w") and p.kind == "M" and r.random() < 0.3:
                red, ax = r.choice(["max", "min", "sum", "mean"]), "1" if kind == "v" else "0"
                cands.append(Expr(f"{p.name}.{red}(axis={ax})", kind,
                                  _try(lambda a: getattr(a, red)(axis=int(ax)),
                                       probe_for(p.dtype, "M"))))
            if kind == p.kind and kind in ("v", "w"):
                # integer-array gather with a data-dependent (non-affine) index
                for q in self.arrays:
                    if q.kind == kind and np.dtype(q.dtype).kind in "iu":
                        cands.append(Expr(f"{p.name}[{q.name} % {p.name}.shape[0]]", kind,
                                          probe_for(p.dtype, kind)))
            if kind == "w" and p.kind == "M":
                red = r.choice(["sum", "mean"])
                cands.append(Expr(f"np.{red}({p.name}, axis=0)", "w",
                                  _try(lambda a: getattr(np, red)(a, axis=0),
                                       probe_for(p.dtype, "M"))))
            if kind == "s" and r.random() < 0.3:
                red = r.choice(["sum", "max", "min", "mean"])
                cands.append(Expr(f"{p.name}.{red}()" if r.random() < 0.5 else
                                  f"np.{red}({p.name})", "s",
                                  _try(lambda a: getattr(np, red)(a),
                                       probe_for(p.dtype, p.kind))))
        for e in self.locals:
            if e.kind == kind:
                cands.append(e)
        if kind == "s":
            cands += self.scalars
            for (iv, ax, lo, hi) in self.loop_vars:
                cands.append(Expr(iv, "s", 1))
            c = r.choice([Expr(str(r.randint(1, 5)), "s", 1),
                          Expr(r.choice(["0.5", "1.5", "2.0", "0.25"]), "s", 1.0)])
            cands.append(c)
        cands = [c for c in cands if c.probe is not None]
        if not cands:
            return Expr(r.choice(["2", "0.5", "3"]), "s", 1) if kind == "s" else None
        return r.choice(cands)

    def moving_slice(self, p, iv, ax):
        """A reduction of a slice whose length follows the loop variable: ``p[i:].sum()``,
        ``np.max(p[:i + 1])``, a row's tail ``M[i, i:]``, a dot of two moving slices."""
        r = self.r
        if p.kind == "M" and ax == "v":
            sl = r.choice([f"[{iv}, {iv}:]", f"[{iv}, :{iv} + 1]", f"[:{iv} + 1, 0]"])
        elif p.kind == ax:
            sl = r.choice([f"[{iv}:]", f"[:{iv} + 1]", f"[{iv} // 2:{iv} + 1]"])
        else:
            return Expr("1", "s", 1)
        red = r.choice(["sum", "max", "min", "dot"])
        if red == "dot":
            return Expr(f"({p.name}{sl} @ {p.name}{sl}[::-1])", "s",
                        _try(lambda a: a @ a[::-1], probe_for(p.dtype, "v")))
        return Expr(f"{p.name}{sl}.{red}()", "s",
                    _try(lambda a: getattr(a, red)(), probe_for(p.dtype, "v")))

    def elem(self, p, iv, lo, hi):
        r = self.r
        off = r.randint(-lo, hi)
        if r.random() < 0.2:
            idx = f"({iv} * 3 + 1) % {p.name}.shape[0]"      # non-affine
        elif r.random() < 0.1:
            idx = f"{iv} // 2"
        else:
            idx = iv if off == 0 else (f"{iv} + {off}" if off > 0 else f"{iv} - {-off}")
        if p.kind == "M":
            return Expr(f"{p.name}[{idx}, 0]", "s", probe_for(p.dtype, "s"))
        return Expr(f"{p.name}[{idx}]", "s", probe_for(p.dtype, "s"))

    def expr(self, kind, depth=0):
        r = self.r
        if depth >= 2 or r.random() < 0.3:
            e = self.leaf(kind)
            if e is not None or depth >= 2:
                return e
        for _ in range(8):
            c = r.random()
            if c < 0.55:
                op = r.choice(BINOPS)
                k1, k2 = kind, kind
                if kind == "M" and r.random() < 0.4:
                    k2 = r.choice(["s", "w"])
                elif kind != "s" and r.random() < 0.3:
                    k2 = "s"
                if r.random() < 0.5:
                    k1, k2 = k2, k1
                a = self.expr(k1, depth + 1)
                b = self.expr(k2, depth + 1)
                if kind == "M" and k2 == "M" and r.random() < 0.3:
                    col = self.expr("v", depth + 1)   # a column broadcast along the rows
                    if col is not None and np.ndim(col.probe) == 1:
                        b = Expr(f"({col.src})[:, None]", "M", col.probe[:, None])
                if a is None or b is None:
                    continue
                if op == "**":
                    b = Expr(r.choice(["2", "3"]), "s", 2)
                if op in ("//", "%") and a.probe is not None and np.asarray(b.probe).dtype.kind in "iub":
                    b = Expr(str(r.randint(2, 5)), "s", 3)
                pr = _try(_pyop(op), a.probe, b.probe)
                if pr is None or (kind != "s" and np.ndim(pr) != KIND_NDIM[kind]):
                    continue
                if kind == "s" and np.ndim(pr) != 0:
                    continue
                return Expr(f"({a.src} {op} {b.src})", kind, pr)
            elif c < 0.8:
                f = r.choice(UFUNCS1)
                a = self.expr(kind, depth + 1)
                if a is None:
                    continue
                pr = _try(eval(f, {"np": np}), a.probe)
                if pr is None:
                    continue
                return Expr(f"{f}({a.src})", kind, pr)
            elif c < 0.9:
                f = r.choice(UFUNCS2)
                a, b = self.expr(kind, depth + 1), self.expr(r.choice([kind, "s"]), depth + 1)
                if a is None or b is None:
                    continue
                pr = _try(eval(f, {"np": np}), a.probe, b.probe)
                if pr is None or np.ndim(pr) != KIND_NDIM[kind]:
                    continue
                return Expr(f"{f}({a.src}, {b.src})", kind, pr)
            else:
                cnd = self.expr(kind, depth + 1)
                a, b = self.expr(kind, depth + 1), self.expr("s", depth + 1)
                if cnd is None or a is None or b is None:
                    continue
                cp = _try(lambda x: x > 0, cnd.probe)
                if cp is None:
                    continue
                if kind == "s":
                    pr = a.probe
                    return Expr(f"({a.src} if {cnd.src} > 0 else {b.src})", kind, pr) \
                        if type(a.probe) is type(b.probe) else a
                pr = _try(lambda c_, x, y: np.where(c_, x, y), cp, a.probe, b.probe)
                if pr is None or np.ndim(pr) != KIND_NDIM[kind]:
                    continue
                return Expr(f"np.where({cnd.src} > 0, {a.src}, {b.src})", kind, pr)
        return self.leaf(kind)

    # statements
    def store_ok(self, target_dtype, val_probe):
        src = np.asarray(val_probe).dtype
        if isinstance(val_probe, (bool, int, float, complex)):
            return _try(lambda: np.asarray(np.ones(1, target_dtype)).__setitem__(0, val_probe)
                        or True) is not None and (np.dtype(target_dtype).kind in "fc" or
                                                  not isinstance(val_probe, (float, complex)))
        return np.can_cast(src, target_dtype, "same_kind")

    def stmt(self, depth):
        r = self.r
        c = r.random()
        writable = [p for p in self.arrays]
        if c < 0.18 and depth < 2:
            return self.for_loop(depth)
        if c < 0.26 and depth < 2:
            return self.if_stmt(depth)
        if c < 0.30 and depth < 2:
            return self.while_stmt(depth)
        if c < 0.45:
            # local array or scalar
            kind = r.choice(["s", "v", "M", "w"]) if not self.loop_vars else "s"
            e = self.expr(kind)
            if e is None or e.probe is None:
                return None
            name = self.fresh("t")
            self.locals.append(Expr(name, kind, e.probe))
            return Stmt([f"{name} = {e.src}"])
        if c < 0.55 and self.loop_vars and self.locals:
            # accumulate into a scalar local
            accs = [e for e in self.locals if e.kind == "s"]
            if accs:
                a = r.choice(accs)
                v = self.expr("s", 1)
                op = r.choice(["+", "*", "-"])
                pr = _try(_pyop(op), a.probe, v.probe)
                if pr is not None and type(pr) is type(a.probe) and \
                        np.asarray(pr).dtype == np.asarray(a.probe).dtype:
                    return Stmt([f"{a.src} {op}= {v.src}"])
            return None
        if not writable:
            return None
        p = r.choice(writable)
        if self.loop_vars and r.random() < 0.8:
            # element update at the loop index
            lvs = [lv for lv in self.loop_vars if lv[1] == p.kind or
                   (p.kind == "M" and lv[1] == "v")]
            if not lvs:
                return None
            iv, ax, lo, hi = r.choice(lvs)
            tgt = self.elem(p, iv, lo, hi)
            if "%" in tgt.src or "//" in tgt.src:
                tgt = Expr(f"{p.name}[{iv}" + (", 0]" if p.kind == "M" else "]"), "s", tgt.probe)
            v = self.expr("s")
            op = r.choice(["=", "=", "+=", "*="])
            if op == "=":
                if not self.store_ok(p.dtype, v.probe):
                    return None
            else:
                pr = _try(_pyop(op[0]), probe_for(p.dtype, "M"), v.probe)
                if pr is None or not np.can_cast(pr.dtype, p.dtype, "same_kind"):
                    return None
            return Stmt([f"{tgt.src} {op} {v.src}"])
        # whole-array / slice update
        forms = ["[:]", "[1:]", "[::2]", "[:-1]"]
        sl = r.choice(forms)
        if self.statics and r.random() < 0.4:
            st = r.choice(self.statics)
            if isinstance(st.value, int):
                sl = f"[:{st.name}]"
            elif isinstance(st.value, tuple):
                sl = f"[:{st.name}[0]]"
        if p.kind == "M" and r.random() < 0.5:
            sl = sl[:-1] + ", 1:]" if sl != "[:]" else "[:, 0]"
        kind = p.kind if sl != "[:, 0]" else "v"
        rhs = self.expr(r.choice([kind, "s"]) if kind != "v" else r.choice(["v", "s"]))
        if rhs is None:
            return None
        if rhs.kind != "s":
            rhs = Expr(f"{rhs.src}{sl}" if not rhs.src.isidentifier() or True else rhs.src,
                       rhs.kind, rhs.probe)
            if sl == "[:, 0]":
                return None
            if "(" in rhs.src.split("[")[0] and rhs.src.endswith(sl):
                rhs = Expr(f"({rhs.src[:-len(sl)]}){sl}", rhs.kind, rhs.probe)
        op = r.choice(["=", "+=", "*=", "-="])
        if op == "=":
            if not self.store_ok(p.dtype, rhs.probe):
                return None
        else:
            pr = _try(_pyop(op[0]), probe_for(p.dtype, "M"), rhs.probe)
            if pr is None or not np.can_cast(np.asarray(pr).dtype, p.dtype, "same_kind"):
                return None
        return Stmt([f"{p.name}{sl} {op} {rhs.src}"])

    def block(self, depth, count):
        saved = len(self.locals)
        out = []
        for _ in range(count):
            s = self.stmt(depth)
            if s is not None:
                out.append(s)
        del self.locals[saved:]   # names bound inside a block are not used after it
        return out

    def for_loop(self, depth):
        r = self.r
        axes = [p for p in self.arrays]
        if not axes:
            return None
        p = r.choice(axes)
        ax = "w" if p.kind == "w" else "v"
        if p.kind == "M" and self.loop_vars and self.loop_vars[-1][1] == "v":
            ax = "w"
        lo, hi = r.randint(0, 1), r.randint(0, 1)
        iv = "i" if not self.loop_vars else "j"
        if any(lv[0] == iv for lv in self.loop_vars):
            return None
        ext = f"{p.name}.shape[{1 if (p.kind == 'M' and ax == 'w') else 0}]"
        hdr = f"for {iv} in range({lo}, {ext}" + (f" - {hi})" if hi else ")")
        if lo == 0 and r.random() < 0.5:
            hdr = f"for {iv} in range({ext}" + (f" - {hi})" if hi else ")")
        hdr += ":"
        self.loop_vars.append((iv, ax, lo, hi))
        body = self.block(depth + 1, r.randint(1, 3))
        self.loop_vars.pop()
        return Stmt([hdr], body)

    def cond(self):
        r = self.r
        if self.statics and r.random() < 0.4:
            st = r.choice(self.statics)
            if st.value is None:
                return f"{st.name} is None"
            if isinstance(st.value, str):
                return f"{st.name} == {r.choice(['add', 'mul'])!r}"
            if isinstance(st.value, tuple):
                return f"{st.name}[1] > 1"
            return f"{st.name} > 2"
        for _ in range(5):
            e = self.expr("s", 1)
            if _try(lambda x: bool(x > 0), e.probe) is not None:
                return f"{e.src} > {r.choice(['0', '0.5', '1'])}"
        return "True"

    def if_stmt(self, depth):
        c = self.cond()
        body = self.block(depth + 1, self.r.randint(1, 2))
        orelse = self.block(depth + 1, self.r.randint(1, 2)) if self.r.random() < 0.5 else None
        return Stmt([f"if {c}:"], body, orelse)

    def while_stmt(self, depth):
        r = self.r
        cv = self.fresh("c")
        c = self.cond()
        body = self.block(depth + 1, r.randint(1, 2))
        body.append(Stmt([f"{cv} += 1"]))
        return Stmt([f"{cv} = 0", f"while {cv} < {r.randint(1, 4)} and {c}:"], body)

    # the program
    def program(self) -> Program:
        r = self.r
        n = r.choice([0, 1, 2, 3, 4, 5, 7])
        m = r.choice([1, 2, 3, 4, 6]) if r.random() < 0.8 else 0
        params = []
        for k in range(r.randint(1, 3)):
            kind = r.choice(["v", "v", "M", "w"])
            layout = "C"
            if r.random() < 0.25:
                layout = "S"
            elif kind == "M" and r.random() < 0.3:
                layout = "F"
            dt = r.choice(DTYPES) if r.random() < 0.6 else "float64"
            params.append(Param(f"{'ABCDE'[k]}", "array", dt, kind, layout))
        self.arrays = list(params)
        extra = []
        if r.random() < 0.4:
            extra.append(Param("x", "float", value=round(r.uniform(-2, 2), 3)))
        if r.random() < 0.3:
            extra.append(Param("q", "int", value=r.randint(1, 4)))
        if r.random() < 0.4:
            v = r.choice([r.randint(0, 4), None, "add", "mul", (r.randint(0, 3), r.randint(0, 3))])
            extra.append(Param("k", "static", value=v))
        for e in extra:
            params.insert(r.randint(0, len(params)), e)   # any position, often before arrays
        for p in extra:
            if p.what == "float":
                self.scalars.append(Expr(p.name, "s", 1.0))
            elif p.what == "int":
                self.scalars.append(Expr(p.name, "s", 1))
            else:
                self.statics.append(p)
        if r.random() < 0.3:
            self.helpers.append(["def helper(a, b):", "    return a * 2 + b"])
        body = self.block(0, r.randint(1, 5))
        if self.helpers:
            kind = r.choice(["s", "v", "M", "w"])
            a, b = self.expr(kind), self.expr("s")
            pr = None if a is None or b is None else _try(lambda x, y: x * 2 + y, a.probe, b.probe)
            if pr is not None:
                name = self.fresh("h")
                body.append(Stmt([f"{name} = helper({a.src}, {b.src})"]))
                self.locals.append(Expr(name, kind, pr))
        rets = []
        if r.random() < 0.15:
            rets.append(r.choice(params[:]).name if params else "None")
        for _ in range(r.randint(0, 2)):
            e = self.expr(r.choice(["s", "v", "M", "w"]))
            if e is not None:
                rets.append(e.src)
        return Program(self.seed, n, m, params, self.helpers, body, rets)


def generate(seed: int) -> Program:
    return Gen(seed).program()
