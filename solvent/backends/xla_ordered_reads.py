"""XLA lowering strategy: in a loop body, element reads of an array the body then updates in
place are ordered before the update, so XLA:CPU updates the array without copying it.

Why. XLA:CPU's default copy insertion orders a while body's instructions by their data
dependences only, and fusion duplicates a cheap element read (a dynamic-slice) into every
consumer. In ``s += abs(x[k])**2; x[k] = a*x[k-1] + b*x[k]`` the fusion computing ``s`` then
reads the whole ``x`` and nothing orders it before the dynamic-update-slice of ``x``, so XLA
copies ``x`` once or twice per iteration: the loop is quadratic in the array size
(spectral_smooth over 32769 bins: ~1.7 s against NumPy's 30 ms). XLA's region-based analysis
would remove the copies but miscompiles (see xla_host.py).

How. Each such read is evaluated inside a ``lax.cond``: XLA neither fuses into nor out of a
conditional, so the read becomes one instruction that every consumer uses. The cond also
passes on a token (an integer scalar, first the loop counter); the update's index operands
pass through a last cond with that token, so every read is a data predecessor of the
update and XLA updates in place. The token starts as the loop counter, which is never
negative, and the true branches pass it on unchanged, so the predicate ``token >= 0`` always
holds: the other branch is never taken, and it differs (token - 1, indices + 1) only so that
XLA cannot see the cond as a pass-through and remove it. Measured with ``benchmarks/loop_copies.py``
("forward: reads in a cond"): no array copy left in the while body.

Which. Per ``tensor.update_slice`` U of a block run inside an XLA ``loop.for`` body: the
array it updates has at least ``MIN_ELEMENTS`` elements; every other use of that array is a
``tensor.slice`` (reading at most ``MAX_READ`` elements) in the same block before U; some
op computed from those reads is not a producer of U's operands (when all are, XLA orders
them itself); U has a run-time index (it is then an in-place update) to pass through the cond.
"""
from __future__ import annotations

from ..ir.core import Block, Operation

MIN_ELEMENTS = 64
MAX_READ = 4096


def _elements(shape) -> int | None:
    n = 1
    for d in shape:
        if not isinstance(d, int):
            return None
        n *= d
    return n


def _producers(op: Operation, block: Block) -> set:
    """The ops of ``block`` whose results ``op``'s operands are computed from."""
    seen, stack = set(), list(op.operands)
    while stack:
        v = stack.pop()
        d = v.owner
        if isinstance(d, Operation) and d.parent is block and id(d) not in seen:
            seen.add(id(d))
            stack.extend(d.operands)
    return seen


def _consumers(ops: list, block: Block) -> set:
    """The ops of ``block`` computed from the results of ``ops``."""
    seen, stack = set(), [r for op in ops for r in op.results]
    while stack:
        v = stack.pop()
        for c, _ in v.live_uses():
            if c.parent is block and id(c) not in seen:
                seen.add(id(c))
                stack.extend(c.results)
    return seen


def plan(block: Block) -> dict:
    """{id(op): "read" | "update"} for the ops of ``block`` this strategy lowers."""
    roles: dict = {}
    position = {id(op): i for i, op in enumerate(block.ops)}
    for u in block.ops:
        if u.name != "tensor.update_slice":
            continue
        x = u.operands[0]
        n = _elements(getattr(x.type, "shape", ()))
        if n is None or n < MIN_ELEMENTS or any(v is x for v in u.operands[1:]):
            continue
        readers = [op for op, _ in x.live_uses() if op is not u]
        if not readers or any(
                r.name != "tensor.slice" or r.parent is not block or r.operands[0] is not x
                or any(v is x for v in r.operands[1:])
                or position.get(id(r), len(position)) > position[id(u)]
                or (_elements(r.results[0].type.shape) or MAX_READ + 1) > MAX_READ
                for r in readers):
            continue
        before = _producers(u, block) | {id(u)}
        if all(c in before for c in _consumers(readers, block)):
            continue
        if len(u.operands) == 2:
            continue  # no run-time index to pass through the cond
        for r in readers:
            roles[id(r)] = "read"
        roles[id(u)] = "update"
    return roles


class OrderedReads:
    """Per trace: the roles of each block's ops and each block's current token."""

    def __init__(self):
        self._plans: dict = {}
        self._tokens: dict = {}
        self.counter = None  # the innermost XLA loop.for counter (a traced integer)

    def enter(self, counter):
        """Run a loop body whose counter is ``counter``; returns what ``leave`` restores."""
        saved = self.counter, self._tokens
        self.counter, self._tokens = counter, {}
        return saved

    def leave(self, saved) -> None:
        self.counter, self._tokens = saved

    def role(self, op: Operation):
        if self.counter is None or op.parent is None:
            return None
        key = id(op.parent)
        if key not in self._plans:
            self._plans[key] = plan(op.parent)
        return self._plans[key].get(id(op))

    def apply(self, role: str, rule, op: Operation, operands: list, ctx) -> list:
        from jax import lax
        key = id(op.parent)
        token = self._tokens.get(key, self.counter)
        if role == "read":
            def read(args, tok):
                return tuple(rule(op, list(args), ctx)), tok

            def never(args, tok):  # differs, so XLA cannot forward the token past the cond
                return tuple(rule(op, list(args), ctx)), tok - 1
            out, token = lax.cond(token >= 0, read, never, tuple(operands), token)
            self._tokens[key] = token
            return list(out)
        x, value, *indices = operands

        def same(args, tok):
            return tuple(args), tok

        def never(args, tok):
            return tuple(i + 1 for i in args), tok - 1
        indices, token = lax.cond(token >= 0, same, never, tuple(indices), token)
        self._tokens[key] = token
        return rule(op, [x, value, *indices], ctx)
