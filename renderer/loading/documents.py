"""The one reader: a path, standard input, a git blob or a text in, documents or located problems out.

``read(source, bounds, keep)`` is what every input goes through — policy files, ``.allocatable.yaml``, and the node
and pod dumps of ``allocatable verify`` — so a bound added here holds for all of them:

1. bytes: a path is read by ``renderer.loading.files.read_regular`` (regular files only, never blocking, at most
   ``bounds.max_file_bytes``: a FIFO, a device or ``/dev/zero`` behind a symlink is one located problem, never a
   hang); standard input is copied once, bounded the same way (``stdin_file``); a blob is taken as it is, within the
   same size bound;
2. text: UTF-8 only (``renderer.loading.decoding``);
3. documents: JSON with the json module's scanner (``renderer.loading.jsonscan``), falling back to the YAML reader
   for anything it would read differently or must report; YAML from libyaml's events (``renderer.loading.events``),
   each document on its own: a document with anchors, aliases, explicit tags or merge keys is composed by PyYAML's
   composer (``renderer.loading.anchored``) while the documents around it stay on the event reader; List items
   pruned to ``keep`` while they are read;
4. problems: every failure is one :class:`Problem` at a line and column, worded by ``renderer.loading.yamlerrors``
   and ``renderer.loading.tags``; ``cause`` says what kind of failure it is, so a caller with its own wording (verify)
   words it from the cause, never by matching a message.

Only what every document needs is kept: its data, the line of its root node and, for the items of a ``v1 List``,
each item's span in the text. Exact positions of fields are looked up lazily, for the few objects that have
findings, by ``renderer.loading.positions``.

A dump too large to hold whole is read item by item by ``renderer.loading.streaming`` (``stream``), which falls back
to ``read`` for everything the whole-text readers decide.

Cost: O(size of the input) time — the composer's documents too (a tag's message quotes it from its own offset);
memory O(largest document + the kept fields of List items), plus the text when ``keep_text``.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import yaml

from renderer.findings import Finding
from renderer.loading.anchored import GuardedLoader, document_sizes, expanded_size
from renderer.loading.bounds import DEFAULT_MAX_DOCUMENT_CHARS, DEFAULT_MAX_FILE_BYTES, MAX_DEPTH, Bounds
from renderer.loading.decoding import LONE_SURROGATE, UTF8_BOM, decode, lone_surrogate_escape
from renderer.loading.events import (
    DocumentTooLarge,
    DuplicateKey,
    EventReader,
    NeedsFullConstructor,
    NestedTooDeep,
    Span,
    StreamDocument,
)
from renderer.loading.files import FileProblem, UsageError, read_named, read_regular, stdin_file
from renderer.loading.jsonscan import NeedsYamlPath, read_json_document
from renderer.loading.prune import NODE_FIELDS, Prune
from renderer.loading.tags import StrictLoader, construct_plain, json_tag
from renderer.loading.yamlerrors import ParseProblem, yaml_error_message
from renderer.reprs import fields_repr

__all__ = [
    "DEFAULT_MAX_DOCUMENT_CHARS",
    "DEFAULT_MAX_FILE_BYTES",
    "LIST_PRUNE",
    "MAX_DEPTH",
    "Bounds",
    "Problem",
    "RawDocument",
    "Read",
    "Source",
    "parse_text",
    "read",
]

#: List items pruned while they are read: only what the model needs of a Node is kept.
LIST_PRUNE: Prune = {("v1", "Node"): NODE_FIELDS}
DEFAULT_BOUNDS = Bounds()


class RawDocument(NamedTuple):
    path: str
    index: int  # type: ignore[assignment]  # a field: shadows tuple.index, never called here
    line: int  # 1-based line of the document's root node
    data: Any
    #: For a document with a root ``items`` sequence (a v1 List): where each item sits in the text (a zero-width
    #: range when the document was composed: line and column only).
    item_spans: tuple[Span, ...] | None = None
    #: Where the whole document sits (a zero-width range when it was composed).
    span: Span | None = None


class Source(NamedTuple):
    """What to read: a file (``path``), standard input (``stdin``), bytes in memory (``blob``: a git blob) or a
    text already decoded (``text``). ``display`` is how problems name it (``<stdin>`` for standard input)."""

    display: str
    path: Path | None = None
    stdin: bool = False
    blob: bytes | None = None
    text: str | None = None
    #: For a file named on the command line (a dump): what it is, and refused when it lies in the repository but
    #: leads out of it through a symlink (``renderer.loading.files.read_named``).
    named: str | None = None

    @staticmethod
    def file(path: Path | str, display: str | None = None, *, named: str | None = None) -> Source:
        return Source(display=display if display is not None else str(path), path=Path(path), named=named)

    @staticmethod
    def standard_input(display: str = "<stdin>") -> Source:
        return Source(display=display, stdin=True)

    @staticmethod
    def of_bytes(data: bytes, display: str) -> Source:
        return Source(display=display, blob=data)

    @staticmethod
    def of_text(text: str, display: str) -> Source:
        return Source(display=display, text=text)


#: What a :class:`Problem` is about: the file itself, its encoding, the YAML/JSON syntax or a value in it, a bound.
CAUSES = (
    "file",
    "encoding",
    "empty",
    "array",
    "syntax",
    "json-syntax",
    "value",
    "nested",
    "too-large",
    "duplicate",
)


class Problem(NamedTuple):
    """One located reason the input gives no documents, worded for a policy file (``message``, ``hint``).

    ``cause`` (one of ``CAUSES``) and ``detail`` let a caller word it its own way: for ``file``, what the file is or
    why it cannot be read (``is a FIFO (named pipe)``, ``cannot read file: ...``); for ``too-large``, what is too
    large (``document`` for the event reader's bound, ``composed`` for a document the composer refused) and
    ``limit``; for ``value``, the converter's own words. ``empty`` and ``array`` are a dump's (``dump=True``)."""

    code: str
    message: str
    line: int = 1
    column: int = 1
    hint: str | None = None
    cause: str = "syntax"
    detail: str = ""
    limit: int = 0

    def finding(self, path: str) -> Finding:
        return Finding(self.code, "error", self.message, path, self.line, self.column, hint=self.hint)


@dataclass(eq=False, repr=False)
class Read:
    """What ``read`` gives: the documents, or the problems (never both), and the text when it was kept."""

    __repr__ = fields_repr

    display: str
    documents: list[RawDocument] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: ``YAML`` or ``JSON``: how the input was read (by its name, or for a dump by its first character).
    kind: str = "YAML"
    _text: str | None = None

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def text(self) -> str:
        """The decoded text (``read(..., keep_text=True)`` only)."""
        if self._text is None:
            raise ValueError("read() was not asked to keep the text")
        return self._text

    def findings(self) -> list[Finding]:
        return [p.finding(self.display) for p in self.problems]


def read(
    source: Source,
    bounds: Bounds = DEFAULT_BOUNDS,
    keep: Prune = LIST_PRUNE,
    *,
    dump: bool = False,
    positions: bool = True,
    keep_text: bool = False,
) -> Read:
    """Read ``source`` within ``bounds`` into documents, pruning List items of the kinds ``keep`` names.

    ``dump``: the input is ``kubectl`` output — JSON when it starts with ``{`` (whatever its name), a JSON syntax
    error reported as such (a policy file named .json may use YAML's leniency instead). ``positions=False``: the
    lines of a JSON List's items are not counted (their spans keep the character range; the line and column are 0)
    — for a caller that needs them only for the item with a problem. ``keep_text``: keep the decoded text on the
    result (for ``renderer.loading.positions.compose_item``). Raises ``UsageError`` only for a size bound below 1.
    Cost: see the module docstring."""
    display = source.display
    if bounds.max_file_bytes < 1:  # only --max-file-size can get here: the settings value is validated as > 0
        raise UsageError(f"--max-file-size must be a positive number of bytes, got {bounds.max_file_bytes}")
    text: str | None = source.text
    raw: bytes | None = None
    if text is None:
        try:
            raw = _bytes(source, bounds.max_file_bytes)
        except FileProblem as exc:
            return Read(display, problems=[_file_problem(str(exc))])
        decoded, problem = decode(raw, display)
        if problem is not None or decoded is None:
            assert problem is not None
            return Read(
                display,
                problems=[Problem(problem.code, problem.message, problem.line, problem.column, cause="encoding")],
            )
        text = decoded
    if dump:
        first = _LEADING_SPACE.match(text).end()  # type: ignore[union-attr]  # (no copy of a big text, as lstrip)
        if first == len(text):
            return Read(display, problems=[Problem("AL003", "the input is empty", cause="empty")])
        if text[first] == "[":  # kubectl prints an object (a List, or one object), never a bare array
            line = text.count("\n", 0, first) + 1
            column = first - (text.rfind("\n", 0, first) + 1) + 1
            return Read(
                display, problems=[Problem("AL003", "expected an object, got an array", line, column, cause="array")]
            )
        kind = "JSON" if text[first] == "{" else "YAML"
    else:
        kind = "JSON" if display.endswith(".json") else "YAML"
    result = Read(display, kind=kind, _text=text if keep_text else None)
    try:
        if kind == "JSON" or raw is None or keep_text or raw.startswith(UTF8_BOM):
            raw = None  # the text is read: not held as bytes and text at once
            whole = text
            result.documents = (
                _json(whole, display, bounds, keep, dump, positions)
                if kind == "JSON"
                else _yaml(whole, lambda: whole, display, kind, bounds, keep)
            )
        else:
            # libyaml reads the checked bytes in place: a large file is held once, not as bytes, text and libyaml's
            # own UTF-8 copy; the text is decoded again only for an error message or a composed document.
            checked = raw
            text = None
            result.documents = _yaml(checked, lambda: checked.decode("utf-8"), display, kind, bounds, keep)
    except _Failed as failed:
        result.problems = [failed.problem]
    return result


def parse_text(
    text: str, path: str, *, max_document_chars: int = DEFAULT_MAX_DOCUMENT_CHARS
) -> tuple[list[RawDocument], list[Finding]]:
    """``read`` of a text already decoded, as (documents, findings): for tests and callers holding a text."""
    got = read(Source.of_text(text, path), Bounds(max_document_chars=max_document_chars))
    return got.documents, got.findings()


# --- bytes ---------------------------------------------------------------------------------------------------------

_LEADING_SPACE = re.compile(r"\s*")


def _bytes(source: Source, max_bytes: int) -> bytes:
    if source.blob is not None:
        if len(source.blob) > max_bytes:
            raise FileProblem(_too_large_file(max_bytes))
        return source.blob
    if source.stdin:
        return read_regular(stdin_file(max_bytes), max_bytes)
    assert source.path is not None, "a Source names a path, stdin, a blob or a text"
    if source.named is not None:
        return read_named(source.path, max_bytes, what=source.named)
    return read_regular(source.path, max_bytes)


def _too_large_file(max_bytes: int) -> str:
    return (
        f"file is larger than the {max_bytes} byte limit; split it, or raise the limit with "
        "--max-file-size or limits.maxFileBytes in .allocatable.yaml"
    )


def _file_problem(detail: str) -> Problem:
    message = detail
    if message == "is a directory":
        message = "is a directory, expected a policy file"
    elif message.startswith("is "):
        message += ", not a regular file; policy files must be regular files: replace it with one or remove it"
    return Problem("AL006", message, cause="file", detail=detail)


# --- documents -----------------------------------------------------------------------------------------------------


class _Failed(Exception):
    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def _at(mark: Any, code: str, message: str, *, hint: str | None = None, cause: str = "syntax", **kw: Any) -> _Failed:
    return _Failed(Problem(code, message, mark.line + 1, mark.column + 1, hint=hint, cause=cause, **kw))


def _json(text: str, display: str, bounds: Bounds, keep: Prune, dump: bool, positions: bool) -> list[RawDocument]:
    lone = lone_surrogate_escape(text)  # "\ud800": no character, no encoder writes it (issue 21, class 14)
    if lone is not None:
        line = text.count("\n", 0, lone) + 1
        raise _Failed(Problem("AL001", LONE_SURROGATE, line, lone - text.rfind("\n", 0, lone), cause="value"))
    try:
        doc = read_json_document(
            text, max_depth=MAX_DEPTH, max_document_chars=bounds.max_document_chars, prune=keep, positions=positions
        )
        return [RawDocument(display, 0, doc.span.line, doc.data, doc.item_spans, doc.span)]
    except NeedsYamlPath as exc:
        if dump and exc.syntax is not None:
            err = exc.syntax
            raise _Failed(
                Problem("AL001", f"invalid JSON: {err.msg}", err.lineno, err.colno, cause="json-syntax")
            ) from None
    if not dump:
        tagged = json_tag(text)
        if tagged is not None:
            raise _Failed(
                Problem(
                    "AL001",
                    "invalid JSON: a YAML tag (!...) is not JSON; remove it, or rename the file to .yaml",
                    *tagged,
                )
            )
    return _yaml(text, lambda: text, display, "JSON", bounds, keep)


#: What sends a file down the per-document look of ``_Plan``: an anchor, an alias, a tag or a merge key anywhere.
_SPECIAL = ("&", "*", "!", "<<")
_SPECIAL_BYTES = tuple(s.encode() for s in _SPECIAL)
#: Where ``&``, ``*`` or ``!`` may start a node (see :func:`composes`): after a blank or a flow indicator.
_NODE_AFTER = frozenset("[]{},")


def composes(text: str, begin: int, end: int) -> bool:
    r"""Whether ``text[begin:end]`` (one document) goes to the composer: it holds ``&``, ``*`` or ``!`` where a node
    may start (at a line start, after a blank or a flow indicator, within the document — not ``a&b`` in a URL or
    ``don't!`` in a comment), or ``<<``. What ``(?:^|[\s\[\]{},])[&*!]|<<`` (multi-line) finds from ``begin`` to
    ``end``, by ``str.find`` over each character (a regex trying every position was 28 µs a document). A document
    this misses (an ``=`` key, a complex key) is still read right: the event reader refuses it and the composer takes
    over. Cost: O(end - begin)."""
    if text.find("<<", begin, end) != -1:
        return True
    for ch in "&*!":
        at = text.find(ch, begin, end)
        while at != -1:
            if at == 0:
                return True
            before = text[at - 1]
            if before == "\n" or (at > begin and (before.isspace() or before in _NODE_AFTER)):
                return True
            at = text.find(ch, at + 1, end)
    return False


#: A document marker: ``---`` or ``...`` at the start of a line, followed by a blank or the end of the line.
_MARKER = re.compile(r"^(?:---|\.\.\.)(?=[ \t\r\n]|$)", re.M)


class _Plan:
    """Which documents the composer reads: those whose text, up to the next document marker, holds one of
    ``_SPECIAL`` — or every document from ``from_index`` on, once the event reader met one it could not build that
    this look missed (an ``=`` key, a complex key). Cost: one regex pass for the markers, then O(each document's
    text) for the look."""

    def __init__(self, text: str, from_index: int | None) -> None:
        self.text = text
        self.from_index = from_index
        self.markers = [m.start() for m in _MARKER.finditer(text)]

    def __call__(self, index: int, start: Any) -> bool:
        if self.from_index is not None and index >= self.from_index:
            return True
        begin = start.start_mark.index
        nxt = bisect.bisect_right(self.markers, begin)
        end = self.markers[nxt] if nxt < len(self.markers) else len(self.text)
        return composes(self.text, begin, end)


def _yaml(
    source: str | bytes,
    text_of: Callable[[], str],
    display: str,
    kind: str,
    bounds: Bounds,
    keep: Prune,
    composer_from: int | None = None,
) -> list[RawDocument]:
    """Every document of a YAML (or JSON) text. ``source``: the text, or its UTF-8 bytes (already checked).

    Documents without ``_SPECIAL`` characters are read by the event reader; the others are composed, each on its
    own, from the same parser (see ``_Plan``)."""
    plan: _Plan | None = None
    if composer_from is not None or _special(source):
        text = text_of()
        plan = _Plan(text, composer_from)
        loader: Any = GuardedLoader(text)
        source = text
    else:
        loader = StrictLoader(source)
    limit = bounds.max_document_chars
    reader = EventReader(
        source,
        loader=loader,
        max_depth=MAX_DEPTH,
        max_document_chars=limit,
        prune=keep,
        construct_scalar=construct_plain,
    )
    sizes: list[tuple[yaml.Mark, int]] | None = None

    def compose(index: int) -> StreamDocument:
        nonlocal sizes
        start = loader.peek_event()
        assert plan is not None
        nxt = bisect.bisect_right(plan.markers, start.start_mark.index)
        end = plan.markers[nxt] if nxt < len(plan.markers) else len(plan.text)
        if end - start.start_mark.index > limit:  # it may span more than the bound: measure it before composing
            if sizes is None:
                sizes = document_sizes(plan.text, limit)
            if index < len(sizes) and sizes[index][1] > limit:
                raise _at(
                    sizes[index][0],
                    "AL001",
                    f"document uses anchors, aliases or tags and is larger than {limit} characters; "
                    "split it, or write it without anchors",
                    cause="too-large",
                    detail="composed",
                    limit=limit,
                )
        node = loader.compose_document()
        if node is None:  # pragma: no cover - libyaml gives a null scalar instead
            return StreamDocument(index, Span(start.start_mark.line + 1, 1, 0, 0), None)
        expanded_size(node, {})
        data = loader.construct_document(node)
        m = node.start_mark
        spans = _item_starts(node) if isinstance(data, dict) and isinstance(data.get("items"), list) else None
        return StreamDocument(index, Span(m.line + 1, m.column + 1, 0, 0), data, spans)

    docs: list[RawDocument] = []
    try:
        for d in reader.documents(plan, compose if plan is not None else None):
            docs.append(RawDocument(display, d.index, d.span.line, d.data, d.item_spans, d.span))
    except NeedsFullConstructor:
        loader.dispose()
        if composer_from is not None:  # pragma: no cover - the composer reads every document from there on
            raise
        docs.extend(_yaml(source, text_of, display, kind, bounds, keep, composer_from=len(docs))[len(docs) :])
        return docs
    except NestedTooDeep as exc:
        raise _at(exc.mark, "AL001", f"document is nested more than {MAX_DEPTH} levels deep", cause="nested") from None
    except DocumentTooLarge as exc:
        raise _at(
            exc.mark,
            "AL001",
            f"{exc.what} is larger than {exc.limit} characters; split it into smaller documents",
            cause="too-large",
            detail=exc.what,
            limit=exc.limit,
        ) from None
    except DuplicateKey as exc:
        loader.dispose()
        if composer_from is None and len(source) <= limit:  # the composer names the first occurrence too
            try:
                _yaml(text_of(), text_of, display, kind, bounds, keep, composer_from=0)
            except _Failed as failed:
                if failed.problem.code == "AL002":
                    raise failed from None
        raise _at(
            exc.mark, "AL002", f'duplicate key "{exc.key}"; each key may appear once in a mapping', cause="duplicate"
        ) from None
    except ParseProblem as p:
        cause = "duplicate" if p.code == "AL002" else "syntax"
        raise _Failed(Problem(p.code, p.message, p.line, p.column, hint=p.hint, cause=cause)) from None
    except yaml.MarkedYAMLError as exc:
        msg, hint, mark = yaml_error_message(exc, text_of(), kind, StrictLoader)
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else 1
        raise _Failed(Problem("AL001", msg, line, col, hint=hint)) from None
    except yaml.YAMLError as exc:
        raise _Failed(Problem("AL001", f"invalid {kind}: {exc}")) from None
    except RecursionError:  # pragma: no cover - nesting is bounded far below the recursion limit
        raise _Failed(Problem("AL001", "document is nested too deeply to read")) from None
    except (ValueError, OverflowError) as exc:  # e.g. a float literal the constructor cannot represent
        raise _Failed(Problem("AL001", f"invalid YAML value: {exc}", cause="value", detail=str(exc))) from None
    finally:
        loader.dispose()
    return docs


def _special(source: str | bytes) -> bool:
    if isinstance(source, bytes):
        return any(s in source for s in _SPECIAL_BYTES)
    return any(s in source for s in _SPECIAL)


def _item_starts(root: yaml.Node) -> tuple[Span, ...] | None:
    """Line and column of each item of a composed List (zero-width ranges: an alias has no text of its own)."""
    if isinstance(root, yaml.MappingNode):
        for key, value in root.value:
            if isinstance(key, yaml.ScalarNode) and key.value == "items" and isinstance(value, yaml.SequenceNode):
                return tuple(Span(v.start_mark.line + 1, v.start_mark.column + 1, 0, 0) for v in value.value) or None
    return None
