"""Escaping of input data for every output format, in one place (standard library only: ``--help`` imports it).

Policy files, file names and command-line values are data, and data reaches the terminal, PR annotations, PR
comments and job summaries inside our messages. Each output format passes every piece of text it did not write
itself through one function here:

- ``plain``: terminals and plain text. Control characters (C0, DEL, C1), the Unicode line and paragraph separators
  and the bidirectional overrides ("Trojan Source") are written as visible escapes (``\\n``, ``\\x1b``,
  ``\\u202e``), so a value can neither repaint a terminal nor start a new line. Cost: one regular-expression pass.
- ``workflow_data`` / ``workflow_property``: GitHub workflow commands (``::error file=…::message``). Control
  characters as in ``plain``, except CR and LF, which get GitHub's own escaping with ``%`` (``%0D``, ``%0A``; in
  properties also ``:`` and ``,``; actions/toolkit, packages/core/src/command.ts: escapeData, escapeProperty), so
  the command is one line whatever the data. ``workflow_verbatim``: lines of text in a log where GitHub reads
  workflow commands, between ``::stop-commands::`` and its end token, so no line of it is obeyed.
- ``markdown``: text inside a Markdown paragraph or table cell (PR comments, job summaries): ``plain`` first, then
  HTML's ``& < >`` as entities and every character that could start markup inline (emphasis, links and images,
  code spans, table pipes, strikethrough, headings, math) backslash-escaped, and the colon of a URL scheme and the
  dot of ``www.`` too (GitHub links bare URLs), so it renders as the same text and links nowhere. An ``@`` before a
  name and a ``#`` before a number get a zero-width space after them (``&#8203;``), so a name like ``@octocat`` or
  ``#12`` in a PR comment notifies nobody and references no issue.
- ``markdown_code``: a value shown as an inline code span, however many backticks it holds.

``install_output_fallbacks`` makes the standard streams degrade instead of raising ``UnicodeEncodeError`` when they
cannot encode a character (``PYTHONIOENCODING=ascii``, ``LANG=C``): common symbols get ASCII spellings (``→`` as
``->``), anything else a ``\\uXXXX`` escape (also valid inside JSON strings).
"""

from __future__ import annotations

import codecs
import re
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a cold `--help` never needs it)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TextIO

__all__ = [
    "install_output_fallbacks",
    "json_raw_escapes",
    "markdown",
    "markdown_code",
    "plain",
    "uri_path",
    "workflow_data",
    "workflow_property",
    "workflow_verbatim",
]


class _Pattern:
    """A regular expression compiled on first use: the character classes below take ~3 ms to compile, a twentieth
    of a cold ``--help``, which never needs them."""

    __slots__ = ("_compiled", "_source")

    def __init__(self, source: str) -> None:
        self._source = source
        self._compiled: re.Pattern[str] | None = None

    def _get(self) -> re.Pattern[str]:
        if self._compiled is None:
            self._compiled = re.compile(self._source)
        return self._compiled

    def search(self, text: str) -> re.Match[str] | None:
        return self._get().search(text)

    def sub(self, repl: str | Callable[[re.Match[str]], str], text: str) -> str:
        return self._get().sub(repl, text)


# C0 controls (tab and line breaks included), DEL, C1 controls, the Unicode line/paragraph separators, the
# bidirectional embedding/override/isolate controls and marks (U+061C, U+200E/F), the zero-width and invisible
# characters (U+200B-U+200D, U+2060-U+2064), the byte order mark / zero-width no-break space, the interlinear
# annotation controls, and lone surrogates (a JSON "\ud800", or a file name's undecodable byte as Python keeps it),
# which no encoder writes.
_INVISIBLE = "\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\ufff9-\ufffb"
_UNSAFE = _Pattern(f"[\x00-\x1f\x7f-\x9f{_INVISIBLE}\ud800-\udfff]")
#: What JSON writes raw although no reader should see it raw (DEL, C1, the invisible and bidi characters, lone
#: surrogates): ``json_raw_escapes`` writes these as JSON's ``u`` escapes.
_JSON_RAW = _Pattern(f"[\x7f-\x9f{_INVISIBLE}\ud800-\udfff]")


def json_raw_escapes(text: str) -> str:
    """JSON text (``json.dumps(..., ensure_ascii=False)``) with the characters above as JSON's ``u`` escapes."""
    return _JSON_RAW.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _visible(m: re.Match[str]) -> str:
    c = m.group()
    named = _NAMED.get(c)
    if named is not None:
        return named
    code = ord(c)
    if 0xDC80 <= code <= 0xDCFF:  # an undecodable byte of a file name (surrogateescape): the byte it was
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def plain(text: str) -> str:
    """``text`` with every control or line-breaking character written as a visible escape: one line, inert."""
    return _UNSAFE.sub(_visible, text) if _UNSAFE.search(text) else text


_UNSAFE_IN_COMMANDS = _Pattern(f"[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f{_INVISIBLE}\ud800-\udfff]")


def workflow_data(text: str) -> str:
    """The message part of a GitHub workflow command: control characters visible, except CR and LF, which GitHub's
    own escaping (%0D, %0A) carries into the annotation; the command stays one line."""
    if _UNSAFE_IN_COMMANDS.search(text):
        text = _UNSAFE_IN_COMMANDS.sub(_visible, text)
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def workflow_property(text: str) -> str:
    """A property value (``file=``, ``title=``) of a GitHub workflow command."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_verbatim(text: str) -> str:
    """``text`` (whole lines) for a log GitHub reads workflow commands from, with command processing stopped around
    it (``::stop-commands::TOKEN`` … ``::TOKEN::``, GitHub's "Stopping and starting workflow commands"): a line of
    it that starts with ``::`` — a file or node name can — is shown, never obeyed. The token is the SHA-256 of the
    text, so the output is byte-stable and the text cannot contain its own end token (it would have to contain its
    own hash). Control characters are not escaped here: the lines come from a format that escaped them."""
    if not text:
        return ""
    import hashlib

    token = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
    body = text if text.endswith("\n") else text + "\n"
    return f"::stop-commands::{token}\n{body}::{token}::\n"


#: What starts markup inline: escapes, code spans, emphasis, links and images, table pipes, strikethrough, headings,
#: math. (Line-start markers such as "-" or "1." never apply: the text is one line inside our own line.)
_MD_SPECIAL = _Pattern(r"([\\`*_\[\]|!~#$])")


#: What GitHub turns into a link without any markup (GFM's autolink extension): a URL scheme's colon
#: (``https://evil.example``) and ``www.``. A backslash before the colon or the dot keeps the text as it is.
_MD_AUTOLINK = _Pattern(r"(?i)(https?|ftp|mailto|xmpp|file)(:)|(www)(\.)")

#: What GitHub turns into a notification or a cross-reference: ``@name`` (a user or team mention) and ``#123`` (an
#: issue; ``#`` arrives backslash-escaped, which GitHub still links). A zero-width space after the sign breaks both.
_MD_MENTION = _Pattern(r"(@(?=[0-9A-Za-z])|\\#(?=[0-9]))")


def markdown(text: str) -> str:
    """``text`` as literal text inside Markdown (GitHub Flavored Markdown, table cells included): no markup, and
    no bare URL becomes a link (a hostile name cannot put a link in a reviewer's PR comment)."""
    escaped = plain(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    escaped = _MD_SPECIAL.sub(r"\\\1", escaped)
    escaped = _MD_MENTION.sub(r"\1&#8203;", escaped)
    return _MD_AUTOLINK.sub(lambda m: f"{m[1] or m[3]}\\{m[2] or m[4]}", escaped)


#: What RFC 3986 lets through unescaped in a path: unreserved characters, sub-delimiters, ":", "@" and "/".
_URI_SAFE = "/!$&'()*+,;=:@-._~"


def uri_path(path: str) -> str:
    """``path`` (POSIX, relative) as an RFC 3986 URI path, as SARIF's ``artifactLocation.uri`` must be: the file
    name's bytes as the file system has them (an undecodable byte of a non-UTF-8 name, kept by Python as a lone
    surrogate, is that byte again), every byte outside the path characters percent-encoded (``%FF``, ``%20``)."""
    from urllib.parse import quote

    try:
        raw = path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:  # a surrogate no file system name decodes to: keep its code point's bytes
        raw = path.encode("utf-8", "surrogatepass")
    return quote(raw, safe=_URI_SAFE)


def markdown_code(text: str) -> str:
    """``text`` as an inline code span (GFM): delimited by one backtick more than its longest run, pipes escaped
    (table cells end at a pipe even inside code)."""
    body = plain(text).replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", body)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if body.startswith("`") or body.endswith("`") or not body.strip() else ""
    return f"{fence}{pad}{body}{pad}{fence}"


# --- output encodings ------------------------------------------------------------------------------------------

#: ASCII spellings of the symbols this tool's own messages use.
ASCII_FALLBACKS = {
    "\u2212": "-",  # − minus sign
    "\u2192": "->",  # →
    "\u2190": "<-",
    "\u00d7": "x",  # ×
    "\u2248": "~",  # ≈
    "\u2026": "...",  # …
    "\u2014": "--",  # —
    "\u2013": "-",  # –
    "\u00b7": "*",  # ·
    "\u2264": "<=",
    "\u2265": ">=",
    "\u2260": "!=",
    "\u0394": "D",  # Δ
    "\u2713": "ok",
    "\u274c": "x",  # ❌
    "\u26a0": "!",  # ⚠
    "\ufe0f": "",  # emoji presentation selector
    "\u2139": "i",  # ℹ
    "\u00a0": " ",
}
_HANDLER = "allocatable-fallback"


def _fallback(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    out = []
    for c in exc.object[exc.start : exc.end]:
        spelled = ASCII_FALLBACKS.get(c)
        if spelled is not None:
            out.append(spelled)
        elif ord(c) > 0xFFFF:  # a surrogate pair, as JSON writes it
            v = ord(c) - 0x10000
            out.append(f"\\u{0xD800 + (v >> 10):04x}\\u{0xDC00 + (v & 0x3FF):04x}")
        else:
            out.append(f"\\u{ord(c):04x}")
    return "".join(out), exc.end


codecs.register_error(_HANDLER, _fallback)


def install_output_fallbacks(*streams: TextIO) -> None:
    """Never crash on the output encoding: characters a stream cannot encode get ASCII spellings or escapes.

    Called once, at start-up, for stdout and stderr (streams that are not text files, such as a test's StringIO,
    are left alone: they take any character)."""
    for stream in streams or (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:
            continue
        try:
            reconfigure(errors=_HANDLER)
        except (ValueError, OSError):  # a closed or detached stream
            continue
