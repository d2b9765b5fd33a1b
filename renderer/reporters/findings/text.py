"""``path:line:col: severity: message [code] (Kind/name)``, grouped by file, then a summary line.

Findings arrive sorted by path, line and column; a blank line separates the files. The summary line is not part of
the findings: commands write it to stderr (``summary``), the findings to stdout. Colour (severity, code, path)
follows ``--color`` and the environment, see ``renderer.terminal``.
"""

from __future__ import annotations

from typing import TextIO

from renderer.escaping import plain
from renderer.findings import Finding
from renderer.reporters.findings import Report
from renderer.terminal import colour_enabled

_RESET = "\033[0m"
_STYLES = {
    "error": "\033[1;31m",
    "warning": "\033[1;33m",
    "info": "\033[1;36m",
    "path": "\033[1m",
    "code": "\033[2m",
}


def use_colour(out: TextIO) -> bool:
    return colour_enabled(out)


def _paint(text: str, style: str, colour: bool) -> str:
    return f"{_STYLES[style]}{text}{_RESET}" if colour else text


def format_finding(f: Finding, *, colour: bool = False) -> str:
    """One finding, one line. Path, message, hint and object carry input data (a file name, a quoted value, an
    object name): control characters in them are escaped (``renderer.escaping.plain``), so they can neither break
    the line nor reach the terminal; only our own colour codes do."""
    message = plain(f.message if not f.hint else f"{f.message}; {f.hint}")
    where = _paint(f"{plain(f.path)}:{f.line}:{f.column}:", "path", colour)
    line = f"{where} {_paint(f.severity + ':', f.severity, colour)} {message} {_paint(f'[{f.code}]', 'code', colour)}"
    if f.object:
        line += f" ({plain(f.object)})"
    return line


def summary(report: Report) -> str:
    counts = {"error": 0, "warning": 0, "info": 0}
    for f in report.findings:
        counts[f.severity] += 1
    scope = f"{report.objects} object{'s' if report.objects != 1 else ''} in {report.files} file" + (
        "s" if report.files != 1 else ""
    )
    if not report.findings:
        return f"{report.command}: {scope}: no problems found"
    parts = [f"{n} {sev}{'s' if n != 1 else ''}" for sev, n in counts.items() if n]
    return f"{report.command}: {scope}: {', '.join(parts)}"


def write(report: Report, out: TextIO) -> None:
    colour = use_colour(out)
    previous: str | None = None
    for f in report.findings:
        if previous is not None and f.path != previous:
            out.write("\n")
        previous = f.path
        out.write(format_finding(f, colour=colour) + "\n")
