"""What the ``impact`` formats share: the sentences (headline, per pool, the summary line), amounts, and the lists of
what was read, skipped and not simulated. The diff and verify reporters print the same section through these."""

from __future__ import annotations

from collections.abc import Mapping

from renderer.impact.report import ImpactReport, fleet_percent
from renderer.impact.resources import quantity
from renderer.impact.result import Displaced, PendingPod, PoolImpact
from renderer.units import column, readable

__all__ = [
    "MAX_LISTED",
    "amounts",
    "displaced_line",
    "headline",
    "inputs_line",
    "karpenter_lines",
    "not_simulated_lines",
    "pending_line",
    "plural",
    "pool_line",
    "pool_sentences",
    "summary",
]

MAX_LISTED = 50  # pods listed in full before "… and N more" (JSON is never cut)


def plural(n: int, word: str, many: str | None = None) -> str:
    return f"{n} {word if n == 1 else (many or word + 's')}"


def amounts(values: Mapping[str, int]) -> str:
    """A pod's requests for reading: ``cpu 0.25, memory 1.50Gi`` (cpu in cores, bytes in their largest unit)."""
    return ", ".join(f"{name} {readable(quantity(name, amount), name)}" for name, amount in sorted(values.items()))


def _shortfall(resource: str, requested: int, used: int, allocatable: int) -> str:
    """``asks 2 cores, 5.1 of 6.5 taken``: the three figures of one resource in one unit."""
    asks, taken, have = column([quantity(resource, v) for v in (requested, used, allocatable)], resource)
    unit = " cores" if resource == "cpu" else ""
    return f"asks {asks}{unit}, {taken} of {have}{unit} taken"


def _who(report: ImpactReport) -> str:
    return "this change" if report.mode == "diff" else "the policy repo's allocatable"


def pool_sentences(report: ImpactReport) -> list[str]:
    """One sentence per pool the change costs or frees something in: "this change leaves 14 pods Pending on
    eks-batch; the autoscaler would add 2 × c6i.8xlarge"."""
    out = []
    for p in report.result.pools:
        parts = []
        if p.new_pending > 0:
            parts.append(f"{_who(report)} leaves {plural(p.new_pending, 'more pod')} Pending on {p.pool}")
        if p.nodes_to_add > 0:
            bound = p.after.scale_up.lower_bound
            extra = f" (at least {bound})" if bound != p.after.scale_up.nodes else ""
            limited = ", up to its limit" if p.after.scale_up.limited else ""
            lead = "" if parts else f"on {p.pool}, "
            parts.append(f"{lead}the autoscaler would add {p.nodes_to_add} × {report.shape(p.pool)}{extra}{limited}")
        if p.nodes_freed > 0:
            lead = "" if parts else f"on {p.pool}, "
            parts.append(f"{lead}the autoscaler could remove {plural(p.nodes_freed, 'more node')}")
        if parts:
            out.append("; ".join(parts))
    return out


def headline(report: ImpactReport) -> str:
    """What the change does to the snapshot's pods, in one sentence."""
    r = report.result
    sentences = pool_sentences(report)
    if sentences:
        text = "; ".join(sentences)
    elif r.displaced:
        text = f"{plural(len(r.displaced), 'pod')} no longer fit their node, and every one finds room elsewhere"
    else:
        text = f"no pod stops fitting its node ({plural(report.nodes_changed, 'node')} change allocatable)"
    if r.unplaceable:
        n = len(r.unplaceable)
        text += f"; {plural(n, 'Pending pod')} {'fits' if n == 1 else 'fit'} no pool's new node: no autoscaler helps"
    return text


def summary(report: ImpactReport) -> str:
    """The line the commands print on stderr."""
    r = report.result
    verdict = "fails" if report.failed else "passes"
    return (
        f"impact: {plural(r.inputs.nodes, 'node')}, {plural(r.inputs.pods, 'pod')}: "
        f"{len(r.displaced)} displaced, {r.new_pending} newly Pending "
        f"(impact.maxNewPendingPods {report.max_new_pending}: {verdict})"
    )


def pool_line(report: ImpactReport, p: PoolImpact) -> list[str]:
    """The cells of a pool's row: pool, shape, nodes, displaced, newly Pending, nodes to add (lower bound), nodes
    that could go (before → after)."""
    up = p.after.scale_up
    add = f"{up.nodes} (≥ {up.lower_bound})" if up.nodes else "0"
    plan = next((k for k in report.karpenter_plans if k.pool == p.pool), None)
    if plan is not None:
        # Karpenter provisions the pool: its own plan (after the change), the nodes the pods need beside it
        need = f"{p.before.scale_up.nodes} → {up.nodes}" if p.before.scale_up.nodes != up.nodes else str(up.nodes)
        add = f"{plan.nodes} by karpenter" + (f" (pods need {need})" if need != str(plan.nodes) else "")
    elif p.before.scale_up.nodes:
        add = f"{p.before.scale_up.nodes} → {add}"
    removable = (
        str(p.after.removable)
        if p.before.removable == p.after.removable
        else (f"{p.before.removable} → {p.after.removable}")
    )
    return [
        p.pool,
        report.shape(p.pool),
        str(p.nodes),
        str(p.displaced),
        str(max(p.new_pending, 0)),
        add,
        removable,
    ]


POOL_HEADERS = ["pool", "shape", "nodes", "displaced", "newly Pending", "autoscaler adds (≥ bound)", "removable nodes"]


def displaced_line(d: Displaced) -> str:
    reasons = "; ".join(
        s.reason if s.predicate else f"{s.reason}: {_shortfall(s.resource, s.requested, s.used, s.allocatable)}"
        for s in d.shortfall
    )
    where = f"→ {d.to_node} ({d.to_pool})" if d.to_node else "→ Pending"
    kind = " [DaemonSet]" if d.daemonset else ""
    return f"{d.pod}{kind} on {d.node} ({d.pool}): {reasons} {where}"


def pending_line(p: PendingPod) -> str:
    pool = f"new {p.pool} node" if p.pool else "no pool's new node takes it"
    old = "" if p.new else " (Pending before the change too)"
    kind = " [DaemonSet]" if p.daemonset else ""
    return f"{p.pod}{kind}{old}: {amounts(p.requests) or 'no requests'}; {p.diagnosis.message} ({pool})"


def inputs_line(report: ImpactReport) -> str:
    """What was read, and what was left out and why."""
    i = report.result.inputs
    parts = [
        f"read {plural(i.nodes, 'node')} and {plural(i.pods, 'pod')} from {', '.join(report.sources)}",
        f"{i.running} running, {i.pending} Pending, {i.terminated} Succeeded/Failed (hold nothing)",
    ]
    if i.unknown_node:
        parts.append(f"{plural(i.unknown_node, 'pod')} on nodes not in the snapshot left out")
    if report.result.gated:
        parts.append(f"{plural(len(report.result.gated), 'pod')} with scheduling gates left out")
    if i.daemon_pods_added:
        parts.append(f"{plural(i.daemon_pods_added, 'DaemonSet pod')} added where the controller would create one")
    for reason, count in sorted(report.skipped.items()):
        parts.append(f"skipped {count} × {reason}")
    for note, count in sorted(report.counted.items()):
        parts.append(f"{plural(count, 'pod')}: {note}")
    return "; ".join(parts)


def not_simulated_lines(report: ImpactReport) -> list[str]:
    """What the simulation models, and each feature it does not, with the pods it touches."""
    out = [
        "simulated: kubelet re-admission (requests, pod overhead, init containers, sidecars, in-place resize, pod "
        "count, node affinity, host ports, NoExecute taints), the default scheduler's filters (NodeResourcesFit, NodeAffinity and nodeSelector, TaintToleration, NodeUnschedulable, "
        "NodePorts) and scores, DaemonSets on every node they select, the cluster autoscaler's binpacking estimate "
        "and scale-down"
    ]
    for n in report.result.not_simulated:
        touched = f" — {plural(n.pods, 'pod')} affected: {', '.join(n.examples)}" if n.pods else ""
        if n.pods > len(n.examples):
            touched += ", …"
        out.append(f"not simulated: {n.feature}: {n.meaning}{touched}")
    return out


def karpenter_lines(report: ImpactReport) -> list[str]:
    """The provisioner view: the overhead percent real nodes call for, and where Karpenter's estimate or the cluster
    autoscaler's scale-from-zero template is off."""
    out = []
    fleet = fleet_percent(report.recommendations)
    if fleet is not None:
        over = [r for r in report.recommendations if r.over_estimated]
        out.append(
            f"karpenter: vmMemoryOverheadPercent {fleet} is the smallest that never over-estimates an observed instance "
            f"type (now {report.vm_overhead_percent:g}"
            + (
                f"; over-estimated now: {', '.join(t for r in over for t in r.over_estimated)}"
                if over
                else "; safe for every observed type"
            )
            + ")"
        )
        for r in report.recommendations:
            out.append(f"  {r.family}: {r.percent} (decided by {r.decided_by}, {plural(r.types, 'type')} seen)")
    for g in (*report.gaps, *report.autoscaler_gaps):
        out.append(f"{g.severity}: {g.message} ({g.kind})")
    for p in report.karpenter_plans:
        out.append(f"{p.severity}: {p.message} (plan)")
    return out
