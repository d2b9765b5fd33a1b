"""``allocatable recommend -o markdown``: the text report's tables, for a pull request or a job summary."""

from __future__ import annotations

from typing import Any, TextIO

from renderer.escaping import markdown as md
from renderer.escaping import markdown_code
from renderer.recommend.result import Recommendation
from renderer.reporters.recommend import EXCEEDED_SHOWN, cost_sentences, document, evidence_sentences, money

__all__ = ["write"]


def _row(cells: list[str]) -> str:
    return "| " + " | ".join(cells) + " |"


def _pool(p: dict[str, Any], cost: dict[str, Any] | None, limit: int) -> list[str]:
    c = p["coverage"]
    lines = [
        f"#### Pool {markdown_code(p['name'])}",
        "",
        f"{c['nodes']} of {c['poolNodes']} nodes measured, {c['days']} days, {c['nodeDays']} node-days.",
        "",
    ]
    if p["reservations"]:
        head = ["reservation", "current", "observed", "recommended", "change", "headroom", "exceeded", "back-test"]
        priced = cost is not None and "cost" in p
        if priced:
            head.insert(5, "per month")
        lines.append(_row(head))
        lines.append(_row(["---"] + ["---:"] * (len(head) - 1)))
        for r in p["reservations"]:
            cells = [
                f"{r['slice']} {r['resource']}",
                r["current"] or "-",
                f"{r['observed']} ({md(r['observedOn']['node'])}, {r['observedOn']['day']})",
                f"**{r['recommended']}**",
                r["change"] or "-",
                r["headroom"] or "-",
                str(len(r["exceeded"])),
                f"{r['backtest']['exceeded']}/{r['backtest']['nodeDays']}",
            ]
            if cost is not None and priced:
                cells.insert(5, md(money(r["monthly"], cost)))
            lines.append(_row(cells))
        lines.append("")
        s = p["slope"]
        if s is not None and s["used"]:
            lines.append(
                f"kube memory per pod: {s['perPodMi']:g}Mi × pods + {s['baseMi']:g}Mi ({md(s['why'])}): "
                f"`autoSizing.custom` perPod {s['formula']['perPod']}, base {s['formula']['base']} "
                f"({s['atMaxPods']} at maxPods {p['maxPods']})."
            )
            lines.append("")
        for r in p["reservations"]:
            if r["exceeded"] and r["slice"] == "total":
                shown = ", ".join(f"{md(e['node'])} {e['day']} {e['peak']}" for e in r["exceeded"][:EXCEEDED_SHOWN])
                more = len(r["exceeded"]) - EXCEEDED_SHOWN
                lines.append(
                    f"Over the current total {r['resource']} ({r['current']}): {shown}"
                    + (f" and {more} more node-days." if more > 0 else ".")
                )
                lines.append("")
    if p["commit"]:
        lines.append(_row(["commit", "current", "observed (of requests)", "recommended", "why"]))
        lines.append(_row(["---", "---:", "---:", "---:", "---"]))
        for k in p["commit"]:
            stat = "p99" if k["resource"] == "cpu" else "peak"
            ratio = f"{stat} {k['ratio']:.0%}" if k["ratio"] is not None else "-"
            lines.append(
                _row(
                    [
                        k["resource"],
                        f"{k['currentPercent']}%",
                        ratio,
                        f"**{k['recommendedPercent']}%**",
                        md(k["reasoning"]),
                    ]
                )
            )
        lines.append("")
    for line in evidence_sentences(p, limit, md):
        lines.extend([line + ".", ""])
    r = p["repack"]
    if r is not None:
        lines.append(
            f"The snapshot's pods re-packed under the documents ({r['nodes']} nodes): **{r['nodesFreed']} node(s) "
            f"freed**, {r['newPending']} pod(s) newly Pending, {r['nodesToAdd']} node(s) to add."
        )
        lines.append("")
    if cost is not None and "cost" in p:
        lines.extend(f"- {md(line)}" for line in cost_sentences(p, cost))
        lines.append("")
    for why in c["why"]:
        lines.append(f"- no recommendation: {md(why)}")
    lines.extend(f"- missing: {md(m)}" for m in c["missing"])
    lines.extend(f"- absent (optional): {md(a)}" for a in c["absent"])
    if c["mixed"]:
        lines.append(f"- {md(c['mixed'])}")
    if c["why"] or c["missing"] or c["absent"] or c["mixed"]:
        lines.append("")
    return lines


def write(result: Recommendation, out: TextIO) -> None:
    doc = document(result)
    w, m = doc["window"], doc["method"]
    lines = [
        "### Recommended reservations and commit percents",
        "",
        (f"Window {w['first']} to {w['last']} ({w['days']} days)" if w else "No usage in the window")
        + f"; margin {m['marginPercent']}%, floor {m['floor']['memory']} / {m['floor']['cpu']}; cpu target "
        f"{m['cpuTargetPercent']}% of allocatable.",
        "",
    ]
    for p in doc["pools"]:
        lines.extend(_pool(p, doc.get("cost"), m["stallLimitPercent"]))
    if doc["unplaced"]["count"]:
        lines.append(
            f"{doc['unplaced']['count']} node(s) with usage are in no pool: {md(', '.join(doc['unplaced']['nodes']))}"
        )
        lines.append("")
    cost = doc.get("cost")
    if cost is not None and cost["unknown"]:
        lines.append("Not priced (never as $0): " + ", ".join(markdown_code(u) for u in cost["unknown"]) + ".")
        lines.append("")
    if cost is not None:
        lines.extend(f"- info: {md(n)}" for n in cost["notes"])
    if doc["documents"]:
        lines.append(
            "`-o yaml` writes " + ", ".join(markdown_code(d["ref"]) for d in doc["documents"]) + "; review with"
        )
        lines.append(f"`{doc['review']}`.")
        lines.append("")
    out.write("\n".join(lines).rstrip("\n") + "\n")
