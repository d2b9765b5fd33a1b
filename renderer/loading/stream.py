"""Documents built straight from libyaml's events, and List items read one at a time.

libyaml (PyYAML's C parser) turns the text into events; this module builds Python values from them in one tight
loop, without composing a node tree first. That is faster than composing and constructing, keeps nothing but
the values, and lets every bound be checked per document while it is read:

* nesting: a node deeper than ``max_depth`` stops the read at that node (libyaml never scans further ahead, so
  its recursion and its slow-down on deep nesting are never reached);
* size: a document (or a List item) spanning more than ``max_document_chars`` characters stops the read;
* aliases, anchors, explicit tags and merge keys are not handled here: they raise :class:`NeedsFullConstructor`
  and the caller reads the file with PyYAML's guarded constructor instead (``renderer.loading.parse``).

A ``v1 List`` (what ``kubectl get nodes|pods -o yaml|json`` prints) is read item by item: each item of the root
``items`` sequence can be pruned to the fields a caller needs while it is read (``prune``: per (apiVersion, kind),
a tree of the fields to keep; a tree on a list applies to each element), so a 5,000-node dump never exists as a
whole in memory. Every item comes with its :class:`Span` (line, column and character range in the text), so a
finding on one item can be located by reading that item's text again, not the whole file
(``renderer.loading.positions``).

Two callers, one reader: ``EventReader.documents`` and ``read_json_document`` are what the policy loader uses
(every document, List items pruned); ``iter_list_items`` (YAML, or any text) and ``iter_json_list_items`` (JSON,
the json module's scanner, several times faster; it raises ``NeedsYamlPath`` when the YAML reader must decide)
give the same items one at a time as a generator, and with ``objects=True`` also single objects
(``kubectl get node NAME -o yaml``): what ``allocatable verify`` reads its ``--nodes``/``--pods`` dumps with
(``renderer.verify.snapshot``). Both paths prune the same way (``prune_item``), so JSON and YAML give the same
values whatever the order of the fields.

Cost: one pass over the events, O(events); memory O(largest document built + kept fields of List items).
"""

from __future__ import annotations

import json
import json.decoder
from collections.abc import Callable, Generator, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Union

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

try:  # pragma: no cover - depends on the wheel
    _Parser: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Parser = yaml.SafeLoader

__all__ = [
    "NODE_FIELDS",
    "DocumentTooLarge",
    "EventReader",
    "KeepSpec",
    "ListItem",
    "NeedsFullConstructor",
    "NeedsYamlPath",
    "NestedTooDeep",
    "Prune",
    "Span",
    "StreamDocument",
    "iter_json_list_items",
    "iter_list_items",
    "prune_item",
    "prune_value",
    "read_json_document",
]

#: Fields to keep of one object: a key mapped to True keeps its whole value, to a KeepSpec keeps those sub-fields.
KeepSpec = Mapping[str, Union[bool, "KeepSpec"]]
#: Per (apiVersion, kind) of a List item, the fields to keep; items of other kinds are kept whole.
Prune = Mapping[tuple[str, str], KeepSpec]

#: What the model and ``verify`` need of a v1 Node; images, conditions, managedFields, addresses and volumes are
#: dropped while the item is read.
NODE_FIELDS: KeepSpec = {
    "apiVersion": True,
    "kind": True,
    "metadata": {"name": True, "labels": True, "annotations": True},
    "spec": {"providerID": True},
    "status": {"capacity": True, "allocatable": True, "nodeInfo": True},
}

_STR_TAG = "tag:yaml.org,2002:str"
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


@dataclass(frozen=True, slots=True)
class Span:
    """Where a node sits in the text: 1-based line and column of its first character, character offsets."""

    line: int
    column: int
    start: int
    end: int

    @staticmethod
    def of(start: yaml.Mark, end: yaml.Mark) -> Span:
        return Span(start.line + 1, start.column + 1, start.index, end.index)


@dataclass(frozen=True, slots=True)
class ListItem:
    index: int
    span: Span
    data: Any
    #: The root object of a document that is not a List (``objects=True``), not an item of a List.
    whole_document: bool = False


@dataclass(frozen=True, slots=True)
class StreamDocument:
    index: int
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
                    value = out[key] = self._scalar(vev)
                    if isinstance(value, str) and len(value) > 4096:
                        self._too_large(vev.end_mark, vev.start_mark)
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
                    if isinstance(value, str) and len(value) > 4096:
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

    def documents(self) -> Iterator[StreamDocument]:
        """Every document of the text, in order (an empty document is ``None``)."""
        get_event = self._get_event
        get_event()  # StreamStartEvent
        index = 0
        while True:
            ev = get_event()
            if ev.__class__ is StreamEndEvent:
                return
            root = get_event()  # after DocumentStartEvent
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


# --- JSON ----------------------------------------------------------------------------------------------------------
#
# ``kubectl ... -o json`` dumps are read with the json module's C scanner, one List item at a time (``raw_decode``
# from the item's offset): about eight times faster than libyaml's events on the same text. Anything this path does
# not read exactly as the YAML path would (a float that YAML 1.1 reads differently, NaN, a nesting or size bound, a
# duplicate key, a syntax error) raises NeedsYamlPath, and the caller reads the file as YAML: same values, same
# messages, same positions.


class NeedsYamlPath(Exception):
    """The JSON text needs the YAML reader (for a value, a bound or an error message).

    ``syntax`` is set when the text is not JSON at all (``json.JSONDecodeError``, located): the policy loader still
    lets the YAML reader decide (JSON is YAML, and a .json policy file may use YAML's leniency), while a reader of
    ``kubectl -o json`` output can report it as invalid JSON."""

    def __init__(self, syntax: json.JSONDecodeError | None = None) -> None:
        super().__init__(syntax.msg if syntax is not None else "the YAML reader must decide")
        self.syntax = syntax


_JSON_WS = " \t\r\n"


def _plain(value: Any) -> Any:
    """A decoded JSON value with its objects as tuples of (key, value) pairs (see ``_json_decoder``) as plain dicts
    and lists; a key twice in an object sends the text to the YAML reader (which reports it with both lines)."""
    cls = value.__class__
    if cls is tuple:
        out = dict(value)
        if len(out) != len(value):
            raise NeedsYamlPath
        for key, v in out.items():
            if v.__class__ is tuple or v.__class__ is list:
                out[key] = _plain(v)
        return out
    if cls is list:
        return [_plain(v) if v.__class__ is tuple or v.__class__ is list else v for v in value]
    return value


def _kept_json(value: Any, spec: KeepSpec) -> Any:
    """``prune_value`` of a decoded JSON value whose objects are still pairs: only what ``spec`` keeps is built."""
    cls = value.__class__
    if cls is list:
        return [_kept_json(v, spec) for v in value]
    if cls is not tuple:
        return value
    fields = dict(value)
    if len(fields) != len(value):
        raise NeedsYamlPath
    out: dict[str, Any] = {}
    for key, sub in spec.items():
        if key in fields:
            if sub is True:
                out[key] = _plain(fields[key])
            elif sub:
                out[key] = _kept_json(fields[key], sub)
    return out


def _json_item(value: Any, prune: Prune) -> Any:
    """``prune_item`` of a decoded JSON value whose objects are still pairs (the same fields kept, in the same
    order, the same duplicate keys noticed as the YAML reader's ``_item``)."""
    if value.__class__ is not tuple or not prune:
        return _plain(value)
    spec: KeepSpec | None = None
    out: dict[str, Any] = {}
    for key, v in value:
        if key in out:
            raise NeedsYamlPath
        if spec is None and key != "apiVersion" and key != "kind":
            api, kind = out.get("apiVersion"), out.get("kind")
            if isinstance(api, str) and isinstance(kind, str):
                spec = prune.get((api, kind), {})
        if not spec:
            out[key] = _plain(v)
            continue
        sub = spec.get(key)
        if sub is True:
            out[key] = _plain(v)
        elif sub:
            out[key] = _kept_json(v, sub)
    return out


def _json_float(text: str) -> float:
    # YAML 1.1 reads 1.5 and 1.5e+3 as floats but 1e5 or 1.5e3 as strings: keep the YAML reading.
    if "." not in text or (("e" in text or "E" in text) and not any(s in text for s in ("e+", "e-", "E+", "E-"))):
        raise NeedsYamlPath
    return float(text)


def _json_constant(text: str) -> Any:
    raise NeedsYamlPath  # NaN, Infinity: not JSON, and YAML reads them as strings


def _depth_ok(value: Any, limit: int, depth: int = 0) -> bool:
    """No non-empty mapping or list ``limit`` levels deep or deeper (only containers are visited)."""
    if value.__class__ is dict:
        children: Any = value.values()
    elif value.__class__ is list:
        children = value
    else:
        return True
    if not value:
        return True
    if depth >= limit:
        return False
    for child in children:
        if (child.__class__ is dict or child.__class__ is list) and not _depth_ok(child, limit, depth + 1):
            return False
    return True


def prune_value(value: Any, spec: KeepSpec) -> Any:
    """``value`` with only the fields ``spec`` keeps: a mapping's keys, each element of a list; anything else is
    returned as it is (the same as the YAML reader keeps while reading; a mapping's kept keys come in the spec's
    order). Cost: O(kept fields): the spec's keys are looked up, not the value's (a Pod's dozens of dropped fields
    are never visited)."""
    if value.__class__ is list:
        return [prune_value(v, spec) for v in value]
    if value.__class__ is not dict:
        return value
    out: dict[Any, Any] = {}
    for key, sub in spec.items():
        if key in value:
            if sub is True:
                out[key] = value[key]
            elif sub:
                out[key] = prune_value(value[key], sub)
    return out


def prune_item(item: Any, prune: Prune) -> Any:
    """A List item (or a single object) pruned as the YAML reader prunes it while reading: by the spec of its
    apiVersion and kind, for the fields after both (kubectl sorts keys, so every field but those two); fields
    before them, and apiVersion and kind themselves, are kept. Cost: O(top-level fields + kept fields)."""
    if not prune or item.__class__ is not dict:
        return item
    spec: KeepSpec | None = None
    out: dict[Any, Any] = {}
    for key, value in item.items():
        if spec is None and isinstance(key, str) and key not in ("apiVersion", "kind"):
            api, kind = out.get("apiVersion"), out.get("kind")
            if isinstance(api, str) and isinstance(kind, str):
                spec = prune.get((api, kind), {})
        if not spec or not isinstance(key, str):
            out[key] = value
            continue
        sub = spec.get(key)
        if sub is True:
            out[key] = value
        elif sub:
            out[key] = prune_value(value, sub)
    return out


class _Lines:
    """1-based line and column of character offsets, asked for in increasing order (O(text) in all)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self.line = 1
        self.line_start = 0

    def at(self, offset: int) -> tuple[int, int]:
        text = self.text
        newlines = text.count("\n", self.pos, offset)
        if newlines:
            self.line += newlines
            self.line_start = text.rindex("\n", self.pos, offset) + 1
        self.pos = offset
        return self.line, offset - self.line_start + 1


class _NoLines(_Lines):
    """For ``positions=False``: every line and column is 0."""

    def at(self, offset: int) -> tuple[int, int]:
        return 0, 0


def _skip_ws(text: str, i: int) -> int:
    n = len(text)
    while i < n and text[i] in _JSON_WS:
        i += 1
    return i


def _syntax(message: str, text: str, i: int) -> NeedsYamlPath:
    return NeedsYamlPath(json.JSONDecodeError(message, text, i))


def _json_items(
    text: str,
    i: int,
    decoder: json.JSONDecoder,
    prune: Prune,
    max_depth: int,
    max_chars: int,
    lines: _Lines,
) -> Generator[ListItem, None, int]:
    """The items of the JSON array whose ``[`` is at ``i``, one ``raw_decode`` each; returns the offset after its
    ``]``. Items are separated by exactly one comma, as JSON has it (``[1,]`` is YAML, not JSON)."""
    index = 0
    i = _skip_ws(text, i + 1)
    if text[i : i + 1] == "]":
        return i + 1
    while True:
        item, end = decoder.raw_decode(text, i)
        if end - i > max_chars:
            raise NeedsYamlPath
        item = _json_item(item, prune)
        if not _depth_ok(item, max_depth - 2):
            raise NeedsYamlPath
        line, column = lines.at(i)
        yield ListItem(index, Span(line, column, i, end), item)
        index += 1
        i = _skip_ws(text, end)
        sep = text[i : i + 1]
        if sep == "]":
            return i + 1
        if sep != ",":
            raise _syntax("Expecting ',' delimiter", text, i)
        i = _skip_ws(text, i + 1)


def _json_object(
    text: str,
    i: int,
    decoder: json.JSONDecoder,
    prune: Prune,
    max_depth: int,
    max_chars: int,
    lines: _Lines,
    collect: bool,
) -> Generator[ListItem, None, tuple[dict[str, Any], int, bool]]:
    """The root object whose ``{`` is at ``i``: the items of its ``items`` array are yielded as they are read (and
    kept in its value only when ``collect``); every other member is decoded whole and bounded on its own. Returns
    (the object, the offset after its ``}``, whether it had an ``items`` array)."""
    scan: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
    root: dict[str, Any] = {}
    listed = False
    i = _skip_ws(text, i + 1)
    if text[i : i + 1] == "}":
        return root, i + 1, listed
    while True:
        if text[i : i + 1] != '"':
            raise _syntax("Expecting property name enclosed in double quotes", text, i)
        key, i = scan(text, i + 1)
        i = _skip_ws(text, i)
        if text[i : i + 1] != ":":
            raise _syntax("Expecting ':' delimiter", text, i)
        i = _skip_ws(text, i + 1)
        if key in root:
            raise NeedsYamlPath  # a duplicate key: reported by the YAML reader with both lines
        if key == "items" and text[i : i + 1] == "[":
            listed = True
            items: list[Any] = []
            reading = _json_items(text, i, decoder, prune, max_depth, max_chars, lines)
            while True:
                try:
                    item = next(reading)
                except StopIteration as done:
                    i = done.value
                    break
                if collect:
                    items.append(item.data)
                yield item
            root[key] = items if collect else None
        else:
            value, end = decoder.raw_decode(text, i)
            value = _plain(value)
            if end - i > max_chars or not _depth_ok(value, max_depth - 1):
                raise NeedsYamlPath
            root[key] = value
            i = end
        i = _skip_ws(text, i)
        sep = text[i : i + 1]
        if sep == "}":
            return root, i + 1, listed
        if sep != ",":
            raise _syntax("Expecting ',' delimiter", text, i)
        i = _skip_ws(text, i + 1)


def _json_decoder() -> json.JSONDecoder:
    """Objects come out as tuples of (key, value) pairs: the C scanner builds those as fast as dicts, where a Python
    hook per object (to notice duplicate keys) cost half as much again as the whole scan. Only what is kept is made
    a dict (``_plain``, ``_kept_json``, ``_json_item``), checking its keys then."""
    return json.JSONDecoder(object_pairs_hook=tuple, parse_float=_json_float, parse_constant=_json_constant)


def _json_end(text: str, i: int) -> None:
    """Only white space may follow the root value."""
    i = _skip_ws(text, i)
    if i != len(text):
        raise _syntax("Extra data", text, i)


def iter_json_list_items(
    text: str,
    *,
    prune: Prune | None = None,
    max_depth: int = 64,
    max_item_chars: int = 8 * 1024 * 1024,
    objects: bool = False,
    positions: bool = True,
) -> Iterator[ListItem]:
    """Like :func:`iter_list_items` for a JSON text (``kubectl get ... -o json``), with the json module's scanner.

    The root must be an object: the items of its ``items`` array, one at a time; with ``objects``, a root without
    one is the single item (pruned by its kind). Raises NeedsYamlPath where the YAML reader must decide (see above;
    ``syntax`` set when the text is not JSON): the caller then uses iter_list_items, skipping the items it has.
    With ``positions=False`` the spans' line and column are 0, for a caller that needs them only for an item with
    a problem (from ``start``): counting the lines of a whole dump is an eighth of reading it."""
    decoder = _json_decoder()
    lines = _Lines(text) if positions else _NoLines(text)
    prune = prune or {}
    try:
        i = _skip_ws(text, 0)
        if text[i : i + 1] != "{":
            raise NeedsYamlPath
        start = i
        root, end, listed = yield from _json_object(
            text, i, decoder, prune, max_depth, max_item_chars, lines, collect=False
        )
        _json_end(text, end)
        if objects and not listed:
            if end - start > max_item_chars or not _depth_ok(root, max_depth):
                raise NeedsYamlPath
            line, column = lines.at(start)
            yield ListItem(0, Span(line, column, start, end), prune_item(root, prune), whole_document=True)
    except json.JSONDecodeError as exc:
        raise NeedsYamlPath(exc) from None
    except (ValueError, IndexError, RecursionError):
        raise NeedsYamlPath from None


def read_json_document(
    text: str, *, max_depth: int, max_document_chars: int, prune: Prune | None = None
) -> StreamDocument:
    """The one document of a JSON text; a root object's ``items`` array is read item by item and pruned.

    Raises NeedsYamlPath whenever the YAML reader must decide (see above)."""
    decoder = _json_decoder()
    prune = prune or {}
    i = _skip_ws(text, 0)
    lines = _Lines(text)
    try:
        if text[i : i + 1] != "{" or '"items"' not in text:
            data, end = decoder.raw_decode(text, i)
            if end - i > max_document_chars:
                raise NeedsYamlPath
            data = _plain(data)
            if not _depth_ok(data, max_depth):
                raise NeedsYamlPath
            _json_end(text, end)
            line, column = lines.at(i)
            return StreamDocument(0, Span(line, column, i, end), data)
        root_start = i
        root_line, root_column = lines.at(root_start)
        spans: list[Span] = []
        reading = _json_object(text, i, decoder, prune, max_depth, max_document_chars, lines, collect=True)
        while True:
            try:
                spans.append(next(reading).span)
            except StopIteration as done:
                root, end, _ = done.value
                break
        _json_end(text, end)
        return StreamDocument(0, Span(root_line, root_column, root_start, end), root, tuple(spans) if spans else None)
    except json.JSONDecodeError as exc:
        raise NeedsYamlPath(exc) from None
    except (ValueError, IndexError, RecursionError):
        raise NeedsYamlPath from None
