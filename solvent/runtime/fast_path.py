"""The cached-call fast path: a repeated call with arguments of the same types goes from
``JitFunction.__call__`` to the compiled code through one dictionary look-up and one runner.

The look-up key is the call's *raw key*: per argument, ``(shape, dtype, strides)`` of an
``np.ndarray`` (exactly that type) and the type of anything else. It is finer than the
version key of ``runtime.jit._type_key`` (whether an array is C-contiguous follows from its
shape, strides and item size; a scalar's key from its type), so two calls with one raw key
always have one version key, and the runner made for the first is right for the second.
A raw key is registered only when it determines the version key: every argument an array,
a bool/int/float/complex, or a NumPy number or bool scalar, and no argument a compile-time
value other than an int or a bool (see ``register``). Everything else (strings, None,
tuples, keywords, meshes) takes the full path, as before.

A runner is made once per (raw key, version): what the full path decides on every call
(which arguments need converting, which results are scalars) is decided when it is made.
It still checks the version's guards on every call and keeps the cache's LRU order. The
runners live in ``VersionCache.fast``, emptied whenever a version is added or dropped, so a
runner never outlives its version.
"""
from __future__ import annotations

import numpy as np

_ND = np.ndarray


def raw_key_function(arity: int):
    """``key(*args)`` -> the raw key of a call with ``arity`` positional arguments, as one
    generated expression (a loop or a comprehension costs a frame per call)."""
    names = [f"a{i}" for i in range(arity)]
    items = "".join(f"(({n}.shape, {n}.dtype, {n}.strides) if type({n}) is nd else "
                    f"type({n})), " for n in names)
    src = f"def raw_key({', '.join(names)}):\n    return ({items})\n"
    scope = {"nd": _ND}
    exec(src, scope)
    return scope["raw_key"]


def _determined(value, type_key) -> bool:
    """Whether the raw key entry of ``value`` determines its version key ``type_key``."""
    kind = type_key[0]
    if kind == "array":
        return type(value) is _ND
    if kind == "py":
        return True      # ("py", type name): the type decides it
    if kind == "np":     # ("np", dtype.str): a number or bool type has one (native) dtype
        return isinstance(value, (np.number, np.bool_))
    return False


def eligible(jf, args, type_key, static) -> bool:
    """Whether a call with these arguments may register a runner (see the module text);
    compile-time values only as exact ints or bools (``register``)."""
    return jf.placement is None and \
        all(type(args[i]) in (int, bool) for i in static or ()) and \
        all(_determined(a, k) for a, k in zip(args, type_key))


def register(fast: dict, raw, static, args, run, slow) -> None:
    """Register ``run`` for raw key ``raw``. With compile-time arguments (positions
    ``static``, exact ints or bools: the raw key fixes their type, so the values
    themselves are an exact key) the raw key's entry is a dispatcher over their values,
    each with its own runner: a call with another value takes the full path once, which
    adds its runner beside the others (histogram_loops' bin count)."""
    if not static:
        fast[raw] = run
        return
    pos = tuple(sorted(static))
    entry = fast.get(raw)
    table = getattr(entry, "by_value", None)
    if table is None:
        table = {}
        src = ("def dispatch(args):\n"
               f"    run = get(({''.join(f'args[{i}], ' for i in pos)}))\n"
               "    if run is None:\n"
               "        return slow(args, {})\n"
               "    return run(args)\n")
        scope = {"get": table.get, "slow": slow}
        exec(src, scope)
        entry = scope["dispatch"]
        entry.by_value = table
        fast[raw] = entry
    table[tuple(args[i] for i in pos)] = run


def make_runner(jf, c, key, args):
    """The runner of version ``c`` (cache key ``key``) for calls whose raw key is that of
    ``args``: ``run(args)`` gives what ``jf._run(c, args)`` gives, except that a
    ``ClampedWindowError`` is left to the caller (``JitFunction.__call__``).

    One generated function: the guard checks and the LRU move, then the body the
    executable's ``runner_source`` writes for these argument types (native, XLA), or a call of
    ``run_compiled``. A guard that no longer holds sends the call down the full path, which
    drops the version and compiles again."""
    from .jit import run_compiled
    body = None
    source = getattr(c.executable, "runner_source", None)
    if source is not None:
        body = source(c, args)
    if body is None:
        body = (["return run_compiled(version, args)"],
                {"run_compiled": run_compiled, "version": c})
    lines, scope = body
    scope = dict(scope, _fp_slow=jf._slow_call, _fp_cache=jf._cache,
                 _fp_touch=jf._cache.touch, _fp_key=key, _fp_missing=object())
    head = []
    for n, g in enumerate(c.translation.guards):
        scope[f"_fp_g{n}"] = g
        if isinstance(g.holder, dict):   # the common case, inline: the global is the same
            scope[f"_fp_get{n}"], scope[f"_fp_v{n}"] = g.holder.get, g.value
            head.append(f"if _fp_get{n}({g.name!r}, _fp_missing) is not _fp_v{n} "
                        f"and not _fp_g{n}.holds():")
        else:
            head.append(f"if not _fp_g{n}.holds():")
        head.append("    return _fp_slow(args, {})")
    # the LRU move, where another version was used since (a version another thread dropped
    # since the look-up still runs this call)
    head += ["if _fp_cache.last is not _fp_key:", "    _fp_touch(_fp_key)"]
    src = "def runner(args):\n" + "".join(f"    {line}\n" for line in head + lines)
    exec(compile(src, f"<solvent fast path of {c.fn.name}>", "exec"), scope)
    runner = scope["runner"]
    runner.source = src
    return runner
