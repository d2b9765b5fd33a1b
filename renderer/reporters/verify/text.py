"""``-o text``: one line per node that differs (every node with ``--all``), the differences and their explanations
below it; then the nodes whose pods do not fit (every node with pods with ``--all``). Matching nodes are the normal
case of a fleet of thousands and stay out of the way, as a linter's clean files do; the summary on stderr counts them."""

from __future__ import annotations

from typing import TextIO

from renderer.reporters.verify._common import clean, compared, ordered, quantities
from renderer.resourcenames import is_extended
from renderer.units import of
from renderer.verify.result import NodeCheck, PodFit, VerifyResult


def _where(n: NodeCheck) -> str:
    s = n.source
    return f"{s.path}:{s.line}:{s.column}" if s.line else s.path


def node_lines(n: NodeCheck) -> list[str]:
    state = "matches" if n.match else "awaits the change under review" if n.at_base else "differs"
    # The figures the repo's reservations move; huge pages when the node has some; an extended resource
    # (nvidia.com/gpu: nothing reserved) only when it differs, on a line of its own below (-o json has them all).
    shown = {
        k: v
        for k, v in n.check.reported.items()
        if not (k.startswith("hugepages-") and v.is_zero()) and not is_extended(k)
    }
    out = [f"{_where(n)}: Node/{clean(n.name)} ({n.platform}) {state}: {quantities(shown)}"]
    for d in n.check.differences:
        predicted, reported = compared(d.predicted, d.reported, d.resource)  # never "None"
        out.append(f"  {d.resource}: predicted {predicted}, reported {reported}: {clean(d.explanation)}")
    if n.raw is not None:
        for d in n.raw.differences:
            predicted, annotated = compared(d.predicted, d.reported, d.resource)
            out.append(
                f"  {d.resource} (raw-allocatable): predicted {predicted}, annotated {annotated}: {clean(d.explanation)}"
            )
    return out


def pod_line(p: PodFit) -> str:
    parts = []
    for r in ordered([r for r in p.requested if r in p.allocatable]):
        parts.append(f"{r} {of(p.requested[r], p.allocatable[r], r)}")
    parts.append(f"{p.pods} of {p.max_pods} pods")
    state = "fits" if p.fits else f"does not fit ({', '.join(p.over)})"
    line = f"Node/{clean(p.node)}: {', '.join(parts)}: {state}"
    if p.pushed_over:
        line += "; fits at the base revision: this change pushes it over"
    return line


def write(result: VerifyResult, out: TextIO) -> None:
    if result.base is not None and result.pods is not None:
        out.write(f"pods compared with {result.base.describe()}\n")
    for n in result.nodes if result.show_all else result.differing:
        out.write("\n".join(node_lines(n)) + "\n")
    pods = result.pods if result.show_all else result.not_fitting
    if pods:
        out.write("pods:\n")
        for p in pods:
            out.write(f"  {pod_line(p)}\n")
    if result.impact is not None:
        from renderer.reporters.impact.text import section

        out.write("\n".join(section(result.impact)) + "\n")
