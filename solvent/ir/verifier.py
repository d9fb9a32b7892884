"""The IR verifier: runs after every pass under test.

Checks that every op is registered and well formed (its record's type inference accepts its
operands and attributes and agrees with its result types), that every use is dominated by
its definition (structured regions: defined earlier in the block or in an enclosing block),
that an op whose record restricts where it stands (``placement``) stands there,
that each region ends in the terminator its op's record names (``region_terminators``), and
optionally that no array-level op or ref is left (after functionalization).
"""
from __future__ import annotations

from typing import NamedTuple

from .core import Block, Function
from .types import RefType
from .registry import IRError, get


class VerifyError(IRError):
    pass


def verify(fn: Function, tensor_only: bool = False) -> None:
    visible: set = set(fn.args)   # grows on entering a block, shrinks on leaving it
    if tensor_only and any(isinstance(a.type, RefType) for a in fn.args):
        raise VerifyError("function still takes refs after functionalization")
    seen = _Seen(fn.name, ops=set(), values=[])   # the walk adds the arguments
    _verify_block(fn.body, visible, tensor_only, where=f"@{fn.name}", terminator="func.return",
                  parents=[], seen=seen)
    _verify_uses(seen)
    if fn.writeback and len(fn.writeback) != len(fn.result_types):
        raise VerifyError("writeback list does not match the function results")


class _Seen(NamedTuple):
    """The function's name and what the walk met: the ids of its ops and every value it
    defines (for the use-list check after the walk)."""
    name: str
    ops: set
    values: list


def _verify_block(block: Block, visible: set, tensor_only: bool, where: str,
                  terminator: str, parents: list, seen: _Seen) -> None:
    """``visible`` holds the values defined before ``block`` in the blocks around it; the
    block's own arguments and results are added while it is checked and removed after (one
    set for the whole walk instead of a copy per nested block)."""
    defined = list(block.args)
    visible.update(defined)
    seen.values.extend(defined)
    try:
        _verify_ops(block, visible, tensor_only, where, terminator, parents, defined, seen)
    finally:
        visible.difference_update(defined)


def _verify_ops(block, visible, tensor_only, where, terminator, parents, defined,
                seen) -> None:
    if not block.ops or block.ops[-1].name != terminator:
        last = block.ops[-1].name if block.ops else "nothing"
        raise VerifyError(f"{where}: block must end with {terminator}, ends with {last}")
    for i, op in enumerate(block.ops):
        opdef = get(op.name)
        if opdef.terminator and i != len(block.ops) - 1:
            raise VerifyError(f"{_loc(where, op)}: terminator in the middle of a block")
        if tensor_only and opdef.level == "array":
            raise VerifyError(f"{_loc(where, op)}: array-level op left after "
                              "functionalization")
        seen.ops.add(id(op))
        for i, o in enumerate(op.operands):
            if o not in visible:
                raise VerifyError(f"{_loc(where, op)}: operand {o} is not defined before "
                                  "its use")
            if (op, i) not in o.uses:
                raise VerifyError(f"@{seen.name}: {op.name} operand "
                                  f"{i} is missing from its value's use list")
        if opdef.placement is not None:
            why = opdef.placement(parents)
            if why is not None:
                raise VerifyError(f"{_loc(where, op)}: {why}")
        if len(op.regions) != opdef.num_regions:
            raise VerifyError(f"{_loc(where, op)}: has {len(op.regions)} regions, expects "
                              f"{opdef.num_regions}")
        for r, term in zip(op.regions, opdef.region_terminators):
            _verify_block(r.block, visible, tensor_only, _loc(where, op), term, [op] + parents,
                          seen)
        types = [o.type for o in op.operands]
        try:
            inferred = (opdef.infer(types, op.attrs, op.regions) if opdef.num_regions
                        else opdef.infer(types, op.attrs))
        except (KeyError, TypeError) as e:
            raise VerifyError(f"{_loc(where, op)}: malformed attributes ({e})") from None
        except IRError as e:
            raise VerifyError(f"{_loc(where, op)}: {e}") from None
        actual = [r.type for r in op.results]
        if inferred != actual:
            raise VerifyError(f"{_loc(where, op)}: result types {actual} but the op gives "
                              f"{inferred}")
        if tensor_only and any(isinstance(t, RefType) for t in actual):
            raise VerifyError(f"{_loc(where, op)}: produces a ref after functionalization")
        visible.update(op.results)
        defined.extend(op.results)
        seen.values.extend(op.results)


def _loc(where: str, op) -> str:
    """Where an error message says the op stands (formatted only when needed)."""
    return f"{where}: {op.name}" + (f" ({op.loc})" if op.loc else "")


def _verify_uses(seen: _Seen) -> None:
    """Use lists agree with operands: every user in this function that a value lists really
    reads it there (that every operand lists its op as a user at that position is checked
    during the walk)."""
    in_fn = seen.ops
    for v in seen.values:
        for user, i in v.uses:
            if id(user) in in_fn and (i >= len(user.operands) or user.operands[i] is not v):
                raise VerifyError(f"@{seen.name}: stale use of a value by {user.name} "
                                  f"operand {i}")
