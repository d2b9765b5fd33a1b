"""A window over a byte stream's decoded text, for readers that decode one JSON member at a time.

The bytes come in chunks (``CHUNK``), are decoded incrementally (UTF-8, a leading BOM dropped) and appended to
``text``; a reader drops the text before the member it is at once that is larger than a chunk (``drop``), so the
window stays about one chunk plus the largest member, whatever the size of the input. ``at`` turns a window offset
into a line and column, counting lines forward only. Two readers use it: ``kubectl … -o json`` dumps
(``renderer.loading.jsonstream``) and exported Prometheus query results (``renderer.recommend.exports``); each says
in its own words what stops it, by overriding ``too_large``, ``not_utf8`` and, if it refuses some text,
``check``.

Cost: O(text) over the whole stream; memory O(chunk + the largest member).
"""

from __future__ import annotations

import codecs
from collections.abc import Callable

__all__ = ["CHUNK", "TextWindow"]

CHUNK = 1 << 20
_WS = " \t\r\n"


class TextWindow:
    """The decoded text from the last drop on, with a cursor counting lines forward."""

    def __init__(self, read: Callable[[int], bytes], max_bytes: int) -> None:
        self._read = read
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self.max_bytes = max_bytes
        self.bytes_read = 0
        self._first = True
        self.text = ""
        self.eof = False
        # line counting: offset ``pos`` of the window is on line ``line``, whose first character is at ``line_start``
        # (window offsets; negative when that line began before the window).
        self.pos = 0
        self.line = 1
        self.line_start = 0

    def too_large(self) -> Exception:
        """The error raised once more than ``max_bytes`` were read."""
        return ValueError(f"larger than the {self.max_bytes} byte limit")

    def not_utf8(self, raw: bytes, exc: UnicodeDecodeError) -> Exception:
        """The error raised for a chunk ``raw`` that is not UTF-8 (``exc.start``: the offending byte in it)."""
        return ValueError(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})")

    def check(self, chunk: str) -> None:
        """Raise for decoded text the reader refuses before it joins the window (nothing, here)."""

    def more(self) -> bool:
        """Read the next chunk into the window; False at the end of the input."""
        if self.eof:
            return False
        raw = self._read(CHUNK)
        self.bytes_read += len(raw)
        if self.bytes_read > self.max_bytes:
            raise self.too_large()
        if self._first and raw:
            self._first = False
            if raw.startswith(codecs.BOM_UTF8):
                raw = raw[3:]
        try:
            chunk = self._decoder.decode(raw, final=not raw)
        except UnicodeDecodeError as exc:
            raise self.not_utf8(raw, exc) from None
        if not raw:
            self.eof = True
        self.check(chunk)
        self.text += chunk
        return not self.eof or bool(chunk)

    def at(self, offset: int) -> tuple[int, int]:
        """Line and column of window offset ``offset`` (at or after the last one asked for)."""
        text = self.text
        if offset > self.pos:
            newlines = text.count("\n", self.pos, offset)
            if newlines:
                self.line += newlines
                self.line_start = text.rindex("\n", self.pos, offset) + 1
            self.pos = offset
        return self.line, offset - self.line_start + 1

    def drop(self, i: int) -> int:
        """Forget the text before ``i`` when it is large (amortised O(1) per character); the new offset of ``i``."""
        if i < CHUNK:
            return i
        self.at(i)
        self.text = self.text[i:]
        self.pos -= i
        self.line_start -= i
        return 0

    def skip_ws(self, i: int) -> int:
        """The first offset at or after ``i`` that is not white space, reading on as needed (len(text) at the end)."""
        while True:
            text = self.text
            n = len(text)
            while i < n and text[i] in _WS:
                i += 1
            if i < n or not self.more():
                return i

    def char(self, i: int) -> str:
        """The character at ``i`` ('' at the end of the input)."""
        while i >= len(self.text):
            if not self.more():
                return ""
        return self.text[i]
