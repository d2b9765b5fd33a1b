"""``html``: the simulation as a page section — the headline, the pool table (Pending pods, nodes the autoscaler
adds in all, removable nodes, before → after), then the Pending pods grouped by controller, the pods the change lets
schedule, the displaced pods, the provisioners' view, what was read and what is not simulated, each a list that
opens on a click (the Pending pods open when they fail the run).

Every sentence and cell is the one ``-o text`` prints (``_common``). :func:`view` is what ``diff -o html`` embeds
(``templates/impact_section.html.j2``, which holds the ``cost`` block, the place for a cost section); ``write``
makes it a page of its own. Cost: O(pools + pods listed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TextIO

from renderer import __version__
from renderer.impact.report import ImpactReport
from renderer.reporters.htmlpage import render
from renderer.reporters.impact._common import (
    MAX_LISTED,
    POOL_HEADERS,
    POOL_NOTE,
    REJECTED_BEFORE_TITLE,
    displaced_line,
    headline,
    inputs_line,
    karpenter_lines,
    not_simulated_lines,
    overfilled_line,
    pending_lines,
    plural,
    pool_line,
    rejected_before_lines,
    scheduled_lines,
    summary,
)

__all__ = ["ImpactView", "Listing", "view", "write"]


@dataclass(frozen=True)
class Listing:
    """One folded list: its anchor, title, the lines shown, how many more ``-o json`` has, open or folded."""

    key: str
    title: str
    lines: list[str]
    more: int
    open: bool


@dataclass
class ImpactView:
    title: str
    headline: str
    overfilled: str | None
    failed: bool
    summary: str
    table: list[list[str]]  # heading row first
    note: str
    lists: list[Listing] = field(default_factory=list)


def view(report: ImpactReport) -> ImpactView:
    """What the section shows, as text (the template escapes it)."""
    r = report.result
    lists = [
        ("impact-pending", f"Pending pods ({plural(len(r.pending), 'pod')})", pending_lines(report), report.failed),
        (
            "impact-scheduled",
            f"Pending before the change, placed after it ({len(r.scheduled)})",
            scheduled_lines(report),
            False,
        ),
        ("impact-displaced", f"Displaced pods ({len(r.displaced)})", [displaced_line(d) for d in r.displaced], False),
        (
            "impact-rejected-before",
            f"{REJECTED_BEFORE_TITLE.capitalize()} ({len(r.rejected_before)})",
            rejected_before_lines(report),
            False,
        ),
        ("impact-provisioners", "Provisioners", karpenter_lines(report), False),
        ("impact-read", "What was read", [inputs_line(report)], False),
        ("impact-simulated", "What is simulated, and what is not", not_simulated_lines(report), False),
    ]
    return ImpactView(
        title=f"{report.before} → {report.after}",
        headline=headline(report),
        overfilled=overfilled_line(report),
        failed=report.failed,
        summary=summary(report),
        table=[list(POOL_HEADERS)] + [pool_line(report, p) for p in r.pools],
        note=POOL_NOTE,
        lists=[
            Listing(key, title, lines[:MAX_LISTED], max(len(lines) - MAX_LISTED, 0), open_)
            for key, title, lines, open_ in lists
            if lines
        ],
    )


def write(result: ImpactReport, out: TextIO) -> None:
    out.write(render("impact.html.j2", version=__version__, impact=view(result)))
