"""Shape identities: views and copies that compose or do nothing, and reads pushed to where
the elements come from. All are exact (the same elements, or the same elementwise function
of the same elements)."""
from __future__ import annotations

from ...ir.core import Operation
from ...ir.registry import get
from ...ir.rewrite import Pattern, defining
from ._samples import unary_chain


def _transpose_transpose(op, rw):
    inner = defining(op.operands[0], "tensor.transpose")
    if inner is None:
        return False
    p, q = inner.attrs["perm"], op.attrs["perm"]
    composed = [p[k] for k in q]
    x = inner.operands[0]
    if composed == list(range(len(composed))):
        rw.replace_op(op, [x])
    else:
        rw.replace_op(op, [rw.one("tensor.transpose", x, perm=composed)])
    return True


def _identity_transpose(op, rw):
    if list(op.attrs["perm"]) != list(range(len(op.attrs["perm"]))):
        return False
    rw.replace_op(op, [op.operands[0]])
    return True


def _reshape_reshape(op, rw):
    inner = defining(op.operands[0], "tensor.reshape")
    if inner is None:
        return False
    x = inner.operands[0]
    if x.type.shape == op.result.type.shape:
        rw.replace_op(op, [x])
    else:
        rw.replace_op(op, [rw.one("tensor.reshape", x, shape=list(op.result.type.shape))])
    return True


def operand_if_same_type(op, rw):
    """op(x) -> x when the op's result has x's type (a no-op convert, reshape, broadcast)."""
    if op.operands[0].type != op.result.type:
        return False
    rw.replace_op(op, [op.operands[0]])
    return True


def _full_slice(op, rw):
    from ...ops.indexspec import is_full
    if len(op.operands) != 1 or not is_full(op.operands[0].type.shape, op.attrs["spec"]) or \
            op.operands[0].type != op.result.type:
        return False
    rw.replace_op(op, [op.operands[0]])
    return True


def _slice_of_concatenate(op, rw):
    """slice(concatenate(x_0..x_m, axis), spec) -> slice(x_k, spec') when the spec's item on
    ``axis`` is a static index or a static increasing range that lies inside one operand
    ``x_k`` (spec' shifts it by ``x_k``'s offset): the same elements, read from where the
    concatenation copied them (np.mgrid's stacked grids, unpacked again)."""
    cat = defining(op.operands[0], "tensor.concatenate")
    if cat is None:
        return False
    axis = cat.attrs["axis"]
    spec = [list(it) for it in op.attrs["spec"]]
    dims = [k for k, it in enumerate(spec) if it[0] != "n"]
    if len(dims) <= axis:
        return False
    k = dims[axis]
    it = spec[k]
    if it[0] == "c":
        lo = hi = it[1]
    elif it[0] == "s" and it[3] > 0 and len(range(*it[1:])):
        lo, hi = it[1], range(*it[1:])[-1]
    elif it[0] == "s" and it[3] > 0:   # no rows at all: none of the first operand's
        spec[k] = ["s", 0, 0, 1]
        rw.replace_op(op, [rw.one("tensor.slice", cat.operands[0], *op.operands[1:],
                                  spec=spec)])
        return True
    else:
        return False
    off = 0
    for x in cat.operands:
        n = x.type.shape[axis]
        if n is None:
            return False
        if off <= lo and hi < off + n:
            spec[k] = ["c", it[1] - off] if it[0] == "c" else \
                ["s", it[1] - off, min(it[2] - off, n), it[3]]
            rw.replace_op(op, [rw.one("tensor.slice", x, *op.operands[1:], spec=spec)])
            return True
        off += n
    return False


def _slice_drops_unit_dims(op, rw):
    """slice(y, spec) -> reshape(y, shape) when every item takes a whole dim or index 0 of a
    dim of length 1: the same elements in the same C order, only unit dims dropped."""
    y = op.operands[0]
    spec = op.attrs["spec"]
    if len(op.operands) != 1 or not y.type.static or len(spec) != y.type.rank or \
            all(it[0] == "s" for it in spec) or op.result.type.rank == 0:
        return False   # (an element read, s[0] of one element, stays one for the analyses)
    for it, n in zip(spec, y.type.shape):
        if not (it[0] == "c" and n == 1 or it[0] == "s" and it[1:] == [0, n, 1]):
            return False
    rw.replace_op(op, [rw.one("tensor.reshape", y, shape=list(op.result.type.shape))])
    return True


def _inserted_unit_dims(shape_in, shape_out):
    """Each way a reshape from ``shape_in`` to ``shape_out`` only puts in unit dims: the
    positions of ``shape_out`` taken as the inserted ones (with 1s in both, more than one)."""
    import itertools
    extra = len(shape_out) - len(shape_in)
    units = [d for d, n in enumerate(shape_out) if n == 1]
    if extra <= 0:
        return
    for ins in itertools.combinations(units, extra):
        if [n for d, n in enumerate(shape_out) if d not in ins] == list(shape_in):
            yield list(ins)


def slice_of_unit_reshape(op, rw):
    """reshape(x, x's shape with unit dims put in)[spec] -> x[spec without the unit dims'
    items], reshaped to the result's shape: the unit dims hold no elements of their own, so
    the slice reads the same elements of x in the same order; the reshape goes outside,
    where it meets another (a product's operand is then a window of x, read in place)."""
    inner = defining(op.operands[0], "tensor.reshape")
    spec = op.attrs["spec"]
    if inner is None or len(op.operands) != 1 or len(spec) != inner.result.type.rank or \
            any(it[0] not in ("s", "c") for it in spec):
        return False
    x = inner.operands[0]
    if not x.type.static:
        return False
    for inserted in _inserted_unit_dims(x.type.shape, inner.result.type.shape):
        if any(spec[d] not in (["s", 0, 1, 1], ["c", 0]) for d in inserted):
            continue
        kept = [it for d, it in enumerate(spec) if d not in inserted]
        if not kept:
            return False
        v = rw.one("tensor.slice", x, spec=kept)
        if v.type.shape != op.result.type.shape:
            v = rw.one("tensor.reshape", v, shape=list(op.result.type.shape))
        rw.replace_op(op, [v])
        return True
    return False


def window_of_unit_reshape(b, x):
    """x [m, n] put into [m, 1, n], its columns 1..n read as [m, 1, n - 1]."""
    m, n = x.type.shape
    y = b.one("tensor.reshape", x, shape=[m, 1, n])
    return b.one("tensor.slice", y, spec=[["s", 0, m, 1], ["s", 0, 1, 1], ["s", min(1, n), n, 1]])


def _element_of_elementwise(op, rw):
    """f(x, y, ..)[e] -> f(x[e], y[e], ..) for an elementwise f and one element ``e``
    (every spec item an index): the element computed alone, so ``f``'s array is not kept
    for that one read (a raised loop's first failing check code, read back at the first
    failing iteration). Operands of the array's shape are read at ``e``, scalars taken as
    they are. Only in f's own block: a read inside a loop would compute f again on every
    trip. A clamped read (``unchecked``) of an array that may be empty gives 0, not
    f(0): then only when every dim is known and not 0."""
    f = op.operands[0].owner
    spec = op.attrs["spec"]
    if not isinstance(f, Operation) or not get(f.name).elementwise or len(f.results) != 1 or \
            f.regions or any(it[0] not in "ic" for it in spec) or op.result.type.rank != 0:
        return False
    if op.parent is not f.parent:
        return False   # a read inside a loop would compute f again on every trip
    if not _read_alone(f, op, rw):
        return False
    shape = op.operands[0].type.shape
    if op.attrs.get("unchecked") and not (all(d is not None for d in shape) and
                                           all(d > 0 for d in shape)):
        return False
    if any(o.type.rank != 0 and o.type.shape != shape for o in f.operands):
        return False
    extra = {k: v for k, v in op.attrs.items() if k != "spec"}
    xs = [o if o.type.rank == 0 else rw.one("tensor.slice", o, *op.operands[1:], spec=spec,
                                             **extra) for o in f.operands]
    rw.replace_op(op, [rw.create(f.name, xs, **f.attrs).result])
    return True


def _gather_of_elementwise(op, rw):
    """gather(f(x, y, ..), i..) -> f(gather(x, i..), gather(y, i..), ..) for an elementwise f
    whose operands are of f's shape or scalars: the gather picks the same positions of every
    operand (clamped, as the op always is, from an array with no empty dim: an empty one
    gives zeros, not f(0)). Only where the gather reads fewer elements than f computes (or
    is f's only reader), in f's own block: a raised loop's first failing check code and
    payload, read back at each row's first failing column, no longer keep f's arrays (the
    whole [n, k] code and index arrays written for n reads)."""
    f = op.operands[0].owner
    if not isinstance(f, Operation) or not get(f.name).elementwise or len(f.results) != 1 \
            or f.regions or op.parent is not f.parent:
        return False
    shape, out = op.operands[0].type.shape, op.result.type.shape
    if not all(d is not None and d > 0 for d in shape) or any(d is None for d in out):
        return False
    if any(o.type.rank != 0 and o.type.shape != shape for o in f.operands):
        return False
    if not (op.result.type.size < op.operands[0].type.size or _only_user(f.result, op)):
        return False
    if not _read_alone(f, op, rw):
        return False
    xs = [o if o.type.rank == 0 else rw.one("tensor.gather", o, *op.operands[1:], **op.attrs)
          for o in f.operands]
    rw.replace_op(op, [rw.create(f.name, xs, **f.attrs).result])
    return True


def _codes_read_back(b, x):
    """select(y < 0.5, 1, 0)[[1]] of y = x padded with two elements: a gather of one element
    of a code array of at least two."""
    two = b.one("tensor.broadcast_to", b.constant(0.5, x.type.dtype), shape=[2])
    y = b.one("tensor.concatenate", x, two, axis=0)
    code = b.one("tensor.select", b.one("tensor.lt", y, b.constant(0.5, x.type.dtype)),
                 b.constant(1, "i32"), b.constant(0, "i32"))
    at = b.one("tensor.broadcast_to", b.constant(1, "i64"), shape=[1])
    return b.one("tensor.gather", code, at, axes=[0], front=True, unchecked=True)


def _element_of_broadcast(op, rw):
    """broadcast_to(s)[e] -> s for a scalar ``s`` and one element ``e`` read clamped
    (``unchecked``: it never raises) of an array with no empty dim: every element of the
    broadcast is ``s`` (the zero payload of a raised loop's checks, read back at the first
    failing iteration, was otherwise an array of zeros written in full for one read)."""
    f = op.operands[0].owner
    spec = op.attrs["spec"]
    if not isinstance(f, Operation) or f.name != "tensor.broadcast_to" or \
            f.operands[0].type.rank != 0 or any(it[0] not in "ic" for it in spec) or \
            op.result.type.rank != 0 or not op.attrs.get("unchecked"):
        return False
    shape = op.operands[0].type.shape
    if not all(d is not None and d > 0 for d in shape):
        return False
    rw.replace_op(op, [f.operands[0]])
    return True


def _element_of_spread_sum(b, x):
    s = b.one("tensor.reduce_sum", x, axes=list(range(x.type.rank)), keepdims=False)
    wide = b.one("tensor.broadcast_to", s, shape=[4, 2])
    return b.create("tensor.slice", [wide, b.constant(3, "i64"), b.constant(-1, "i64")],
                    {"spec": [["i", 0], ["i", 1]], "unchecked": True}).result


def _exp_of_padded(b, x):
    two = b.one("tensor.broadcast_to", b.constant(0.5, x.type.dtype), shape=[2])
    y = b.one("tensor.concatenate", x, two, axis=0)
    z = b.one("tensor.mul", b.one("tensor.exp", y), b.constant(3.0, x.type.dtype))
    return b.create("tensor.slice", [z, b.constant(1, "i64")],
                    {"spec": [["i", 0]], "unchecked": True}).result


def _concat_rows(b, x):
    cat = b.one("tensor.concatenate", x, b.one("tensor.neg", x), axis=0)
    n = x.type.shape[0]
    return b.one("tensor.add", b.one("tensor.slice", cat, spec=[
        ["s", n, 2 * n, 1]] + [["s", 0, d, 1] for d in x.type.shape[1:]]), b.one(
        "tensor.slice", cat, spec=[["s", 0, n, 1]] + [["s", 0, d, 1] for d in x.type.shape[1:]]))


def _concatenate_of_transposes(op, rw):
    """concatenate(transpose(x_0, p), .., transpose(x_m, p), axis) -> transpose(
    concatenate(x_0..x_m, p[axis]), p): every operand a transpose by one permutation, used
    only here, and the concatenation read only by matrix products. The same elements in the
    same places; the copy reads each x_i in its own layout, and the transpose left is read
    by the products as it lies (dot-of-transpose; natively a BLAS flag): ``h @ np.vstack((a.T,
    b.T))``, where NumPy's own concatenate keeps the inputs' Fortran layout and copies nothing
    across (array_ops: the transposed copy cost 1.7 ms natively on 2 x 500x502 float64, NumPy
    0.25 ms). Not for a concatenation returned or read elementwise: XLA then materializes
    the transpose (3.8 ms against 0.95 for the concatenation of transposes)."""
    ts = [defining(v, "tensor.transpose") for v in op.operands]
    if any(t is None for t in ts) or len({tuple(t.attrs["perm"]) for t in ts}) != 1 or \
            not all(_sole_use(v, op) for v in op.operands):
        return False
    if not _read_by_products(op):
        return False
    perm = list(ts[0].attrs["perm"])
    cat = rw.one("tensor.concatenate", *[t.operands[0] for t in ts],
                 axis=perm[op.attrs["axis"]])
    rw.replace_op(op, [rw.one("tensor.transpose", cat, perm=perm)])
    return True


def _read_by_products(op) -> bool:
    uses = op.results[0].live_uses()
    return bool(uses) and all(u.name == "tensor.dot_general" for u, _ in uses)


def _stack_of_transposes(op, rw):
    """concatenate(reshape(transpose(x_i, p), S[:a] + [1] + S[a:]).., a) -> transpose(
    concatenate(reshape(x_i, X[:q] + [1] + X[q:]).., q), p'): the stack along a new axis
    ``a`` of windows all transposed by ``p`` (S = the transposes' shape, X = x_i's), built
    in the x_i's own layout with the new axis q placed right after x's copy of the stack's
    axis a - 1 (before its axis a when a = 0), then moved by p'. The same elements in the
    same places. Read only by matrix products, which read the transpose as it lies
    (dot-of-transpose): raised conv1d's im2col tensor (L, c, k) becomes (c, k, L), its
    contraction over (c, k) a plain GEMM after a free reshape. An x_i that is a slice
    ``s[spec]`` is stacked as ``reshape(s)[spec with 0:1 at q]`` (the same elements): a
    window of a stored array that the native concatenation reads in place."""
    a = op.attrs["axis"]
    ts = []
    for v in op.operands:
        r = defining(v, "tensor.reshape")
        t = r and defining(r.operands[0], "tensor.transpose")
        if t is None or not _sole_use(v, op):
            return False
        s = list(r.operands[0].type.shape)
        if list(v.type.shape) != s[:a] + [1] + s[a:]:
            return False
        ts.append(t)
    perm = list(ts[0].attrs["perm"])
    if any(list(t.attrs["perm"]) != perm for t in ts) or not _read_by_products(op):
        return False
    q = perm[a - 1] + 1 if a > 0 else perm[0]

    def at(k):  # x's axis k in the stacked layout
        return k if k < q else k + 1
    parts = []
    for t in ts:
        x = t.operands[0]
        xs = list(x.type.shape)
        w = defining(x, "tensor.slice")
        if w is not None and all(it[0] == "s" for it in w.attrs["spec"]):
            ws = list(w.operands[0].type.shape)
            spec = [list(it) for it in w.attrs["spec"]]
            v = rw.one("tensor.reshape", w.operands[0], shape=ws[:q] + [1] + ws[q:])
            parts.append(rw.one("tensor.slice", v, spec=spec[:q] + [["s", 0, 1, 1]] + spec[q:]))
        else:
            parts.append(rw.one("tensor.reshape", x, shape=xs[:q] + [1] + xs[q:]))
    cat = rw.one("tensor.concatenate", *parts, axis=q)
    new = [at(p) for p in perm[:a]] + [q] + [at(p) for p in perm[a:]]
    out = cat if new == list(range(len(new))) else rw.one("tensor.transpose", cat, perm=new)
    rw.replace_op(op, [out])
    return True


def _stacked_windows(b, x):
    """x (m, n) stacked with -x as (n, m, 2) (each transposed, a unit dim added), contracted
    over its last two dims with itself."""
    m, n = x.type.shape
    parts = [b.one("tensor.reshape", _t(b, v, [1, 0]), shape=[n, m, 1])
             for v in (x, b.one("tensor.neg", x))]
    cat = b.one("tensor.concatenate", *parts, axis=2)
    return b.one("tensor.dot_general", cat, cat, lhs_batch=[], rhs_batch=[],
                 lhs_contract=[1, 2], rhs_contract=[1, 2])


def _stacked_columns(b, x):
    cat = b.one("tensor.concatenate", _t(b, x, [1, 0]), _t(b, b.one("tensor.neg", x), [1, 0]),
                axis=0)
    return b.one("tensor.dot_general", cat, x, lhs_batch=[], rhs_batch=[], lhs_contract=[1],
                 rhs_contract=[0])


def _full_update(op, rw):
    from ...ops.indexspec import is_full
    x, v = op.operands[0], op.operands[1]
    if len(op.operands) != 2 or not is_full(x.type.shape, op.attrs["spec"]) or \
            v.type != op.result.type:
        return False
    rw.replace_op(op, [v])
    return True


def _transpose_dot(op, rw):
    dot = defining(op.operands[0], "tensor.dot_general")
    if dot is None or dot.attrs["lhs_batch"] or len(dot.results[0].live_uses()) != 1:
        return False
    x, y = dot.operands
    nx = x.type.rank - len(dot.attrs["lhs_contract"])
    ny = y.type.rank - len(dot.attrs["rhs_contract"])
    if list(op.attrs["perm"]) != list(range(nx, nx + ny)) + list(range(nx)):
        return False
    rw.replace_op(op, [rw.one("tensor.dot_general", y, x, lhs_batch=[], rhs_batch=[],
                              lhs_contract=list(dot.attrs["rhs_contract"]),
                              rhs_contract=list(dot.attrs["lhs_contract"]))])
    return True


def _dot_of_transpose(op, rw):
    """One operand of ``op`` (a dot_general) a transpose whose every use is a dot_general:
    the dot reads the transpose's source, its batch and contracted dims renamed through
    the permutation, when the free dims keep their order (the result is the same)."""
    for side, key in ((0, "lhs"), (1, "rhs")):
        t = defining(op.operands[side], "tensor.transpose")
        if t is None or not all(u.name == "tensor.dot_general"
                                for u, _ in t.results[0].live_uses()):
            continue
        perm = list(t.attrs["perm"])
        batch, contract = list(op.attrs[f"{key}_batch"]), list(op.attrs[f"{key}_contract"])
        free = [perm[i] for i in range(len(perm)) if i not in batch and i not in contract]
        if free != sorted(free):
            continue
        attrs = {k: list(v) for k, v in op.attrs.items()}
        attrs[f"{key}_batch"] = [perm[i] for i in batch]
        attrs[f"{key}_contract"] = [perm[i] for i in contract]
        xs = list(op.operands)
        xs[side] = t.operands[0]
        rw.replace_op(op, [rw.one("tensor.dot_general", *xs, **attrs)])
        return True
    return False


def _dot_t(b, x):
    t = _t(b, x, [1, 0])
    v = b.one("tensor.reduce_sum", x, axes=[1], keepdims=False)
    w = b.one("tensor.reduce_sum", x, axes=[0], keepdims=False)
    tv = b.one("tensor.dot_general", t, v, lhs_batch=[], rhs_batch=[], lhs_contract=[1],
               rhs_contract=[0])
    wt = b.one("tensor.dot_general", w, t, lhs_batch=[], rhs_batch=[], lhs_contract=[0],
               rhs_contract=[0])
    return b.one("tensor.dot_general", tv, wt, lhs_batch=[], rhs_batch=[], lhs_contract=[],
                 rhs_contract=[])


def _outer_t(b, x):
    v = b.one("tensor.reduce_sum", x, axes=[1], keepdims=False)
    w = b.one("tensor.reduce_sum", x, axes=[0], keepdims=False)
    d = b.one("tensor.dot_general", v, w, lhs_batch=[], rhs_batch=[], lhs_contract=[],
              rhs_contract=[])
    return _t(b, d, [1, 0])


def _t(b, x, perm):
    return b.one("tensor.transpose", x, perm=perm)


def _sole_use(v, op) -> bool:
    uses = v.live_uses()
    return len(uses) == 1 and uses[0][0] is op


_READS = ("tensor.slice", "tensor.gather")


def _read_alone(f, op, rw) -> bool:
    """Whether the read ``op`` of ``f``'s result may be pushed through ``f``: every user of
    ``f`` is a read in ``f``'s block (so ``f`` dies once they are all pushed, and nothing can
    ask for ``f`` at one of them again later), and ``op`` is the first of the reads identical
    to it, which it takes over here. Without this, a DAG whose values are read along
    several paths (a check code ``c2 = select(c1 == 0, k, c1)`` reads ``c1`` twice) is
    expanded into a tree, exponential in its depth: ufunc_mix_loops' nine checks grew from
    151 ops to 12,778 and took 20 s to compile."""
    block = f.parent
    same = []
    for u, _ in f.result.live_uses():
        if u.name not in _READS or u.parent is not block or u.operands[0] is not f.result:
            return False
        if u is not op and u.name == op.name and u.attrs == op.attrs and \
                len(u.operands) == len(op.operands) and \
                all(a is b for a, b in zip(u.operands, op.operands)):
            same.append(u)
    if same:
        first = min(same + [op], key=block.ops.index)
        if first is not op:
            return False   # the first one takes the others over
        for u in same:
            rw.replace_op(u, [op.result])
        rw.changed.append(op)
    return True


def _only_user(v, op) -> bool:
    """Every use of ``v`` is by ``op`` (``mul(a, a)`` uses ``a`` twice)."""
    uses = v.live_uses()
    return bool(uses) and all(u is op for u, _ in uses)


def _untransposed(rw, o, perm):
    """``o`` (an operand broadcast against ``transpose(x, perm)``) as the operand broadcast
    against ``x``: ``transpose(o, inverse(perm))``, a reshape when ``o``'s dims longer than
    1 keep their order (a column ``(n, 1)`` becomes a row ``(1, n)``)."""
    if o.type.rank == 0:
        return o
    inv = [perm.index(k) for k in range(len(perm))]
    shape = [o.type.shape[inv[j]] for j in range(len(perm))]
    long = [inv[j] for j in range(len(perm)) if o.type.shape[inv[j]] != 1]
    if long == sorted(long):
        return rw.one("tensor.reshape", o, shape=shape)
    return rw.one("tensor.transpose", o, perm=inv)


def _chain_operand(d, shape):
    """The operand of elementwise ``d`` the chain goes on through: the one of the result's
    ``shape`` (the first that a transpose makes, when several have it; ``mul(a, a)`` goes on
    through ``a``); None when another operand of that shape is neither of size 1 nor a
    transpose itself (moving it to ``x``'s layout would copy it)."""
    full = [k for k, o in enumerate(d.operands) if list(o.type.shape) == shape]
    via = [k for k in full if defining(d.operands[k], "tensor.transpose") is not None]
    k = via[0] if via else full[0] if full else None
    if k is None or any(d.operands[j] is not d.operands[k] and j not in via and
                        any(n != 1 for n in d.operands[j].type.shape) for j in full):
        return None
    return k


def _reduce_of_transpose(op, rw):
    """reduce(f(transpose(x, p)), axes) -> transpose(reduce(f(x), p[axes])): f a chain of
    elementwise ops, each value of the chain used once (the transpose may have other uses:
    it stays for them, and this reduction reads ``x``), whose other operands are scalars or
    broadcast against it (length 1 or the full length on each dim: zmin's ``(x.T - mu[:,
    None]) / sd[:, None]``), those transposed back the same way."""
    chain, v = [], op.operands[0]
    while True:
        d = defining(v)
        if d is None:
            return False
        if d.name == "tensor.transpose":   # other uses keep it; this one reads x itself
            break
        if not _only_user(v, op if not chain else chain[-1][0]):
            return False
        shape = list(v.type.shape)
        k = _chain_operand(d, shape)
        if k is None or not get(d.name).elementwise or len(d.results) != 1 or any(
                o.type.rank not in (0, len(shape)) or o.type.rank and any(
                    n not in (1, m) for n, m in zip(o.type.shape, shape))
                for o in d.operands):
            return False
        chain.append((d, d.operands[k]))
        v = d.operands[k]
    perm = list(d.attrs["perm"])
    x = d.operands[0]
    for link, on in reversed(chain):   # f applied to x itself: the same elements, moved
        x = rw.one(link.name, *[x if o is on else _untransposed(rw, o, perm)
                                for o in link.operands], **link.attrs)
    axes = sorted(op.attrs["axes"])
    keep = op.attrs["keepdims"]
    r = rw.one(op.name, x, axes=sorted(perm[a] for a in axes), keepdims=keep)
    if keep:
        out_perm = list(perm)
    else:
        left = sorted(perm[k] for k in range(len(perm)) if k not in axes)
        out_perm = [left.index(perm[k]) for k in range(len(perm)) if k not in axes]
    if out_perm != list(range(len(out_perm))):
        r = rw.one("tensor.transpose", r, perm=out_perm)
    rw.replace_op(op, [r])
    return True


def _sum_of_stack(op, rw):
    """reduce_sum(concatenate(x_0..x_m, k), [k]) -> x_0' + x_1' + .. + x_m' (added left to
    right; x_i' = reshape(x_i) without the axis) when every x_i has length 1 on ``k`` and
    m < 8: np.stack((a, b)).sum(0) and .mean(0) add a and b once, without the stacked copy.
    Exact: NumPy sums an outer axis one slice after another in that order, and an inner
    axis pairwise, which below 8 elements is the same left-to-right loop."""
    cat = defining(op.operands[0], "tensor.concatenate")
    axis = None if cat is None else cat.attrs["axis"]
    if cat is None or list(op.attrs["axes"]) != [axis] or not 1 <= len(cat.operands) <= 8 or \
            op.result.type.dtype != cat.result.type.dtype or not op.result.type.static or \
            any(x.type.shape[axis] != 1 for x in cat.operands):
        return False
    shape = list(op.result.type.shape)
    parts = [x if list(x.type.shape) == shape else rw.one("tensor.reshape", x, shape=shape)
             for x in cat.operands]
    total = parts[0]
    for x in parts[1:]:
        total = rw.one("tensor.add", total, x)
    rw.replace_op(op, [total])
    return True


def _stack_sum(b, x, keep=False):
    rows = [b.one("tensor.reshape", v, shape=[1] + list(x.type.shape)) for v in (
        x, b.one("tensor.mul", x, b.constant(0.1, x.type.dtype)), b.one("tensor.exp", x))]
    cat = b.one("tensor.concatenate", *rows, axis=0)
    return b.one("tensor.reduce_sum", cat, axes=[0], keepdims=keep)


def _standardized_mins(b, x):
    """zmin's form: ``((x.T - s[None, :]) / 2).min(0)`` for the row sums ``s``, an operand
    broadcast against the transpose."""
    m = x.type.shape[0]
    s = b.one("tensor.reshape", b.one("tensor.reduce_sum", x, axes=[1], keepdims=False),
              shape=[1, m])
    z = b.one("tensor.div", b.one("tensor.sub", _t(b, x, [1, 0]), s), b.constant(2.0, "f64"))
    return b.one("tensor.reduce_min", z, axes=[0], keepdims=False)


def _col_sums(b, x):
    """Column sums of squares over the transpose: ``mul(a, a)`` reads the chain twice."""
    a = b.one("tensor.mul", _t(b, x, [1, 0]), b.constant(2.0, x.type.dtype))
    sq = b.one("tensor.mul", a, a)
    return b.one("tensor.reduce_sum", sq, axes=[1], keepdims=False)


SHAPES = [
    Pattern("transpose-transpose", "tensor.transpose", _transpose_transpose,
            "transpose(transpose(x, p), q) -> transpose(x, p[q]); -> x when p[q] is the identity",
            sample=unary_chain(lambda b, x: _t(b, _t(b, x, [1, 0]), [1, 0]), "f32", rank=2)),
    Pattern("transpose-dot", "tensor.transpose", _transpose_dot,
            "transpose(dot_general(x, y)) -> dot_general(y, x) when the transpose puts y's "
            "free dims first (no batch dims; the products are the same, summed in the same "
            "order): a gradient's transposed outer product is written in place, not copied",
            sample=unary_chain(_outer_t, "f64", rank=2)),
    Pattern("dot-of-transpose", "tensor.dot_general", _dot_of_transpose,
            "dot_general(transpose(x, p), y) -> dot_general(x, y) with x's batch and contracted "
            "dims p[i] (either side), when every use of the transpose is a dot and its free "
            "dims keep their order: a transpose read by a product and its gradient's is not "
            "copied",
            sample=unary_chain(_dot_t, "f64", rank=2)),
    *[Pattern(f"reduce-of-transpose-{k}", f"tensor.reduce_{k}", _reduce_of_transpose,
              f"reduce_{k}(f(transpose(x, p)), axes) -> transpose(reduce_{k}(f(x), p[axes])) "
              "for f elementwise whose other operands are scalars or broadcast against it "
              "(transposed back with it): the same elements reduced (sums and products in "
              "another order), read in x's own layout (a column sum written over a "
              "transposed view read across rows: 1.5x slower on native)",
              sample=unary_chain({"sum": _col_sums, "min": _standardized_mins}.get(k, (
                  lambda b, x, k=k: b.one(f"tensor.reduce_{k}", _t(b, x, [1, 0]), axes=[0],
                                          keepdims=True))), "f64", rank=2))
      for k in ("sum", "max", "min", "prod")],
    # the frontend's finiteness check of a solver's transposed operand (solve(L.T, b))
    *[Pattern(f"reduce-of-transpose-{k}", f"tensor.reduce_{k}", _reduce_of_transpose,
              f"reduce_{k}(f(transpose(x, p)), axes) -> transpose(reduce_{k}(f(x), p[axes])) "
              "for f elementwise with scalar other operands: the same booleans combined, read "
              "in x's own layout",
              sample=unary_chain(lambda b, x, k=k: b.one(
                  f"tensor.reduce_{k}", b.one("tensor.isfinite", _t(b, x, [1, 0])),
                  axes=[0, 1], keepdims=False), "f64", rank=2))
      for k in ("all", "any")],
    Pattern("transpose-identity", "tensor.transpose", _identity_transpose,
            "transpose(x, (0, 1, ...)) -> x",
            sample=unary_chain(lambda b, x: _t(b, x, [0, 1]), "i32", rank=2)),
    Pattern("reshape-reshape", "tensor.reshape", _reshape_reshape,
            "reshape(reshape(x, s1), s2) -> reshape(x, s2) (C order both times); -> x when "
            "s2 is x's shape",
            sample=unary_chain(lambda b, x: b.one("tensor.reshape", b.one(
                "tensor.reshape", x, shape=[x.type.size]), shape=list(x.type.shape)),
                "f64", rank=2)),
    Pattern("reshape-same", "tensor.reshape", operand_if_same_type, "reshape(x, shape(x)) -> x",
            sample=unary_chain(lambda b, x: b.one("tensor.reshape", x,
                                                  shape=list(x.type.shape)), "c128", rank=2)),
    Pattern("broadcast-same", "tensor.broadcast_to", operand_if_same_type,
            "broadcast_to(x, shape(x)) -> x",
            sample=unary_chain(lambda b, x: b.one("tensor.broadcast_to", x,
                                                  shape=list(x.type.shape)), "i1", rank=2)),
    Pattern("concatenate-of-transposes", "tensor.concatenate", _concatenate_of_transposes,
            "concatenate(transpose(x_i, p).., axis) -> transpose(concatenate(x_i.., p[axis]), "
            "p) when every operand is a transpose by p used only there and the concatenation "
            "feeds only matrix products",
            sample=unary_chain(_stacked_columns, "f64", rank=2)),
    Pattern("stack-of-transposes", "tensor.concatenate", _stack_of_transposes,
            "concatenate(reshape(transpose(x_i, p), unit dim at a).., a) -> transpose("
            "concatenate(reshape(x_i, unit dim at q).., q), p') (q: after x's copy of axis "
            "a - 1) when the operands are used only there and the stack feeds only matrix "
            "products: the windows stacked in their own layout",
            sample=unary_chain(_stacked_windows, "f64", rank=2)),
    Pattern("sum-of-stack", "tensor.reduce_sum", _sum_of_stack,
            "reduce_sum(concatenate(x_0..x_m, k), [k]) -> x_0 + .. + x_m (left to right, "
            "the unit axis k reshaped away) when each x_i has length 1 on k and m < 8 "
            "(np.stack(..).mean(0): no stacked copy; NumPy's own order of the adds)",
            sample=unary_chain(_stack_sum, "f64", rank=2)),
    Pattern("sum-of-stack-keepdims", "tensor.reduce_sum", _sum_of_stack,
            "the same with keepdims (each x_i already has the result's shape)",
            sample=unary_chain(lambda b, x: _stack_sum(b, x, keep=True), "f32", rank=2)),
    Pattern("slice-of-concatenate", "tensor.slice", _slice_of_concatenate,
            "concatenate(x_0..x_m, axis)[.., a:b:s (s > 0) or c, ..] -> x_k[.., a-o:b-o:s "
            "or c-o, ..] when those rows lie inside x_k (o: its offset on the axis)",
            sample=unary_chain(_concat_rows, "f64", rank=2)),
    Pattern("slice-drops-unit-dims", "tensor.slice", _slice_drops_unit_dims,
            "y[.., 0 on a dim of length 1, .., :, ..] -> reshape(y, the result's shape)",
            sample=unary_chain(lambda b, x: b.one("tensor.slice", b.one(
                "tensor.reshape", x, shape=[1] + list(x.type.shape)), spec=[["c", 0]] + [
                ["s", 0, n, 1] for n in x.type.shape]), "i64", rank=2)),
    Pattern("element-of-elementwise", "tensor.slice", _element_of_elementwise,
            "f(x, y, ..)[e] -> f(x[e], y[e], ..) for elementwise f and one element e "
            "(scalar operands as they are; a clamped read only of an array with no empty dim; "
            "every user of f a read, identical reads merged first)",
            sample=unary_chain(_exp_of_padded, "f64", rank=1)),
    Pattern("gather-of-elementwise", "tensor.gather", _gather_of_elementwise,
            "gather(f(x, y, ..), i..) -> f(gather(x, i..), gather(y, i..), ..) for "
            "elementwise f (scalar operands as they are) of an array with no empty dim, when "
            "the gather reads fewer elements than f computes or is f's only reader, and every "
            "user of f is a read (identical reads merged first)",
            sample=unary_chain(_codes_read_back, "f64", rank=1)),
    Pattern("element-of-broadcast", "tensor.slice", _element_of_broadcast,
            "broadcast_to(s)[e] -> s for scalar s and one element e read clamped "
            "(unchecked) of an array with no empty dim",
            sample=unary_chain(_element_of_spread_sum, "f64", rank=1)),
    Pattern("update-full", "tensor.update_slice", _full_update, "x[:, :, ...] = v -> v",
            sample=unary_chain(lambda b, x: b.create("tensor.update_slice", [x, b.one(
                "tensor.neg", x)], {"spec": [["s", 0, n, 1] for n in x.type.shape]}).result,
                "f32", rank=2)),
    Pattern("slice-full", "tensor.slice", _full_slice, "x[:, :, ...] -> x",
            sample=unary_chain(lambda b, x: b.one("tensor.slice", x, spec=[
                ["s", 0, n, 1] for n in x.type.shape]), "u8", rank=2)),
]

TRANSPOSE_DOT = next(p for p in SHAPES if p.name == "transpose-dot")
DOT_OF_TRANSPOSE = next(p for p in SHAPES if p.name == "dot-of-transpose")
# x[:] = v -> v and x[:] -> x: raising applies these after each raised loop
WHOLE_ARRAY = [p for p in SHAPES if p.name in ("update-full", "slice-full")]
