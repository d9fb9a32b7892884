"""Batching a loop body over its whole index space (the core of raising).

A loop ``for i in range(lb, ub, st)`` with a constant trip count ``N`` whose iterations do
not depend on each other computes, for each value ``v`` of its body, ``N`` values ``v(i)``.
``Batch`` builds, in front of the loop, one value per body value:

- **uniform** (the same in every iteration): the value itself, when defined outside the
  loop, or a copy of an op whose operands are all uniform;
- **varying**: a tensor of shape ``(N, *v.shape)`` whose row ``k`` is ``v`` in iteration
  ``lb + st*k`` (the loop variable itself is ``lb + st*iota(N)``).

Each op of the body has a batching rule (the rules live by op family: elementwise, shape
and reduction ops here, element reads and writes in indexing.py). A rule either builds the
batched op or raises ``Refuse`` with the reason, and the whole raise is abandoned (the
caller erases what was built). This is JAX's ``vmap`` with the batch dimension always in
front, applied to a loop body instead of a function.
"""
from __future__ import annotations

from ...ir.builder import Builder
from ...ir.core import Block, Operation, Region, Value
from ...ir.registry import get
from ...ir.types import TensorType


class Refuse(Exception):
    """The loop cannot be raised; ``str(e)`` says why."""


class Batch:
    def __init__(self, info, loop: Operation, n: int, lb: int, step: int,
                 partial: bool = False, strided_interchange: bool = True):
        self.info = info
        self.partial = partial
        self.loop = loop
        self.n = n
        self.lb = lb
        self.step = step
        self.builder = Builder(loop.parent)
        self.builder.index = loop.parent.ops.index(loop)
        self.builder.loc = loop.loc
        self.created: list[Operation] = []
        self.memo: dict = {}
        self.env: dict = {}  # body value -> (value, varying)
        self.what: set = set()  # the kinds of ops built (for explain)
        # body values that are versions of an array the loop carries: with independent
        # iterations they stay uniform (every iteration's writes applied at once)
        self.versions: set = set()
        self.skip: set = set()  # body ops a slot handles itself (slots.py)
        # for a loop whose bounds move with an outer loop (``for j in range(i)``): the
        # batch covers the widest range over the nest, and ``mask`` (i1, (N,)) marks the
        # iterations the loop really runs; ``bounds`` are its (lb, ub) values
        self.mask: Value | None = None
        self.bounds: tuple | None = None
        # RaiseLoops.Options.strided_interchange (inner_loop)
        self.strided_interchange = strided_interchange
        # the options whose value let this batch build what it built (Function.raised_with)
        self.options_used: set = set()

    # --- building ------------------------------------------------------------------------
    def emit(self, name: str, operands, loc=None, **attrs) -> Value:
        # the same op on the same operands is built once (a masked write's old elements
        # are the read of the same elements: one slice, which the dependence test of the
        # loop around sees as the reduction's own read)
        key = (name, tuple(id(o) for o in operands), repr(sorted(attrs.items())))
        if key in self.memo:
            return self.memo[key]
        saved = self.builder.loc
        if loc is not None:
            self.builder.loc = loc
        op = self.builder.create(name, list(operands), attrs)
        self.builder.loc = saved
        self.created.append(op)
        self.memo[key] = op.result
        return op.result

    def const(self, value, dtype: str) -> Value:
        v = self.builder.constant(value, dtype)
        self.created.append(v.owner)
        return v

    def abandon(self) -> None:
        for op in reversed(self.created):
            if op.parent is not None:
                op.erase(drop_uses=True)
        self.created = []

    # --- values ----------------------------------------------------------------------------
    def lookup(self, v: Value) -> tuple[Value, bool]:
        if v in self.env:
            return self.env[v]
        if not self.info.inside(v, self.loop):
            return v, False
        raise Refuse(f"a value of the body is used before it is defined ({v})")

    def stacked(self, v: Value) -> Value:
        """The varying form ``(N, *shape)`` of body value ``v``."""
        new, varying = self.lookup(v)
        if varying:
            return new
        return self.emit("tensor.broadcast_to", [new], shape=[self.n, *new.type.shape])

    def padded(self, value: Value, rank: int) -> Value:
        """A varying value ``(N, *s)`` reshaped to ``(N, 1, ..., 1, *s)`` with ``rank``
        dims after ``N``, so it broadcasts against per-iteration shapes of that rank."""
        shape = value.type.shape[1:]
        if len(shape) >= rank:
            return value
        return self.emit("tensor.reshape", [value],
                         shape=[self.n] + [1] * (rank - len(shape)) + list(shape))

    def to_front(self, value: Value, pos: int) -> Value:
        """Move dim ``pos`` of ``value`` to the front."""
        if pos == 0:
            return value
        r = value.type.rank
        perm = [pos] + [d for d in range(r) if d != pos]
        return self.emit("tensor.transpose", [value], perm=perm)

    def from_front(self, value: Value, pos: int) -> Value:
        """Move the front dim of ``value`` to position ``pos``."""
        if pos == 0:
            return value
        r = value.type.rank
        rest = list(range(1, r))
        perm = rest[:pos] + [0] + rest[pos:]
        return self.emit("tensor.transpose", [value], perm=perm)

    def iv_value(self, iv: Value) -> Value:
        dt = iv.type.dtype
        k = self.emit("tensor.iota", [], shape=[self.n], dim=0, dtype=dt)
        self.what.add("iota")
        if self.step != 1:
            k = self.emit("tensor.mul", [k, self.const(self.step, dt)])
        if self.lb != 0:
            k = self.emit("tensor.add", [k, self.const(self.lb, dt)])
        return k

    def set_mask(self, iv_values: Value, lb: Value, ub: Value) -> None:
        ge = self.emit("tensor.ge", [iv_values, lb])
        lt = self.emit("tensor.lt", [iv_values, ub])
        self.mask = self.emit("tensor.and", [ge, lt])
        self.bounds = (lb, ub)
        self.what.add("mask")

    def masked(self, value: Value, other: Value) -> Value:
        """``value`` (varying, N in front) where the iteration runs, ``other`` elsewhere."""
        if self.mask is None:
            return value
        m = self.mask
        if value.type.rank > 1:
            m = self.emit("tensor.reshape", [m], shape=[self.n] + [1] * (value.type.rank - 1))
        return self.emit("tensor.select", [m, value, other])

    def iv_index(self) -> Value:
        """0, 1, ..., N-1 (i64): the iteration number."""
        return self.emit("tensor.iota", [], shape=[self.n], dim=0, dtype="i64")

    # --- the body --------------------------------------------------------------------------
    def run(self, block) -> None:
        from .indexing import RULES as INDEX_RULES
        for op in block.ops[:-1]:
            if op in self.skip:
                continue
            args = [self.lookup(o) for o in op.operands]
            if op.name == "loop.for":
                self.env.update(zip(op.results, self.inner_loop(op, args)))
                continue
            if op.regions:
                raise Refuse(f"{op.name} at line {_line(op)} stays inside (an inner loop "
                             "that was not raised, or a branch)")
            record = get(op.name)
            if not record.pure:
                raise Refuse(f"{op.name} at line {_line(op)} has side effects")
            if not any(vary for _, vary in args):
                new = self.emit(op.name, [a for a, _ in args], loc=op.loc, **op.attrs)
                self.env[op.result] = (new, False)
                if op.name == "tensor.update_slice" and op.operands[0] in self.versions:
                    self.versions.add(op.result)
                continue
            rule = INDEX_RULES.get(op.name) or RULES.get(op.name)
            if rule is None and record.elementwise:
                rule = elementwise
            if rule is None:
                raise Refuse(f"{op.name} at line {_line(op)} has no batching rule")
            if len(op.results) != 1:
                raise Refuse(f"{op.name} has several results")
            res = rule(self, op, args)
            self.env[op.result] = res if isinstance(res, tuple) else (res, True)

    def inner_loop(self, op: Operation, args) -> list[tuple[Value, bool]]:
        """A sequential loop inside the body (a time loop per element, written innermost):
        the same loop in front, its body batched (loop interchange: the independent loop
        moves inside, where it becomes tensor ops). Only a body of scalar work is
        interchanged. It carries the stacked values ``(N, *shape)`` of every iteration,
        except the arrays the batched loop carries (slots.py checked that its iterations
        write them independently): those it carries whole, as versions. Its trip count
        must be the same in every iteration."""
        if any(vary for _, vary in args[:3]):
            raise Refuse(f"the trip count of the loop at line {_line(op)} differs between "
                         "iterations")
        if self.mask is not None:
            raise Refuse(f"the loop at line {_line(op)} is inside a masked batch")
        for o in op.walk():
            if o is not op and not o.regions and o.name != "tensor.update_slice" and \
                    any(is_tensor(r.type) and r.type.rank > 0 for r in o.results):
                # vectorized work already (k-means' distance to one centre over the
                # coordinates): interchanged, it would be materialized for every iteration
                # of the loop around it, where the nest keeps it in registers (measured 1.5x
                # slower on kmeans_loops, native and XLA)
                raise Refuse(f"the loop at line {_line(op)} computes arrays in its body "
                             f"({o.name} at line {_line(o)}): it is not interchanged")
        try:
            self._refuse_strided(op)
        except Refuse:
            if not self.strided_interchange:
                raise
            self.options_used.add("strided_interchange")
        whole = [v in self.versions for v in op.operands[3:]]
        inits = [a if w else self.stacked(v)
                 for (a, _), v, w in zip(args[3:], op.operands[3:], whole)]
        body = op.regions[0].block
        block = Block()
        iv = block.add_arg(body.args[0].type, body.args[0].hint)
        attrs = {k: v for k, v in op.attrs.items() if k not in ("parallel", "combiners")}
        outer_loc, self.builder.loc = self.builder.loc, op.loc   # explain names this loop
        new = self.builder.create("loop.for", [a for a, _ in args[:3]] + inits, attrs,
                                  [Region(block)], [v.type for v in inits])
        self.created.append(new)
        self.env[body.args[0]] = (iv, False)
        for a, init, w in zip(body.args[1:], inits, whole):
            self.env[a] = (block.add_arg(init.type, a.hint), not w)
            if w:
                self.versions.add(a)
        saved = self.builder.block, self.builder.index, dict(self.memo)
        self.builder.block, self.builder.index = block, None
        try:
            self.run(body)
            yields = []
            for v, w in zip(body.terminator.operands, whole):
                if w and (v not in self.versions or self.lookup(v)[1]):
                    raise Refuse(f"the loop at line {_line(op)} replaces an array the loop "
                                 "around it carries")
                yields.append(self.lookup(v)[0] if w else self.stacked(v))
            self.created.append(self.builder.create("loop.yield", yields))
        finally:
            # values built inside the loop body are not visible after it
            self.builder.block, self.builder.index, self.memo = saved
            self.builder.loc = outer_loc
        self.versions.update(r for r, w in zip(op.results, whole) if w)
        self.what.add("loop")
        return [(r, not w) for r, w in zip(new.results, whole)]

    def _refuse_strided(self, op: Operation) -> None:
        """Refuse when the inner loop reads ``x[.., i, .., s]``: a subscript affine in its
        variable ``s`` on the last axis, one in the batched loop's ``i`` on another."""
        outer_iv, inner_iv = self.loop.regions[0].block.args[0], op.regions[0].block.args[0]

        def walks(v, iv) -> bool:
            return self.info.affine(v).coef(iv) != 0

        for o in op.walk():
            if o.name != "tensor.slice" or self.info.inside(o.operands[0], op):
                continue
            spec, dyn = o.attrs["spec"], o.operands[1:]
            idx = [dyn[it[1]] if it[0] == "i" else None for it in spec]
            if len(idx) > 1 and idx[-1] is not None and walks(idx[-1], inner_iv) and \
                    any(v is not None and walks(v, outer_iv) for v in idx[:-1]):
                raise Refuse(f"the loop at line {_line(op)} walks the rows of an array the "
                             f"loop around it picks (line {_line(o)}): interchanged, it would "
                             "read columns (strided_interchange=False)")


def _line(op: Operation):
    return op.loc.line if op.loc is not None else "?"


# --- rules: elementwise, shape and reduction ops -------------------------------------------
def elementwise(b: Batch, op: Operation, args) -> Value:
    rank = op.result.type.rank
    operands = [b.padded(a, rank) if vary else a for a, vary in args]
    b.what.add("elementwise")
    return b.emit(op.name, operands, loc=op.loc, **op.attrs)


def broadcast_to(b: Batch, op: Operation, args) -> Value:
    (x, _), = args
    shape = list(op.attrs["shape"])
    x = b.padded(x, len(shape))
    return b.emit("tensor.broadcast_to", [x], loc=op.loc, shape=[b.n] + shape)


def reshape(b: Batch, op: Operation, args) -> Value:
    (x, _), = args
    return b.emit("tensor.reshape", [x], loc=op.loc, shape=[b.n] + list(op.attrs["shape"]))


def transpose(b: Batch, op: Operation, args) -> Value:
    (x, _), = args
    return b.emit("tensor.transpose", [x], loc=op.loc,
                  perm=[0] + [p + 1 for p in op.attrs["perm"]])


def reduce(b: Batch, op: Operation, args) -> Value:
    (x, _), = args
    b.what.add(op.name.split(".")[1])
    return b.emit(op.name, [x], loc=op.loc, axes=[a + 1 for a in op.attrs["axes"]],
                  keepdims=op.attrs["keepdims"])


def dot_general(b: Batch, op: Operation, args) -> Value:
    (x, vx), (y, vy) = args
    lb, rb, lc, rc = (list(op.attrs[k]) for k in ("lhs_batch", "rhs_batch", "lhs_contract",
                                                    "rhs_contract"))
    if vx and vy:
        attrs = dict(lhs_batch=[0] + [d + 1 for d in lb], rhs_batch=[0] + [d + 1 for d in rb],
                     lhs_contract=[d + 1 for d in lc], rhs_contract=[d + 1 for d in rc])
        return b.emit("tensor.dot_general", [x, y], loc=op.loc, **attrs)
    if vx:
        attrs = dict(lhs_batch=lb, rhs_batch=rb, lhs_contract=[d + 1 for d in lc],
                     rhs_contract=rc)
        r = b.emit("tensor.dot_general", [x, y], loc=op.loc, **attrs)
        return b.to_front(r, len(lb))
    attrs = dict(lhs_batch=lb, rhs_batch=rb, lhs_contract=lc,
                 rhs_contract=[d + 1 for d in rc])
    r = b.emit("tensor.dot_general", [x, y], loc=op.loc, **attrs)
    lhs_free = x.type.rank - len(lb) - len(lc)
    return b.to_front(r, len(lb) + lhs_free)


def concatenate(b: Batch, op: Operation, args) -> Value:
    return b.emit("tensor.concatenate", [b.stacked(o) for o in op.operands], loc=op.loc,
                  axis=op.attrs["axis"] + 1)


RULES = {
    "tensor.concatenate": concatenate,
    "tensor.broadcast_to": broadcast_to,
    "tensor.reshape": reshape,
    "tensor.transpose": transpose,
    "tensor.dot_general": dot_general,
    **{f"tensor.reduce_{k}": reduce for k in ("sum", "prod", "max", "min", "any", "all")},
}


def is_tensor(t) -> bool:
    return isinstance(t, TensorType)
