"""``allocatable recommend``'s report: per pool, current → observed → recommended, and the documents to write.

The formats are the modules here; what they share is below: the JSON document every format is written from
(``document``), and ``write_documents``, what ``recommend -o yaml`` writes instead of the report — the policy
documents themselves, to write over the repo's files, then the command that reviews them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime, timezone
from decimal import Decimal
from typing import TYPE_CHECKING, Any, TextIO

from renderer.recommend.advice import FLOOR, MARGIN, MI, PoolAdvice, Reservation
from renderer.recommend.evidence import STALL_LIMIT
from renderer.recommend.queries import DAY
from renderer.recommend.result import Recommendation

if TYPE_CHECKING:
    from renderer.recommend.pricing import RecommendCost

__all__ = [
    "EXCEEDED_SHOWN",
    "amount",
    "cost_sentences",
    "date",
    "document",
    "evidence_sentences",
    "money",
    "write_documents",
]

#: node-days listed per reservation in the text and markdown formats (the JSON lists every one)
EXCEEDED_SHOWN = 5


def date(day: int) -> str:
    return datetime.fromtimestamp(day * DAY, timezone.utc).strftime("%Y-%m-%d")


def amount(resource: str, value: float | None, *, signed: bool = False) -> str | None:
    """Bytes as whole Mi (rounded away from zero), cores as whole millicores."""
    if value is None:
        return None
    if resource == "memory":
        n = math.ceil(round(abs(value) / MI, 6))
        text = f"{n}Mi"
    else:
        n = math.ceil(round(abs(value) * 1000, 6))
        text = f"{n}m"
    if value < 0 and n:
        return "-" + text
    return ("+" + text) if signed and n else text


def _reservation(r: Reservation) -> dict[str, Any]:
    headroom = None if r.current is None else r.current - r.observed
    change = None if r.current is None else r.recommended - r.current
    return {
        "slice": r.slice,
        "resource": r.resource,
        "current": amount(r.resource, r.current),
        "observed": amount(r.resource, r.observed),
        "observedOn": {"node": r.node, "day": date(r.day)},
        "recommended": amount(r.resource, r.recommended),
        "change": amount(r.resource, change, signed=True),
        "headroom": amount(r.resource, headroom),
        "exceeded": [{"node": e.node, "day": date(e.day), "peak": amount(r.resource, e.peak)} for e in r.exceeded],
        "backtest": {"exceeded": r.backtest_exceeded, "nodeDays": r.backtest_days},
    }


def _share(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def _pool(p: PoolAdvice, cost: RecommendCost | None) -> dict[str, Any]:
    c = p.coverage
    out: dict[str, Any] = {
        "name": p.pool,
        "maxPods": p.max_pods,
        "coverage": {
            "days": c.days,
            "nodes": c.nodes,
            "poolNodes": c.pool_nodes,
            "nodeDays": c.node_days,
            "reservationsAdvised": c.enough_reservations,
            "commitAdvised": c.enough_commit,
            "missing": list(c.missing),
            "mixed": c.mixed or None,
            "why": list(c.why),
            "absent": list(c.absent),
        },
        "nodes": list(p.nodes),
        "memoryPressure": [{"node": n, "day": date(d)} for n, d in p.pressure],
        "oomKills": [
            {
                "node": k.node,
                "day": date(k.day),
                "scope": k.scope,
                "kills": k.kills,
                "overReservation": k.over_reservation,
            }
            for k in p.oom_kills
        ],
        "memoryStall": [
            {"node": x.node, "day": date(x.day), "some": _share(x.some), "full": _share(x.full)} for x in p.stalls
        ],
        "reservations": [_reservation(r) for r in p.reservations],
        "slope": None,
        "commit": [
            {
                "resource": k.resource,
                "currentPercent": k.current,
                "ratio": None if k.ratio is None else round(k.ratio, 4),
                "observedOn": {"node": k.node, "day": date(k.day)},
                "recommendedPercent": k.recommended,
                "reasoning": k.reasoning,
            }
            for k in p.commits
        ],
    }
    priced = cost.pools.get(p.pool) if cost is not None else None
    if cost is not None and priced is not None:
        from renderer.cost.money import text
        from renderer.recommend.pricing import cost_json

        for row, monthly in zip(out["reservations"], priced.reservations, strict=True):
            row["monthly"] = None if monthly is None else text(monthly)
        out["cost"] = cost_json(priced, cost.hours)
    if p.repack is not None:
        nodes, freed, pending, add = p.repack
        out["repack"] = {"nodes": nodes, "nodesFreed": freed, "newPending": pending, "nodesToAdd": add}
    else:
        out["repack"] = None
    s = p.slope
    if s is not None:
        out["slope"] = {
            "used": s.used,
            "why": s.why,
            "perPodMi": round(s.per_pod / MI, 3),
            "baseMi": round(s.base / MI, 3),
            "r2": round(s.r2, 4),
            "points": s.points,
            "distinctPods": s.distinct,
            "formula": {"perPod": f"{s.per_pod_recommended // 1024}Ki", "base": amount("memory", s.base_recommended)}
            if s.used
            else None,
            "atMaxPods": amount("memory", s.at_max_pods) if s.used else None,
        }
    return out


def document(r: Recommendation) -> dict[str, Any]:
    """The report as one JSON document (``-o json``; the text and markdown formats show the same values)."""
    o = r.options
    return {
        "version": 1,
        "window": None
        if r.window is None
        else {"first": date(r.window[0]), "last": date(r.window[1]), "days": r.window[1] - r.window[0] + 1},
        "method": {
            "marginPercent": round(MARGIN * 100),
            "floor": {"memory": amount("memory", FLOOR["memory"]), "cpu": amount("cpu", FLOOR["cpu"])},
            "minDays": o.min_days,
            "minNodes": o.min_nodes,
            "cpuTargetPercent": round(o.cpu_target * 100),
            "cpuCeilingPercent": o.cpu_ceiling,
            "stallLimitPercent": round(STALL_LIMIT * 100),
        },
        "pools": [_pool(p, r.cost) for p in r.pools],
        "unplaced": {"count": r.unplaced_count, "nodes": list(r.unplaced)},
        "notes": list(r.notes),
        "documents": [{"ref": ref, "replaces": path or None} for ref, path in r.replaces],
        "repacked": r.repacked,
        "review": r.review or None,
    } | ({} if r.cost is None else {"cost": _cost(r.cost)})


def _cost(cost: RecommendCost) -> dict[str, Any]:
    """Present only with ``pricing:``: the currency, the sums over the priced pools and what could not be priced."""
    from renderer.cost.money import text
    from renderer.cost.prices import Unknown

    pools = list(cost.pools.values())
    return {
        "currency": cost.currency,
        "hoursPerMonth": int(cost.hours),
        "reservationsMonthly": text(sum((p.reservations_monthly or Decimal(0) for p in pools), Decimal(0))),
        "commitMonthlySavings": text(sum((p.commit_savings(cost.hours) or Decimal(0) for p in pools), Decimal(0))),
        "unknown": [p.pool for p in pools if isinstance(p.price, Unknown)],
        "notes": list(cost.notes),
    }


def money(value: str | None, cost: dict[str, Any], *, signed: bool = True) -> str:
    """A JSON amount of the report (``"27.37"``) in its currency (``+$27.37``); "-" when there is none."""
    from renderer.cost.money import fmt

    return "-" if value is None else fmt(Decimal(value), cost["currency"], signed=signed)


def cost_sentences(p: dict[str, Any], cost: dict[str, Any]) -> list[str]:
    """One pool's price and what its advice costs and saves, in words (text and markdown write them)."""
    from renderer.cost.money import HOURLY_PLACES, fmt

    c = p.get("cost")
    if c is None:
        return []
    price = c["price"]
    if not price["known"]:
        return [f"cost: price unknown: {price['reason']} (not counted, never as $0)"]
    hourly = fmt(Decimal(price["hourly"]), cost["currency"], places=HOURLY_PLACES)
    units = price["unitPrices"]
    out = [
        f"cost: {price['instanceType']} {hourly}/node-hour ({price['source']}; cpu "
        f"{fmt(Decimal(units['cpuCoreHour']), cost['currency'], places=Decimal('0.000001'))}/core-hour, memory "
        f"{fmt(Decimal(units['memoryGiBHour']), cost['currency'], places=Decimal('0.000001'))}/GiB-hour, "
        f"{units['method']}), {c['nodes']} node{'s' if c['nodes'] != 1 else ''} × {cost['hoursPerMonth']} hours a "
        "month",
        f"cost: the reservations as recommended {money(c['reservationsMonthly'], cost)}/month (the total rows: "
        "reserved capacity × unit prices × nodes × hours; + takes it from the pods)",
    ]
    k = c["commit"]
    if k is not None:
        net = k["nodesFreed"] - k["nodesToAdd"]
        verb = "saves" if net >= 0 else "costs"
        amount = money(k["monthlySavings"].lstrip("-"), cost, signed=False)
        out.append(
            f"cost: the commit percents as recommended, re-packed: {k['nodesFreed']} node(s) freed, "
            f"{k['nodesToAdd']} added: {verb} {amount}/month ({abs(net)} × {hourly} × {cost['hoursPerMonth']})"
        )
    return out


#: What an OOM kill of each scope says (``renderer.recommend.evidence``).
_OOM_SCOPE = {
    "system": "in the reserved slices",
    "pods": "in pods (evidence against memory over-commit)",
    "all": "on the node (node-exporter: any process)",
}


def evidence_sentences(
    p: dict[str, Any], limit: int, name: Callable[[str], str] = str, shown: int = EXCEEDED_SHOWN
) -> list[str]:
    """A pool's evidence beside the statistics, in words (text and markdown write them, ``name`` escaping a node's
    name; ``-o json`` has every node-day): MemoryPressure, OOM kills per scope, memory stalls at or above ``limit``
    percent."""

    def listed(items: list[str], what: str) -> str:
        more = len(items) - shown
        return f"{what} on {len(items)} node-day(s): {', '.join(items[:shown])}" + (
            f" and {more} more" if more > 0 else ""
        )

    out = []
    if p["memoryPressure"]:
        out.append(
            listed(
                [f"{name(e['node'])} {e['day']}" for e in p["memoryPressure"]], "MemoryPressure (the kubelet evicting)"
            )
        )
    for scope, what in _OOM_SCOPE.items():
        kills = [k for k in p["oomKills"] if k["scope"] == scope]
        if not kills:
            continue
        items = [
            f"{name(k['node'])} {k['day']} ×{k['kills']}"
            + (" while over the current reservation" if k["overReservation"] else "")
            for k in kills
        ]
        line = listed(items, f"OOM kills {what}")
        if any(k["overReservation"] for k in kills):
            line += ": the reservation is too small for what it protects"
        out.append(line)
    if p["memoryStall"]:
        items = [
            f"{name(x['node'])} {x['day']} some {_percent(x['some'])} full {_percent(x['full'])}"
            for x in p["memoryStall"]
        ]
        out.append(listed(items, f"memory stalled (PSI, 5m) at or above {limit}% (systemd-oomd's default limit)"))
    return out


def _percent(share: float | None) -> str:
    return "-" if share is None else f"{share:.0%}"


def write_documents(r: Recommendation, out: TextIO) -> None:
    """``-o yaml``: each document, with the file it replaces, then each pool's evidence (MemoryPressure, OOM kills,
    memory stalls: every node-day) and the review command (all as YAML comments but the documents). Nothing to write: one comment saying why."""
    from renderer.escaping import plain
    from renderer.reporters.derived import dump_yaml

    parts: list[str] = []
    for doc, (ref, path) in zip(r.documents, r.replaces, strict=True):
        where = f"# replaces {ref} in {path}" if path else f"# new: {ref} (no policy of its kind selects the pool)"
        parts.append(f"---\n{where}\n{dump_yaml(doc)}")
    if not parts:
        out.write("# nothing to write: no pool could be advised (see `allocatable recommend` without -o yaml)\n")
        return
    report = document(r)
    limit = report["method"]["stallLimitPercent"]
    for p in report["pools"]:
        said = evidence_sentences(p, limit, shown=len(p["oomKills"]) + len(p["memoryStall"]) + len(p["memoryPressure"]))
        parts.extend(plain(f"# evidence, pool {p['name']}: {line}") + "\n" for line in said)  # one comment line each
    # a file may hold other documents (another pool's policy): replace the one named, never the whole file
    parts.append(
        "# put each document in place of the one of its name, in the file its comment names (the file's other documents "
        f"stay); then review what they do:\n#   {r.review}\n"
    )
    out.write("".join(parts))
