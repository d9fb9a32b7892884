"""Run-time checks become values: an error code and its payload, returned by the function.

Each ``error.check %ok [, %payload] {kind, message}`` (ops/checks.py) gets a code 1, 2, ...
and an entry ``[kind, message, source line]`` in ``Function.errors``. The pass threads two
scalars through the program in order — ``code`` (i32, 0 while no check has failed) and
``payload`` (i64) — and replaces every check by

    failed_now = !ok & (code == 0)          # the first failure wins, as Python stops there
    code    = select(failed_now, <this check's code>, code)
    payload = select(failed_now, <payload or 0>, payload)

Regions that hold checks carry the pair: ``loop.for`` and ``loop.if`` as two more carried
values / results; ``loop.while`` too, and its condition also requires ``code == 0`` so that
a failed check ends the loop (a read clamped into bounds must not keep a ``while`` running
forever). A while-condition cannot hand values out, so its checks are evaluated once more
after the loop, on the loop's final values: the evaluation that ended the loop is exactly
that one. The function returns ``code`` and ``payload`` as its last two results; the
runtime raises before it writes anything back. An ``io.print`` takes the code as one more
operand (``guarded``): it prints only while no check has failed.

Identity: on every input where no check fails, every original result is computed by the
same ops from the same values (the pass only adds values), so results are unchanged.
"""
from __future__ import annotations

from ..ir.core import Block, Function, Operation, Value, clone_op
from ..ir.registry import get
from ..ir.types import TensorType
from .base import Pass

CODE = TensorType((), "i32")
PAYLOAD = TensorType((), "i64")


def _has_checks(op: Operation) -> bool:
    """Whether ``op`` holds a check, or a print (which needs the code: it prints nothing
    once a check has failed, as Python would have stopped there)."""
    return any(inner.name in ("error.check", "io.print") for inner in op.walk())


class _Threader:
    def __init__(self):
        self.errors: list[list] = []

    # --- emitting into a new op list -----------------------------------------------------
    @staticmethod
    def emit(out: list, name: str, operands: list, loc=None, **attrs) -> Value:
        types = [o.type for o in operands]
        op = Operation(name, operands, get(name).infer(types, attrs), attrs, None, loc)
        out.append(op)
        return op.result

    def const(self, out, value, t: TensorType) -> Value:
        return self.emit(out, "tensor.constant", [], value=value, dtype=t.dtype)

    # --- the walk ----------------------------------------------------------------------------
    def block(self, block: Block, code: Value, payload: Value) -> tuple[Value, Value]:
        """Thread (code, payload) through ``block``; returns the values at its end (before
        its terminator, which the caller extends)."""
        out: list = []
        ops = block.ops
        i = 0
        while i < len(ops):
            op = ops[i]
            i += 1
            if op.name == "error.check":
                run, between, end = _payload_free_run(ops, i - 1)
                if len(run) > 1:
                    out.extend(between)
                    code, payload = self.checks(run, out, code, payload)
                    i = end
                    continue
                code, payload = self.check(op, out, code, payload)
                continue
            if op.name == "io.print":
                op.operands.append(code)
                op.attrs = dict(op.attrs, guarded=True)
            if op.regions and _has_checks(op):
                code, payload = self.region_op(op, out, code, payload)
                continue
            out.append(op)
        block.keep_only(out)
        return code, payload

    def check(self, op, out, code, payload):
        self.errors.append([op.attrs["kind"], op.attrs["message"], str(op.loc or "")])
        k = len(self.errors)
        ok = op.operands[0]
        loc = op.loc
        zero = self.const(out, 0, CODE)
        clean = self.emit(out, "tensor.eq", [code, zero], loc)
        bad = self.emit(out, "tensor.not", [ok], loc)
        failed = self.emit(out, "tensor.and", [bad, clean], loc)
        new_code = self.emit(out, "tensor.select", [failed, self.const(out, k, CODE), code], loc)
        value = op.operands[1] if len(op.operands) > 1 else self.const(out, 0, PAYLOAD)
        new_payload = self.emit(out, "tensor.select", [failed, value, payload], loc)
        return new_code, new_payload

    def checks(self, run, out, code, payload):
        """A run of payload-free checks with only pure ops between them, as one select:
        the code of the first failing check of the run, set when the code is still 0 and
        not every check holds (see _payload_free_run)."""
        ks = []
        for op in run:
            self.errors.append([op.attrs["kind"], op.attrs["message"], str(op.loc or "")])
            ks.append(len(self.errors))
        loc = run[-1].loc
        oks = [op.operands[0] for op in run]
        # a condition `c or x` whose `c` is another of the run's conditions holds wherever c
        # does, so the conjunction needs only the others (c and (c or x) = c: int() of a
        # float tests `fits or not isnan`, `fits or not isinf`, `fits`: all hold iff fits)
        by = [absorbed_by(ok, oks) for ok in oks]
        kept = [ok for ok, c in zip(oks, by) if c is None]
        tests = oks
        if len(kept) == 1:   # which is read only where kept[0] fails: there `c or x` is x
            tests = [_other(ok, c) if c is kept[0] else ok for ok, c in zip(oks, by)]
        which = self.const(out, ks[-1], CODE)
        for ok, k in zip(reversed(tests[:-1]), reversed(ks[:-1])):
            which = self.emit(out, "tensor.select", [ok, which, self.const(out, k, CODE)], loc)
        all_ok = kept[0]
        for ok in kept[1:]:
            all_ok = self.emit(out, "tensor.and", [all_ok, ok], loc)
        zero = self.const(out, 0, CODE)
        clean = self.emit(out, "tensor.eq", [code, zero], loc)
        bad = self.emit(out, "tensor.not", [all_ok], loc)
        failed = self.emit(out, "tensor.and", [bad, clean], loc)
        new_code = self.emit(out, "tensor.select", [failed, which, code], loc)
        new_payload = self.emit(out, "tensor.select", [failed, self.const(out, 0, PAYLOAD),
                                                       payload], loc)
        return new_code, new_payload

    def region_op(self, op, out, code, payload):
        if op.name == "loop.for":
            body = op.regions[0].block
            c_in, p_in = body.add_arg(CODE, "err"), body.add_arg(PAYLOAD, "err_payload")
            self._extend_terminator(body, *self.block(body, c_in, p_in))
            return self._extend_op(op, out, [code, payload])
        if op.name == "loop.if":
            for region in op.regions:
                self._extend_terminator(region.block, *self.block(region.block, code, payload))
            return self._extend_op(op, out, [])
        if op.name == "loop.while":
            return self.while_op(op, out, code, payload)
        raise NotImplementedError(f"checks inside {op.name}")  # no other op has regions

    def while_op(self, op, out, code, payload):
        cond, body = (r.block for r in op.regions)
        c_in, p_in = body.add_arg(CODE, "err"), body.add_arg(PAYLOAD, "err_payload")
        self._extend_terminator(body, *self.block(body, c_in, p_in))
        clone = None
        if _has_checks_in(cond):  # cloned before threading changes the condition's ops
            vmap = dict(zip(cond.args, op.results))
            clone = Block()
            for old in cond.ops[:-1]:
                clone.ops.append(clone_op(old, vmap))
        cc, cp = cond.add_arg(CODE, "err"), cond.add_arg(PAYLOAD, "err_payload")
        c_end, _ = self.block(cond, cc, cp)
        term = cond.terminator
        zero = self.const(cond.ops, 0, CODE)
        clean = self.emit(cond.ops, "tensor.eq", [c_end, zero], term.loc)
        go = self.emit(cond.ops, "tensor.and", [term.operands[0], clean], term.loc)
        cond.ops.remove(term)
        cond.ops.append(term)
        term.operands[0] = go
        for o in cond.ops:
            o.parent = cond
        code, payload = self._extend_op(op, out, [code, payload])
        if clone is not None:  # the checks of the evaluation that ended the loop
            code, payload = self.block(clone, code, payload)
            out.extend(clone.ops)
        return code, payload

    @staticmethod
    def _extend_terminator(block: Block, code, payload):
        block.terminator.operands.extend([code, payload])

    @staticmethod
    def _extend_op(op, out, operands):
        """``op`` with two more operands (if given) and two more results."""
        op.operands.extend(operands)
        n = len(op.results)
        op.results.extend([Value(CODE, op, n, "err"), Value(PAYLOAD, op, n + 1, "err_payload")])
        out.append(op)
        return op.results[n], op.results[n + 1]


def _payload_free_run(ops: list, start: int) -> tuple[list, list, int]:
    """The payload-free checks from ``ops[start]`` on with only pure, region-free ops
    between them (int() of a float: NaN, infinity, beyond int64), the ops between them, and
    the index after the last check of the run.

    Identity: the run's checks in order set ``code`` to the code of the first one that
    fails, and only while ``code`` is 0, with payload 0; one select of
    ``select(ok1, select(ok2, ... Kn, K2), K1)`` under ``!(ok1 & ... & okn) & code == 0``
    sets the same code and payload. The ops between them read neither (only checks and
    prints do), so they may stay before it. One condition per run instead of one chain
    per check: a raised loop carries the code per element, where each check cost four ops
    per step. A condition ``c or x`` with ``c`` another condition of the run drops out of
    the conjunction (it holds wherever ``c`` does); when one condition ``c`` is left, the
    select reads ``x`` for ``c or x``, equal to it where the select is read (``c`` false)."""
    run, between, end, pending = [], [], start, []
    for k in range(start, len(ops)):
        op = ops[k]
        if op.name == "error.check":
            if len(op.operands) != 1:
                break
            run.append(op)
            between.extend(pending)
            pending, end = [], k + 1
        elif not op.regions and op.name != "io.print" and get(op.name).pure:
            pending.append(op)
        else:
            break
    return run, between, end


def absorbed_by(ok: Value, oks: list):
    """The other condition ``c`` of ``oks`` when ``ok`` is ``c or x`` (either order)."""
    o = ok.owner
    if isinstance(o, Operation) and o.name == "tensor.or":
        for c in o.operands:
            if c is not ok and any(c is other for other in oks):
                return c
    return None


def _other(ok: Value, c: Value) -> Value:
    a, b = ok.owner.operands
    return b if a is c else a


def _has_checks_in(block: Block) -> bool:
    return any(op.name == "error.check" for op in block.walk())


def checks_to_values(fn: Function) -> Function:
    if not any(op.name == "error.check" for op in fn.walk()):
        return fn
    t = _Threader()
    pre: list = []
    code, payload = t.const(pre, 0, CODE), t.const(pre, 0, PAYLOAD)
    code, payload = t.block(fn.body, code, payload)
    fn.body.ops[:0] = pre
    for op in pre:
        op.parent = fn.body
    ret = fn.body.terminator
    ret.operands.extend([code, payload])
    if fn.writeback:
        fn.writeback = list(fn.writeback) + [None, None]
    fn.errors = t.errors
    return fn


class ChecksToValues(Pass):
    name = "checks_to_values"

    def run(self, fn: Function) -> Function:
        return checks_to_values(fn)
