"""The grammar of kubectl's JSONPath templates: ``parse(text)`` → text, actions and ``{range}`` blocks.

Read by ``renderer.reporters.kubectl_jsonpath`` (which evaluates and prints them; its docstring says the dialect).
Facts from client-go's ``util/jsonpath`` parser, checked against kubectl itself (tests/reporters/test_kubectl_jsonpath.py).

Cost: O(template).
"""

from __future__ import annotations

import re
from dataclasses import dataclass


class TemplateError(ValueError):
    """A template that does not parse, or fails on the data (an index outside an array, ...)."""


# --- the template's parts --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Field:
    name: str


@dataclass(frozen=True)
class Wildcard:
    pass


@dataclass(frozen=True)
class Recursive:
    pass


@dataclass(frozen=True)
class Array:
    """``[start:end:step]``; ``end_derived``: written as one index, ``[i]`` (``end`` is then ``i + 1``)."""

    start: int | None
    end: int | None
    step: int | None
    end_derived: bool = False


@dataclass(frozen=True)
class Union:
    branches: tuple[tuple[Step, ...], ...]


@dataclass(frozen=True)
class Filter:
    left: tuple[Step, ...]
    op: str  # <, >, ==, !=, <=, >=, or "exists"
    right: tuple[Step, ...]


@dataclass(frozen=True)
class Literal:
    """Quoted text (one value), or a number or boolean (the same value once per current value), in an action."""

    value: str | int | float | bool


@dataclass(frozen=True)
class Identifier:
    name: str


Step = Field | Wildcard | Recursive | Array | Union | Filter | Literal | Identifier


@dataclass(frozen=True)
class Text:
    text: str


@dataclass(frozen=True)
class Action:
    steps: tuple[Step, ...]


@dataclass(frozen=True)
class Range:
    steps: tuple[Step, ...]
    body: tuple[Node, ...]


Node = Text | Action | Range

_SLICE = re.compile(r"^(-?[0-9]*)(:-?[0-9]*)?(:-?[0-9]*)?$")
_DICT_KEY = re.compile(r"^'([^']*)'$")
_FILTER = re.compile(r"^([^!<>=]+)([!<>=~]+)(.+?)$", re.DOTALL)
_OPERATORS = ("<", ">", "==", "!=", "<=", ">=")
_TERMINATORS = frozenset(" \t\r\n.,[]$@{}")
#: Go's strconv.UnquoteChar escapes (\a \b \f \n \r \t \v \\ and the quote; \x, \u, \U and octal handled apart).
_ESCAPES = {"a": "\a", "b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v", "\\": "\\"}


class _Parser:
    """Scans a template as client-go's parser does (the same tokens and errors, worded here)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def fail(self, message: str) -> TemplateError:
        return TemplateError(f"{message} (at character {self.pos + 1} of {self.text!r})")

    def template(self) -> list[Text | Action]:
        out: list[Text | Action] = []
        start = 0
        while True:
            brace = self.text.find("{", self.pos)
            if brace < 0:
                if start < len(self.text):
                    out.append(Text(self.text[start:]))
                return out
            if brace > start:
                out.append(Text(self.text[start:brace]))
            self.pos = brace + 1
            out.append(Action(tuple(self.action())))
            start = self.pos

    def action(self) -> list[Step]:
        """The steps up to the closing brace (consumed)."""
        steps: list[Step] = []
        text = self.text
        while True:
            rest = text[self.pos :]
            if rest.startswith("}"):
                self.pos += 1
                return steps
            if rest.startswith("[?("):
                steps.append(self.filter())
                continue
            if rest.startswith(".."):
                if steps and isinstance(steps[-1], Recursive):
                    raise self.fail("invalid multiple recursive descent")
                self.pos += 2
                steps.append(Recursive())
                if self.pos < len(text) and _alnum(text[self.pos]):
                    steps.append(self.field())
                continue
            if not rest or rest[0] in "\r\n":
                raise self.fail("unclosed action")
            ch = rest[0]
            if ch in " @$":
                self.pos += 1
            elif ch == "[":
                steps.extend(self.array())
            elif ch in "\"'":
                steps.append(Literal(self.quoted(ch)))
            elif ch == ".":
                self.pos += 1
                steps.append(self.field())
            elif ch in "+-" or ch.isdigit():
                steps.append(self.number())
            elif _alnum(ch):
                steps.append(self.identifier())
            else:
                raise self.fail(f"unrecognized character in action: {ch!r}")

    def field(self) -> Field | Wildcard:
        start = self.pos
        text = self.text
        while self.pos < len(text):
            ch = text[self.pos]
            if ch == "\\":
                self.pos += 2
                continue
            if ch in _TERMINATORS:
                break
            self.pos += 1
        self.pos = min(self.pos, len(text))
        name = text[start : self.pos]
        return Wildcard() if name == "*" else Field(name.replace("\\", ""))

    def identifier(self) -> Step:
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in _TERMINATORS:
            self.pos += 1
        word = self.text[start : self.pos]
        if word in ("true", "false"):
            return Literal(word == "true")
        return Identifier(word)

    def number(self) -> Literal:
        start = self.pos
        if self.text[self.pos] in "+-":
            self.pos += 1
        while self.pos < len(self.text) and (self.text[self.pos] == "." or self.text[self.pos].isdigit()):
            self.pos += 1
        word = self.text[start : self.pos]
        if re.fullmatch(r"[+-]?[0-9]+", word):
            return Literal(int(word))
        try:
            return Literal(float(word))
        except ValueError:
            raise self.fail(f"cannot parse number {word}") from None

    def quoted(self, quote: str) -> str:
        start = self.pos
        self.pos += 1
        text = self.text
        while True:
            if self.pos >= len(text) or text[self.pos] == "\n":
                raise self.fail("unterminated quoted string")
            if text[self.pos] == quote and text[self.pos - 1] != "\\":
                self.pos += 1
                break
            self.pos += 1
        try:
            return _unquote(text[start + 1 : self.pos - 1], quote)
        except ValueError as exc:
            raise self.fail(f"cannot unquote {text[start : self.pos]}: {exc}") from None

    def array(self) -> list[Step]:
        start = self.pos
        end = self.pos + 1
        while True:
            if end >= len(self.text) or self.text[end] == "\n":
                raise self.fail("unterminated array")
            if self.text[end] == "]":
                break
            end += 1
        self.pos = end + 1
        inner = self.text[start + 1 : end]
        if inner == "*":
            inner = ":"
        parts = inner.split(",")
        if len(parts) > 1:
            return [Union(tuple(tuple(_action(f"[{p.strip(' ')}]")) for p in parts))]
        key = _DICT_KEY.match(inner)
        if key:  # ['a.b'] is the path .a.b, as kubectl reads it
            return _action("." + key.group(1))
        m = _SLICE.match(inner)
        if m is None:
            raise self.fail(f"invalid array index {inner}")
        first, second, third = m.group(1), m.group(2), m.group(3)
        begin = int(first) if first not in ("", "-") else None
        if first == "-":
            raise self.fail("array index - is not a number")
        if second is None:
            if begin is None:
                return [Array(None, None, None)]
            return [Array(begin, begin + 1, None, end_derived=True)]
        values = []
        for part in (second, third):
            text = (part or ":")[1:]
            if text == "-":
                raise self.fail("array index - is not a number")
            values.append(int(text) if text else None)
        return [Array(begin, values[0], values[1])]

    def filter(self) -> Filter:
        self.pos += 3
        start = self.pos
        text = self.text
        begin = end = False
        pair = ""
        while True:
            if self.pos >= len(text) or text[self.pos] == "\n":
                raise self.fail("unterminated filter")
            ch = text[self.pos]
            self.pos += 1
            if ch in "\"'":
                if not begin:
                    begin, pair = True, ch
                elif text[self.pos - 2] != "\\" and ch == pair:
                    end = True
            elif ch == ")" and begin == end:
                break
        if self.pos >= len(text) or text[self.pos] != "]":
            raise self.fail("unclosed array, expected ]")
        self.pos += 1
        inner = text[start : self.pos - 2]
        m = _FILTER.match(inner)
        if m is None:
            return Filter(tuple(_action(inner)), "exists", ())
        op = m.group(2)
        if op not in _OPERATORS:
            raise self.fail(f"unrecognized filter operator {op}")
        return Filter(tuple(_action(m.group(1))), op, tuple(_action(m.group(3))))


def _alnum(ch: str) -> bool:
    return ch == "_" or ch.isalpha() or ch.isdigit()


def _action(text: str) -> list[Step]:
    """The steps of ``text`` read as one action (a union branch, a dictionary key, a filter's side)."""
    parser = _Parser("{" + text + "}")
    parser.pos = 1
    steps = parser.action()
    if parser.pos != len(parser.text):
        raise TemplateError(f"unexpected {parser.text[parser.pos :]!r} in {text!r}")
    return steps


def _unquote(body: str, quote: str) -> str:
    """Go's ``strconv.Unquote`` of a double- or single-quoted string's body (client-go's ``UnquoteExtend``)."""
    out: list[str] = []
    i = 0
    while i < len(body):
        ch = body[i]
        if ch != "\\":
            if ch == quote:
                raise ValueError("unescaped quote")
            out.append(ch)
            i += 1
            continue
        if i + 1 >= len(body):
            raise ValueError("invalid syntax")
        esc = body[i + 1]
        if esc in _ESCAPES:
            out.append(_ESCAPES[esc])
            i += 2
        elif esc == quote:
            out.append(quote)
            i += 2
        elif esc in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[esc]
            digits = body[i + 2 : i + 2 + width]
            if len(digits) != width or not all(c in "0123456789abcdefABCDEF" for c in digits):
                raise ValueError("invalid syntax")
            code = int(digits, 16)
            if esc != "x" and (code > 0x10FFFF or 0xD800 <= code <= 0xDFFF):
                raise ValueError("invalid syntax")
            out.append(chr(code))
            i += 2 + width
        elif esc in "01234567":
            digits = body[i + 1 : i + 4]
            if len(digits) != 3 or not all(c in "01234567" for c in digits) or int(digits, 8) > 255:
                raise ValueError("invalid syntax")
            out.append(chr(int(digits, 8)))
            i += 4
        else:
            raise ValueError("invalid syntax")
    return "".join(out)


def _structure(items: list[Text | Action]) -> tuple[Node, ...]:
    """Nest ``{range}`` … ``{end}`` blocks (an unmatched one is an error)."""
    stack: list[tuple[tuple[Step, ...], list[Node]]] = []
    top: list[Node] = []
    current = top
    for item in items:
        if isinstance(item, Action) and any(isinstance(s, Identifier) and s.name == "range" for s in item.steps):
            steps = tuple(s for s in item.steps if not (isinstance(s, Identifier) and s.name == "range"))
            stack.append((steps, current))
            current = []
            continue
        if isinstance(item, Action) and any(isinstance(s, Identifier) and s.name == "end" for s in item.steps):
            if not stack:
                raise TemplateError("{end} without a {range} before it: not in range, nothing to end")
            steps, outer = stack.pop()
            outer.append(Range(steps, tuple(current)))
            current = outer
            continue
        current.append(item)
    if stack:
        raise TemplateError("{range} without its {end}")
    return tuple(top)


def parse(text: str) -> tuple[Node, ...]:
    """The nodes of template ``text``: text, actions and nested ``{range}`` blocks. Raises ``TemplateError``."""
    return _structure(_Parser(text).template())
