"""Exported Prometheus query results read as a stream, one series at a time.

Accepted shapes, as the HTTP API and promtool write them: the API's response ``{"status": "success", "data":
{"resultType": "matrix"|"vector", "result": [...]}, "warnings": [...]}`` (``/api/v1/query_range`` and
``/api/v1/query``), its ``data`` object alone, and ``promtool query range|instant -o json``'s bare ``result`` array.
An error response (``"status": "error"``) is one located error carrying the server's ``errorType`` and ``error``;
anything that is not JSON (an HTML error page, a login form) is one error saying what it starts with.

The bytes come in chunks (``CHUNK``) decoded incrementally into a window; each element of ``result`` is decoded with
the json module's C scanner (``raw_decode``) and handed to the caller before the next one is read; the text before it
is dropped once it is larger than a chunk. So the window stays about one chunk plus the largest series, whatever the
size of the export (a 14-day raw series at 5-minute steps is about 100 kB).

Cost: one pass over the input; memory O(chunk + the largest series + what the caller keeps of each).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from renderer.errors import UserError
from renderer.loading.textwindow import CHUNK, TextWindow

__all__ = ["CHUNK", "Export", "ExportError", "read_export"]

#: The largest series (or other member) read at once: 64 MiB of text (a year of 15-second samples is 60 MB).
MAX_MEMBER_CHARS = 64 << 20


class ExportError(UserError):
    """The export cannot be read: ``message`` at ``line``:``column`` (its reader, which knows the file's name, says
    where: ``renderer.recommend.source``)."""

    def __init__(self, message: str, line: int = 1, column: int = 1) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


class Export:
    """What the reader found besides the series: the result type, the server's warnings, the series count."""

    def __init__(self) -> None:
        self.result_type: str | None = None
        self.warnings: list[str] = []
        self.series = 0
        self.bytes = 0


Sink = Callable[[dict[str, str], list[Any], int, int], None]


class _Window(TextWindow):
    """The export's decoded text (``renderer.loading.textwindow``), its problems as :class:`ExportError`."""

    def error(self, message: str, i: int) -> ExportError:
        line, column = self.at(min(i, len(self.text)))
        return ExportError(message, line, column)

    def too_large(self) -> Exception:
        return ExportError(f"larger than the {self.max_bytes} byte limit (--max-file-size)")

    def not_utf8(self, raw: bytes, exc: UnicodeDecodeError) -> Exception:
        return self.error(f"not valid UTF-8 (byte 0x{raw[exc.start]:02x})", len(self.text))

    def value(self, decoder: json.JSONDecoder, i: int, what: str) -> tuple[Any, int]:
        while True:
            try:
                value, end = decoder.raw_decode(self.text, i)
            except json.JSONDecodeError as exc:
                if len(self.text) - i <= MAX_MEMBER_CHARS and self.more():
                    continue
                if len(self.text) - i > MAX_MEMBER_CHARS:
                    raise self.error(f"{what} is larger than {MAX_MEMBER_CHARS} characters", i) from None
                ended = exc.pos >= len(self.text.rstrip()) or exc.msg.startswith("Unterminated string")
                where = "the export ends early (truncated?)" if self.eof and ended else "invalid JSON"
                raise self.error(f"{where}: {exc.msg}", exc.pos) from None
            except RecursionError:
                raise self.error(f"{what} is nested too deeply", i) from None
            if end == len(self.text) and self.more():
                continue  # a number may go on in the next chunk
            return value, end

    def expect(self, i: int, char: str, message: str) -> int:
        i = self.skip_ws(i)
        if self.char(i) != char:
            if i >= len(self.text):
                raise self.error(f"the export ends early (truncated?): {message}", i)
            raise self.error(f"invalid JSON: {message}", i)
        return i + 1


def read_export(read: Callable[[int], bytes], max_bytes: int, sink: Sink) -> Export:
    """Read one export from ``read`` (``read(n)``: up to ``n`` bytes, ``b""`` at the end), calling ``sink(metric,
    samples, line, column)`` per series (``samples``: ``values`` of a matrix, ``[value]`` of a vector). Raises
    :class:`ExportError`."""
    w = _Window(read, max_bytes)
    decoder = json.JSONDecoder()
    out = Export()
    i = w.skip_ws(0)
    first = w.char(i)
    if first == "[":  # promtool -o json: the result array alone
        out.result_type = "matrix"
        i = _result(w, decoder, i, out, sink)
    elif first == "{":
        i = _object(w, decoder, i, out, sink, root=True)
    elif first == "":
        raise ExportError("empty: not a Prometheus query result")
    else:
        head = w.text[i : i + 40].split("\n")[0]
        kind = "an HTML page (an error page or a login form?)" if head.lstrip().startswith("<") else "not JSON"
        raise w.error(f"{kind}, not a Prometheus query result; it starts with {head!r}", i)
    end = w.skip_ws(i)
    if end < len(w.text):
        raise w.error("invalid JSON: extra data after the result", end)
    if out.result_type is None:
        raise ExportError("no data.result: not a Prometheus query result")
    out.bytes = w.bytes_read
    return out


def _object(w: _Window, decoder: json.JSONDecoder, i: int, out: Export, sink: Sink, *, root: bool) -> int:
    """The root object (``status``, ``data``, ``warnings``, ``error``...) or ``data`` (``resultType``, ``result``)."""
    start = i
    members: dict[str, Any] = {}
    i = w.skip_ws(i + 1)
    if w.char(i) == "}":
        return i + 1
    while True:
        if w.char(i) != '"':
            raise w.error("invalid JSON: expecting a property name in double quotes", i)
        key, i = w.value(decoder, i, "a key")
        i = w.skip_ws(w.expect(i, ":", "expecting ':'"))
        if key == "result" and w.char(i) == "[":
            if members.get("resultType") not in (None, "matrix", "vector"):
                raise w.error(f"resultType {members['resultType']!r}: expected matrix or vector", i)
            out.result_type = members.get("resultType") or "matrix"
            i = _result(w, decoder, i, out, sink)
            members[key] = None
        elif key == "data" and root and w.char(i) == "{":
            if members.get("status") == "error":
                raise _error_response(w, members, start)
            i = _object(w, decoder, i, out, sink, root=False)
            members[key] = None
        else:
            members[key], i = w.value(decoder, i, f"member {key!r}")
        i = w.skip_ws(i)
        sep = w.char(i)
        if sep == "}":
            i += 1
            break
        if sep != ",":
            what = "the export ends early (truncated?)" if sep == "" else "invalid JSON"
            raise w.error(f"{what}: expecting ',' or '}}'", i)
        i = w.skip_ws(i + 1)
    if root:
        if members.get("status") == "error" or ("errorType" in members and "data" not in members):
            raise _error_response(w, members, start)
        warnings = members.get("warnings")
        if isinstance(warnings, list):
            out.warnings.extend(str(x) for x in warnings)
        if "resultType" in members and out.result_type is None:
            out.result_type = str(members["resultType"])
    elif out.result_type is None:
        out.result_type = str(members.get("resultType", "matrix"))
    return i


def _error_response(w: _Window, members: dict[str, Any], start: int) -> ExportError:
    kind = members.get("errorType", "error")
    message = members.get("error", "no message")
    return w.error(f"Prometheus answered with an error: {kind}: {message}", start)


def _result(w: _Window, decoder: json.JSONDecoder, i: int, out: Export, sink: Sink) -> int:
    i = w.skip_ws(i + 1)
    if w.char(i) == "]":
        return i + 1
    while True:
        i = w.drop(i)
        line, column = w.at(i)
        series, end = w.value(decoder, i, f"series {out.series + 1}")
        if not isinstance(series, dict) or not isinstance(series.get("metric", {}), dict):
            raise w.error("a series is not an object with a metric", i)
        if "values" in series:
            samples = series["values"]
        elif "value" in series:
            samples = [series["value"]]
        else:
            raise w.error("a series has neither values nor value", i)
        if not isinstance(samples, list):
            raise w.error("a series' values are not a list", i)
        metric = series.get("metric") or {}
        sink({str(k): str(v) for k, v in metric.items()}, samples, line, column)
        out.series += 1
        i = w.skip_ws(end)
        sep = w.char(i)
        if sep == "]":
            return i + 1
        if sep != ",":
            what = "the export ends early (truncated?)" if sep == "" else "invalid JSON"
            raise w.error(f"{what}: expecting ',' or ']'", i)
        i = w.skip_ws(i + 1)
