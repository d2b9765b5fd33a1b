"""``allocatable recommend`` (text): per pool, a table of the reservations (current, observed peak, recommended,
change, headroom, node-days over the current value, walk-forward back-test), the per-pod fit, the commit percents
with their reasoning, and what coverage is missing."""

from __future__ import annotations

from typing import Any, TextIO

from renderer.recommend.result import Recommendation
from renderer.reporters.recommend import EXCEEDED_SHOWN, cost_sentences, document, evidence_sentences, money

__all__ = ["write"]


def _table(rows: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]))]
    return [indent + "  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows]


def _pool(p: dict[str, Any], cost: dict[str, Any] | None, limit: int) -> list[str]:
    c = p["coverage"]
    lines = [
        f"pool {p['name']}: {c['nodes']} of {c['poolNodes']} node{'s' if c['poolNodes'] != 1 else ''} measured, "
        f"{c['days']} day{'s' if c['days'] != 1 else ''}, {c['nodeDays']} node-days"
    ]
    if p["reservations"]:
        rows = [
            ["reservation", "current", "observed", "on", "recommended", "change", "headroom", "exceeded", "back-test"]
        ]
        priced = cost is not None and "cost" in p
        if priced:
            rows[0].insert(6, "per month")
        for r in p["reservations"]:
            rows.append(
                [
                    f"{r['slice']} {r['resource']}",
                    r["current"] or "-",
                    r["observed"],
                    f"{r['observedOn']['node']} {r['observedOn']['day']}",
                    r["recommended"],
                    r["change"] or "-",
                    r["headroom"] or "-",
                    str(len(r["exceeded"])),
                    f"{r['backtest']['exceeded']}/{r['backtest']['nodeDays']}",
                ]
            )
            if cost is not None and priced:
                rows[-1].insert(6, money(r["monthly"], cost))
        lines.extend(_table(rows))
        s = p["slope"]
        if s is not None and s["used"]:
            lines.append(
                f"  kube memory per pod: {s['perPodMi']:g}Mi × pods + {s['baseMi']:g}Mi ({s['why']}) → "
                f"autoSizing.custom perPod {s['formula']['perPod']}, base {s['formula']['base']}: "
                f"{s['atMaxPods']} at maxPods {p['maxPods']}"
            )
        elif s is not None:
            lines.append(f"  kube memory per pod: not used: {s['why']}")
        for r in p["reservations"]:
            if r["exceeded"] and r["slice"] == "total":
                shown = ", ".join(f"{e['node']} {e['day']} {e['peak']}" for e in r["exceeded"][:EXCEEDED_SHOWN])
                more = len(r["exceeded"]) - EXCEEDED_SHOWN
                lines.append(
                    f"  over the current total {r['resource']} ({r['current']}): {shown}"
                    + (f" and {more} more node-days" if more > 0 else "")
                )
    if p["commit"]:
        rows = [["commit", "current", "observed (of requests)", "on", "recommended"]]
        for k in p["commit"]:
            stat = "p99" if k["resource"] == "cpu" else "peak"
            rows.append(
                [
                    k["resource"],
                    f"{k['currentPercent']}%",
                    f"{stat} {k['ratio']:.0%}" if k["ratio"] is not None else "-",
                    f"{k['observedOn']['node']} {k['observedOn']['day']}",
                    f"{k['recommendedPercent']}%",
                ]
            )
        lines.extend(_table(rows))
        lines.extend(f"    {k['resource']}: {k['reasoning']}" for k in p["commit"])
    lines.extend(f"  {line}" for line in evidence_sentences(p, limit))
    r = p["repack"]
    if r is not None:
        lines.append(
            f"  the snapshot's pods re-packed under the documents ({r['nodes']} node{'s' if r['nodes'] != 1 else ''}): "
            f"{r['nodesFreed']} node(s) freed, {r['newPending']} pod(s) newly Pending, {r['nodesToAdd']} node(s) to add"
        )
    if cost is not None:
        lines.extend(f"  {line}" for line in cost_sentences(p, cost))
    for why in c["why"]:
        lines.append(f"  no recommendation: {why}")
    lines.extend(f"  missing: {m}" for m in c["missing"])
    lines.extend(f"  absent (optional): {a}" for a in c["absent"])
    if c["mixed"]:
        lines.append(f"  {c['mixed']}")
    return lines


def write(result: Recommendation, out: TextIO) -> None:
    doc = document(result)
    m = doc["method"]
    w = doc["window"]
    lines = [
        (f"window {w['first']} to {w['last']} ({w['days']} days)" if w else "no usage in the window")
        + f"; margin {m['marginPercent']}%, floor {m['floor']['memory']} / {m['floor']['cpu']}; cpu target "
        f"{m['cpuTargetPercent']}% of allocatable"
    ]
    for p in doc["pools"]:
        lines.append("")
        lines.extend(_pool(p, doc.get("cost"), m["stallLimitPercent"]))
    if doc["unplaced"]["count"]:
        lines.append("")
        lines.append(
            f"{doc['unplaced']['count']} node(s) with usage are in no pool: {', '.join(doc['unplaced']['nodes'])}"
        )
    cost = doc.get("cost")
    if cost is not None and (cost["unknown"] or cost["notes"]):
        lines.append("")
        if cost["unknown"]:
            lines.append("cost: not priced (never as $0): " + ", ".join(cost["unknown"]))
        lines.extend(f"info: {n}" for n in cost["notes"])
    if doc["documents"]:
        lines.append("")
        lines.append("-o yaml writes: " + ", ".join(d["ref"] for d in doc["documents"]))
        lines.append(f"then review them with: {doc['review']}")
    out.write("\n".join(lines) + "\n")
