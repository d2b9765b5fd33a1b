"""Reading ``kubectl get nodes|pods -o json|yaml`` dumps item by item, keeping only what verify needs.

A dump of a big cluster is tens of MB in one List, most of it (``status.images``, conditions, ``managedFields``)
irrelevant here. ``read_items`` walks the List without building it: JSON items are decoded one at a time with
``json.JSONDecoder.raw_decode``; YAML is read from libyaml's event stream and only the kept fields are built. Each
item comes back pruned to ``keep`` with the line and column where it starts, so problems are reported as
``path:line:col`` (``<stdin>:line:col`` for standard input).

This is the one function the verify stage reads dumps through, so a shared streaming List reader can replace it.
Cost: O(size of the dump) time; memory O(largest item + kept data).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from renderer.loading.parse import decode

__all__ = ["MAX_DEPTH", "Item", "Keep", "SnapshotError", "read_items", "read_text"]

#: A keep-spec: True keeps a whole subtree; a dict keeps only its keys (each with its own spec). Sequences apply
#: the spec to each element.
Keep = Any
MAX_DEPTH = 64
_MAX_ALIAS_USES = 10_000

try:  # pragma: no cover - depends on the wheel
    _Loader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader


class SnapshotError(Exception):
    """A problem with a dump: message already located as ``path:line:col``."""


@dataclass(frozen=True)
class Item:
    data: dict[str, Any]
    index: int  # position in the List (0 for a single object)
    line: int  # 1-based
    column: int  # 1-based


def read_text(path: str) -> tuple[str, str]:
    """(text, display name) of a dump file, or of standard input for ``-``."""
    if path == "-":
        raw = sys.stdin.buffer.read()
        display = "<stdin>"
    else:
        try:
            with open(path, "rb") as fh:
                raw = fh.read()
        except OSError as exc:
            raise SnapshotError(f"{path}: cannot read: {exc.strerror or exc}") from None
        display = path
    text, problem = decode(raw, display)
    if problem is not None:
        raise SnapshotError(f"{display}:{problem.line}:{problem.column}: {problem.message}")
    assert text is not None
    return text, display


def read_items(text: str, display: str, keep: dict[str, Keep]) -> Iterator[Item]:
    """Every object of the dump — the items of a List, or a single object — pruned to ``keep``."""
    stripped = text.lstrip()
    if not stripped:
        raise SnapshotError(f"{display}:1:1: the dump is empty; pass the output of kubectl get ... -o json")
    if stripped[0] in "{[":
        yield from _json_items(text, display, keep)
    else:
        yield from _yaml_items(text, display, keep)


def _prune(value: Any, keep: Keep) -> Any:
    if keep is True:
        return value
    if isinstance(value, dict):
        return {k: _prune(v, keep[k]) for k, v in value.items() if k in keep}
    if isinstance(value, list):
        return [_prune(v, keep) for v in value]
    return value


# ----------------------------------------------------------------------------------------------------
# JSON


class _Position:
    """Offset → (line, column), moving forward only (linear over the whole text)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.offset = 0
        self.line = 1
        self.line_start = 0

    def at(self, offset: int) -> tuple[int, int]:
        newlines = self.text.count("\n", self.offset, offset)
        if newlines:
            self.line += newlines
            self.line_start = self.text.rindex("\n", self.offset, offset) + 1
        self.offset = offset
        return self.line, offset - self.line_start + 1


def _json_items(text: str, display: str, keep: dict[str, Keep]) -> Iterator[Item]:
    decoder = json.JSONDecoder()
    pos = _Position(text)
    n = len(text)

    def skip(i: int) -> int:
        while i < n and text[i] in " \t\r\n":
            i += 1
        return i

    def fail(i: int, message: str) -> SnapshotError:
        line, col = pos.at(i)
        return SnapshotError(f"{display}:{line}:{col}: {message}")

    def value(i: int) -> tuple[Any, int]:
        try:
            return decoder.raw_decode(text, i)
        except json.JSONDecodeError as exc:
            raise SnapshotError(f"{display}:{exc.lineno}:{exc.colno}: invalid JSON: {exc.msg}") from None
        except RecursionError:
            raise fail(i, f"invalid JSON: nested more than {MAX_DEPTH} levels deep") from None

    i = skip(0)
    if text[i] == "[":
        raise fail(i, "expected a Kubernetes object or List, got a JSON array")
    start = i
    i = skip(i + 1)
    members: dict[str, Any] = {}
    index = 0
    saw_items = False
    while True:
        if i >= n:
            raise fail(n, "invalid JSON: the object is not closed")
        if text[i] == "}":
            i += 1
            break
        key, i = value(i)
        if not isinstance(key, str):
            raise fail(i, "invalid JSON: expected a member name")
        i = skip(i)
        if i >= n or text[i] != ":":
            raise fail(i, "invalid JSON: expected ':'")
        i = skip(i + 1)
        if key == "items":
            saw_items = True
            if i >= n or text[i] != "[":
                raise fail(i, '"items" must be a list of objects')
            i = skip(i + 1)
            while i < n and text[i] != "]":
                line, col = pos.at(i)
                item, i = value(i)
                if not isinstance(item, dict):
                    raise SnapshotError(f"{display}:{line}:{col}: List item {index + 1} is not an object")
                yield Item(_prune(item, keep), index, line, col)
                index += 1
                i = skip(i)
                if i < n and text[i] == ",":
                    i = skip(i + 1)
                elif i < n and text[i] != "]":
                    raise fail(i, "invalid JSON: expected ',' or ']'")
            if i >= n:
                raise fail(n, "invalid JSON: the items list is not closed")
            i = skip(i + 1)
        else:
            members[key], i = value(i)
            i = skip(i)
        if i < n and text[i] == ",":
            i = skip(i + 1)
        elif i < n and text[i] != "}":
            raise fail(i, "invalid JSON: expected ',' or '}'")
    if skip(i) < n:
        raise fail(skip(i), "invalid JSON: extra data after the object")
    if not saw_items:
        line, col = pos.at(start) if pos.offset <= start else (1, 1)
        yield Item(_prune(members, keep), 0, line, col)


# ----------------------------------------------------------------------------------------------------
# YAML (libyaml events)


class _Composer:
    """Builds pruned Python values from libyaml events, never the skipped subtrees."""

    def __init__(self, text: str, display: str) -> None:
        self.loader = _Loader(text)
        self.display = display
        self.anchors: dict[str, Any] = {}
        self.alias_uses = 0

    def fail(self, mark: Any, message: str) -> SnapshotError:
        return SnapshotError(f"{self.display}:{mark.line + 1}:{mark.column + 1}: {message}")

    def event(self) -> Any:
        try:
            return self.loader.get_event()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = f"{mark.line + 1}:{mark.column + 1}" if mark is not None else "1:1"
            raise SnapshotError(f"{self.display}:{where}: invalid YAML: {exc.problem or exc.context}") from None

    def peek(self) -> Any:
        try:
            return self.loader.peek_event()
        except yaml.MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = f"{mark.line + 1}:{mark.column + 1}" if mark is not None else "1:1"
            raise SnapshotError(f"{self.display}:{where}: invalid YAML: {exc.problem or exc.context}") from None

    def scalar(self, ev: Any) -> Any:
        tag = ev.tag
        if tag is None or tag == "!":
            tag = self.loader.resolve(yaml.ScalarNode, ev.value, ev.implicit)
        node = yaml.ScalarNode(tag, ev.value, ev.start_mark, ev.end_mark, ev.style)
        try:
            return self.loader.construct_object(node, deep=True)
        except yaml.constructor.ConstructorError as exc:
            raise self.fail(ev.start_mark, f"invalid YAML value: {exc.problem}") from None

    def value(self, keep: Keep, depth: int) -> Any:
        """The next node, pruned to ``keep`` (None: skip it entirely)."""
        ev = self.event()
        if depth > MAX_DEPTH:
            raise self.fail(ev.start_mark, f"the dump is nested more than {MAX_DEPTH} levels deep")
        if isinstance(ev, yaml.AliasEvent):
            if ev.anchor not in self.anchors:
                raise self.fail(ev.start_mark, f"alias *{ev.anchor} refers to no anchor defined before it")
            self.alias_uses += 1
            if self.alias_uses > _MAX_ALIAS_USES:
                raise self.fail(ev.start_mark, f"more than {_MAX_ALIAS_USES} aliases; refusing to expand them")
            return None if keep is None else _prune(self.anchors[ev.anchor], keep)
        anchor = getattr(ev, "anchor", None)
        if anchor is not None:
            # An anchored node may be used later under another spec: build it whole, keep it, prune this use.
            whole = self._whole(ev, depth)
            self.anchors[anchor] = whole
            return None if keep is None else _prune(whole, keep)
        if isinstance(ev, yaml.ScalarEvent):
            return None if keep is None else self.scalar(ev)
        if isinstance(ev, yaml.SequenceStartEvent):
            out: list[Any] | None = None if keep is None else []
            while not isinstance(self.peek(), yaml.SequenceEndEvent):
                v = self.value(keep, depth + 1)
                if out is not None:
                    out.append(v)
            self.event()
            return out
        if isinstance(ev, yaml.MappingStartEvent):
            mapping: dict[Any, Any] | None = None if keep is None else {}
            while not isinstance(self.peek(), yaml.MappingEndEvent):
                key_ev = self.peek()
                key = self.value(True if keep is not None else None, depth + 1)
                sub = (
                    None
                    if keep is None
                    else (keep if keep is True else keep.get(key) if isinstance(key, str) else None)
                )
                v = self.value(sub, depth + 1)
                if mapping is not None and sub is not None:
                    try:
                        mapping[key] = v
                    except TypeError:
                        raise self.fail(key_ev.start_mark, "a mapping key must be a plain value") from None
            self.event()
            return mapping
        raise self.fail(ev.start_mark, f"unexpected YAML event {type(ev).__name__}")

    def _whole(self, ev: Any, depth: int) -> Any:
        """The complete value of a node whose start event ``ev`` was just read."""
        if isinstance(ev, yaml.ScalarEvent):
            return self.scalar(ev)
        if isinstance(ev, yaml.SequenceStartEvent):
            seq = []
            while not isinstance(self.peek(), yaml.SequenceEndEvent):
                seq.append(self.value(True, depth + 1))
            self.event()
            return seq
        mapping: dict[Any, Any] = {}
        while not isinstance(self.peek(), yaml.MappingEndEvent):
            key_ev = self.peek()
            key = self.value(True, depth + 1)
            try:
                mapping[key] = self.value(True, depth + 1)
            except TypeError:
                raise self.fail(key_ev.start_mark, "a mapping key must be a plain value") from None
        self.event()
        return mapping


def _yaml_items(text: str, display: str, keep: dict[str, Keep]) -> Iterator[Item]:
    c = _Composer(text, display)
    try:
        c.event()  # StreamStart
        index = 0
        while not isinstance(c.peek(), yaml.StreamEndEvent):
            c.event()  # DocumentStart
            first = c.peek()
            if isinstance(first, yaml.MappingStartEvent):
                c.event()
                members: dict[str, Any] = {}
                saw_items = False
                while not isinstance(c.peek(), yaml.MappingEndEvent):
                    key = c.value(True, 1)
                    if key == "items" and isinstance(c.peek(), yaml.SequenceStartEvent):
                        saw_items = True
                        c.event()
                        while not isinstance(c.peek(), yaml.SequenceEndEvent):
                            mark = c.peek().start_mark
                            if not isinstance(c.peek(), (yaml.MappingStartEvent, yaml.AliasEvent)):
                                raise c.fail(mark, f"List item {index + 1} is not an object")
                            item = c.value(keep, 2)
                            if not isinstance(item, dict):
                                raise c.fail(mark, f"List item {index + 1} is not an object")
                            yield Item(item, index, mark.line + 1, mark.column + 1)
                            index += 1
                        c.event()
                    else:
                        sub = keep.get(key) if isinstance(key, str) else None
                        v = c.value(sub, 1)
                        if sub is not None:
                            members[key] = v
                c.event()
                if not saw_items:
                    mark = first.start_mark
                    line, col = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
                    yield Item(members, index, line, col)
                    index += 1
            elif isinstance(first, yaml.ScalarEvent) and first.value == "" and first.implicit[0]:
                c.event()  # an empty document, as kubectl skips it
            else:
                raise c.fail(first.start_mark, "expected a Kubernetes object (a mapping with apiVersion and kind)")
            c.event()  # DocumentEnd
    finally:
        c.loader.dispose()
