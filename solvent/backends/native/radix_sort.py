"""A stable sort of unsigned integer keys, with an optional int64 payload, as an LLVM function
of the module: ``i1 solvent_radix_u<w>[_idx](K *a, K *t, i64 *ia, i64 *it, i64 n)``.

Least-significant-digit radix sort, one byte per pass: one read of the keys counts every
byte's histogram, then each byte whose keys do not all share one value is a counting-sort
scatter from one buffer into the other (``a`` -> ``t`` or back), carrying the payload
along. A scatter keeps the order of equal digits, so the whole sort is stable. Fewer than
``SMALL`` keys are sorted in place by insertion, which is also stable. The result is the
sorted keys (and payload in the same permutation) in ``a``/``ia`` when the function returns
0, in ``t``/``it`` when it returns 1.

rules_sort.py maps every native dtype onto unsigned keys whose unsigned order is NumPy's
order (a sign bit flipped, a float's bits turned around when negative) and back.
"""
from __future__ import annotations

from llvmlite import ir

from .types import I1, I64

SMALL = 32
DIGIT = 8            # bits per pass (11 bits, 6 passes of 64-bit keys, measured slower at 1e6)
_BUCKETS = 1 << DIGIT


def _loop(fn, b, start, stop, body):
    """``for i in range(start, stop): body(i)`` (i64 registers or ints) at ``b``."""
    start = ir.Constant(I64, start) if isinstance(start, int) else start
    pre = b.block
    head = fn.append_basic_block("r.head")
    loop = fn.append_basic_block("r.body")
    done = fn.append_basic_block("r.done")
    b.branch(head)
    b.position_at_end(head)
    i = b.phi(I64)
    i.add_incoming(start, pre)
    b.cbranch(b.icmp_signed("<", i, stop), loop, done)
    b.position_at_end(loop)
    body(i)
    i.add_incoming(b.add(i, ir.Constant(I64, 1)), b.block)
    b.branch(head)
    b.position_at_end(done)


def radix_function(module: ir.Module, width: int, payload: bool) -> ir.Function:
    name = f"solvent_radix_u{width}{'_idx' if payload else ''}"
    fn = module.globals.get(name)
    if fn is not None:
        return fn
    K = ir.IntType(width)
    kp, ip = ir.PointerType(K), ir.PointerType(I64)
    fn = ir.Function(module, ir.FunctionType(I1, [kp, kp, ip, ip, I64]), name)
    fn.linkage = "internal"
    for a in fn.args[:4]:
        a.add_attribute("noalias")
    a, t, ia, it, n = fn.args
    entry = fn.append_basic_block("entry")
    b = ir.IRBuilder(entry)
    npass = width // DIGIT
    hist = b.alloca(ir.ArrayType(I64, npass * _BUCKETS))
    hist = b.bitcast(hist, ip)
    slots = {k: b.alloca(kp if k[0] == "k" else ip) for k in ("ks", "kd", "is", "id")}
    flag = b.alloca(I1)
    total = b.alloca(I64)
    small = fn.append_basic_block("small")
    big = fn.append_basic_block("big")
    b.cbranch(b.icmp_signed("<", n, ir.Constant(I64, SMALL)), small, big)

    def c(v):
        return ir.Constant(I64, v)

    def digit(k, j):
        d = b.lshr(k, ir.Constant(K, DIGIT * j)) if j else k
        d = b.and_(d, ir.Constant(K, _BUCKETS - 1))
        return b.zext(d, I64) if width < 64 else d

    def at(p, i):
        return b.gep(p, [i], inbounds=True)

    # --- fewer than SMALL keys: insertion sort in place ----------------------------------------
    b.position_at_end(small)

    def insert(i):
        k = b.load(at(a, i))
        p = b.load(at(ia, i)) if payload else None
        pre = b.block
        head = fn.append_basic_block("ins.head")
        test = fn.append_basic_block("ins.test")
        move = fn.append_basic_block("ins.move")
        done = fn.append_basic_block("ins.done")
        b.branch(head)
        b.position_at_end(head)
        j = b.phi(I64)
        j.add_incoming(i, pre)
        b.cbranch(b.icmp_signed(">", j, c(0)), test, done)
        b.position_at_end(test)
        jm = b.sub(j, c(1))
        prev = b.load(at(a, jm))
        b.cbranch(b.icmp_unsigned(">", prev, k), move, done)
        b.position_at_end(move)
        b.store(prev, at(a, j))
        if payload:
            b.store(b.load(at(ia, jm)), at(ia, j))
        j.add_incoming(jm, move)
        b.branch(head)
        b.position_at_end(done)
        b.store(k, at(a, j))
        if payload:
            b.store(p, at(ia, j))
    _loop(fn, b, 1, n, insert)
    b.ret(ir.Constant(I1, 0))

    # --- radix sort ----------------------------------------------------------------------------
    b.position_at_end(big)
    _loop(fn, b, 0, c(npass * _BUCKETS), lambda i: b.store(c(0), at(hist, i)))

    def count(i):
        k = b.load(at(a, i))
        for j in range(npass):
            h = at(hist, b.add(digit(k, j), c(j * _BUCKETS)))
            b.store(b.add(b.load(h), c(1)), h)
    _loop(fn, b, 0, n, count)
    b.store(a, slots["ks"])
    b.store(t, slots["kd"])
    b.store(ia, slots["is"])
    b.store(it, slots["id"])
    b.store(ir.Constant(I1, 0), flag)
    for j in range(npass):
        row = at(hist, c(j * _BUCKETS))
        ks, kd = b.load(slots["ks"]), b.load(slots["kd"])
        is_, id_ = b.load(slots["is"]), b.load(slots["id"])
        one = b.load(at(row, digit(b.load(ks), j)))
        scatter = fn.append_basic_block(f"pass{j}")
        after = fn.append_basic_block(f"pass{j}.done")
        b.cbranch(b.icmp_signed("==", one, n), after, scatter)   # one digit value: no move
        b.position_at_end(scatter)
        b.store(c(0), total)      # running sum: counts become first positions

        def prefix(d, row=row, total=total):
            cell, sofar = at(row, d), b.load(total)
            b.store(b.add(sofar, b.load(cell)), total)
            b.store(sofar, cell)
        _loop(fn, b, 0, c(_BUCKETS), prefix)

        def move(i, j=j, row=row, ks=ks, kd=kd, is_=is_, id_=id_):
            k = b.load(at(ks, i))
            cell = at(row, digit(k, j))
            pos = b.load(cell)
            b.store(k, at(kd, pos))
            if payload:
                b.store(b.load(at(is_, i)), at(id_, pos))
            b.store(b.add(pos, c(1)), cell)
        _loop(fn, b, 0, n, move)
        b.store(kd, slots["ks"])
        b.store(ks, slots["kd"])
        b.store(id_, slots["is"])
        b.store(is_, slots["id"])
        b.store(b.xor(b.load(flag), ir.Constant(I1, 1)), flag)
        b.branch(after)
        b.position_at_end(after)
    b.ret(b.load(flag))
    return fn
