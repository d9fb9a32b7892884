"""Parser for the text form written by ``printer.print_function``."""
from __future__ import annotations

import json
import re

from .core import Block, Function, Operation, Region, Value
from .types import parse_type

# One token, after any spaces: the group that matched names its kind.
_TOKEN = re.compile(r"""\s*(?:
    (?P<str>"(?:[^"\\]|\\.)*")
  | (?P<val>%[\w.<>]+)
  | (?P<sym>@[\w.]+)
  | (?P<num>-?(?:inf|nan|\d+(?:\.\d*)?(?:[eE][-+]?\d+)?))
  | (?P<ident>[A-Za-z_][\w.]*(?:<[^>]*>)?)
  | (?P<punct>[=,:(){}\[\]^])
)""", re.VERBOSE)

_END = (None, None)


class ParseError(Exception):
    pass


def _tokenize(line: str) -> list[tuple[str, str]]:
    """(kind, text) of every token of ``line`` (a stripped line); raises on a character
    no token starts with."""
    toks, pos = [], 0
    for m in _TOKEN.finditer(line):
        if m.start() != pos:
            break
        pos = m.end()
        kind = m.lastgroup
        toks.append((kind, m.group(kind)))
    if pos != len(line):
        raise ParseError(f"cannot tokenize {line[pos:]!r}")
    return toks


class _Tokens:
    """A line's tokens with a cursor; past the end, ``peek`` and ``next`` give
    ``(None, None)``."""

    def __init__(self, toks):
        self.toks, self.i = toks, 0

    def peek(self, k=0):
        try:
            return self.toks[self.i + k]
        except IndexError:
            return _END

    def next(self):
        self.i += 1
        try:
            return self.toks[self.i - 1]
        except IndexError:
            return _END

    def expect(self, text):
        kind, val = self.next()
        if val != text:
            raise ParseError(f"expected {text!r}, got {val!r}")

    def done(self):
        return self.i >= len(self.toks)


def _parse_attr(ts: _Tokens):
    kind, val = ts.next()
    if kind == "num":
        if val in ("inf", "-inf", "nan"):
            return float(val)
        return float(val) if any(c in val for c in ".eE") else int(val)
    if kind == "str":
        return json.loads(val)
    if kind == "ident":
        if val in ("true", "false"):
            return val == "true"
        if val == "none":
            return None
        if val in ("inf", "nan"):
            return float(val)
        if val == "c":
            ts.expect("(")
            re_ = _parse_attr(ts)
            ts.expect(",")
            im = _parse_attr(ts)
            ts.expect(")")
            return complex(re_, im)
    if val == "[":
        items = []
        while ts.peek()[1] != "]":
            items.append(_parse_attr(ts))
            if ts.peek()[1] == ",":
                ts.next()
        ts.next()
        return items
    raise ParseError(f"bad attribute value {val!r}")


def _parse_attrs(ts: _Tokens) -> dict:
    attrs = {}
    ts.expect("{")
    while ts.peek()[1] != "}":
        _, key = ts.next()
        ts.expect("=")
        attrs[key] = _parse_attr(ts)
        if ts.peek()[1] == ",":
            ts.next()
    ts.next()
    return attrs


class _Parser:
    def __init__(self, text: str):
        self.lines = [ln for ln in text.splitlines() if ln.strip()]
        self.i = 0
        self.env: dict[str, Value] = {}

    def line(self):
        return self.lines[self.i].strip()

    def parse_function(self) -> Function:
        ts = _Tokens(_tokenize(self.line()))
        self.i += 1
        ts.expect("func")
        _, sym = ts.next()
        body = Block()
        names = []
        ts.expect("(")
        while ts.peek()[1] != ")":
            _, v = ts.next()
            ts.expect(":")
            _, ty = ts.next()
            names.append(v[1:])
            self.env[v] = body.add_arg(parse_type(ty), v[1:])
            if ts.peek()[1] == ",":
                ts.next()
        ts.next()
        writeback = []
        if ts.peek()[1] == "writeback":
            ts.next()
            writeback = _parse_attr(ts)
        errors = []
        if ts.peek()[1] == "errors":
            ts.next()
            errors = _parse_attr(ts)
        shardings = []
        if ts.peek()[1] == "shardings":
            ts.next()
            shardings = _parse_attr(ts)
        ts.expect("{")
        self.parse_ops(body)
        if self.line() != "}":
            raise ParseError(f"expected '}}' closing the function, got {self.line()!r}")
        self.i += 1
        return Function(sym[1:], body, names, writeback, errors, shardings)

    def parse_ops(self, block: Block) -> None:
        while self.i < len(self.lines) and not self.line().startswith("}"):
            block.append(self.parse_op())

    def parse_block(self) -> Block:
        ts = _Tokens(_tokenize(self.line()))
        self.i += 1
        ts.expect("^")
        ts.expect("(")
        block = Block()
        while ts.peek()[1] != ")":
            _, v = ts.next()
            ts.expect(":")
            _, ty = ts.next()
            self.env[v] = block.add_arg(parse_type(ty))
            if ts.peek()[1] == ",":
                ts.next()
        self.parse_ops(block)
        return block

    def parse_op(self) -> Operation:
        ts = _Tokens(_tokenize(self.line()))
        self.i += 1
        result_names = []
        if ts.peek()[0] == "val":
            while ts.peek()[1] != "=":
                kind, v = ts.next()
                if kind == "val":
                    result_names.append(v)
            ts.next()
        _, name = ts.next()
        operands = []
        while ts.peek()[0] == "val":
            _, v = ts.next()
            if v not in self.env:
                raise ParseError(f"use of undefined value {v}")
            operands.append(self.env[v])
            if ts.peek()[1] == ",":
                ts.next()
        attrs = {}
        if ts.peek()[1] == "{" and ts.peek(1)[1] != None:  # noqa: E711
            attrs = _parse_attrs(ts)
        types = []
        if ts.peek()[1] == ":":
            ts.next()
            while not ts.done() and ts.peek()[1] != "{":
                _, ty = ts.next()
                types.append(parse_type(ty))
                if ts.peek()[1] == ",":
                    ts.next()
        regions = []
        if ts.peek()[1] == "{":
            while True:
                regions.append(Region(self.parse_block()))
                closing = self.line()
                self.i += 1
                if closing == "}":
                    break
                if closing != "} {":
                    raise ParseError(f"expected '}}' or '}} {{', got {closing!r}")
        op = Operation(name, operands, types, attrs, regions)
        if len(result_names) != len(types):
            raise ParseError(f"{name}: {len(result_names)} results but {len(types)} types")
        for n, r in zip(result_names, op.results):
            self.env[n] = r
        return op


def parse_function(text: str) -> Function:
    return _Parser(text).parse_function()
