"""Stable text form of the IR. ``parser.parse`` reads it back to the same text.

    func @name(%A: ref<64xf64>, %n: i64) {
      %0 = tensor.constant {dtype = "f64", value = 0.5} : f64
      %1 = loop.for %lb, %ub, %st, %x0 : tensor<64xf64> {
      ^(%2: i64, %3: tensor<64xf64>):
        ...
        loop.yield %4
      }
      func.return %1
    }

Values are numbered in print order; function arguments keep their Python names.
"""
from __future__ import annotations

import json
import math

from .core import Block, Function, Operation, Value


def format_attr(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, complex):
        return f"c({format_attr(v.real)}, {format_attr(v.imag)})"
    if isinstance(v, str):
        return json.dumps(v)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(format_attr(x) for x in v) + "]"
    raise TypeError(f"cannot print attribute {v!r}")


class _Namer:
    def __init__(self):
        self.names: dict[Value, str] = {}
        self.count = 0

    def define(self, v: Value, name: str | None = None) -> str:
        if name is None:
            name = str(self.count)
            self.count += 1
        self.names[v] = name
        return "%" + name

    def use(self, v: Value) -> str:
        try:
            return "%" + self.names[v]
        except KeyError:
            return "%<undefined>"


def _print_op(op: Operation, namer: _Namer, indent: str, out: list[str]) -> None:
    line = indent
    if op.results:
        line += ", ".join(namer.define(r) for r in op.results) + " = "
    line += op.name
    if op.operands:
        line += " " + ", ".join(namer.use(o) for o in op.operands)
    if op.attrs:
        line += " {" + ", ".join(f"{k} = {format_attr(op.attrs[k])}" for k in sorted(op.attrs)) + "}"
    if op.results:
        line += " : " + ", ".join(str(r.type) for r in op.results)
    if not op.regions:
        out.append(line)
        return
    out.append(line + " {")
    for i, region in enumerate(op.regions):
        if i:
            out.append(indent + "} {")
        _print_block(region.block, namer, indent, out)
    out.append(indent + "}")


def _print_block(block: Block, namer: _Namer, indent: str, out: list[str]) -> None:
    args = ", ".join(f"{namer.define(a)}: {a.type}" for a in block.args)
    out.append(f"{indent}^({args}):")
    for op in block.ops:
        _print_op(op, namer, indent + "  ", out)


def print_function(fn: Function) -> str:
    namer = _Namer()
    args = ", ".join(f"{namer.define(a, n)}: {a.type}" for a, n in zip(fn.args, fn.arg_names))
    head = f"func @{fn.name}({args})"
    if fn.writeback:
        head += " writeback " + format_attr(list(fn.writeback))
    if fn.errors:
        head += " errors " + format_attr([list(e) for e in fn.errors])
    if fn.shardings:
        head += " shardings " + format_attr(fn.shardings)
    out = [head + " {"]
    for op in fn.body.ops:
        _print_op(op, namer, "  ", out)
    out.append("}")
    return "\n".join(out) + "\n"
