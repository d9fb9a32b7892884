"""The native backend's part of the cached-call fast path (runtime/fast_path.py): the body
of a runner written for one version and one set of argument types, so that what
``NativeExecutable.__call__`` decides on every call (which arguments to convert, which
buffers to allocate, how the result is read) is decided once."""
from __future__ import annotations

import threading

import numpy as np


def runner_source(exe, c, args):
    """The body of a fast-path runner (runtime/fast_path.py) for version ``c`` called
    with arguments of the types of ``args``, the caller's own tuple: (source lines
    reading ``args`` and returning the call's value, the names they use). Two kinds of
    version take one: ``plain`` ones (no argument written back, one result), and those
    that update their arguments in place and return a constant or one scalar they
    compute or one of their arguments (``_updates_in_place``). What ``__call__``
    decides on every call is decided here: arguments already C-contiguous of the
    compiled dtype are passed as they are, others converted; a scalar argument or result
    whose type needs no conversion goes through a 0-d buffer kept per thread. None where
    it does not apply (no built-in caller, a result allocated at run time)."""
    if exe._call is None:
        return None
    ret_how = ret_bid = None   # an in-place version's scalar result: how it is read, its buffer
    if c.plain is not None:
        ri, how = c.plain
        bid, must_copy, rdt = exe._rets[ri]
        if rdt is not None or exe._own:
            return None
    elif _updates_in_place(exe, c, args):
        how = bid = None
        spec = c.translation.result
        if spec[0] == "value":   # and a scalar the program computes (``_updates_in_place``)
            ret_how, ret_bid = spec[2], exe._rets[spec[1]][0]
    else:
        return None
    full = tuple(args) + c.implicit
    n_args = len(args)
    new = list(exe._new)
    kept = list(exe._reused)
    if how in ("scalar", "weak"):   # read into a Python scalar: its buffer is reused
        kept += [x for x in new if x[0] == bid]
        new = [x for x in new if x[0] != bid]
    # a scalar result and the error code and payload are read before the runner returns:
    # their 0-d buffers are reused like the temporaries
    read_now = {ret_bid} | set(exe._code or ())
    kept += [x for x in new if x[0] in read_now]
    new = [x for x in new if x[0] not in read_now]
    names = {"empty": np.empty, "asc": np.ascontiguousarray, "conv_scalar": _scalar,
             "conv_copy": _copy, "call": exe._call, "raise_failed": _raise_failed,
             "errors": exe._errors, "locs": exe.locs, "code": exe._code}
    lines = ["try:", "    arrays = tls.t.copy()", "except AttributeError:",
             "    arrays = template().copy()"]
    zero_d = []
    for i, k, dt, written, scalar in exe._args:
        j = c.arg_map[k]
        a = full[j]
        names[f"dt{i}"] = dt
        if j >= n_args:   # a global or closure array: converted on every call
            names[f"fixed{i}"] = a
            lines.append(f"arrays[{i}] = asc(fixed{i}, dtype=dt{i})")
        elif scalar and not written and _exact_scalar(a, dt):
            zero_d.append((i, dt))
            lines.append(f"arrays[{i}][()] = args[{j}]")
        elif scalar:
            lines.append(f"arrays[{i}] = conv_scalar(args[{j}], dt{i})")
        elif written and how is None:   # the caller's own array (checked above)
            lines.append(f"arrays[{i}] = args[{j}]")
        elif written:
            lines.append(f"arrays[{i}] = conv_copy(args[{j}], dt{i})")
        elif a.dtype == dt and a.flags.c_contiguous:   # fixed by the raw key
            lines.append(f"arrays[{i}] = args[{j}]")
        else:
            lines.append(f"arrays[{i}] = asc(args[{j}], dtype=dt{i})")
    for i, shape, dt in new:
        names[f"shape{i}"], names[f"dt{i}"] = shape, dt
        lines.append(f"arrays[{i}] = empty(shape{i}, dt{i})")
    owned = [(i, c.arg_map[k]) for i, k, _, written, _ in exe._args if written]
    if how is None:   # the caller's arrays, written in place: checked as run_compiled does
        lines[:0] = _in_place_checks(c, args, owned, names)
        if exe._can_fail:   # the caller's arrays as they were, should the call fail
            names["backup"] = exe._backup   # into this thread's reused copy
            lines += [f"saved{j} = backup({i}, args[{j}])" for i, j in owned]
    lines.append("failed = call(arrays)")
    check = f" or arrays[{exe._code[0]}][()]" if exe._code is not None else ""
    lines.append(f"if failed{check}:")
    if how is None and exe._can_fail:
        names["copyto"] = np.copyto
        lines += [f"    copyto(args[{j}], saved{j})" for _, j in owned]
    lines.append("    raise_failed(failed, arrays, code, errors, locs)")
    if how is None and ret_how is not None:
        lines.append(f"return arrays[{ret_bid}]" + (".item()" if ret_how == "weak" else "[()]"))
    elif how is None and _returns_argument(c.translation.result, args):
        k, steps = c.translation.result[1:]
        if steps:
            from ...runtime.jit import _view
            names["view"], names["steps"] = _view, steps
            lines.append(f"return view(args[{k}], steps)")
        else:
            lines.append(f"return args[{k}]")
    elif how is None:
        names["result"] = c.translation.result[1]
        lines.append("return result")
    elif how == "array":
        lines.append(f"return arrays[{bid}]" + (".copy()" if must_copy else ""))
    else:
        lines.append(f"return arrays[{bid}]" + (".item()" if how == "weak" else "[()]"))
    from .backend import _UNUSED
    tls = names["tls"] = threading.local()
    n = exe._n

    def template():
        arrays = [_UNUSED] * n + [np.empty(5, np.int64)]
        for i, shape, dt in kept:
            arrays[i] = np.empty(shape, dt)
        for i, dt in zero_d:
            arrays[i] = np.empty((), dt)
        tls.t = arrays
        return arrays
    names["template"] = template
    return lines, names


def _updates_in_place(exe, c, args) -> bool:
    """Whether version ``c``, called with arguments of the types of ``args``, returns a
    constant (None, mostly), one scalar result of its own (a sum, row_iteration_loops'
    total) or one of its arguments, and writes back only into argument arrays it computes in
    place: each C-contiguous of the compiled dtype (the raw key fixes both), none a
    global, no result allocated at run time."""
    spec = c.translation.result
    one_scalar = spec[0] == "value" and spec[2] in ("scalar", "weak") and \
        spec[1] not in {r for r, _ in c.writes} and spec[1] not in exe._own.values()
    if not (spec[0] == "const" or one_scalar or _returns_argument(spec, args)) or \
            not c.writes or \
            any(dt is not None for *_, dt in exe._rets):
        return False
    if sorted(exe._own.values()) != sorted(r for r, _ in c.writes):
        return False
    for i, k, dt, written, scalar in exe._args:
        if not written:
            continue
        j = c.arg_map[k]
        if i not in exe._own or scalar or j >= len(args):
            return False
        a = args[j]
        if type(a) is not np.ndarray or a.dtype != dt or not a.flags.c_contiguous:
            return False
    return True


def _returns_argument(spec, args) -> bool:
    """Whether the version returns one of the caller's own arguments (``return x`` after
    updating ``x`` in place: forward_subst), or a view of one. The full path
    (``run_compiled``) cost 12 us more per call than the fast path on forward_subst."""
    return spec[0] == "arg" and spec[1] < len(args)


# NumPy's array flag bits (``ndarray.flags.num``; numpy/ndarraytypes.h, stable since NumPy
# 1.0): one attribute read gives all three, where ``flags.writeable``, ``flags.aligned`` and
# ``flags.owndata`` cost one each (~0.1 us apiece on this host)
_OWNDATA, _ALIGNED, _WRITEABLE = 0x4, 0x100, 0x400


def _in_place_checks(c, args, owned, names) -> list:
    """Lines that send a call to ``run_compiled`` (which copies, or refuses the call with
    its own error) where a written array is read-only or unaligned, or shares memory
    with another array argument: the checks ``run_compiled`` makes before any call. Each
    array's flags are read once (``flags.num``) and tested bit by bit."""
    from ...runtime.jit import run_compiled
    names["run_compiled"], names["version"] = run_compiled, c
    names["may_share"] = np.may_share_memory
    arrays = [f"args[{i}]" for i, a in enumerate(args) if isinstance(a, np.ndarray)]
    for n, a in enumerate(c.implicit):   # the globals it reads, as run_compiled has them
        if isinstance(a, np.ndarray):
            names[f"implicit{n}"] = a
            arrays.append(f"implicit{n}")
    written = {f"args[{j}]" for j in c.written}
    pairs = [(x, y) for x, a in enumerate(arrays) for y in range(x + 1, len(arrays))
             if a in written or arrays[y] in written]
    flagged = sorted({x for pair in pairs for x in pair} |
                     {arrays.index(f"args[{j}]") for _, j in owned})
    lines = [f"n{x} = {arrays[x]}.flags.num" for x in flagged]
    for _, j in owned:
        x = arrays.index(f"args[{j}]")
        lines += [f"if n{x} & {_WRITEABLE | _ALIGNED} != {_WRITEABLE | _ALIGNED}:",
                  "    return run_compiled(version, args)"]
    # two distinct arrays that each own their memory (separate allocations) share none:
    # np.may_share_memory (~0.45 us a call) runs only for a view, or one array passed twice
    for x, y in pairs:
        a, b = arrays[x], arrays[y]
        lines += [f"if not (n{x} & n{y} & {_OWNDATA} and {a} is not {b}) and "
                  f"may_share({a}, {b}):",
                  "    return run_compiled(version, args)"]
    return lines


def _scalar(a, dt):
    return np.array(a, dtype=dt)


def _copy(a, dt):
    return np.array(a, dtype=dt, order="C", copy=True)


def _exact_scalar(a, dt) -> bool:
    """Whether storing ``a`` into a 0-d array of ``dt`` gives what ``np.array(a, dtype=dt)``
    gives for every value of ``a``'s type: its own dtype is ``dt`` (a Python int is int64:
    one too large raises OverflowError either way)."""
    if type(a) in (bool, int, float, complex):
        return np.dtype(type(a)) == dt
    return isinstance(a, (np.number, np.bool_)) and a.dtype == dt


def _raise_failed(failed, arrays, code, errors, locs):
    """The error of a failed call: a check in the machine code (``failed``) or an
    ``error.check`` value (see ``NativeExecutable.__call__``)."""
    if failed:
        from .backend import _error
        raise _error(arrays[-1], locs, errors)
    from ...runtime.jit import raise_if_failed
    raise_if_failed(errors, arrays[code[0]], arrays[code[1]])
