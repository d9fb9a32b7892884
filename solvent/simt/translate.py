"""The frontend's translator with the hooks lowered kernels need (fission.py's names):

- ``__simt_note(name, value)``: records the dtype of a per-thread value (the type probe);
- ``__simt_weak(name, value)``: a value reloaded from a per-thread array is weak again when
  the value stored was a weak Python scalar (NEP 50 promotion stays as in the kernel);
- an ``assert`` fission.py generated raises its own kind (``DivergentBarrierError``);
- integer arithmetic wraps at 64 bits, unchecked (frontend/python_ints.py checks Python's);
- the block loop's ``loop.for`` carries ``disjoint=true`` when blocks cannot conflict;
- the loops fission.py made over blocks and over threads say so: ``simt = "blocks"`` /
  ``simt = "threads"`` (ops/simt.py), the kernel's parallel structure in the IR;
- on the IR path (nest.py) ``__simt_barrier()`` (a ``Barrier``) is the op ``simt.barrier``;
  a loop coalesce.py picked carries ``coalesced=true`` and the ``if`` around the statements
  after a possible ``continue`` (a kernel's ``return``) ``after_jump=true`` (ops/simt.py).
"""
from __future__ import annotations

from ..frontend.translator import Translator
from ..frontend.values import Const, Tensor
from ..passes.mark_parallel import DISJOINT
from ..ops.simt import COALESCED, JUMP_GUARD, ROLE
from .fission import COALESCED_ATTR, KIND_ATTR, PARALLEL_ATTR, ROLE_ATTR


class Notes:
    """Per-thread names -> [(dtype, weak)] seen by the probe translation."""

    def __init__(self):
        self.seen: dict[str, list] = {}


class Weak:
    """Names whose reloaded value is a weak scalar."""

    def __init__(self, names):
        self.names = frozenset(names)


class Barrier:
    """``cuda.syncthreads()`` on the IR path: the translator emits ``simt.barrier``."""


class KernelTranslator(Translator):
    def call_function(self, fn, args, kwargs, node):
        if isinstance(fn, Barrier):
            line = self.b.loc.line if self.b.loc is not None else 0
            self.b.create("simt.barrier", [], {"line": line})
            return Const(None)
        if isinstance(fn, Notes):
            name, value = args
            t = self.tensor(value)
            fn.seen.setdefault(name.value, []).append((t.dtype, bool(t.weak), t.type.rank))
            return Const(None)
        if isinstance(fn, Weak):
            name, value = args
            if name.value in fn.names and isinstance(value, Tensor):
                return Tensor(value.v, weak=True)
            return value
        return super().call_function(fn, args, kwargs, node)

    def _merge_branches(self, c, node, blocks, envs, env0, born0, live, jumped_live):
        op, rebuild = super()._merge_branches(c, node, blocks, envs, env0, born0, live,
                                              jumped_live)
        if jumped_live is not None:   # the statements after a possible break/continue
            op.attrs[JUMP_GUARD] = True
        return op, rebuild

    def python_int_arith(self, uf, a, b):
        """Unchecked: a kernel's integers are 64-bit as in numba.cuda's compiled kernels
        (thread and block index arithmetic, bounded by the launch), not Python's."""
        return self.ufunc(uf, a, b)

    def stmt_Assert(self, node):
        kind = getattr(node, KIND_ATTR, None)
        if kind is None:
            return super().stmt_Assert(node)
        self.check(self.truth(self.expr(node.test)), kind, node.msg.value)

    def for_attrs(self, node) -> dict:
        # launch.py proved that blocks touch disjoint elements of what they write: the block
        # loop says so (mark_parallel then marks it parallel, with the combiners its carried
        # values need, the run-time check flags included)
        attrs = {DISJOINT: True} if getattr(node, PARALLEL_ATTR, False) else {}
        role = getattr(node, ROLE_ATTR, None)
        if role is not None:
            attrs[ROLE] = role
        if getattr(node, COALESCED_ATTR, False):
            attrs[COALESCED] = True
        return attrs


class ProbeTranslator(KernelTranslator):
    """The type probe runs one thread's code with its barriers removed; a value a later run
    reassigns before reading (scan's ``ai``) would look live after an ``if`` that assigns it on
    one path. The probe only records types, so such values are dropped after the ``if``."""

    def live_outside(self, node):
        import ast
        if isinstance(node, ast.If):
            return set()
        return super().live_outside(node)
