"""``-o github``: workflow-command annotations — ``::error`` per pool the change leaves pods newly Pending on, and
for the newly Pending pods no pool's new node takes (when that fails the run), ``::warning`` otherwise and for
displaced pods, ``::notice`` for the headline — then the text report."""

from __future__ import annotations

import io
from typing import TextIO

from renderer.impact.report import ImpactReport
from renderer.reporters.findings.github import annotated_report, escape_data, escape_property
from renderer.reporters.impact._common import headline, newly_pending, plural, scale_up_sentence
from renderer.reporters.impact.text import write as write_text

__all__ = ["workflow_annotations", "write"]

_TITLE = escape_property("allocatable impact")


def workflow_annotations(result: ImpactReport) -> list[tuple[str, str]]:
    """(level, workflow command) per pool the change leaves pods newly Pending on or displaces pods from, and the
    headline notice; ``verify -o github`` budgets them with its own (``renderer.reporters.findings.github.select``)."""
    out: list[tuple[str, str]] = []
    level = "error" if result.failed else "warning"
    new = newly_pending(result)
    for p in result.result.pools:
        if new.get(p.pool):
            text = f"{p.pool}: {plural(new[p.pool], 'pod')} newly Pending"
            up = scale_up_sentence(result, p)
            if up is not None:
                text += f"; {up}"
            out.append((level, f"::{level} title={_TITLE}::{escape_data(text)}"))
        elif p.displaced:
            waiting = sum(1 for d in result.result.displaced if d.pool == p.pool and d.to_node is None)
            text = f"{p.pool}: {plural(p.displaced, 'pod')} no longer {'fits its' if p.displaced == 1 else 'fit their'} node"
            # The ones that wait are newly Pending with no pool's new node for them (a pool's would be said above).
            text += (
                f", {waiting} of them newly Pending" if waiting else (" and moves" if p.displaced == 1 else " and move")
            )
            out.append(("warning", f"::warning title={_TITLE}::{escape_data(text)}"))
    stranded = sum(1 for p in result.result.pending if p.new and p.pool is None)
    if stranded:
        text = f"{plural(stranded, 'pod')} newly Pending that no pool's new node takes: no autoscaler helps"
        out.append((level, f"::{level} title={_TITLE}::{escape_data(text)}"))
    out.append(("notice", f"::notice title={_TITLE}::{escape_data(headline(result))}"))
    return out


def write(result: ImpactReport, out: TextIO) -> None:
    """Within GitHub's limits, as every ``-o github`` (``renderer.reporters.findings.github``): the most severe
    first, one notice for what was left out; then the text report, with workflow commands stopped around it."""
    report = io.StringIO()
    write_text(result, report)
    where = "the report below lists every pool"
    out.write(annotated_report(workflow_annotations(result), "impact findings", where, report.getvalue()))
