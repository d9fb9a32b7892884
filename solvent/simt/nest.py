"""The IR path of a kernel launch: the kernel's body (one thread's code) wrapped, unchanged,
in a loop over the grid's blocks and a nest of loops over the block's threads, its
``cuda.syncthreads()`` kept as a statement the translator turns into ``simt.barrier``:

    for b in blocks:                        loop.for {simt = "blocks"}
        <shared / local arrays, zeroed>       array.alloc
        for ty in range(BY):                  loop.for {simt = "threads"}
            for tx in range(BX):                loop.for {simt = "threads"}
                t = tx + ty * BX
                R0; __simt_barrier(); R1        ...; simt.barrier; ...

The barriers are then lowered on the IR by passes/lower_barriers.py (fission, interchange
of the ``for``/``while``/``if`` holding them with the thread nest, values kept per thread in
buffers), instead of on the Python AST (fission.py). A ``return`` is a ``continue`` of the
innermost thread loop (the rest of the kernel runs in the threads that did not return). A
kernel this path cannot take yet (a ``return`` inside a loop, a ``while`` whose condition is
not known to be the same in every thread, a value it cannot keep per thread) keeps
fission.py's lowering: launch.py falls back and ``explain`` says which path ran.

Identity: the nest runs every thread's code once per block; with the barriers lowered, every
thread finishes the code before a barrier before any thread runs the code after it.
"""
from __future__ import annotations

import ast

from .analysis import has_barrier, is_barrier
from .fission import ROLE_ATTR, Fission
from .intrinsics import FLAT_THREAD, THREAD, Config, Rewriter
from ..ops.simt import THREADS


def refusal(body: list) -> str | None:
    """Why the IR path cannot take ``body`` (statements around its barriers it does not
    interchange yet), or None."""
    for s in body:
        for n in ast.walk(s):
            if isinstance(n, (ast.For, ast.While)) and \
                    any(isinstance(m, ast.Return) for m in ast.walk(n)):
                return "a return inside a loop (the AST path keeps a per-thread flag)"
            if isinstance(n, ast.Return) and n.value is not None and \
                    not (isinstance(n.value, ast.Constant) and n.value.value is None):
                return "a return with a value"
            if isinstance(n, (ast.For, ast.While, ast.If)) and has_barrier(n) and \
                    not is_barrier(n):
                if isinstance(n, (ast.For, ast.While)) and n.orelse:
                    return "a loop with an else around a barrier"
                for m in ast.walk(n):
                    if isinstance(m, (ast.Break, ast.Continue)):
                        return "break/continue in a statement holding a barrier"
    return None


class _ReturnsAsContinue(ast.NodeTransformer):
    """A kernel's ``return`` (outside its loops: ``refusal``) ends the thread's code: in the
    nest it is a ``continue`` of the innermost loop over threads. The frontend then runs the
    statements after it under an ``if`` marked ``after_jump`` (translate.py), which
    lower_barriers runs in the threads that did not return."""

    def visit_Return(self, node):
        return ast.copy_location(ast.Continue(), node)

    def visit_FunctionDef(self, node):
        return node


def thread_nest(config: Config, body: list, node) -> list:
    """``body`` inside the loops over the block's threads (z outermost), the flat thread
    index defined first; its returns are continues of the innermost of those loops."""
    fis = Fission([], config, [], set(), None, [])
    body = [_ReturnsAsContinue().visit(s) for s in body]
    code = [ast.Assign([ast.Name(FLAT_THREAD, ast.Store())], fis.flat_thread())] + list(body)
    for d in range(3):
        if config.block[d] > 1:
            loop = ast.For(ast.Name(THREAD[d], ast.Store()),
                           ast.Call(ast.Name("range", ast.Load()),
                                    [ast.Constant(config.block[d])], []), code, [])
            setattr(loop, ROLE_ATTR, THREADS)
            code = [loop]
    if not any(config.block[d] > 1 for d in range(3)):
        # one thread: still a loop over threads, where the barriers stand
        loop = ast.For(ast.Name("__simt_one", ast.Store()),
                       ast.Call(ast.Name("range", ast.Load()), [ast.Constant(1)], []), code,
                       [])
        setattr(loop, ROLE_ATTR, THREADS)
        code = [loop]
    for s in code:
        ast.copy_location(s, node)
    return [ast.fix_missing_locations(s) for s in code]


def block_code(config: Config, rewritten, body: list, parallel: bool, groups: int,
               node) -> list:
    """The whole lowered kernel: index constants, the block loop(s) holding the arrays of a
    block and the thread nest."""
    allocs = [Rewriter.zeros(d, ()) for d in rewritten.shared]
    allocs += [Rewriter.zeros(d, (config.threads,)) for d in rewritten.local]
    for a in allocs:
        ast.copy_location(a, node)
    fis = Fission([], config, [], set(), None, allocs)
    return fis.block_loop(thread_nest(config, body, node), parallel, groups)
