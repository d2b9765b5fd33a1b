"""``-o markdown``: the simulation for a pull request comment or a job summary: a bold headline, a table of the pools
the change touches, and the details folded (displaced and Pending pods, the provisioner view, what was read, what is
not simulated). ``section`` is what the diff and verify Markdown reports embed."""

from __future__ import annotations

from typing import TextIO

from renderer.escaping import markdown as md
from renderer.escaping import markdown_code
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
    newly_pending,
    not_simulated_lines,
    overfilled_line,
    pending_lines,
    plural,
    pool_line,
    rejected_before_lines,
    scheduled_lines,
)

__all__ = ["MARKER", "section", "write"]

MARKER = "<!-- allocatable-impact -->"


def _details(title: str, lines: list[str], open_: bool = False, count: str | None = None) -> list[str]:
    """A folded list; ``count`` says what was counted when lines group several pods."""
    if not lines:
        return []
    out = ["<details open>" if open_ else "<details>", f"<summary>{title} ({count or len(lines)})</summary>", ""]
    out += [f"- {md(line)}" for line in lines[:MAX_LISTED]]
    if len(lines) > MAX_LISTED:
        out.append(f"- … and {len(lines) - MAX_LISTED} more (see `-o json`)")
    return [*out, "", "</details>", ""]


def section(report: ImpactReport, level: str = "###") -> list[str]:
    r = report.result
    out = [
        f"{level} Impact on the cluster: {md(report.before)} → {md(report.after)}",
        "",
        f"**{md(headline(report))}**",
        "",
    ]
    overfilled = overfilled_line(report)
    if overfilled:
        out += [f"> {md(overfilled)}", ""]
    new = newly_pending(report)
    touched = [p for p in r.pools if p.displaced or p.new_pending or new.get(p.pool) or p.nodes_to_add or p.nodes_freed]
    if touched:
        out.append("| " + " | ".join(POOL_HEADERS) + " |")
        out.append("|---|---|" + "---:|" * (len(POOL_HEADERS) - 2))
        for p in touched[:MAX_LISTED]:
            cells = pool_line(report, p)
            out.append(f"| {markdown_code(cells[0])} | {md(cells[1])} | " + " | ".join(cells[2:]) + " |")
        if len(touched) > MAX_LISTED:
            out.append(f"| … and {len(touched) - MAX_LISTED} more | | | | | | |")
        out += ["", f"<sub>{md(POOL_NOTE)}</sub>", ""]
    pods = plural(len(r.pending), "pod")
    out += _details("Pending pods", pending_lines(report), open_=report.failed, count=pods)
    out += _details("Pending before the change, placed after it", scheduled_lines(report))
    out += _details("Displaced pods", [displaced_line(d) for d in r.displaced])
    out += _details(REJECTED_BEFORE_TITLE.capitalize(), rejected_before_lines(report))
    out += _details("Provisioners", karpenter_lines(report))
    out += _details("What was read", [inputs_line(report)])
    out += _details("What is simulated, and what is not", not_simulated_lines(report))
    if report.cost is not None:
        from renderer.reporters.costs import change_markdown

        out += change_markdown(report.cost)
    return out


def write(result: ImpactReport, out: TextIO) -> None:
    out.write("\n".join([MARKER, *section(result)]).rstrip("\n") + "\n")
