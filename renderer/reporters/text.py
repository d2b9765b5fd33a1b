"""``path:line:col: severity: message [code] (Kind/name)``, one line per finding, then a summary line."""

from __future__ import annotations

from typing import TextIO

from renderer.findings import Finding
from renderer.reporters import Report, reporter


def format_finding(f: Finding) -> str:
    message = f.message if not f.hint else f"{f.message}; {f.hint}"
    line = f"{f.path}:{f.line}:{f.column}: {f.severity}: {message} [{f.code}]"
    if f.object:
        line += f" ({f.object})"
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


@reporter("text")
def write_text(report: Report, out: TextIO) -> None:
    for f in report.findings:
        out.write(format_finding(f) + "\n")
    out.write(summary(report) + "\n")
