"""``-o github``: workflow-command annotations — ``::error`` per pool the change leaves pods newly Pending on (when
that fails the run), ``::warning`` otherwise and for displaced pods, ``::notice`` for the headline — then the text
report."""

from __future__ import annotations

from typing import TextIO

from renderer.impact.report import ImpactReport
from renderer.reporters.findings.github import escape_data, escape_property
from renderer.reporters.impact._common import headline, plural
from renderer.reporters.impact.text import write as write_text

__all__ = ["workflow_annotations", "write"]

_TITLE = escape_property("allocatable impact")


def workflow_annotations(result: ImpactReport) -> str:
    """The annotations alone (``verify -o github`` writes them before its own text)."""
    out = []
    level = "error" if result.failed else "warning"
    for p in result.result.pools:
        if p.new_pending > 0:
            text = f"{p.pool}: {plural(p.new_pending, 'pod')} newly Pending"
            if p.nodes_to_add > 0:
                text += f"; the autoscaler would add {p.nodes_to_add} × {result.shape(p.pool)}"
            out.append(f"::{level} title={_TITLE}::{escape_data(text)}\n")
        elif p.displaced:
            text = f"{p.pool}: {plural(p.displaced, 'pod')} no longer fit their node and move"
            out.append(f"::warning title={_TITLE}::{escape_data(text)}\n")
    out.append(f"::notice title={_TITLE}::{escape_data(headline(result))}\n")
    return "".join(out)


def write(result: ImpactReport, out: TextIO) -> None:
    out.write(workflow_annotations(result))
    write_text(result, out)
