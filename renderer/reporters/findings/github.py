"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per finding, so findings
show up as annotations on the pull request. (The command prints the summary line on stderr, as for every format.)

``file=`` is relative to the repository root (the git top-level), as GitHub expects. Escaping follows the
workflow-command rules: in the message ``%``, ``\\r`` and ``\\n`` are percent-encoded; in properties also ``:``
and ``,``; other control characters of input data are written as visible escapes first (``renderer.escaping``), so
a value can never end the command or start another.
"""

from __future__ import annotations

from typing import TextIO

from renderer.escaping import workflow_data, workflow_property
from renderer.findings import Finding
from renderer.reporters.findings import Report
from renderer.reporters.findings._paths import relative_to_root, repo_root

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}


#: GitHub's escaping of workflow commands, after control characters are made visible (renderer.escaping).
escape_data = workflow_data
escape_property = workflow_property


def annotation(f: Finding, file: str) -> str:
    props = [f"file={escape_property(file)}"]
    if f.line > 0:
        props.append(f"line={f.line}")
        if f.column > 0:
            props.append(f"col={f.column}")
    props.append(f"title={escape_property(f.code)}")
    message = f.message if not f.hint else f"{f.message}; {f.hint}"
    if f.object:
        message += f" ({f.object})"
    return f"::{COMMAND[f.severity]} {','.join(props)}::{escape_data(message)}"


def write(report: Report, out: TextIO) -> None:
    if report.base is not None:
        out.write(f"::notice title=allocatable --base::{escape_data('compared with ' + report.base.describe())}\n")
    root = repo_root([f.path for f in report.findings])
    for f in report.findings:
        out.write(annotation(f, relative_to_root(f.path, root)) + "\n")
