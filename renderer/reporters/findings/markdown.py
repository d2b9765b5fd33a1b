"""``-o markdown``: the findings as one GitHub-flavoured Markdown table, for a job summary or a PR comment (the
GitHub Action's lint section). Every value that comes from input — path, message, hint, object — goes through
``renderer.escaping`` (inline code for locations, ``markdown`` for text: no markup, no link, no @mention), so a
hostile file or object name renders as itself. Findings keep their order (by file, line and column).

Cost: one line per finding.
"""

from __future__ import annotations

from typing import TextIO

from renderer.escaping import markdown, markdown_code
from renderer.findings import Finding
from renderer.reporters.findings import Report

ICON = {"error": "❌ error", "warning": "⚠️ warning", "info": "ℹ️ info"}


def row(f: Finding) -> str:
    where = f"{f.path}:{f.line}:{f.column}" if f.line else f.path
    message = f.message if not f.hint else f"{f.message}; {f.hint}"
    return (
        f"| {ICON[f.severity]} | `{f.code}` | {markdown_code(where)} | {markdown(f.object or '')} | "
        f"{markdown(message)} |"
    )


def write(report: Report, out: TextIO) -> None:
    if not report.findings:
        out.write("No findings.\n")
        return
    lines = ["| | rule | where | object | finding |", "|---|---|---|---|---|"]
    lines += [row(f) for f in report.findings]
    out.write("\n".join(lines) + "\n")
