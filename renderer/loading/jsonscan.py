"""The JSON item scanner: ``kubectl ... -o json`` text read with the json module's C scanner, one List item at a time.

``raw_decode`` from each item's offset is about eight times faster than libyaml's events on the same text. Anything
this path does not read exactly as the YAML path would (a float that YAML 1.1 reads differently, NaN, a nesting or
size bound, a duplicate key, a syntax error) raises :class:`NeedsYamlPath`, and the caller reads the text as YAML:
same values, same messages, same positions. Items are pruned as the YAML reader prunes them (``renderer.loading.prune``).

Cost: one scan of the text, O(size); memory O(the largest item decoded + the kept fields of every item).
"""

from __future__ import annotations

import json
import json.decoder
from collections.abc import Callable, Generator, Iterator
from typing import Any

from renderer.loading.events import ListItem, Span, StreamDocument
from renderer.loading.prune import KeepSpec, Prune, prune_item

__all__ = [
    "NeedsYamlPath",
    "depth_ok",
    "iter_json_list_items",
    "json_decoder",
    "json_item",
    "plain_json",
    "read_json_document",
]


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
    text: str, *, max_depth: int, max_document_chars: int, prune: Prune | None = None, positions: bool = True
) -> StreamDocument:
    """The one document of a JSON text; a root object's ``items`` array is read item by item and pruned.

    Raises NeedsYamlPath whenever the YAML reader must decide (see above). With ``positions=False`` the items'
    line and column are 0 (their character ranges are kept): counting the lines of a whole dump is an eighth of
    reading it, and a caller may need them only for the item with a problem."""
    decoder = _json_decoder()
    prune = prune or {}
    i = _skip_ws(text, 0)
    lines = _Lines(text) if positions else _NoLines(text)
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


#: For the streaming reader (``renderer.loading.jsonstream``): the same decoder, pruning and bounds.
json_decoder = _json_decoder
json_item = _json_item
plain_json = _plain


def depth_ok(value: Any, limit: int) -> bool:
    """No non-empty mapping or list ``limit`` levels deep or deeper."""
    return _depth_ok(value, limit)
