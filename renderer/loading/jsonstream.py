"""A ``kubectl ... -o json`` dump read from a stream, one List item at a time, in a window of the text.

``renderer.loading.jsonscan`` reads a JSON text held whole; a 200,000-pod dump is 1.7 GB of it. Here the bytes come
in chunks (``CHUNK``), are decoded incrementally (UTF-8, a leading BOM dropped) into a window, and each item of the
root object's ``items`` array is decoded with the json module's C scanner from the window (``raw_decode``, objects
as pairs, pruned to the caller's keep-spec as ``jsonscan`` prunes them) and handed on before the next one is read.
The text before the current item is dropped once it is larger than the chunk, so the window stays about one chunk
plus the largest item, whatever the size of the dump.

Anything this path does not read exactly as the whole-text readers would — a value the YAML reader decides (a float,
NaN, a duplicate key), a syntax error, a bound, a byte that is not UTF-8 — stops it with :class:`Stop`, saying how many
items it handed on, where it stopped (line and column) and why: the caller reads the input whole instead (same values,
same messages) when it is small enough, and reports the stop itself when it is not.

Cost: one pass over the input; memory O(chunk + the largest item + what the caller keeps of each item).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Generator, Iterator
from typing import Any, NamedTuple

from renderer.loading.jsonscan import NeedsYamlPath, depth_ok, json_decoder, json_item, plain_json
from renderer.loading.textwindow import CHUNK, TextWindow

__all__ = ["CHUNK", "Stop", "StreamedItem", "stream_json"]


class StreamedItem(NamedTuple):
    """One object of the dump: its kept fields, where it starts, and the window it was read from (``text[start:end]``
    is its text, for locating a problem in it; the window is dropped once the caller lets go of the item)."""

    index: int  # type: ignore[assignment]  # a field: shadows tuple.index, never called here
    line: int
    column: int
    data: Any
    text: str
    start: int
    end: int
    whole_document: bool = False


class Stop(Exception):
    """The stream cannot go on: ``items`` were handed on; ``line``/``column`` say where; ``cause`` is a reader
    cause (``json-syntax``, ``too-large``, ``encoding``, ``file``, ``value``) and ``message`` its words."""

    def __init__(self, message: str, items: int, line: int = 1, column: int = 1, cause: str = "json-syntax") -> None:
        super().__init__(message)
        self.message = message
        self.items = items
        self.line = line
        self.column = column
        self.cause = cause


class _Window(TextWindow):
    """The dump's decoded text (``renderer.loading.textwindow``), its problems as :class:`Stop` with the items handed
    on so far."""

    def __init__(self, read: Callable[[int], bytes], max_bytes: int) -> None:
        super().__init__(read, max_bytes)
        self.items = 0

    def stop(self, message: str, i: int, cause: str = "json-syntax") -> Stop:
        line, column = self.at(min(i, len(self.text)))
        return Stop(message, self.items, line, column, cause)

    def too_large(self) -> Exception:
        return Stop(f"the dump is larger than the {self.max_bytes} byte limit", self.items, cause="file")

    def not_utf8(self, raw: bytes, exc: UnicodeDecodeError) -> Exception:
        line, _ = self.at(len(self.text))
        line += raw[: exc.start].count(b"\n")
        return Stop(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", self.items, line, 1, "encoding")

    def check(self, chunk: str) -> None:
        if "\x00" in chunk:
            raise self.stop("the dump contains a NUL character", len(self.text) + chunk.index("\x00"), "encoding")


def _decode(window: _Window, decoder: json.JSONDecoder, i: int, max_chars: int, what: str) -> tuple[Any, int]:
    """One JSON value from offset ``i``, reading on until it is complete (and something follows it)."""
    while True:
        try:
            value, end = decoder.raw_decode(window.text, i)
        except json.JSONDecodeError as exc:
            if len(window.text) - i <= max_chars and window.more():
                continue
            if len(window.text) - i > max_chars:
                raise window.stop(f"{what} is larger than {max_chars} characters", i, "too-large") from None
            raise window.stop(f"invalid JSON: {exc.msg}", exc.pos) from None
        except NeedsYamlPath:
            raise window.stop("a value the YAML reader must decide", i, "value") from None
        except (ValueError, RecursionError):
            raise window.stop("a value the YAML reader must decide", i, "value") from None
        if end == len(window.text) and window.more():
            continue  # a number may go on in the next chunk
        if end - i > max_chars:
            raise window.stop(f"{what} is larger than {max_chars} characters", i, "too-large")
        return value, end


def _expect(window: _Window, i: int, char: str, message: str) -> int:
    i = window.skip_ws(i)
    if window.char(i) != char:
        raise window.stop(f"invalid JSON: {message}", i)
    return i + 1


def stream_json(
    read: Callable[[int], bytes],
    *,
    prune: Any,
    max_item_chars: int,
    max_bytes: int,
    max_depth: int,
) -> Iterator[StreamedItem]:
    """The items of the root object's ``items`` array, read from ``read`` (``read(n)`` gives up to ``n`` bytes,
    ``b""`` at the end); a root object without an ``items`` array is the one item (``whole_document``). Raises
    :class:`Stop`. The caller has checked that the input starts with ``{``."""
    window = _Window(read, max_bytes)
    decoder = json_decoder()
    scan: Callable[[str, int], tuple[str, int]] = json.decoder.scanstring  # type: ignore[attr-defined]
    root_start = window.skip_ws(0)
    root_line, root_column = window.at(root_start)
    i = _expect(window, 0, "{", "Expecting value")
    root: list[tuple[str, Any]] = []
    listed = False
    i = window.skip_ws(i)
    if window.char(i) == "}":
        i += 1
    else:
        while True:
            if window.char(i) != '"':
                raise window.stop("invalid JSON: Expecting property name enclosed in double quotes", i)
            key, end = _key(window, scan, i)
            i = _expect(window, end, ":", "Expecting ':' delimiter")
            i = window.skip_ws(i)
            if any(k == key for k, _ in root) or (key == "items" and listed):
                raise window.stop("a duplicate key", i, "value")
            if key == "items" and window.char(i) == "[":
                listed = True
                i = yield from _items(window, decoder, i, prune, max_item_chars, max_depth)
                root.append((key, None))
            else:
                value, i = _decode(window, decoder, i, max_item_chars, "a member of the root object")
                root.append((key, value))
            i = window.skip_ws(i)
            sep = window.char(i)
            if sep == "}":
                i += 1
                break
            if sep != ",":
                raise window.stop("invalid JSON: Expecting ',' delimiter", i)
            i = window.skip_ws(i + 1)
    end = window.skip_ws(i)
    if end < len(window.text):
        raise window.stop("invalid JSON: Extra data", end)
    if not listed:
        if len(window.text) - root_start > max_item_chars:
            raise window.stop(f"the object is larger than {max_item_chars} characters", root_start, "too-large")
        data = json_item(tuple(root), prune)
        if not depth_ok(data, max_depth):
            raise window.stop("nested too deeply", root_start, "value")
        yield StreamedItem(0, root_line, root_column, data, window.text, root_start, i, whole_document=True)


def _key(window: _Window, scan: Callable[[str, int], tuple[str, int]], i: int) -> tuple[str, int]:
    while True:
        try:
            return scan(window.text, i + 1)
        except json.JSONDecodeError as exc:
            if window.more():
                continue
            raise window.stop(f"invalid JSON: {exc.msg}", exc.pos) from None


def _items(
    window: _Window,
    decoder: json.JSONDecoder,
    i: int,
    prune: Any,
    max_chars: int,
    max_depth: int,
) -> Generator[StreamedItem, None, int]:
    index = 0
    i = window.skip_ws(i + 1)
    if window.char(i) == "]":
        return i + 1
    while True:
        i = window.drop(i)
        line, column = window.at(i)
        value, end = _decode(window, decoder, i, max_chars, f"List item {index + 1}")
        try:
            data = json_item(value, prune) if value.__class__ is tuple else plain_json(value)
        except NeedsYamlPath:
            raise window.stop("a value the YAML reader must decide", i, "value") from None
        if not depth_ok(data, max_depth - 2):
            raise window.stop("nested too deeply", i, "value")
        yield StreamedItem(index, line, column, data, window.text, i, end)
        index += 1
        window.items = index
        i = window.skip_ws(end)
        sep = window.char(i)
        if sep == "]":
            return i + 1
        if sep != ",":
            raise window.stop("invalid JSON: Expecting ',' delimiter", i)
        i = window.skip_ws(i + 1)
