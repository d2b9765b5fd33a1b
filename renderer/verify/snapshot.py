"""Reading ``kubectl get nodes|pods -o json|yaml`` dumps for verify, one object at a time, with the policy loader's
own reader.

A dump of a big cluster is tens to hundreds of MB in one List, most of it (``status.images``, conditions,
``managedFields``) irrelevant here. It is read by ``renderer.loading.stream``, the reader the policy loader uses for
inventory Node Lists, with the loader's YAML rules (``renderer.loading.parse``: its loader and scalar constructors,
so ``1:30`` is a string as in Kubernetes) and its bounds (``MAX_DEPTH`` levels, ``DEFAULT_MAX_DOCUMENT_CHARS`` per
List item or single object, never per file): a JSON dump with the json module's scanner, falling back to the YAML
reader where the two would read differently; a dump with anchors or aliases (kubectl never writes them) with the
loader's guarded constructor (``parse_text``). Each object is pruned to a keep-spec while it is read, so a 10,000-node
or 20,000-pod dump never exists as a whole in memory, and comes with its span in the text: a problem in one object is
located by reading that object's text again (``locate``), nothing else. So verify reads a dump to the same values,
and locates the same problem at the same line and column, as ``allocatable validate`` does the same file in the
inventory.

What is verify's own: standard input (``-``), one located error line (``SnapshotError``, ``path:line:col`` or
``<stdin>:line:col``), a JSON dump with a syntax error reported as invalid JSON (kubectl's output, not a YAML file
named .json), a JSON array or an empty input refused with what to pass instead.

Cost: O(size of the dump) time; memory O(the text + the largest object + the kept fields of every object).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import yaml

from renderer.findings import FieldPath, Finding, SourceRef
from renderer.loading.parse import (
    DEFAULT_MAX_DOCUMENT_CHARS,
    MAX_DEPTH,
    ParseProblem,
    StrictLoader,
    construct_plain,
    decode,
    parse_text,
    yaml_error_message,
)
from renderer.loading.positions import compose_item, walk
from renderer.loading.stream import (
    DocumentTooLarge,
    DuplicateKey,
    KeepSpec,
    ListItem,
    NeedsFullConstructor,
    NeedsYamlPath,
    NestedTooDeep,
    Span,
    iter_json_list_items,
    iter_list_items,
    prune_item,
    prune_value,
)

__all__ = ["MAX_DEPTH", "Item", "SnapshotError", "error_line", "locate", "position", "read_items", "read_text"]


class SnapshotError(Exception):
    """A problem with a dump: message already located as ``path:line:col``."""


@dataclass(frozen=True)
class Item:
    data: dict[str, Any]
    index: int  # position in the dump: List items and single objects counted across documents
    line: int  # 1-based, where the object starts (0: not counted, see ``position``)
    column: int  # 1-based
    #: The object's character range in the text (None for a document read with anchors: located by its start).
    span: tuple[int, int] | None = None


def read_text(path: str) -> tuple[str, str]:
    """(text, display name) of a dump file, or of standard input for ``-``."""
    if path == "-":
        raw = sys.stdin.buffer.read()
        display = "<stdin>"
    else:
        from renderer.escaping import plain
        from renderer.loading.files import MAX_FILE_BYTES_CEILING, FileProblem, read_named

        try:  # safepath: inside the repository only, regular files only, bounded, never blocking
            raw = read_named(path, MAX_FILE_BYTES_CEILING, what="the dump")
        except FileProblem as exc:
            raise SnapshotError(f"{plain(path)}: {exc}") from None
        display = path
    text, problem = decode(raw, display)
    del raw
    if problem is not None:
        raise SnapshotError(f"{display}:{problem.line}:{problem.column}: {problem.message}")
    assert text is not None
    from renderer.loading.parse import LONE_SURROGATE, lone_surrogate_escape

    lone = lone_surrogate_escape(text)  # "\ud800": no character, no encoder writes it (issue 21, class 14)
    if lone is not None:
        line = text.count("\n", 0, lone) + 1
        raise SnapshotError(f"{display}:{line}:{lone - text.rfind(chr(10), 0, lone)}: {LONE_SURROGATE}")
    return text, display


def read_items(
    text: str, display: str, keep: KeepSpec, kind: tuple[str, str] | None = None, positions: bool = True
) -> Iterator[Item]:
    """Every object of the dump — the items of a List, or a single object — pruned to ``keep`` (while it is read
    when it is of ``kind``, an (apiVersion, kind); objects of other kinds are pruned once read). With
    ``positions=False`` the lines of a JSON dump are not counted (``line`` 0): ``position`` finds them for the
    object that has a problem."""
    start = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # (no copy of a big text, as lstrip)
    if start == len(text):
        raise SnapshotError(f"{display}:1:1: the dump is empty; pass the output of kubectl get ... -o json")
    if text[start] == "[":
        line, column = _line_column(text, start)
        raise SnapshotError(
            f"{display}:{line}:{column}: expected a Kubernetes object or List, got a JSON array; pass the output of "
            "kubectl get ... -o json"
        )
    prune = {kind: keep} if kind is not None else {}
    for got in _objects(text, display, prune, as_json=text[start] == "{", positions=positions):
        data = got.data
        span = got.span
        if not isinstance(data, dict):
            what = "the document" if got.whole_document else f"List item {got.index + 1}"
            line, column = (span.line, span.column) if span.line else _line_column(text, span.start)
            raise SnapshotError(
                error_line(display, line, column, f"{what} is not an object", "expected a Kubernetes object")
            )
        if kind is None or (data.get("apiVersion"), data.get("kind")) != kind:
            data = prune_value(data, keep)  # another kind: not pruned while it was read
        yield Item(
            data,
            got.index,
            span.line,
            span.column,
            (span.start, span.end) if span.end > span.start else None,
        )


def locate(text: str, display: str, item: Item, field_path: FieldPath, at_key: bool = False) -> tuple[int, int]:
    """Line and column of ``field_path`` in one object of the dump, from that object's text alone (the deepest
    part of the path that exists; the object's start when it cannot be read again)."""
    line, column = position(text, item)
    if item.span is None:
        return line, column
    source = SourceRef(display, 0, item.index, line, column, item.span)
    node, offset = compose_item(text, source)
    if node is None:
        return line, column
    return walk(node, field_path, at_key, offset)


def position(text: str, item: Item) -> tuple[int, int]:
    """Line and column where the object starts (counted now when they were not while reading: O(offset))."""
    if item.line or item.span is None:
        return item.line, item.column
    return _line_column(text, item.span[0])


def error_line(display: str, line: int, column: int, message: str, hint: str | None = None) -> str:
    """``path:line:col: message`` (``; hint`` when there is one): the one line a bad dump gets."""
    return f"{display}:{line}:{column}: {message}" + (f"; {hint}" if hint else "")


# --- reading -------------------------------------------------------------------------------------------------------


def _line_column(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


_LEADING_SPACE = re.compile(r"\s*")


def _objects(
    text: str, display: str, prune: dict[tuple[str, str], KeepSpec], as_json: bool, positions: bool
) -> Iterator[ListItem]:
    """The objects of the dump as the stream reader gives them, falling back as the policy loader does: JSON → YAML
    events → the guarded constructor (each fallback resumes after the objects already given)."""
    done = 0
    if as_json:
        try:
            for item in iter_json_list_items(
                text,
                prune=prune,
                max_depth=MAX_DEPTH,
                max_item_chars=DEFAULT_MAX_DOCUMENT_CHARS,
                objects=True,
                positions=positions,
            ):
                yield item
                done += 1
            return
        except NeedsYamlPath as exc:
            if exc.syntax is not None:
                err = exc.syntax
                raise SnapshotError(error_line(display, err.lineno, err.colno, f"invalid JSON: {err.msg}")) from None
    kind = "JSON" if as_json else "YAML"
    loader = StrictLoader(text)
    try:
        for item in iter_list_items(
            text,
            prune=prune,
            max_depth=MAX_DEPTH,
            max_item_chars=DEFAULT_MAX_DOCUMENT_CHARS,
            objects=True,
            loader=loader,
            construct_scalar=construct_plain,
        ):
            if item.index >= done:
                yield item
                done += 1
        return
    except NeedsFullConstructor:
        pass
    except NestedTooDeep as exc:
        raise _at(display, exc.mark, f"the dump is nested more than {MAX_DEPTH} levels deep") from None
    except DocumentTooLarge as exc:
        raise _at(
            display,
            exc.mark,
            f"this object is larger than {exc.limit} characters, the limit for one Node, Pod or document",
            "is this a kubectl get nodes|pods dump?",
        ) from None
    except DuplicateKey as exc:
        if len(text) <= DEFAULT_MAX_DOCUMENT_CHARS:  # as the policy loader: its constructor names the first one too
            problems = parse_text(text, display)[1]
            if problems and problems[0].code == "AL002":
                raise SnapshotError(_problem_line(display, problems[0])) from None
        raise _at(display, exc.mark, f'duplicate key "{exc.key}"', "each key may appear once in a mapping") from None
    except ParseProblem as p:
        raise SnapshotError(error_line(display, p.line, p.column, p.message, p.hint)) from None
    except yaml.MarkedYAMLError as exc:
        message, hint, mark = yaml_error_message(exc, text, kind, StrictLoader)
        line, column = (mark.line + 1, mark.column + 1) if mark is not None else (1, 1)
        raise SnapshotError(error_line(display, line, column, message, hint)) from None
    except yaml.YAMLError as exc:
        raise SnapshotError(error_line(display, 1, 1, f"invalid {kind}: {exc}")) from None
    except (ValueError, OverflowError) as exc:  # a value the constructor cannot represent
        raise SnapshotError(error_line(display, 1, 1, f"invalid {kind} value: {exc}")) from None
    finally:
        loader.dispose()
    yield from _anchored(text, display, prune, done)


def _at(display: str, mark: Any, message: str, hint: str | None = None) -> SnapshotError:
    return SnapshotError(error_line(display, mark.line + 1, mark.column + 1, message, hint))


_UNDEFINED_ALIAS = re.compile(r"found undefined alias '([^']*)'")


def _anchored(text: str, display: str, prune: dict[tuple[str, str], KeepSpec], done: int) -> Iterator[ListItem]:
    """A dump with anchors, aliases or tags: read by the policy loader's guarded constructor (alias expansion and
    document size bounded there), objects located by composing the documents (their nodes, not their values)."""
    docs, problems = parse_text(text, display)
    if problems:
        raise SnapshotError(_problem_line(display, problems[0]))
    loader = StrictLoader(text)
    try:
        index = 0
        for doc in docs:
            loader.check_node()
            node = loader.get_node()  # composed again for positions only (bounded: parse_text read the same)
            data = doc.data
            if data is None:
                continue
            items = data.get("items") if isinstance(data, dict) else None
            if isinstance(items, list):
                marks = _item_marks(node)
                for k, value in enumerate(items):
                    if index >= done:
                        value = prune_item(value, prune)
                        m = marks[k] if k < len(marks) else node.start_mark
                        yield ListItem(index, Span(m.line + 1, m.column + 1, 0, 0), value)  # no text range
                    index += 1
            else:
                if index >= done:
                    m = node.start_mark
                    data = prune_item(data, prune)
                    yield ListItem(index, Span(m.line + 1, m.column + 1, 0, 0), data, whole_document=True)
                index += 1
    finally:
        loader.dispose()


def _item_marks(root: yaml.Node) -> list[Any]:
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "items" and isinstance(value, yaml.SequenceNode):
                return [v.start_mark for v in value.value]
    return []


def _problem_line(display: str, f: Finding) -> str:
    """The policy loader's finding as verify's line (an undefined alias named as such)."""
    alias = _UNDEFINED_ALIAS.search(f.message)
    if alias is not None:
        name = alias.group(1)
        return error_line(
            display,
            f.line,
            f.column,
            f"alias *{name} refers to no anchor defined before it",
            f"define the anchor (&{name}) before using the alias (*{name}), in the same document",
        )
    return error_line(display, f.line, f.column, f.message, f.hint)
