"""``-o markdown``: a table per node that differs and one for pods, for a pull request comment or job summary."""

from __future__ import annotations

from typing import TextIO

from renderer.escaping import markdown, markdown_code
from renderer.reporters.verify._common import compared
from renderer.reporters.verify.text import pod_line
from renderer.units import readable
from renderer.verify.result import VerifyResult


def _cell(text: str) -> str:
    return markdown(text)  # control characters, HTML, links, pipes: renderer.escaping


def write(result: VerifyResult, out: TextIO) -> None:
    differing = result.differing
    lines = ["## Nodes against the policy repo", ""]
    total, drift, waiting = len(result.nodes), len(result.drift), len(result.awaiting)
    awaiting = f", {waiting} await{'s' if waiting == 1 else ''} the change under review (they match the base)"
    lines.append(
        f"{total} node{'s' if total != 1 else ''}: {total - len(differing)} match, "
        f"{drift} differ{'s' if drift == 1 else ''}{awaiting if waiting else ''}."
    )
    lines.append("")
    if differing:
        lines.append("| node | resource | predicted | reported | Δ | why |")
        lines.append("|---|---|---|---|---|---|")
        for n in differing:
            checks = [("", n.check)] + ([(" (raw-allocatable)", n.raw)] if n.raw is not None else [])
            for label, check in checks:
                for d in check.differences:
                    predicted, reported = compared(d.predicted, d.reported, d.resource)
                    delta = "-" if d.delta is None else readable(d.delta, d.resource)
                    delta += " cores" if d.resource == "cpu" and d.delta is not None else ""
                    lines.append(
                        f"| {markdown_code(n.name)} | {d.resource}{label} | {predicted} | {reported} | {delta} | "
                        f"{_cell(d.explanation)} |"
                    )
        lines.append("")
    if result.pods is not None:
        bad = result.not_fitting
        lines.append(f"**Pods**: {len(result.pods)} node(s) checked, {len(bad)} where they do not fit.")
        lines.append("")
        if result.base is not None:
            lines.append(f"Compared with {_cell(result.base.describe())}.")
            lines.append("")
        for p in bad:
            lines.append(f"- {_cell(pod_line(p))}")
        if bad:
            lines.append("")
    if result.impact is not None:
        from renderer.reporters.impact.markdown import section

        lines += section(result.impact)
    out.write("\n".join(lines))
