"""JSON text as ``json.dumps(value, indent=2)`` writes it, faster and in large pieces.

``json.dump(..., indent=2)`` to a stream writes every token on its own (3.9M writes for ``explain -o json`` at 10,000
pools), ``json.dumps`` holds the whole text at once, and both run the standard library's pure-Python encoder
(its C encoder serves only ``indent=None``): a chain of generators, a ``yield`` per token. Here one recursion appends
the same tokens to a list (strings escaped by the C ``encode_basestring_ascii``, numbers as ``json`` writes them),
written out about every 16,384 pieces. The bytes are ``json.dumps(value, indent=2)``'s plus a newline (tested on
arbitrary values). Any other ``Sequence`` is written as the list of its items, read one at a time: a sequence that
makes its items when read (``renderer.capacity.explain.PoolDocuments``) is never held whole. Cost: O(size of the
value), memory O(the value + one batch of pieces).
"""

from __future__ import annotations

from collections.abc import Sequence
from json.encoder import encode_basestring_ascii
from typing import Any, TextIO

__all__ = ["write_json"]

_FLUSH_PIECES = 1 << 14
_INF = float("inf")


def _float(f: float) -> str:
    if f != f:
        return "NaN"
    if f == _INF:
        return "Infinity"
    if f == -_INF:
        return "-Infinity"
    return float.__repr__(f)


def _key(key: Any) -> str:
    if isinstance(key, str):
        return encode_basestring_ascii(key)
    if isinstance(key, float):
        return '"' + _float(key) + '"'
    if key is True:
        return '"true"'
    if key is False:
        return '"false"'
    if key is None:
        return '"null"'
    if isinstance(key, int):
        return '"' + int.__repr__(key) + '"'
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


class _Writer:
    def __init__(self, out: TextIO, indent: int) -> None:
        self.out = out
        self.step = " " * indent
        self.pieces: list[str] = []

    def flush(self) -> None:
        self.out.write("".join(self.pieces))
        self.pieces.clear()

    def value(self, v: Any, level: int) -> None:
        append = self.pieces.append
        if isinstance(v, str):
            append(encode_basestring_ascii(v))
        elif v is None:
            append("null")
        elif v is True:
            append("true")
        elif v is False:
            append("false")
        elif isinstance(v, int):
            append(int.__repr__(v))
        elif isinstance(v, float):
            append(_float(v))
        elif isinstance(v, dict):
            self.mapping(v, level)
        elif isinstance(v, (list, tuple)) or (isinstance(v, Sequence) and not isinstance(v, (bytes, bytearray))):
            self.sequence(v, level)
        else:
            raise TypeError(f"Object of type {v.__class__.__name__} is not JSON serializable")
        if len(self.pieces) >= _FLUSH_PIECES:
            self.flush()

    # A string, a plain int, a dict or a list inside a container is handled in the container's own loop (a leaf as
    # one piece with its separator and key, a container by a direct call), not through ``value`` and its chain of
    # type checks: most of a report's values are such. A container checks the batch size when it is done.

    def mapping(self, v: dict[Any, Any], level: int) -> None:
        pieces = self.pieces
        append = pieces.append
        if not v:
            append("{}")
            return
        inner = self.step * (level + 1)
        sep = "{\n" + inner
        then = ",\n" + inner
        for key, item in v.items():
            head = sep + (encode_basestring_ascii(key) if type(key) is str else _key(key)) + ": "
            kind = type(item)
            if kind is str:
                append(head + encode_basestring_ascii(item))
            elif kind is int:
                append(head + int.__repr__(item))
            elif kind is dict:
                append(head)
                self.mapping(item, level + 1)
            elif kind is list:
                append(head)
                self.sequence(item, level + 1)
            elif item is None:
                append(head + "null")
            else:
                append(head)
                self.value(item, level + 1)
            sep = then
        append("\n" + self.step * level + "}")
        if len(pieces) >= _FLUSH_PIECES:
            self.flush()

    def sequence(self, v: Sequence[Any], level: int) -> None:
        pieces = self.pieces
        append = pieces.append
        if not v:
            append("[]")
            return
        inner = self.step * (level + 1)
        sep = "[\n" + inner
        then = ",\n" + inner
        for item in v:
            kind = type(item)
            if kind is str:
                append(sep + encode_basestring_ascii(item))
            elif kind is int:
                append(sep + int.__repr__(item))
            elif kind is dict:
                append(sep)
                self.mapping(item, level + 1)
            else:
                append(sep)
                self.value(item, level + 1)
            sep = then
        append("\n" + self.step * level + "]")
        if len(pieces) >= _FLUSH_PIECES:
            self.flush()


def write_json(value: Any, out: TextIO, *, indent: int = 2) -> None:
    """``value`` as ``json.dumps(value, indent=indent)`` followed by a newline, written to ``out`` in large pieces."""
    writer = _Writer(out, indent)
    writer.value(value, 0)
    writer.pieces.append("\n")
    writer.flush()
