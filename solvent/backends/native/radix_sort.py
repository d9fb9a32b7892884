"""A stable sort of unsigned integer keys, with an optional int64 payload, as LLVM functions
of the module: ``i1 solvent_radix_u<w>[_idx](K *a, K *t, i64 *ia, i64 *it, i64 n)``.

Least-significant-digit radix sort, one byte per pass (``solvent_lsd_*``): one read of the
keys counts every byte's histogram, then each byte whose keys do not all share one value is
a counting-sort scatter from one buffer into the other (``a`` -> ``t`` or back), carrying the
payload along. A scatter keeps the order of equal digits, so the whole sort is stable. Fewer
than ``SMALL`` keys are sorted in place by insertion, which is also stable.

From ``BIG`` keys on, the scatters of an LSD pass leave the caches (measured: 1e6 float64
keys took about twice the time per pass of 1e5), so the entry function first splits the keys
by their highest byte that is not the same in all of them (``solvent_msd_*``, one count and
one scatter ``a`` -> ``t``), then sorts each bucket on its own, recursively (a bucket of BIG
keys or more) or by LSD, and copies a bucket's result back into ``a`` where it ended in
``t``. The bytes above the split are equal within a bucket, and its own LSD passes skip them.

The result is the sorted keys (and payload in the same permutation) in ``a``/``ia`` when the
function returns 0, in ``t``/``it`` when it returns 1.

rules_sort.py maps every native dtype onto unsigned keys whose unsigned order is NumPy's
order (a sign bit flipped, a float's bits turned around when negative) and back.
"""
from __future__ import annotations

from llvmlite import ir

from .types import I1, I64

SMALL = 32
# float64 sort, ms at 1e5 / 1e6 / 4e6 keys: BIG 2^16 2.4 / 34 / 149, 2^18 2.1 / 26 / 144,
# no split 1.3 / 29 / 165 (one loaded run, CPU time)
BIG = 1 << 18
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


class _Sorter:
    """One function of the family being emitted: its arguments, histograms and helpers."""

    def __init__(self, module, name, width, payload):
        self.K = K = ir.IntType(width)
        self.kp, self.ip = ir.PointerType(K), ir.PointerType(I64)
        self.fn = fn = ir.Function(module, ir.FunctionType(
            I1, [self.kp, self.kp, self.ip, self.ip, I64]), name)
        fn.linkage = "internal"
        for arg in fn.args[:4]:
            arg.add_attribute("noalias")
        self.width, self.payload = width, payload
        self.npass = width // DIGIT
        self.b = b = ir.IRBuilder(fn.append_basic_block("entry"))
        self.hist = b.bitcast(b.alloca(ir.ArrayType(I64, self.npass * _BUCKETS)), self.ip)
        self.total = b.alloca(I64)

    def c(self, v):
        return ir.Constant(I64, v)

    def at(self, p, i):
        return self.b.gep(p, [i], inbounds=True)

    def digit(self, k, shift):
        """Byte of key ``k`` at bit ``shift`` (an int or a K register), as an i64."""
        b = self.b
        if isinstance(shift, int):
            shift = ir.Constant(self.K, shift)
        d = b.and_(b.lshr(k, shift), ir.Constant(self.K, _BUCKETS - 1))
        return b.zext(d, I64) if self.width < 64 else d

    def count(self, a, n):
        """Histograms of every byte of ``a[:n]`` (row j: byte j)."""
        b, c = self.b, self.c
        _loop(self.fn, b, 0, c(self.npass * _BUCKETS), lambda i: b.store(c(0), self.at(self.hist, i)))

        def one(i):
            k = b.load(self.at(a, i))
            for j in range(self.npass):
                h = self.at(self.hist, b.add(self.digit(k, DIGIT * j), c(j * _BUCKETS)))
                b.store(b.add(b.load(h), c(1)), h)
        _loop(self.fn, b, 0, n, one)

    def scatter(self, row, shift, src, dst, srci, dsti, n):
        """Counting-sort scatter of ``src[:n]`` into ``dst`` by the byte at ``shift``, whose
        histogram is ``row`` (turned into first positions, then advanced)."""
        b, at = self.b, self.at
        b.store(self.c(0), self.total)

        def prefix(d):
            cell, sofar = at(row, d), b.load(self.total)
            b.store(b.add(sofar, b.load(cell)), self.total)
            b.store(sofar, cell)
        _loop(self.fn, b, 0, self.c(_BUCKETS), prefix)

        def move(i):
            k = b.load(at(src, i))
            cell = at(row, self.digit(k, shift))
            pos = b.load(cell)
            b.store(k, at(dst, pos))
            if self.payload:
                b.store(b.load(at(srci, i)), at(dsti, pos))
            b.store(b.add(pos, self.c(1)), cell)
        _loop(self.fn, b, 0, n, move)


def _insertion(s: _Sorter, a, ia, n):
    """Insertion sort of ``a[:n]`` in place (stable: a key moves past greater keys only)."""
    b, c, at, fn = s.b, s.c, s.at, s.fn

    def insert(i):
        k = b.load(at(a, i))
        p = b.load(at(ia, i)) if s.payload else None
        pre = b.block
        head, test, move, done = (fn.append_basic_block(f"ins.{x}")
                                  for x in ("head", "test", "move", "done"))
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
        if s.payload:
            b.store(b.load(at(ia, jm)), at(ia, j))
        j.add_incoming(jm, move)
        b.branch(head)
        b.position_at_end(done)
        b.store(k, at(a, j))
        if s.payload:
            b.store(p, at(ia, j))
    _loop(fn, b, 1, n, insert)


def _lsd_function(module, width, payload):
    name = f"solvent_lsd_u{width}{'_idx' if payload else ''}"
    if name in module.globals:
        return module.globals[name]
    s = _Sorter(module, name, width, payload)
    b, c, fn = s.b, s.c, s.fn
    a, t, ia, it, n = fn.args
    slots = {k: b.alloca(s.kp if k[0] == "k" else s.ip) for k in ("ks", "kd", "is", "id")}
    flag = b.alloca(I1)
    small, big = fn.append_basic_block("small"), fn.append_basic_block("big")
    b.cbranch(b.icmp_signed("<", n, c(SMALL)), small, big)
    b.position_at_end(small)
    _insertion(s, a, ia, n)
    b.ret(ir.Constant(I1, 0))

    b.position_at_end(big)
    s.count(a, n)
    for k, v in zip(("ks", "kd", "is", "id"), (a, t, ia, it)):
        b.store(v, slots[k])
    b.store(ir.Constant(I1, 0), flag)
    for j in range(s.npass):
        row = s.at(s.hist, c(j * _BUCKETS))
        ks, kd, is_, id_ = (b.load(slots[k]) for k in ("ks", "kd", "is", "id"))
        one = b.load(s.at(row, s.digit(b.load(ks), DIGIT * j)))
        scatter = fn.append_basic_block(f"pass{j}")
        after = fn.append_basic_block(f"pass{j}.done")
        b.cbranch(b.icmp_signed("==", one, n), after, scatter)   # one digit value: no move
        b.position_at_end(scatter)
        s.scatter(row, DIGIT * j, ks, kd, is_, id_, n)
        for k, v in zip(("ks", "kd", "is", "id"), (kd, ks, id_, is_)):
            b.store(v, slots[k])
        b.store(b.xor(b.load(flag), ir.Constant(I1, 1)), flag)
        b.branch(after)
        b.position_at_end(after)
    b.ret(b.load(flag))
    return fn


def radix_function(module: ir.Module, width: int, payload: bool) -> ir.Function:
    name = f"solvent_radix_u{width}{'_idx' if payload else ''}"
    if name in module.globals:
        return module.globals[name]
    lsd = _lsd_function(module, width, payload)
    if width == 8:    # one pass in all: nothing to split
        return lsd
    s = _Sorter(module, name, width, payload)
    b, c, fn, at = s.b, s.c, s.fn, s.at
    a, t, ia, it, n = fn.args
    split, small = fn.append_basic_block("split"), fn.append_basic_block("lsd")
    b.cbranch(b.icmp_signed("<", n, c(BIG)), small, split)
    b.position_at_end(small)
    b.ret(b.call(lsd, fn.args))

    b.position_at_end(split)
    s.count(a, n)
    first = b.load(a)
    top = c(-1)     # the highest byte not shared by all keys (-1: all keys are equal)
    for j in range(s.npass):
        one = b.load(at(s.hist, b.add(s.digit(first, DIGIT * j), c(j * _BUCKETS))))
        top = b.select(b.icmp_signed("!=", one, n), c(j), top)
    equal, go = fn.append_basic_block("equal"), fn.append_basic_block("scatter")
    b.cbranch(b.icmp_signed("<", top, c(0)), equal, go)
    b.position_at_end(equal)
    b.ret(ir.Constant(I1, 0))

    b.position_at_end(go)
    row = at(s.hist, b.mul(top, c(_BUCKETS)))
    shift = b.mul(top, c(DIGIT))
    s.scatter(row, b.trunc(shift, s.K) if s.width < 64 else shift, a, t, ia, it, n)
    # row[d] is now the end of bucket d; bucket d starts where bucket d - 1 ends
    b.store(c(0), s.total)

    def bucket(d):
        start, end = b.load(s.total), b.load(at(row, d))
        b.store(end, s.total)
        m = b.sub(end, start)
        pre = b.block
        deep, shallow, back = (fn.append_basic_block(f"bucket.{x}")
                               for x in ("msd", "lsd", "back"))
        many = fn.append_basic_block("bucket.many")
        b.cbranch(b.icmp_signed(">", m, c(1)), many, back)   # 0 or 1 key: nothing to sort
        b.position_at_end(many)
        args = [at(t, start), at(a, start), at(it, start) if s.payload else it,
                at(ia, start) if s.payload else ia, m]
        b.cbranch(b.icmp_signed("<", m, c(BIG)), shallow, deep)
        b.position_at_end(deep)
        f_deep = b.call(fn, args)
        b.branch(back)
        b.position_at_end(shallow)
        f_lsd = b.call(lsd, args)
        b.branch(back)
        b.position_at_end(back)
        f = b.phi(I1)
        f.add_incoming(ir.Constant(I1, 0), pre)
        f.add_incoming(f_deep, deep)
        f.add_incoming(f_lsd, shallow)
        copy, done = fn.append_basic_block("bucket.copy"), fn.append_basic_block("bucket.done")
        b.cbranch(f, done, copy)            # 1: the bucket's result is in a already
        b.position_at_end(copy)

        def back_to_a(i):
            j = b.add(start, i)
            b.store(b.load(at(t, j)), at(a, j))
            if s.payload:
                b.store(b.load(at(it, j)), at(ia, j))
        _loop(fn, b, 0, m, back_to_a)
        b.branch(done)
        b.position_at_end(done)

    _loop(fn, b, 0, c(_BUCKETS), bucket)
    b.ret(ir.Constant(I1, 0))
    return fn
