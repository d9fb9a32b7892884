"""Functions defined inside a kernel (``def`` statements and ``lambda`` expressions).

They are inlined at each call, like module-level helpers, and read the enclosing function's
variables as they are at the call (Python's late binding); default values are evaluated
where the ``def`` or ``lambda`` stands, as Python evaluates them.
"""
from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass


@dataclass(eq=False)
class LocalFunction:
    node: ast.FunctionDef | ast.Lambda
    outer: object            # the Translator of the scope that defines it
    defaults: list           # frontend values of the defaults, in parameter order
    name: str

    @property
    def tree(self) -> ast.FunctionDef:
        if isinstance(self.node, ast.FunctionDef):
            return self.node
        tree = ast.FunctionDef(name="<lambda>", args=self.node.args,
                               body=[ast.Return(self.node.body)], decorator_list=[],
                               returns=None, type_params=[])
        ast.copy_location(tree.body[0], self.node.body)
        return ast.fix_missing_locations(ast.copy_location(tree, self.node))

    def param_names(self) -> set[str]:
        a = self.node.args
        return {p.arg for p in a.posonlyargs + a.args + a.kwonlyargs}

    def signature(self) -> inspect.Signature:
        a = self.node.args
        if a.vararg or a.kwarg or a.kwonlyargs or a.posonlyargs:
            raise TypeError("*args, **kwargs, keyword-only and positional-only parameters of "
                            "nested functions are not supported")
        first_default = len(a.args) - len(self.defaults)
        params = [inspect.Parameter(p.arg, inspect.Parameter.POSITIONAL_OR_KEYWORD,
                                    default=(self.defaults[k - first_default]
                                             if k >= first_default else inspect.Parameter.empty))
                  for k, p in enumerate(a.args)]
        return inspect.Signature(params)
