"""The event reader: documents built straight from libyaml's events, and List items read one at a time.

libyaml (PyYAML's C parser) turns the text into events; this module builds Python values from them in one tight
loop, without composing a node tree first. That is faster than composing and constructing, keeps nothing but
the values, and lets every bound be checked per document while it is read:

* nesting: a node deeper than ``max_depth`` stops the read at that node (libyaml never scans further ahead, so
  its recursion and its slow-down on deep nesting are never reached);
* size: a document (or a List item) spanning more than ``max_document_chars`` characters stops the read;
* aliases, anchors, explicit tags and merge keys are not handled here: they raise :class:`NeedsFullConstructor`,
  and ``documents`` hands such a document (only that one) to ``compose``, the caller's composer over the same
  parser (``renderer.loading.anchored``).

A ``v1 List`` (what ``kubectl get nodes|pods -o yaml|json`` prints) is read item by item: each item of the root
``items`` sequence can be pruned to the fields a caller needs while it is read (``prune``: per (apiVersion, kind),
a tree of the fields to keep, ``renderer.loading.prune``), so a 5,000-node dump never exists as a whole in memory.
Every item comes with its :class:`Span` (line, column and character range in the text), so a finding on one item
can be located by reading that item's text again, not the whole file (``renderer.loading.positions``).

Cost: one pass over the events, O(events); memory O(largest document built + kept fields of List items).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from sys import intern
from typing import Any, NamedTuple

import yaml
from yaml.events import (
    AliasEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)

from renderer.loading.prune import KeepSpec, Prune, prune_item

try:  # pragma: no cover - depends on the wheel
    _Parser: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Parser = yaml.SafeLoader

__all__ = [
    "DocumentTooLarge",
    "DuplicateKey",
    "EventReader",
    "ListItem",
    "NeedsFullConstructor",
    "NestedTooDeep",
    "Span",
    "StreamDocument",
    "iter_list_items",
]


_STR_TAG = "tag:yaml.org,2002:str"
#: String values up to this long are interned (``sys.intern``): one string each for the whole process, not one a
#: file. A table per reader shared them within a file only; a multi-cluster repo written one document a file (issue
#: 30; ``bench/generate.py multi-cluster``, 100,000 documents) then held a copy of every label value, zone and OS name
#: per file. Interned strings are freed with their last reference, so the table never outgrows the data kept.
_SHARED_CHARS = 64
_NOT_HERE = frozenset(("tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"))


class NeedsFullConstructor(Exception):
    """The document uses anchors, aliases, explicit tags or merge keys: read it with PyYAML's constructor."""


class NestedTooDeep(Exception):
    def __init__(self, mark: Any, limit: int) -> None:
        super().__init__(f"document is nested more than {limit} levels deep")
        self.mark = mark


class DocumentTooLarge(Exception):
    def __init__(self, mark: Any, what: str, limit: int) -> None:
        super().__init__(f"{what} is larger than {limit} characters")
        self.mark = mark
        self.what = what
        self.limit = limit


class DuplicateKey(Exception):
    """A mapping repeats a key; ``mark`` is the second occurrence (the caller finds the first)."""

    def __init__(self, key: Any, mark: Any) -> None:
        super().__init__(f"duplicate key {key!r}")
        self.key = key
        self.mark = mark


class Span(NamedTuple):
    """Where a node sits in the text: 1-based line and column of its first character, character offsets."""

    line: int
    column: int
    start: int
    end: int

    @staticmethod
    def of(start: yaml.Mark, end: yaml.Mark) -> Span:
        return Span(start.line + 1, start.column + 1, start.index, end.index)


class ListItem(NamedTuple):
    index: int  # type: ignore[assignment]  # a field: shadows tuple.index, never called here
    span: Span
    data: Any
    #: The root object of a document that is not a List (``objects=True``), not an item of a List.
    whole_document: bool = False


class StreamDocument(NamedTuple):
    index: int  # type: ignore[assignment]  # a field: shadows tuple.index, never called here
    span: Span
    data: Any
    #: For a document whose root mapping has an ``items`` sequence: the span of each item (same order).
    item_spans: tuple[Span, ...] | None = None


ScalarBuilder = Callable[[Any, yaml.ScalarNode], Any]


class EventReader:
    """Builds the documents of one YAML/JSON text from libyaml events (see the module docstring).

    ``construct_scalar(loader, node)`` builds a resolved non-string scalar (int, bool, null, float, timestamp):
    the policy loader passes its own, so that scalar rules live in one place. ``loader`` is the libyaml loader
    to read from (default: PyYAML's ``CSafeLoader`` over ``source``).
    """

    def __init__(
        self,
        source: str | bytes,
        *,
        max_depth: int,
        max_document_chars: int,
        prune: Prune | None = None,
        loader: Any = None,
        construct_scalar: ScalarBuilder | None = None,
    ) -> None:
        self.loader = loader if loader is not None else _Parser(source)
        self.max_depth = max_depth
        self.max_chars = max_document_chars
        self.prune = prune or {}
        self._get_event = self.loader.get_event
        self._resolvers: dict[str, list[tuple[str, Any]]] = self.loader.yaml_implicit_resolvers
        self._construct = construct_scalar or _default_scalar
        self._doc_start = 0
        self._end: Any = None  # end mark of the last collection read
        self.listed = False  # whether the last root read had an ``items`` sequence
        self._next_index = 0  # the index after the last List item read

    def dispose(self) -> None:
        self.loader.dispose()

    # --- scalars and whole values --------------------------------------------------------------------------------

    def _scalar(self, ev: Any) -> Any:
        """A scalar key or value: strings as they are; other implicit types (int, bool, null, ...) resolved."""
        if ev.anchor is not None:
            raise NeedsFullConstructor
        tag = ev.tag
        value = ev.value
        if tag is None:
            if not ev.implicit[0]:
                return value  # quoted: always a string
            resolvers = self._resolvers.get(value[0] if value else "")
            if resolvers is None:
                return value
            for resolved, regexp in resolvers:
                if regexp.match(value):
                    if resolved == _STR_TAG:
                        return value
                    if resolved in _NOT_HERE:
                        raise NeedsFullConstructor
                    return self._construct(self.loader, yaml.ScalarNode(resolved, value, ev.start_mark, ev.end_mark))
            return value
        if tag == "!":
            return value  # the non-specific tag: a string
        raise NeedsFullConstructor

    def _too_large(self, mark: Any, at: Any = None) -> None:
        """Stop when the document reaches past ``mark`` beyond the bound (reported at ``at``, default ``mark``)."""
        if mark.index - self._doc_start > self.max_chars:
            raise DocumentTooLarge(at or mark, "document", self.max_chars)

    def _entries(self, depth: int, out: dict[Any, Any]) -> Iterator[tuple[Any, Any, Any]]:
        """(key, key event, value event) of the mapping just opened at level ``depth``, one entry at a time: the key
        read, refused when ``out`` holds it already, nesting bounded. The caller reads or skips each value before it
        asks for the next entry; at the mapping's end ``_end`` is set. Cost: O(1) per entry over the key's own."""
        get_event = self._get_event
        deep = depth >= self.max_depth
        while True:
            kev = get_event()
            kcls = kev.__class__
            if kcls is MappingEndEvent:
                self._end = kev.end_mark
                return
            if deep:
                raise NestedTooDeep(kev.start_mark, self.max_depth)
            key = self._scalar(kev) if kcls is ScalarEvent else self._value(kev, depth + 1)
            if key.__class__ is str:
                key = intern(key)  # label keys and field names repeat in every document: one string each
            try:
                seen = key in out
            except TypeError:  # an unhashable key ([a] or {a: 1}): PyYAML reports it with its mark
                raise NeedsFullConstructor from None
            if seen:
                raise DuplicateKey(key, kev.start_mark)
            yield key, kev, get_event()

    def _value(self, ev: Any, depth: int) -> Any:
        """The value that starts with ``ev``, at nesting level ``depth`` (the document root is level 0)."""
        cls = ev.__class__
        if cls is ScalarEvent:
            return self._scalar(ev)
        if ev.anchor is not None or (ev.tag is not None and ev.tag != "!"):
            raise NeedsFullConstructor
        get_event = self._get_event
        deep = depth >= self.max_depth
        self._too_large(ev.start_mark)
        if cls is MappingStartEvent:
            out: dict[Any, Any] = {}
            for key, kev, vev in self._entries(depth, out):
                if vev.__class__ is ScalarEvent:
                    value = self._scalar(vev)
                    if value.__class__ is str:
                        if len(value) <= _SHARED_CHARS:  # zones, OS names, label values: one string each
                            value = intern(value)
                        elif len(value) > 4096:
                            self._too_large(vev.end_mark, vev.start_mark)
                    out[key] = value
                else:
                    out[key] = self._value(vev, depth + 1)
                if not len(out) & 1023:
                    self._too_large(kev.start_mark)
            return out
        if cls is SequenceStartEvent:
            items: list[Any] = []
            append = items.append
            while True:
                iev = get_event()
                icls = iev.__class__
                if icls is SequenceEndEvent:
                    self._end = iev.end_mark
                    return items
                if deep:
                    raise NestedTooDeep(iev.start_mark, self.max_depth)
                if icls is ScalarEvent:
                    value = self._scalar(iev)
                    if isinstance(value, str):
                        if len(value) <= _SHARED_CHARS:  # selector values, zones, instance types: one string each
                            value = intern(value) if value.__class__ is str else value
                        elif len(value) > 4096:
                            self._too_large(iev.end_mark, iev.start_mark)
                    append(value)
                else:
                    append(self._value(iev, depth + 1))
                if not len(items) & 1023:
                    self._too_large(iev.start_mark)
        raise NeedsFullConstructor  # an alias

    def _skip(self, ev: Any, depth: int, aliases: bool = False) -> None:
        """Read past the value that starts with ``ev`` without building it (nesting still bounded).

        Anchors and aliases need the full constructor, unless ``aliases`` (only spans are wanted)."""
        cls = ev.__class__
        if not aliases and (cls is not ScalarEvent and cls is not MappingStartEvent and cls is not SequenceStartEvent):
            raise NeedsFullConstructor  # an alias
        if not aliases and getattr(ev, "anchor", None) is not None:
            raise NeedsFullConstructor
        if cls is not MappingStartEvent and cls is not SequenceStartEvent:
            return
        get_event = self._get_event
        level = depth
        while True:
            ev = get_event()
            cls = ev.__class__
            if cls is MappingEndEvent or cls is SequenceEndEvent:
                if level == depth:
                    self._end = ev.end_mark
                    return
                level -= 1
                continue
            if level >= self.max_depth:
                raise NestedTooDeep(ev.start_mark, self.max_depth)
            if not aliases and (ev.anchor is not None or cls is AliasEvent):
                raise NeedsFullConstructor
            if cls is MappingStartEvent or cls is SequenceStartEvent:
                level += 1

    def _kept(self, ev: Any, depth: int, spec: KeepSpec) -> Any:
        """Like ``_value`` for a mapping, keeping only the keys ``spec`` names (other values are skipped); for a
        sequence, each element is kept by ``spec`` (``containers: {name: true}``)."""
        cls = ev.__class__
        if cls is SequenceStartEvent:
            return self._kept_items(ev, depth, spec)
        if cls is not MappingStartEvent:
            return self._value(ev, depth)
        if ev.anchor is not None or (ev.tag is not None and ev.tag != "!"):
            raise NeedsFullConstructor
        out: dict[Any, Any] = {}
        for key, _, vev in self._entries(depth, out):
            sub = spec.get(key) if isinstance(key, str) else None
            if not sub:
                self._skip(vev, depth + 1)
            else:
                out[key] = self._value(vev, depth + 1) if sub is True else self._kept(vev, depth + 1, sub)
        return out

    def _kept_items(self, ev: Any, depth: int, spec: KeepSpec) -> list[Any]:
        """A sequence whose elements are each kept by ``spec`` (see ``_kept``)."""
        if ev.anchor is not None or (ev.tag is not None and ev.tag != "!"):
            raise NeedsFullConstructor
        get_event = self._get_event
        deep = depth >= self.max_depth
        items: list[Any] = []
        while True:
            iev = get_event()
            if iev.__class__ is SequenceEndEvent:
                self._end = iev.end_mark
                return items
            if deep:
                raise NestedTooDeep(iev.start_mark, self.max_depth)
            items.append(self._kept(iev, depth + 1, spec))
            if not len(items) & 1023:
                self._too_large(iev.start_mark)

    # --- List items ------------------------------------------------------------------------------------------------

    def _item(self, ev: Any, depth: int) -> Any:
        """One List item, pruned when its apiVersion and kind (read before its other fields) name a KeepSpec."""
        if ev.__class__ is not MappingStartEvent or not self.prune:
            return self._value(ev, depth)
        if ev.anchor is not None or (ev.tag is not None and ev.tag != "!"):
            raise NeedsFullConstructor
        out: dict[Any, Any] = {}
        spec: KeepSpec | None = None
        for key, _, vev in self._entries(depth, out):
            if spec is None and isinstance(key, str) and key not in ("apiVersion", "kind"):
                api, kind = out.get("apiVersion"), out.get("kind")
                if isinstance(api, str) and isinstance(kind, str):
                    spec = self.prune.get((api, kind), {})
            sub = True if spec is None or not spec or not isinstance(key, str) else spec.get(key)
            if not sub:
                self._skip(vev, depth + 1)
            elif sub is True:
                out[key] = self._scalar(vev) if vev.__class__ is ScalarEvent else self._value(vev, depth + 1)
            else:
                out[key] = self._kept(vev, depth + 1, sub)
        return out

    def _items(self, ev: Any, depth: int, index_base: int = 0) -> Iterator[ListItem]:
        """The items of a sequence at level ``depth``, one at a time, each within the size bound on its own."""
        get_event = self._get_event
        deep = depth >= self.max_depth
        index = index_base
        while True:
            iev: Any = get_event()
            if iev.__class__ is SequenceEndEvent:
                self._end = iev.end_mark
                self._next_index = index
                return
            if deep:
                raise NestedTooDeep(iev.start_mark, self.max_depth)
            start = iev.start_mark
            saved, self._doc_start = self._doc_start, start.index
            try:
                data = self._item(iev, depth + 1)
            finally:
                self._doc_start = saved
            end: Any = iev.end_mark if iev.__class__ is ScalarEvent else self._end
            yield ListItem(index, Span(start.line + 1, start.column + 1, start.index, end.index), data)
            index += 1

    # --- documents -----------------------------------------------------------------------------------------------

    def _root(self, ev: Any, collect: bool, members: bool, index_base: int = 0) -> Generator[ListItem, None, Any]:
        """Reads the document whose root starts with ``ev``; returns its value.

        The items of a root mapping's ``items`` sequence are yielded one at a time as they are read (numbered from
        ``index_base``), and kept in the returned value only when ``collect``. The root's other values are built
        when ``members``, else skipped (the value returned is then ``None``). ``self.listed`` says whether the root
        had an ``items`` sequence."""
        self.listed = False
        if ev.__class__ is not MappingStartEvent:
            if members:
                return self._scalar(ev) if ev.__class__ is ScalarEvent else self._value(ev, 0)
            self._skip(ev, 0)
            return None
        if ev.anchor is not None or (ev.tag is not None and ev.tag != "!"):
            raise NeedsFullConstructor
        get_event = self._get_event
        out: dict[Any, Any] = {}
        if self.max_depth < 1:  # pragma: no cover - the limit is far higher
            raise NestedTooDeep(ev.start_mark, self.max_depth)
        while True:
            kev = get_event()
            kcls = kev.__class__
            if kcls is MappingEndEvent:
                self._end = kev.end_mark
                return out if members else None
            key = self._scalar(kev) if kcls is ScalarEvent else self._value(kev, 1)
            try:
                seen = key in out
            except TypeError:
                raise NeedsFullConstructor from None
            if seen:
                raise DuplicateKey(key, kev.start_mark)
            vev: Any = get_event()
            vstart: Any = vev.start_mark
            if key == "items" and vev.__class__ is SequenceStartEvent and vev.anchor is None and vev.tag is None:
                self.listed = True
                kept: list[Any] | None = [] if collect else None
                for item in self._items(vev, 1, index_base):
                    if kept is not None:
                        kept.append(item.data)
                    yield item
                out[key] = kept
                # Items are bounded one by one; the rest of the document is bounded without them.
                self._doc_start += self._end.index - vstart.index
                continue
            if members:
                out[key] = self._scalar(vev) if vev.__class__ is ScalarEvent else self._value(vev, 1)
            else:
                out[key] = None
                self._skip(vev, 1)

    def document_spans(self) -> Iterator[tuple[yaml.Mark, yaml.Mark]]:
        """(start, end) mark of every document, without building anything (anchors and aliases allowed)."""
        get_event = self._get_event
        get_event()  # StreamStartEvent
        while get_event().__class__ is not StreamEndEvent:
            root = get_event()
            self._skip(root, 0, aliases=True)
            yield root.start_mark, get_event().start_mark

    def documents(
        self,
        composed: Callable[[int, Any], bool] | None = None,
        compose: Callable[[int], StreamDocument] | None = None,
    ) -> Iterator[StreamDocument]:
        """Every document of the text, in order (an empty document is ``None``).

        ``composed(index, event)``, asked with each document's start event before it is read: True hands that
        document to ``compose(index)``, which reads its events (start to end) from the same parser, e.g. to compose
        a document with anchors (``renderer.loading.anchored``); the documents around it are still read here."""
        get_event = self._get_event
        peek_event = self.loader.peek_event
        get_event()  # StreamStartEvent
        index = 0
        while True:
            ev = peek_event()
            if ev.__class__ is StreamEndEvent:
                get_event()
                return
            if composed is not None and compose is not None and composed(index, ev):
                yield compose(index)
                index += 1
                continue
            get_event()  # DocumentStartEvent
            root = get_event()
            self._doc_start = root.start_mark.index
            spans: list[Span] = []
            reading = self._root(root, collect=True, members=True)
            while True:
                try:
                    spans.append(next(reading).span)
                except StopIteration as done:
                    data = done.value
                    break
            end = get_event()  # DocumentEndEvent
            is_list = isinstance(data, dict) and isinstance(data.get("items"), list) and bool(spans)
            yield StreamDocument(
                index,
                Span.of(root.start_mark, end.start_mark),
                data,
                tuple(spans) if is_list else None,
            )
            index += 1

    def objects(self, whole_documents: bool) -> Iterator[ListItem]:
        """The items of every document's root ``items`` sequence, numbered across documents; with
        ``whole_documents``, also the root of every other non-empty document (pruned by its kind), in order."""
        get_event = self._get_event
        get_event()  # StreamStartEvent
        index = 0
        while get_event().__class__ is not StreamEndEvent:
            root = get_event()  # after DocumentStartEvent
            self._doc_start = root.start_mark.index
            data = yield from self._root(root, collect=False, members=whole_documents, index_base=index)
            end = get_event()  # DocumentEndEvent
            if self.listed:
                index = self._next_index
            elif whole_documents and data is not None:
                data = prune_item(data, self.prune)
                yield ListItem(index, Span.of(root.start_mark, end.start_mark), data, whole_document=True)
                index += 1


def _default_scalar(loader: Any, node: yaml.ScalarNode) -> Any:
    return loader.yaml_constructors[node.tag](loader, node)


def iter_list_items(
    source: str | bytes,
    *,
    prune: Prune | None = None,
    max_depth: int = 64,
    max_item_chars: int = 8 * 1024 * 1024,
    objects: bool = False,
    loader: Any = None,
    construct_scalar: ScalarBuilder | None = None,
) -> Iterator[ListItem]:
    """Each item of the root ``items`` sequence of every document in ``source``, one at a time, pruned by ``prune``,
    numbered across documents. With ``objects``, a document that is not a List is one item itself (a single
    ``kubectl get node NAME -o yaml``; ``whole_document`` is set), bounded by ``max_item_chars`` like a List item;
    empty documents are skipped. ``loader`` and ``construct_scalar``: see :class:`EventReader` (the policy loader's
    give the same values it reads).

    For ``kubectl get nodes|pods -o yaml|json`` dumps (``prune={("v1", "Node"): NODE_FIELDS}``): only one item is
    built at a time. Raises ``NeedsFullConstructor`` for anchors, aliases and explicit tags (kubectl never writes
    them), ``NestedTooDeep``/``DocumentTooLarge`` at the bounds, ``DuplicateKey`` and ``yaml.MarkedYAMLError`` for
    syntax errors.
    """
    reader = EventReader(
        source,
        max_depth=max_depth,
        max_document_chars=max_item_chars,
        prune=prune,
        loader=loader,
        construct_scalar=construct_scalar,
    )
    try:
        yield from reader.objects(objects)
    finally:
        reader.dispose()
