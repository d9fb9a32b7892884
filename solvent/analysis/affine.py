"""Affine index analysis: an integer SSA value as ``c0 + sum(ci * atom_i)``.

Atoms are SSA values the analysis cannot see through:

- **induction variables** of ``loop.for`` ops (block argument 0 of the loop's region);
- **symbols**: function arguments (``T``, ``n`` passed as an int);
- **opaque values**: anything else (``i*j``, ``i // 2``, ``i % 3``, a value read from an array
  ``idx[i]``, a loop-carried scalar, a float converted to an integer), each with the reason.

An opaque atom is only a problem for a loop that recomputes it: a value defined outside loop
``L`` is computed once per execution of ``L`` and is a symbol for ``L``'s iterations
(``p = i * j`` computed outside ``for k`` is as good as a constant for the ``k`` loop). So a
form is *affine in L* when each of its opaque atoms is defined outside ``L``
(``LoopInfo.nonaffine_reasons``). See through: ``tensor.add``, ``tensor.sub``, ``tensor.neg``,
``tensor.mul`` by a constant, and widening ``tensor.convert`` between integer dtypes, all on
integer scalars, and integer ``tensor.constant``. Arithmetic is exact: an int64 index that
overflows is not modelled (NumPy itself would wrap it too, far outside any array).

Loop bounds are forms too: ``for j in range(i)`` has upper bound ``i``, an induction variable
of the outer loop. ``LoopInfo.bounds`` finds the smallest and largest value of a form over the
loop nest around an op by substituting the innermost induction variable by its lower or upper
bound (depending on the sign of its coefficient), then the next one out, which is exact for
affine bounds when no loop is empty and an over-approximation otherwise (sound for every use
below: a wider range only makes the dependence test more conservative).

**Negative indices.** NumPy wraps a negative index once (``x[-1]`` is ``x[n-1]``), so the
element that ``x[f]`` touches is ``f`` only where ``f >= 0``. ``subscript_form`` (in
dependence.py) treats a form as affine when its range over the loop nest is provably inside
``[0, n)``; a form provably inside ``[-n, 0)`` is the affine form ``f + n``; any other form
(possibly negative for some iterations and not for others, or unknown sign because it holds a
symbol) is marked non-affine with the reason "may be negative (NumPy wraps it)". A form that
provably exceeds ``n - 1`` somewhere is marked too: NumPy raises IndexError there, while
solvent's dynamic indices clamp into the dimension (see ops/indexspec.py), so the element is
not ``f``. A form whose upper end is unknown (a symbolic trip count) is trusted to stay below
``n``: a program for which it does not raises IndexError under NumPy, so it has no NumPy
result to preserve.
"""
from __future__ import annotations

import linecache
import re
from collections import defaultdict

from ..ir.core import Block, Function, Operation, Value
from ..ir.types import TensorType, is_int

LOOPS = ("loop.for", "loop.while")


class Affine:
    """``const + sum(coef * atom)``; immutable, atoms are SSA values (compared by identity)."""

    __slots__ = ("const", "terms")

    def __init__(self, const: int = 0, terms: dict | None = None):
        self.const = int(const)
        self.terms = {v: int(c) for v, c in (terms or {}).items() if c != 0}

    @staticmethod
    def atom(v: Value) -> "Affine":
        return Affine(0, {v: 1})

    def __add__(self, other: "Affine") -> "Affine":
        terms = dict(self.terms)
        for v, c in other.terms.items():
            terms[v] = terms.get(v, 0) + c
        return Affine(self.const + other.const, terms)

    def scale(self, k: int) -> "Affine":
        return Affine(self.const * k, {v: c * k for v, c in self.terms.items()})

    def __sub__(self, other: "Affine") -> "Affine":
        return self + other.scale(-1)

    def coef(self, v: Value) -> int:
        return self.terms.get(v, 0)

    @property
    def is_const(self) -> bool:
        return not self.terms

    def substitute(self, v: Value, form: "Affine") -> "Affine":
        c = self.terms.get(v, 0)
        if not c:
            return self
        rest = Affine(self.const, {a: k for a, k in self.terms.items() if a is not v})
        return rest + form.scale(c)

    def render(self, name) -> str:
        """Text like ``2*i+1`` or ``n-1-i``; ``name(atom)`` names each atom."""
        parts = []
        for v, c in self.terms.items():
            n = name(v)
            mag = abs(c)
            body = n if mag == 1 else f"{mag}*{n}"
            parts.append(("-" if c < 0 else "+", body))
        if self.const or not parts:
            parts.append(("-" if self.const < 0 else "+", str(abs(self.const))))
        # Put a positive term first when there is one ("n-1-i" rather than "-i+n-1").
        parts.sort(key=lambda p: p[0] == "-")
        text = "".join(s + b for s, b in parts)
        return text[1:] if text.startswith("+") else text


class LoopInfo:
    """Structure of one function: who owns each block, the loops around each op, the uses of
    each value, and the affine form of each integer scalar value (memoized)."""

    def __init__(self, fn: Function):
        self.fn = fn
        self.owner: dict[int, Operation] = {}      # id(block) -> op owning its region
        self.uses: dict[Value, list[Operation]] = defaultdict(list)
        self.loops: list[Operation] = []           # loop.for / loop.while, program order
        self.reasons: dict[Value, str] = {}        # opaque atom -> why it is opaque
        self._forms: dict[Value, Affine] = {}
        self._names: dict[Value, str] = {}
        # loop -> (its bound operands, loop_bounds, trip_max): the dependence test asks for
        # them per subscript, pair and direction (lu_nopivot: 5740 and 1982 times over 18
        # loops), each an affine walk
        self._bounds: dict[Operation, tuple] = {}
        self._trips: dict[Operation, tuple] = {}
        for op in fn.walk():
            for o in op.operands:
                self.uses[o].append(op)
            for r in op.regions:
                self.owner[id(r.block)] = op
            if op.name in LOOPS:
                self.loops.append(op)

    # --- structure ---------------------------------------------------------------------------
    def parent_op(self, op: Operation) -> Operation | None:
        return self.owner.get(id(op.parent)) if op.parent is not None else None

    def enclosing_loops(self, op: Operation) -> list[Operation]:
        """The loops around ``op`` (not ``op`` itself), outermost first."""
        out = []
        p = self.parent_op(op)
        while p is not None:
            if p.name in LOOPS:
                out.append(p)
            p = self.parent_op(p)
        return out[::-1]

    def value_scope(self, v: Value) -> Operation | None:
        """The op whose region defines ``v`` (None: the function body)."""
        if isinstance(v.owner, Block):
            return self.owner.get(id(v.owner))
        return self.parent_op(v.owner)

    def inside(self, v: Value, loop: Operation) -> bool:
        """True when ``v`` is defined inside ``loop``'s regions (so it may change per
        iteration), including ``loop``'s own block arguments."""
        p = self.value_scope(v)
        while p is not None:
            if p is loop:
                return True
            p = self.parent_op(p)
        return False

    def iv_loop(self, v: Value) -> Operation | None:
        if isinstance(v.owner, Block) and v.index == 0:
            op = self.owner.get(id(v.owner))
            if op is not None and op.name == "loop.for":
                return op
        return None

    @staticmethod
    def iv(loop: Operation) -> Value:
        return loop.regions[0].block.args[0]

    # --- affine forms ------------------------------------------------------------------------
    def affine(self, v: Value) -> Affine:
        if v not in self._forms:
            self._forms[v] = self._affine(v)
        return self._forms[v]

    def _opaque(self, v: Value, reason: str) -> Affine:
        self.reasons.setdefault(v, reason)
        return Affine.atom(v)

    def _affine(self, v: Value) -> Affine:
        t = v.type
        if not (isinstance(t, TensorType) and t.rank == 0 and is_int(t.dtype)):
            return self._opaque(v, f"not an integer scalar ({t})")
        if isinstance(v.owner, Block):
            op = self.owner.get(id(v.owner))
            if op is None:
                return self._opaque(v, "function argument")
            if op.name == "loop.for" and v.index == 0:
                return Affine.atom(v)
            return self._opaque(v, "loop-carried value")
        op = v.owner
        name = op.name
        a = [self.affine(o) for o in op.operands] if not op.regions else []
        if name == "tensor.constant":
            return Affine(int(op.attrs["value"]))
        if name == "tensor.add":
            return a[0] + a[1]
        if name == "tensor.sub":
            return a[0] - a[1]
        if name == "tensor.neg":
            return a[0].scale(-1)
        if name == "tensor.mul":
            if a[0].is_const:
                return a[1].scale(a[0].const)
            if a[1].is_const:
                return a[0].scale(a[1].const)
            return self._opaque(v, "product of two non-constant values")
        if name == "tensor.convert":
            src = op.operands[0].type
            if isinstance(src, TensorType) and is_int(src.dtype) and \
                    _width(src.dtype) <= _width(t.dtype) and \
                    (src.dtype[0] == t.dtype[0] or _width(src.dtype) < _width(t.dtype)):
                return a[0]
            return self._opaque(v, f"conversion from {src} to {t.dtype}")
        if name == "tensor.slice":
            return self._opaque(v, "value read from an array")
        if name == "tensor.floordiv":
            return self._opaque(v, "floor division")
        if name == "tensor.mod":
            return self._opaque(v, "modulo")
        if op.regions:
            return self._opaque(v, f"result of {name}")
        return self._opaque(v, f"result of {name}")

    def nonaffine_reasons(self, form: Affine, loop: Operation) -> list[tuple[Value, str]]:
        """The atoms of ``form`` that change between iterations of ``loop`` without being an
        induction variable of ``loop`` or of a loop nested in it."""
        out = []
        for v in form.terms:
            if self.iv_loop(v) is not None:
                continue
            if self.inside(v, loop):
                out.append((v, self.reasons.get(v, "unknown")))
        return out

    # --- ranges ------------------------------------------------------------------------------
    def loop_bounds(self, loop: Operation):
        """(lb form, ub form, constant step or None)."""
        key = tuple(loop.operands[:3])
        hit = self._bounds.get(loop)
        if hit is not None and hit[0] == key:
            return hit[1]
        lb, ub, st = (self.affine(o) for o in key)
        out = lb, ub, (st.const if st.is_const and st.const != 0 else None)
        self._bounds[loop] = (key, out)
        return out

    def iv_range_forms(self, loop: Operation):
        """(lowest, highest) value of the loop's iv as forms in outer ivs, or None."""
        lb, ub, step = self.loop_bounds(loop)
        if step is None:
            return None
        if step > 0:
            return lb, ub - Affine(1)
        return ub + Affine(1), lb

    def bounds(self, form: Affine) -> tuple[int | None, int | None]:
        """Smallest and largest value of ``form`` over the loop nest (None: unbounded)."""
        return self._extreme(form, -1), self._extreme(form, +1)

    def _extreme(self, form: Affine, sign: int) -> int | None:
        depth = {}
        for _ in range(1000):
            ivs = [v for v in form.terms if self.iv_loop(v) is not None]
            if not ivs:
                break
            for v in ivs:
                if v not in depth:
                    depth[v] = len(self.enclosing_loops(self.iv_loop(v)))
            v = max(ivs, key=lambda x: depth[x])
            rng = self.iv_range_forms(self.iv_loop(v))
            if rng is None:
                return None
            lo, hi = rng
            form = form.substitute(v, hi if form.coef(v) * sign > 0 else lo)
        else:  # pragma: no cover - bounds always refer to outer loops
            return None
        if form.terms:
            return None
        return form.const

    def trip_max(self, loop: Operation) -> int | None:
        """An upper bound on the loop's trip count over the enclosing nest (None: unknown)."""
        bounds = self.loop_bounds(loop)
        hit = self._trips.get(loop)
        if hit is not None and hit[0] is bounds:
            return hit[1]
        out = self._trip_max(*bounds)
        self._trips[loop] = (bounds, out)
        return out

    def _trip_max(self, lb, ub, step) -> int | None:
        if step is None:
            return None
        span = (ub - lb) if step > 0 else (lb - ub)
        hi = self._extreme(span, +1)
        if hi is None:
            return None
        s = abs(step)
        return max(0, -(-hi // s))

    # --- names -------------------------------------------------------------------------------
    def loop_var(self, loop: Operation) -> str:
        """The loop variable's name from the source line (``for i in ...``)."""
        v = self.iv(loop) if loop.name == "loop.for" else None
        if v is not None and v in self._names:
            return self._names[v]
        name = None
        if loop.loc is not None:
            line = linecache.getline(loop.loc.file, loop.loc.line)
            m = re.search(r"\bfor\s+(\w+)\s+in\b", line)
            if m:
                name = m.group(1)
            elif re.search(r"\bwhile\b", line):
                name = "while"
        if name is None:
            name = f"L{self.loops.index(loop)}"
        if v is not None:
            self._names[v] = name
        return name

    def name(self, v: Value) -> str:
        """A readable name for an atom (loop variable, argument name, or ``idx[i]``)."""
        if v in self._names:
            return self._names[v]
        loop = self.iv_loop(v)
        if loop is not None:
            return self.loop_var(loop)
        if v.hint:
            return v.hint
        if not isinstance(v.owner, Block) and v.owner.name == "tensor.slice":
            return self.render_access(v.owner.operands[0], v.owner.attrs["spec"],
                                      v.owner.operands[1:])
        if not isinstance(v.owner, Block) and v.owner.name in ("tensor.mul", "tensor.floordiv",
                                                               "tensor.mod"):
            sym = {"tensor.mul": "*", "tensor.floordiv": "//", "tensor.mod": "%"}[v.owner.name]
            a, b = (self.render(self.affine(o)) for o in v.owner.operands)
            return f"({a}{sym}{b})"
        return f"%{type(v.owner).__name__.lower()}{v.index}"

    def render(self, form: Affine) -> str:
        return form.render(self.name)

    def array_name(self, v: Value) -> str:
        """Follow a tensor back through loop inits and updates to a named array."""
        for _ in range(100):
            if v.hint:
                return v.hint
            if isinstance(v.owner, Block):
                op = self.owner.get(id(v.owner))
                if op is None:
                    break
                if op.name == "loop.for" and v.index >= 1:
                    v = op.operands[3 + v.index - 1]
                    continue
                if op.name == "loop.while":
                    v = op.operands[v.index]
                    continue
                break
            op = v.owner
            if op.name == "tensor.update_slice":
                v = op.operands[0]
                continue
            if op.name == "loop.for":
                v = op.operands[3 + v.index]
                continue
            if op.name == "loop.while":
                v = op.operands[v.index]
                continue
            break
        return "tmp" if not isinstance(v.owner, Block) else f"arg{v.index}"

    def render_access(self, array: Value, spec: list, dyn: list) -> str:
        items = []
        for it in spec:
            k = it[0]
            if k == "c":
                items.append(str(it[1]))
            elif k == "i":
                items.append(self.render(self.affine(dyn[it[1]])))
            elif k == "s":
                start, stop, step = it[1:]
                stop_text = "" if stop < 0 else str(stop)  # normalized: -1 means "to the start"
                items.append(f"{start}:{stop_text}" + (f":{step}" if step != 1 else ""))
            elif k == "d":
                s = self.affine(dyn[it[1]])
                items.append(f"{self.render(s)}:{self.render(s + Affine(it[2]))}")
            elif k == "r":   # a run-time slice: its bounds as written (-1: absent)
                bounds = ["" if j < 0 else self.render(self.affine(dyn[j])) for j in it[1:3]]
                step = self.render(self.affine(dyn[it[4]])) if it[3] == 0 else it[3]
                items.append(":".join(bounds) + (f":{step}" if step != 1 else ""))
            else:
                items.append("None")
        return f"{self.array_name(array)}[{','.join(items)}]"


def _width(dtype: str) -> int:
    return int(dtype[1:])


def affine_forms(fn: Function) -> LoopInfo:
    """The analysis object for ``fn`` (forms are computed on demand)."""
    return LoopInfo(fn)
