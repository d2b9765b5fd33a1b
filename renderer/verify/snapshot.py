"""Reading ``kubectl get nodes|pods -o json|yaml`` dumps for verify: the policy loader's reader, verify's words.

A dump goes through ``renderer.loading.documents.read`` like every policy file — the same bounded read (regular
files only, never blocking, at most ``--max-file-size`` bytes; standard input copied once within the same bound),
the same YAML rules, bounds and error ladder, the same JSON scanner — with ``dump=True``: JSON when the text starts
with ``{`` whatever the file's name, and a JSON syntax error reported as invalid JSON (kubectl's output, not a YAML
file named .json). Each object is pruned to a keep-spec while it is read, so a 10,000-node or 20,000-pod dump never
exists as a whole in memory, and comes with its span in the text: a problem in one object is located by reading that
object's text again (``locate``), nothing else. So verify reads a dump to the same values, and locates the same
problem at the same line and column, as ``allocatable validate`` does the same file in the inventory.

What is verify's own: one located error line (``SnapshotError``, ``path:line:col`` or ``<stdin>:line:col``) worded
from the problem's cause, a JSON array or an empty input refused with what to pass instead.

Cost: O(size of the dump) time; memory O(the text + the largest object + the kept fields of every object).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Final

from renderer.errors import UserError
from renderer.findings import FieldPath, SourceRef
from renderer.loading.documents import MAX_DEPTH, Bounds, Problem, Read, Source, read
from renderer.loading.events import Span
from renderer.loading.files import is_stdin
from renderer.loading.positions import compose_item, walk
from renderer.loading.prune import KeepSpec, Prune, prune_item, prune_value
from renderer.loading.streaming import Reread, StreamedItem, StreamProblem, stream

__all__ = [
    "MAX_DEPTH",
    "MAX_STREAM_BYTES",
    "Dump",
    "Item",
    "SnapshotError",
    "error_line",
    "locate",
    "position",
    "read_dump",
    "read_items",
]


class SnapshotError(UserError):
    """A problem with a dump: message already located as ``path:line:col``."""


#: The most bytes a JSON dump read in chunks may have (a dump read whole: ``--max-file-size``, 256 MiB by default):
#: 20,000 nodes and 200,000 pods are about 2 GB; memory follows the largest object and the fields kept, not this.
MAX_STREAM_BYTES: Final = 16 << 30


@dataclass(frozen=True)
class Item:
    data: dict[str, Any]
    index: int  # position in the dump: List items and single objects counted across documents
    line: int  # 1-based, where the object starts (0: not counted, see ``position``)
    column: int  # 1-based
    #: The object's character range in ``text`` (None for a document read with anchors: located by its start).
    span: tuple[int, int] | None = None
    #: The text the span refers to: the whole dump, or the window of a dump read in chunks.
    text: str = ""


@dataclass(frozen=True)
class Dump:
    """A dump being read: its name as shown and its objects, one at a time (each with the text to locate a problem in
    it); iterating raises ``SnapshotError``."""

    display: str
    items: Iterator[Item]


def read_dump(
    path: str | Source,
    keep: KeepSpec,
    kind: tuple[str, str] | None = None,
    *,
    positions: bool = True,
    max_bytes: int | None = None,
    prune: Prune | None = None,
) -> Dump:
    """Every object of the dump at ``path`` (``-``: standard input; or a source already made, such as kubectl's
    output), pruned to ``keep`` (see ``read_items``), read in chunks when it is a large JSON dump (up to
    ``MAX_STREAM_BYTES``, or ``max_bytes`` when given) and whole otherwise (up to ``max_bytes``). ``prune``: the
    keep-specs of several kinds at once (a ``kubectl get nodes,pods`` dump), ``keep`` for objects of other kinds.
    Iterating raises ``SnapshotError``."""
    if isinstance(path, Source):
        source = path
    else:
        source = Source.standard_input() if is_stdin(path) else Source.file(path, named="the dump")
    bounds = Bounds(max_file_bytes=max_bytes) if max_bytes is not None else Bounds()
    kinds: Prune = prune if prune is not None else ({kind: keep} if kind is not None else {})
    got = stream(
        source,
        bounds,
        kinds,
        max_stream_bytes=max_bytes if max_bytes is not None else MAX_STREAM_BYTES,
        positions=positions,
    )
    if isinstance(got, Read):
        return Dump(got.display, _items(got, keep, kinds))
    return Dump(source.display, _streamed(got, source.display, keep, kinds))


def _streamed(got: Iterator[StreamedItem], display: str, keep: KeepSpec, kinds: Prune) -> Iterator[Item]:
    try:
        for it in got:
            span = Span(it.line, it.column, it.start, it.end)
            yield _item(it.text, display, it.data, it.index, it.line, it.column, span, keep, kinds, it.whole_document)
    except Reread as again:
        for item in _items(again.got, keep, kinds):
            if item.index >= again.done:
                yield item
    except StreamProblem as failed:
        raise SnapshotError(_problem_line(display, "JSON", failed.problem)) from None


def read_items(
    text: str, display: str, keep: KeepSpec, kind: tuple[str, str] | None = None, positions: bool = True
) -> Iterator[Item]:
    """Every object of the dump text — the items of a List, or a single object — pruned to ``keep`` (while it is
    read when it is of ``kind``, an (apiVersion, kind); objects of other kinds are pruned once read). With
    ``positions=False`` the lines of a JSON dump are not counted (``line`` 0): ``position`` finds them for the
    object that has a problem."""
    kinds: Prune = {kind: keep} if kind is not None else {}
    got = read(Source.of_text(text, display), Bounds(), kinds, dump=True, positions=positions, keep_text=True)
    return _items(got, keep, kinds)


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


# --- objects -------------------------------------------------------------------------------------------------------


def _line_column(text: str, offset: int) -> tuple[int, int]:
    return text.count("\n", 0, offset) + 1, offset - (text.rfind("\n", 0, offset) + 1) + 1


def _items(got: Read, keep: KeepSpec, prune: Prune) -> Iterator[Item]:
    display = got.display
    if not got.ok:
        raise SnapshotError(_problem_line(display, got.kind, got.problems[0]))
    text = got.text
    index = 0
    for doc in got.documents:
        data = doc.data
        if data is None:
            continue
        items = data.get("items") if isinstance(data, dict) else None
        if isinstance(items, list):
            spans = doc.item_spans if doc.item_spans is not None and len(doc.item_spans) == len(items) else None
            for k, value in enumerate(items):
                span = spans[k] if spans is not None else None
                composed = span is None or span.end <= span.start
                if composed:  # not pruned while it was read
                    value = prune_item(value, prune)
                line, column = (span.line, span.column) if span is not None else (doc.line, 1)
                yield _item(text, display, value, index, line, column, None if composed else span, keep, prune, False)
                index += 1
        else:
            span = doc.span
            assert span is not None
            ranged = span.end > span.start
            yield _item(
                text,
                display,
                prune_item(data, prune),
                index,
                span.line,
                span.column,
                span if ranged else None,
                keep,
                prune,
                True,
            )
            index += 1


def _item(
    text: str,
    display: str,
    data: Any,
    index: int,
    line: int,
    column: int,
    span: Any,
    keep: KeepSpec,
    prune: Prune,
    whole: bool,
) -> Item:
    if not isinstance(data, dict):
        what = "the document" if whole else f"List item {index + 1}"
        if not line and span is not None:
            line, column = _line_column(text, span.start)
        raise SnapshotError(
            error_line(display, line, column, f"{what} is not an object", "expected a Kubernetes object")
        )
    if (data.get("apiVersion"), data.get("kind")) not in prune:
        data = prune_value(data, keep)  # another kind: not pruned while it was read
    return Item(data, index, line, column, (span.start, span.end) if span is not None else None, text)


_UNDEFINED_ALIAS = re.compile(r"found undefined alias '([^']*)'")


def _problem_line(display: str, kind: str, p: Problem) -> str:
    """The reader's problem as verify's one line: worded from its cause where verify has its own words."""
    if p.cause == "empty":
        return f"{display}:1:1: the dump is empty; pass the output of kubectl get ... -o json"
    if p.cause == "array":
        return error_line(
            display,
            p.line,
            p.column,
            "expected a Kubernetes object or List, got a JSON array; pass the output of kubectl get ... -o json",
        )
    if p.cause == "file":
        if p.detail.startswith("cannot read file: "):
            return f"{display}: cannot read: {p.detail[len('cannot read file: ') :]}"
        if p.detail.startswith("is "):
            return (
                f"{display}: {p.detail}, not a regular file; write the kubectl output to a file, or pipe it to "
                "standard input (-)"
            )
        return f"{display}: {p.detail}"
    if p.cause == "nested":
        return error_line(display, p.line, p.column, f"the dump is nested more than {MAX_DEPTH} levels deep")
    if p.cause == "too-large" and p.detail != "composed":
        return error_line(
            display,
            p.line,
            p.column,
            f"this object is larger than {p.limit} characters, the limit for one Node, Pod or document",
            "is this a kubectl get nodes|pods dump?",
        )
    if p.cause == "value":
        return error_line(display, p.line, p.column, f"invalid {kind} value: {p.detail}")
    alias = _UNDEFINED_ALIAS.search(p.message)
    if alias is not None:
        name = alias.group(1)
        return error_line(
            display,
            p.line,
            p.column,
            f"alias *{name} refers to no anchor defined before it",
            f"define the anchor (&{name}) before using the alias (*{name}), in the same document",
        )
    return error_line(display, p.line, p.column, p.message, p.hint)
