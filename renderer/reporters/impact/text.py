"""``-o text``: the simulation for a terminal — the headline, a row per pool, the displaced and Pending pods, the
provisioner view, what was read and what is not simulated."""

from __future__ import annotations

from typing import TextIO

from renderer.escaping import plain
from renderer.impact.report import ImpactReport
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

__all__ = ["section", "summary", "write"]


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _listed(title: str, lines: list[str], count: str | None = None) -> list[str]:
    """``title (count):`` and the lines indented; ``count`` says what was counted when lines group several pods."""
    if not lines:
        return []
    out = [f"{title} ({count or len(lines)}):"]
    out += [f"  {line}" for line in lines[:MAX_LISTED]]
    if len(lines) > MAX_LISTED:
        out.append(f"  … and {len(lines) - MAX_LISTED} more (see -o json)")
    return out


def section(report: ImpactReport) -> list[str]:
    """The report as lines (no trailing newline), every value from the snapshot made plain."""
    r = report.result
    out = [f"impact ({report.before} → {report.after}): {headline(report)}"]
    rows = [POOL_HEADERS] + [pool_line(report, p) for p in r.pools]
    out += _table(rows)
    out.append(f"  ({POOL_NOTE})")
    overfilled = overfilled_line(report)
    if overfilled:
        out.append(overfilled)
    out += _listed(REJECTED_BEFORE_TITLE, rejected_before_lines(report))
    out += _listed("pending", pending_lines(report), plural(len(r.pending), "pod"))
    out += _listed("now scheduled: Pending before the change, placed after it", scheduled_lines(report))
    out += _listed("displaced", [displaced_line(d) for d in r.displaced])
    out += karpenter_lines(report)
    out.append(inputs_line(report))
    out += not_simulated_lines(report)
    if report.cost is not None:
        from renderer.reporters.costs import change_text

        out += change_text(report.cost)
    return [plain(line) for line in out]


def write(result: ImpactReport, out: TextIO) -> None:
    out.write("\n".join(section(result)) + "\n")
