"""Checks that became values (passes/checks_to_values) return early from sequential loops.

checks_to_values threads an error code (i32, 0 while no check failed) and its payload (i64)
through every loop as two more carried scalars, updated by a chain of selects per check.
A carried select chain is a loop-carried dependence that LLVM can neither vectorize nor
drop, and it keeps the loop running after a failure. On the native backend a loop lowered
sequentially (not a parallel chunk: there the flags fold per chunk, rules_parallel.py) that
carries the function's code and payload instead

- at entry: returns at once when the code it would carry in is already nonzero;
- in the body: takes code and payload as the constant 0;
- at the yield: returns at once when the new code is nonzero;
- after the loop: gives code and payload as 0.

"Returns" means: code and payload are stored as the function's last two results, the
others are left as they are, and the function ends normally; the executable raises from the
code before it reads any other result (backend.NativeExecutable).

In the chunk function of a parallel loop (rules_parallel.py) the same holds, for the
parallel loop itself and the loops in its body: the chunk starts from its code (chunk 0 from
the loop's init, the others from 0) and returns at once when it is nonzero; the body takes
code and payload as 0; at a nonzero code the chunk stops, storing code and payload into the
error record (kind ``ERR_CHECK``) as a failed native check does (``Ctx.fail_if``), and
returns 1. Every chunk then stops at its own first failure, checks as values and native
checks alike, and threads.py reports the lowest failing chunk's record: the first failure
in iteration order. A native check made after a check as value failed in the same chunk
defers to it (``Ctx.prior_code``), as in a sequential loop. Before, a chunk carried the
code as a value and went on, so a native check of a later iteration (or a later chunk)
stopped the program with its own error: ``out[i] = B[i] + A[row, 0]`` with ``row`` out of
bounds and ``B`` shorter than ``out`` reported B's index at i = len(B), where NumPy reports
``row`` at i = 0.

Identity: a failed check sets the code only while it is 0 (the first failure wins, as
Python stops there) and the payload only with it, so while the loop runs the code it carries
in is 0 exactly when the payload is, and once the code is nonzero every later result is
discarded by the runtime (it raises before writing anything back). Returning at the first
nonzero code therefore reports the same (code, payload) the threaded values would.
"""
from __future__ import annotations

from llvmlite import ir

from ...ir.core import Function, Operation


def error_slots(fn: Function) -> dict:
    """``{loop op: (carried index of the code, carried index of the payload)}`` for every
    loop that carries the code and payload the function returns last, traced back from the
    return through the loops and ifs that carry them and the checks' selects between (a
    loop followed by a check in the body of an outer loop: spmv_ell_loops' row loop, then
    the norm's sqrt; without the selects that loop carried the code as a value and its
    native index checks, deferring to that code, could not fold it: 13.6 -> 6.3 ms per
    call with raise_loops data_gathers=False, one thread)."""
    slots: dict = {}
    if not fn.errors:
        return slots
    ret = fn.body.terminator
    if len(ret.operands) < 2:
        return slots

    def back(v, kind):
        # through the selects of the checks after the loop (chain_values' rule): a nonzero
        # code the loop gives passes them unchanged, with its payload
        while isinstance(v.owner, Operation) and v.owner.name == "tensor.select" and (
                kind or getattr(v.owner.operands[1].owner, "name", None) == "tensor.constant"):
            v = v.owner.operands[2]
        return v

    def trace(code, payload):
        code, payload = back(code, 0), back(payload, 1)
        op = code.owner
        if not isinstance(op, Operation) or payload.owner is not op:
            return
        if code.type.dtype != "i32" or payload.type.dtype != "i64" or code.type.rank \
                or payload.type.rank:
            return
        if op.name in ("loop.for", "loop.while"):
            slots[op] = (code.index, payload.index)
            blocks = [op.regions[-1].block]
        elif op.name == "loop.if":
            blocks = [r.block for r in op.regions]
        else:
            return
        for blk in blocks:
            t = blk.terminator
            trace(t.operands[code.index], t.operands[payload.index])

    trace(ret.operands[-2], ret.operands[-1])
    return slots


def chain_values(fn: Function) -> dict:
    """``{value: 0 (a code) or 1 (a payload)}`` for the values of the code and payload
    chains the function returns last, each traced back from its return operand through the
    selects the checks add (``select(failed, k, code)``; passes may merge the payload's),
    the loops and ifs that carry it, and their block arguments. ``Ctx`` follows them while
    it lowers, so that a check made inside a native op (an index outside its dimension)
    knows whether a check before it, in program order, has failed already: then that
    earlier failure is the one Python raises."""
    out: dict = {}
    if not fn.errors:
        return out
    ret = fn.body.terminator
    if len(ret.operands) < 2:
        return out
    todo = [(ret.operands[-2], 0), (ret.operands[-1], 1)]
    while todo:
        v, kind = todo.pop()
        if v in out or v.type.rank or v.type.dtype != ("i32", "i64")[kind]:
            continue
        out[v] = kind
        op = v.owner
        if not isinstance(op, Operation):
            continue
        if op.name == "tensor.select":
            if kind == 0 and not _nonzero_code(op.operands[1].owner):
                continue   # a code is set to a constant (or a select of them: a run)
            todo.append((op.operands[2], kind))
        elif op.name in ("loop.for", "loop.while"):
            i = v.index
            todo.append((op.operands[(3 if op.name == "loop.for" else 0) + i], kind))
            skip = 1 if op.name == "loop.for" else 0   # the induction variable
            for region in op.regions:
                blk = region.block
                out[blk.args[skip + i]] = kind
                if blk.terminator.name == "loop.yield":
                    todo.append((blk.terminator.operands[i], kind))
        elif op.name == "loop.if":
            for region in op.regions:
                todo.append((region.block.terminator.operands[v.index], kind))
    return out


# ``Ctx.error_ret`` of a parallel chunk: a failure is stored in the error record
IN_RECORD = "in the error record"


def applies(op: Operation, ctx) -> tuple | None:
    """(code index, payload index) when ``op`` is lowered with early returns, else None."""
    if ctx.error_ret is None:
        return None
    return ctx.error_slots.get(op)


def return_if_failed(ctx, code, payload, value=None) -> None:
    """Emit: if ``code`` != 0, store it and ``payload`` as the last two results and return
    (in a parallel chunk: into the error record, and return 1).
    ``value``: the IR value lowered to ``code``, when known (see ``failed_condition``)."""
    b = ctx.b
    if isinstance(code, ir.Constant) and code.constant == 0:
        return
    bad = ctx.fn.append_basic_block("check.failed")
    ok = ctx.fn.append_basic_block("check.ok")
    failed = failed_condition(ctx, value) if value is not None else None
    if failed is None:
        failed = b.icmp_signed("!=", code, ir.Constant(code.type, 0))
    br = b.cbranch(failed, bad, ok)
    br.set_weights([1, 1 << 20])
    b.position_at_end(bad)
    if ctx.error_ret is IN_RECORD:
        from .context import ERR_CHECK
        from .types import I32, I64
        rec = [ir.Constant(I64, -1), b.sext(payload, I64) if payload.type != I64 else payload,
               ir.Constant(I64, 0), b.sext(code, I64), ir.Constant(I64, ERR_CHECK)]
        for k, v in enumerate(rec):
            b.store(v, b.gep(ctx._err, [ir.Constant(I32, k)]))
        ctx.leave(1)
    else:
        code_ref, payload_ref = ctx.error_ret
        ctx.store(code_ref, [], code)
        ctx.store(payload_ref, [], payload)
        ctx.leave(0)
    b.position_at_end(ok)


def zero(v) -> ir.Constant:
    return ir.Constant(v.type, 0)


def failed_condition(ctx, code):
    """``code != 0`` for the IR value ``code`` of the chain, as the disjunction of the
    conditions of the selects that set it: ``select(c, k, prev) != 0`` is ``c or prev != 0``
    for a constant ``k`` != 0, down to a value lowered to the constant 0 (the code a
    sequential loop's body takes in) or one that is no such select (then ``!= 0``). None
    when ``code`` is no such select.

    The branch then needs only the checks' conditions, and the selects that compute the
    code, used only where the function returns with it, are sunk there by LLVM. Testing the
    code itself made every iteration compute the whole chain: histogram_loops' bin index
    (``math.floor``'s three checks: NaN, infinity, beyond int64) took ~25 instructions per
    sample against Numba's 8 (without checks), 318 us against 155 us on 90000 samples."""
    from .types import I1
    b, conds = ctx.b, []
    v = code
    while True:
        x = ctx.env.get(v)
        if isinstance(x, ir.Constant) and x.constant == 0:
            break
        op = v.owner
        k = op.operands[1].owner if isinstance(op, Operation) and \
            op.name == "tensor.select" else None
        c = ctx.env.get(op.operands[0]) if k is not None else None
        if not (_nonzero_code(k) and isinstance(c, ir.Value) and c.type == I1):
            if not conds or not isinstance(x, ir.Value):
                return None
            conds.append(b.icmp_signed("!=", x, ir.Constant(x.type, 0)))
            break
        conds.append(_unless_set(ctx, op.operands[0], op.operands[2]) or c)
        v = op.operands[2]
    return _any(b, conds) if conds else None


def _nonzero_code(k) -> bool:
    """Whether the op ``k`` is a nonzero constant code, or a select between such (a run of
    checks set in one select: checks_to_values.checks)."""
    if not isinstance(k, Operation):
        return False
    if k.name == "tensor.constant":
        return k.attrs["value"] != 0
    return k.name == "tensor.select" and all(_nonzero_code(o.owner) for o in k.operands[1:])


def _unless_set(ctx, cond, prev):
    """For a check's condition ``cond = and(failed, prev == 0)`` (checks_to_values: set the
    code only while it is 0): the register of ``failed``, else None. In the disjunction
    with ``prev != 0`` the second term is redundant, and it is the one that makes the test
    wait for the chain's selects."""
    op = cond.owner
    if not isinstance(op, Operation) or op.name != "tensor.and" or len(op.operands) != 2:
        return None
    for k in (0, 1):
        eq = op.operands[k].owner
        if isinstance(eq, Operation) and eq.name == "tensor.eq" and prev in eq.operands:
            other = eq.operands[1] if eq.operands[0] is prev else eq.operands[0]
            z = other.owner
            x = ctx.env.get(op.operands[1 - k])
            if isinstance(z, Operation) and z.name == "tensor.constant" and \
                    z.attrs["value"] == 0 and isinstance(x, ir.Value):
                return x
    return None


def _any(b, conds):
    out = conds[0]
    for c in conds[1:]:
        out = b.or_(out, c)
    return out


def exit_at_check(ctx, block, pos: int) -> None:
    """After ``block.ops[pos]`` of the body of a loop lowered with early returns: when that
    op set the payload (a check's ``select``; checks_to_values sets the code first, then the
    payload with it), return there if the code is nonzero, and lower what follows with the
    code as the constant 0 it is on that path.

    The return at the yield is the same test later (nothing after the check can change a
    nonzero code or its payload, and the runtime discards everything else); here what
    follows knows the check held. histogram_loops: ``b = math.floor(v)`` checked that
    ``floor(v)`` is no NaN, no infinity and within int64, and the conversion to int64 kept
    a clamp (``select(in range, fptosi(...), INT64_MIN)``) because the return on the code
    came only at the yield, after the bin's update; returning at the check, the same
    comparisons (CSE'd by LLVM) decide the clamp and it folds away. Not before an op that
    checks indices itself naming the first bad one (errors_first.refines_later)."""
    from .errors_first import refines_later
    op = block.ops[pos]
    if op.name != "tensor.select" or ctx.err_chain.get(op.results[0]) != 1:
        return
    code, payload = ctx.cur_err
    value = ctx.cur_err_v[0]
    if not isinstance(code, ir.Value) or isinstance(code, ir.Constant) or \
            not isinstance(payload, ir.Value) or refines_later(block, pos):
        return
    return_if_failed(ctx, code, payload, value=value)
    # past the return the code is 0 (the payload too, as checks_to_values sets it with the
    # code, but that order is not checked here: it keeps its register, used only where the
    # function returns with it)
    ctx.cur_err[0] = ctx.env[value] = ir.Constant(code.type, 0)
