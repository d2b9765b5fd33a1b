"""What the ``impact`` formats share: the sentences (headline, per pool, the summary line), amounts, and the lists of
what was read, skipped and not simulated. The diff and verify reporters print the same section through these."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from renderer.impact.report import ImpactReport, fleet_percent
from renderer.impact.resources import quantity
from renderer.impact.result import Displaced, PendingPod, PoolImpact
from renderer.units import column, readable

__all__ = [
    "MAX_LISTED",
    "POOL_HEADERS",
    "POOL_NOTE",
    "REJECTED_BEFORE_TITLE",
    "amounts",
    "displaced_line",
    "headline",
    "inputs_line",
    "karpenter_lines",
    "newly_pending",
    "not_simulated_lines",
    "overfilled_line",
    "pending_lines",
    "plural",
    "pool_line",
    "pool_sentences",
    "rejected_before_lines",
    "scale_up_sentence",
    "scheduled_lines",
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


def scale_up_sentence(report: ImpactReport, p: PoolImpact) -> str | None:
    """What the change does to the scale-up on one pool, each figure saying what it is: a change in nodes ("2 more",
    "1 fewer") beside the totals before and after, and the lower bound of the total. A pool Karpenter provisions is
    said with Karpenter's own plan (what it launches), the nodes the pods need beside it where they differ."""
    before, after = p.before.scale_up.nodes, p.after.scale_up.nodes
    karpenter = _karpenter_nodes(report, p.pool)
    if karpenter is not None:
        return _karpenter_sentence(report, p, *karpenter)
    if before == after:
        return None
    shape = report.shape(p.pool)
    bound = p.after.scale_up.lower_bound
    notes = []
    if before == 0:
        text = f"the autoscaler would add {after} × {shape}"
    else:
        change = f"{after - before} more" if after > before else f"{before - after} fewer"
        text = f"the autoscaler would add {change} × {shape}"
        notes.append(f"{after or 'none'} in all, {'up' if after > before else 'down'} from {before}")
    if after and bound != after:
        notes.append(f"their requests alone need at least {bound}")
    if p.after.scale_up.limited:
        notes.append("up to its limit")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def _karpenter_nodes(report: ImpactReport, pool: str) -> tuple[int, int, tuple[str, ...]] | None:
    """For a pool Karpenter provisions (a plan on either side), the nodes it launches before the change (for the pods
    Pending then: ``karpenter_before``) and after, and the pods it cannot place after; None for any other pool."""
    after = next((k for k in report.karpenter_plans if k.pool == pool), None)
    before = next((k for k in report.karpenter_before if k.pool == pool), None)
    if after is None and before is None:
        return None
    return (before.nodes if before else 0), (after.nodes if after else 0), (after.cannot_place if after else ())


def _karpenter_sentence(report: ImpactReport, p: PoolImpact, was: int, now: int, cannot: tuple[str, ...]) -> str | None:
    """``scale_up_sentence`` for a pool Karpenter provisions: its plan after the change against its plan for the pods
    Pending before (what it launches anyway), then what the pods need on what the nodes will advertise (the cluster
    autoscaler's estimate) when that differs, and the pods it cannot place at all."""
    if was == now and p.before.scale_up.nodes == p.after.scale_up.nodes:
        return None
    shape = report.shape(p.pool)
    if was == 0:
        text = f"karpenter would launch {now} × {shape}"
        notes = []
    else:
        change = f"{now - was} more" if now > was else f"{was - now} fewer"
        text = f"karpenter would launch {change} × {shape}"
        notes = [f"{now or 'none'} in all, {'up' if now > was else 'down'} from {was}"]
    if p.after.scale_up.nodes != now:
        notes.append(f"the pods need {p.after.scale_up.nodes}")
    if cannot:
        notes.append(f"it cannot place {plural(len(cannot), 'pod')}")
    return text + (f" ({'; '.join(notes)})" if notes else "")


def newly_pending(report: ImpactReport) -> dict[str, int]:
    """Per pool, the newly Pending pods a new node of it would take (a pool's Pending count may also fall by pods the
    change lets schedule: those are said apart)."""
    out: dict[str, int] = {}
    for p in report.result.pending:
        if p.new and p.pool is not None:
            out[p.pool] = out.get(p.pool, 0) + 1
    return out


def pool_sentences(report: ImpactReport) -> list[str]:
    """One sentence per pool the change costs or frees something in: "this change leaves 14 more pods Pending on
    eks-batch; the autoscaler would add 2 × c6i.8xlarge"."""
    out = []
    new = newly_pending(report)
    for p in report.result.pools:
        parts = []
        if new.get(p.pool):
            parts.append(f"{_who(report)} leaves {plural(new[p.pool], 'more pod')} Pending on {p.pool}")
        up = scale_up_sentence(report, p)
        if up is not None:
            parts.append(up if parts else f"on {p.pool}, {up}")
        if p.nodes_freed != 0:
            lead = "" if parts else f"on {p.pool}, "
            change = "more node" if p.nodes_freed > 0 else "fewer node"
            parts.append(f"{lead}the autoscaler could remove {plural(abs(p.nodes_freed), change)}")
        if parts:
            out.append("; ".join(parts))
    return out


def headline(report: ImpactReport) -> str:
    """What the change does to the snapshot's pods, in one sentence: per pool, then what no pool accounts for (newly
    Pending pods no pool's new node takes), what it resolves (Pending pods it lets schedule), and the Pending pods no
    autoscaler helps either way."""
    r = report.result
    sentences = pool_sentences(report)
    stranded = sum(1 for p in r.pending if p.new and p.pool is None)
    if stranded:
        sentences.append(
            f"{_who(report)} leaves {plural(stranded, 'more pod')} Pending that no pool's new node takes: "
            "no autoscaler helps"
        )
    if r.scheduled:
        sentences.append(f"{_who(report)} lets {plural(len(r.scheduled), 'Pending pod')} schedule")
    if sentences:
        text = "; ".join(sentences)
    elif r.displaced:
        # Every displaced pod that found no node is newly Pending, and a newly Pending pod is in a pool's sentence
        # or in ``stranded``: here, each one moved.
        n = len(r.displaced)
        text = (
            "1 pod no longer fits its node, and finds room elsewhere"
            if n == 1
            else f"{n} pods no longer fit their node, and every one finds room elsewhere"
        )
    else:
        text = f"no pod stops fitting its node ({plural(report.nodes_changed, 'node')} change allocatable)"
    waiting = sum(1 for p in r.pending if not p.new and p.pool is None and not p.daemonset)
    if waiting:
        verb = "fits" if waiting == 1 else "fit"
        # Pods Pending before the change too (the newly Pending ones are said above).
        text += f"; {plural(waiting, 'Pending pod')} {verb} no pool's new node: no autoscaler helps"
    return text


def overfilled_line(report: ImpactReport) -> str | None:
    """What the snapshot already holds that does not fit under the base (the before side)."""
    n = report.result.overcommitted_before
    if not n:
        return None
    return (
        f"before the change, {plural(n, 'pod')} already {'does' if n == 1 else 'do'} not fit the node "
        f"{'it runs' if n == 1 else 'they run'} on ({report.before}): the snapshot over-fills its nodes; the "
        "simulation places them again in both runs and does not charge them to the change"
    )


#: The title of the list of ``overfilled_line``'s pods (text, Markdown and HTML).
REJECTED_BEFORE_TITLE = "not fitting their node before the change"


def rejected_before_lines(report: ImpactReport) -> list[str]:
    """``overfilled_line``'s pods, one a line as displaced pods read: the node, the kubelet's reasons (resources
    with their figures, its other checks in its words) and where the before run placed the pod."""
    return [displaced_line(d) for d in report.result.rejected_before]


def summary(report: ImpactReport) -> str:
    """The line the commands print on stderr."""
    r = report.result
    verdict = "fails" if report.failed else "passes"
    return (
        f"impact: {plural(r.inputs.nodes, 'node')}, {plural(r.inputs.pods, 'pod')}: "
        f"{len(r.displaced)} displaced, {r.new_pending} newly Pending "
        f"(impact.maxNewPendingPods {report.max_new_pending}: {verdict})"
    )


def _before_after(before: int, after: int) -> str:
    return str(after) if before == after else f"{before} → {after}"


def pool_line(report: ImpactReport, p: PoolImpact) -> list[str]:
    """The cells of a pool's row: pool, shape, nodes, displaced, Pending pods a new node of the pool would take,
    nodes the autoscaler would add in all (with the lower bound after the change), nodes scale-down could remove —
    each ``before → after`` where the change moves it."""
    up = p.after.scale_up
    add = _before_after(p.before.scale_up.nodes, up.nodes)
    if up.nodes:
        add += f" (≥ {up.lower_bound})"
    karpenter = _karpenter_nodes(report, p.pool)
    if karpenter is not None:
        # Karpenter provisions the pool: its own plan, before → after, the nodes the pods need beside it where they
        # differ
        need = _before_after(p.before.scale_up.nodes, up.nodes)
        planned = _before_after(karpenter[0], karpenter[1])
        add = f"{planned} by karpenter" + (f" (pods need {need})" if need != planned else "")
    return [
        p.pool,
        report.shape(p.pool),
        str(p.nodes),
        str(p.displaced),
        _before_after(p.before.pending, p.after.pending),
        add,
        _before_after(p.before.removable, p.after.removable),
    ]


POOL_HEADERS = [
    "pool",
    "shape",
    "nodes",
    "displaced",
    "Pending",
    "autoscaler adds in all (≥ bound)",
    "removable nodes",
]
POOL_NOTE = "before → after where the change moves a figure; ≥ bound: no packing of the requests needs fewer nodes"


def displaced_line(d: Displaced) -> str:
    reasons = "; ".join(
        s.reason if s.predicate else f"{s.reason}: {_shortfall(s.resource, s.requested, s.used, s.allocatable)}"
        for s in d.shortfall
    )
    where = f"→ {d.to_node} ({d.to_pool})" if d.to_node else "→ Pending"
    kind = " [DaemonSet]" if d.daemonset else ""
    return f"{d.pod}{kind} on {d.node} ({d.pool}): {reasons} {where}"


def _pending_text(group: Sequence[PendingPod]) -> str:
    """One line for Pending pods that read alike: one controller's, same requests, same scheduler message, same
    pool. A single pod is named; several are counted under their owner, the first two named."""
    p = group[0]
    pool = f"new {p.pool} node" if p.pool else "no pool's new node takes it"
    old = "" if p.new else " (Pending before the change too)"
    kind = " [DaemonSet]" if p.daemonset else ""
    needs = amounts(p.requests) or "no requests"
    if len(group) == 1:
        return f"{p.pod}{kind}{old}: {needs}; {p.diagnosis.message} ({pool})"
    namespace = p.pod.split("/", 1)[0]
    owner_kind, _, owner_name = (p.owner or "").partition("/")
    named = ", ".join(q.pod for q in group[:2]) + (f" and {len(group) - 2} more" if len(group) > 2 else "")
    old = "" if p.new else ", Pending before the change too"
    return (
        f"{len(group)} pods of {owner_kind} {namespace}/{owner_name}{kind} ({named}){old}: {needs} each; "
        f"{p.diagnosis.message} ({pool})"
    )


def pending_lines(report: ImpactReport) -> list[str]:
    """The Pending pods, what matters first: newly Pending that no pool's new node takes (no autoscaler helps), newly
    Pending a pool's new node takes, then those Pending before the change too; within each, the largest group first.
    Pods of one controller (owner reference) with the same requests, scheduler message and pool share a line."""
    groups: dict[tuple[object, ...], list[PendingPod]] = {}
    for p in report.result.pending:
        who = p.owner if p.owner is not None else f"pod {p.pod}"
        key = (
            who,
            p.pod.split("/", 1)[0],
            p.new,
            p.pool,
            p.daemonset,
            tuple(sorted(p.requests.items())),
            p.diagnosis.message,
        )
        groups.setdefault(key, []).append(p)

    def rank(group: list[PendingPod]) -> tuple[int, int, str, str]:
        p = group[0]
        tier = (0 if p.pool is None else 1) if p.new else 2
        return (tier, -len(group), p.pool or "", p.pod)

    return [_pending_text(g) for g in sorted(groups.values(), key=rank)]


def scheduled_lines(report: ImpactReport) -> list[str]:
    """The pods Pending before the change that it lets schedule, by name."""
    return list(report.result.scheduled)


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
    if i.daemonsets_partial:
        parts.append(
            f"{plural(i.daemonsets_partial, 'DaemonSet')} left as read (on fewer than half the nodes selected)"
        )
    for reason, count in sorted(report.skipped.items()):
        parts.append(f"skipped {count} × {reason}")
    for note, count in sorted(report.counted.items()):
        parts.append(f"{plural(count, 'pod')}: {note}")
    return "; ".join(parts)


def not_simulated_lines(report: ImpactReport) -> list[str]:
    """What the simulation models, and each feature it does not, with the pods it touches."""
    out = [
        "simulated: kubelet re-admission (requests, pod overhead, init containers, sidecars, in-place resize, pod "
        "count, node affinity, host ports, NoExecute taints), the default scheduler's filters (NodeResourcesFit, "
        "NodeAffinity and nodeSelector, TaintToleration, NodeUnschedulable, NodePorts, PodTopologySpread, "
        "InterPodAffinity) and scores (not those of PodTopologySpread and InterPodAffinity), DaemonSets on every node "
        "they select, the cluster autoscaler's binpacking estimate and scale-down"
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
