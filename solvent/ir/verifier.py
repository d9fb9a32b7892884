"""The IR verifier: runs after every pass under test.

Checks that every op is registered and well formed (its record's type inference accepts its
operands and attributes and agrees with its result types), that every use is dominated by
its definition (structured regions: defined earlier in the block or in an enclosing block),
that an op whose record restricts where it stands (``placement``) stands there,
that each region ends in the terminator its op's record names (``region_terminators``), and
optionally that no array-level op or ref is left (after functionalization).
"""
from __future__ import annotations

from .core import Block, Function
from .types import RefType
from .registry import IRError, get


class VerifyError(IRError):
    pass


def verify(fn: Function, tensor_only: bool = False) -> None:
    visible: set = set(fn.args)   # grows on entering a block, shrinks on leaving it
    if tensor_only and any(isinstance(a.type, RefType) for a in fn.args):
        raise VerifyError("function still takes refs after functionalization")
    _verify_block(fn.body, visible, tensor_only, where=f"@{fn.name}", terminator="func.return",
                  parents=[])
    _verify_uses(fn)
    if fn.writeback and len(fn.writeback) != len(fn.result_types):
        raise VerifyError("writeback list does not match the function results")


def _verify_block(block: Block, visible: set, tensor_only: bool, where: str,
                  terminator: str, parents: list) -> None:
    """``visible`` holds the values defined before ``block`` in the blocks around it; the
    block's own arguments and results are added while it is checked and removed after (one
    set for the whole walk instead of a copy per nested block)."""
    defined = list(block.args)
    visible.update(defined)
    try:
        _verify_ops(block, visible, tensor_only, where, terminator, parents, defined)
    finally:
        visible.difference_update(defined)


def _verify_ops(block, visible, tensor_only, where, terminator, parents, defined) -> None:
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
        for o in op.operands:
            if o not in visible:
                raise VerifyError(f"{_loc(where, op)}: operand {o} is not defined before "
                                  "its use")
        if opdef.placement is not None:
            why = opdef.placement(parents)
            if why is not None:
                raise VerifyError(f"{_loc(where, op)}: {why}")
        if len(op.regions) != opdef.num_regions:
            raise VerifyError(f"{_loc(where, op)}: has {len(op.regions)} regions, expects "
                              f"{opdef.num_regions}")
        for r, term in zip(op.regions, opdef.region_terminators):
            _verify_block(r.block, visible, tensor_only, _loc(where, op), term, [op] + parents)
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


def _loc(where: str, op) -> str:
    """Where an error message says the op stands (formatted only when needed)."""
    return f"{where}: {op.name}" + (f" ({op.loc})" if op.loc else "")


def _verify_uses(fn: Function) -> None:
    """Use lists agree with operands: every operand lists its op as a user at that position,
    and every user in this function that a value lists really reads it there."""
    ops = list(fn.walk())
    in_fn = set(map(id, ops))
    values = list(fn.args)
    for op in ops:
        for i, v in enumerate(op.operands):
            if (op, i) not in v.uses:
                raise VerifyError(f"@{fn.name}: {op.name} operand {i} is missing from its "
                                  "value's use list")
        values.extend(op.results)
        for r in op.regions:
            values.extend(r.block.args)
    for v in values:
        for user, i in v.uses:
            if id(user) in in_fn and (i >= len(user.operands) or user.operands[i] is not v):
                raise VerifyError(f"@{fn.name}: stale use of a value by {user.name} "
                                  f"operand {i}")
