"""Python functions made from generated ASTs, with the names they read bound in a closure.

The function's globals stay the user's module globals (so solvent's capture guards see
later changes to them); the extra names (numpy, rewritten device functions, the kernel's own
closure variables) are closure cells of a maker function around it.
"""
from __future__ import annotations

import ast

from ..frontend.translator import Source, register_source


def make_function(tree: ast.FunctionDef, src: Source, globals_: dict, extras: dict):
    names = sorted(extras)
    maker = ast.FunctionDef(
        name="__simt_maker",
        args=ast.arguments(posonlyargs=[], args=[ast.arg(n) for n in names], vararg=None,
                           kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
        body=[tree, ast.Return(ast.Name(tree.name, ast.Load()))], decorator_list=[],
        returns=None)
    ast.copy_location(maker, tree)
    module = ast.fix_missing_locations(ast.Module([maker], type_ignores=[]))
    scope: dict = {}
    exec(compile(module, src.filename, "exec"), globals_, scope)
    fn = scope["__simt_maker"](*(extras[n] for n in names))
    register_source(fn, tree, src)
    return fn
