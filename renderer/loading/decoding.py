"""Bytes to text: UTF-8 only (a leading byte order mark accepted), anything else one located finding.

Cost: one pass over the bytes (the UTF-16 sniff reads the first 4 KiB).
"""

from __future__ import annotations

import re

from renderer.findings import Finding

__all__ = ["UTF8_BOM", "decode"]

UTF8_BOM = b"\xef\xbb\xbf"


def _looks_utf16(raw: bytes) -> bool:
    """UTF-16 without a byte order mark: mostly-ASCII text has a NUL in every other byte."""
    sample = raw[:4096]
    half = len(sample) // 2
    return half >= 4 and (sample[1::2].count(0) >= half * 0.9 or sample[0::2].count(0) >= half * 0.9)


def decode(raw: bytes, path: str) -> tuple[str | None, Finding | None]:
    """UTF-8 (a leading BOM is accepted and dropped); anything else is an error at the offending byte."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, Finding("AL001", "error", "file is UTF-16 encoded; save it as UTF-8", path, 1, 1)
    if b"\x00" in raw and _looks_utf16(raw):
        return None, Finding(
            "AL001", "error", "file looks UTF-16 encoded (without a byte order mark); save it as UTF-8", path, 1, 1
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        return None, Finding(
            "AL001",
            "error",
            f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x}); save it as UTF-8",
            path,
            line,
            col,
        )
    if "\x00" in text:
        i = text.index("\x00")
        line = text.count("\n", 0, i) + 1
        col = i - (text.rfind("\n", 0, i) + 1) + 1
        return None, Finding("AL001", "error", "file contains a NUL character; is it a binary file?", path, line, col)
    return text, None


_SURROGATE_ESCAPE = re.compile(r"(\\+)u[dD]([89a-fA-F])[0-9a-fA-F]{2}")


#: The message for a JSON ``\\ud800`` escape that is not half of a pair (libyaml says it of YAML files itself).
LONE_SURROGATE = (
    "a \\u escape names a lone surrogate (\\ud800-\\udfff), which is no character and cannot be stored; write the "
    "character itself, or both halves of its surrogate pair"
)


def lone_surrogate_escape(text: str) -> int | None:
    """The offset of the first ``\\uD800``-style escape in a JSON text that is not half of a pair (the json module
    would keep it as a lone surrogate, which nothing downstream can encode), or None. Cost: one ``in`` for the usual
    text without ``\\u``; else one regular-expression pass."""
    if "\\u" not in text:
        return None
    pending = -1  # offset of a high surrogate escape still waiting for its low half
    pending_end = -1
    for m in _SURROGATE_ESCAPE.finditer(text):
        if len(m[1]) % 2 == 0:  # "\\\\ud800": an escaped backslash, then text
            continue
        start = m.start() + len(m[1]) - 1
        high = m[2] in "89abAB"
        if pending >= 0 and (high or start != pending_end):
            return pending
        if not high and pending < 0:
            return start
        pending, pending_end = (start, m.end()) if high else (-1, -1)
    return pending if pending >= 0 else None
