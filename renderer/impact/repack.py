"""Re-packing: what a change of allocatable does to the pods of a real cluster snapshot, and what it costs in nodes.

:func:`simulate` runs the same steps twice, on the allocatable the nodes report (before) and on the allocatable after
the change, and compares them per pool:

1. **Which pods stop fitting** (exact, per node): each node's kubelet admits its pods again against its allocatable
   (``admission.py``); the pods it rejects are displaced. A DaemonSet that should run on a node but has no pod there
   gets one (``daemonsets.py``), which may wait Pending.
2. **Where they go** (a simulation): displaced and Pending pods, highest priority first then oldest
   (the scheduler queue's PrioritySort), each placed by one default scheduling cycle (``scheduler.py``).
3. **What the autoscaler does**: each pod still Pending is attributed to the pool whose new node would take it (the
   pool it ran in first, else the first by name), and the cluster autoscaler's binpacking estimator says how many
   nodes of that pool's shape it would add (``estimator.py``, templates from ``templates.py``), with the
   total-requests lower bound beside it; the opposite direction — nodes the autoscaler's scale-down could remove —
   runs on the state left after placement (``scaledown.py``), with an upper bound from total requests.

What the simulation does not model is listed in the result, with the affected pods that use it.

Cost: O(nodes + pods) to build, O(pods log pods) to order (the static filters' index is built once, for both runs,
and the first run's per-node state is dropped before the second starts); placement as ``scheduler.py`` states (a pod is checked
against the nodes its static filters allow, not against every node); the estimate O(pending pods × nodes added);
scale-down as ``scaledown.py`` states. Each side keeps one state of O(nodes + pods).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from renderer.impact.admission import readmit
from renderer.impact.cluster import ClusterState, Eligibility
from renderer.impact.daemonsets import DaemonSet, collect, group, pinned_node, pinned_to
from renderer.impact.estimator import MAX_NODES_PER_SCALEUP, Estimate, Template, estimate, lower_bound
from renderer.impact.fit import DEFAULT_ARGS, FitArgs, fits, insufficient
from renderer.impact.nodes import SimNode
from renderer.impact.podcounts import PodCounts
from renderer.impact.pods import NOT_SIMULATED, SimPod, narrow_labels
from renderer.impact.ports import conflicts
from renderer.impact.resources import PODS
from renderer.impact.result import (
    Diagnosis,
    Displaced,
    ImpactResult,
    InputSummary,
    NotSimulated,
    PendingPod,
    PoolImpact,
    PoolSide,
    ScaleUp,
    Shortfall,
)
from renderer.impact.scaledown import ScaleDownOptions, ScaleDownResult, scale_down
from renderer.impact.scheduler import Scheduler
from renderer.impact.templates import TemplateSpec, build_template, representatives

__all__ = ["ImpactOptions", "simulate"]

_EXAMPLES = 5
_ALWAYS = ("preemption", "pod disruption budgets")


@dataclass(frozen=True)
class ImpactOptions:
    fit_args: FitArgs = DEFAULT_ARGS
    #: kube-scheduler ``percentageOfNodesToScore`` (0: adaptive, the default).
    percentage_of_nodes_to_score: int = 0
    #: Give a DaemonSet a pod on each eligible node that had none in the snapshot.
    complete_daemonsets: bool = True
    #: Per pool, the most nodes the autoscaler may add (its node group's max size minus its size); others get
    #: ``--max-nodes-per-scaleup`` (1000).
    max_new_nodes: Mapping[str, int] = field(default_factory=dict)
    #: Per pool, the new node to use instead of a copy of one of its nodes (scale from zero, or an override); the
    #: change applies to its allocatable too.
    templates: Mapping[str, TemplateSpec] = field(default_factory=dict)
    #: None: skip the scale-down simulation.
    scale_down: ScaleDownOptions | None = field(default_factory=ScaleDownOptions)
    #: Per node name, allocatable figures that change, applied after the pool's (a model whose pools are single
    #: nodes, as an inventory of real Nodes gives).
    node_change: Mapping[str, Mapping[str, int]] = field(default_factory=dict)


def _apply(allocatable: Mapping[str, int], change: Mapping[str, int] | None) -> dict[str, int]:
    out = dict(allocatable)
    if change:
        out.update(change)
    return out


@dataclass
class _Side:
    """One run (before or after): the state it leaves and what happened to every pod."""

    scheduler: Scheduler
    where: dict[str, int]  # node name -> position
    rejected: list[tuple[SimPod, int, tuple[Shortfall, ...]]]  # pod, node position, shortfall
    moved_to: dict[int, int | None]  # id(rejected pod) -> where its new copy went (None: Pending)
    pending: list[SimPod]
    gated: list[SimPod]
    templates: dict[str, Template]
    attributed: dict[str, list[SimPod]]
    unplaceable: list[SimPod]
    estimates: dict[str, tuple[Estimate, int]]  # pool -> (estimate, lower bound)
    scale_down: ScaleDownResult
    removable_bound: dict[str, int]  # pool -> upper bound on removable nodes (from placement, before scale-down)
    diagnoses: dict[int, Diagnosis]
    daemon_pods_added: int
    daemonsets_partial: int

    def pinned_pool(self, pod: SimPod) -> str | None:
        """The pool of the node a DaemonSet pod is pinned to (by its ``matchFields metadata.name``)."""
        name = pinned_node(pod.affinity)
        position = self.where.get(name) if name is not None else None
        return None if position is None else self.scheduler.state.nodes[position].pool


def _diagnose(scheduler: Scheduler, pod: SimPod) -> Diagnosis:
    """Why no node takes ``pod`` now: the scheduler's per-reason node counts, each node under the first filter it
    fails. Cost: O(nodes)."""
    state = scheduler.state
    restriction = scheduler.filters.restrict(pod) if scheduler.filters.applies(pod) else None
    rejection = scheduler.eligibility.rejection(pod.affinity, pod.scheduling_tolerations())
    reasons: dict[str, int] = {}
    if rejection.unschedulable:
        reasons["node(s) were unschedulable"] = rejection.unschedulable
    for taint, count in rejection.taint.items():
        reasons[f"node(s) had untolerated taint {taint}"] = count
    if rejection.affinity:
        reasons["node(s) didn't match Pod's node affinity/selector"] = rejection.affinity
    for i in scheduler.eligible(pod):
        if state.removed[i]:
            continue
        if pod.host_ports and conflicts(pod.host_ports, state.ports[i]):
            key = "node(s) didn't have free ports for the requested pod ports"
            reasons[key] = reasons.get(key, 0) + 1
            continue
        shortfall = insufficient(pod.requests, state.allocatable[i], state.used[i], state.count[i], scheduler.fit_args)
        for short in shortfall:
            reasons[short.reason] = reasons.get(short.reason, 0) + 1
        failed = None if shortfall or restriction is None else restriction.failure(state.nodes[i].labels)
        if failed is not None:
            reasons[failed] = reasons.get(failed, 0) + 1
    return Diagnosis(len(state) - state.removed_count, tuple(sorted(reasons.items())))


def _complete_daemonsets(
    scheduler: Scheduler, daemonsets: Mapping[tuple[str, str], DaemonSet], where: Mapping[str, int], queue: list[SimPod]
) -> tuple[int, int]:
    """Queue a pod for every (DaemonSet, node its template selects) the snapshot has none on; (pods added,
    DaemonSets left partial).

    Only where the DaemonSet's pods cover at least half the nodes its template selects: the controller creates its
    pods on every such node within seconds, so a snapshot that shows it on fewer says something the dump does not
    carry selects its nodes (or the owners are not what they claim); such a DaemonSet is left as read and counted.
    So the added pods never outnumber the DaemonSet pods read, whatever the owners look like. Cost: O(DaemonSet pods
    × log nodes) plus the static filters' lists of the distinct templates."""
    state = scheduler.state
    added = partial = 0
    for ds in daemonsets.values():
        # The static filters with the controller's tolerations are its NodeShouldRunDaemonPod predicate.
        eligible = scheduler.eligibility.eligible(ds.template.affinity, ds.template.scheduling_tolerations())
        present = 0
        for name in ds.nodes:
            i = where.get(name)
            if i is not None:
                k = bisect_left(eligible, i)
                present += k < len(eligible) and eligible[k] == i
        missing = len(eligible) - present
        if missing > present:
            partial += 1
            continue
        for i in eligible if missing else ():
            name = state.nodes[i].name
            if name not in ds.nodes:
                queue.append(pinned_to(ds, name))
                added += 1
    return added, partial


def _run(
    nodes: Sequence[SimNode],
    allocatable: Sequence[dict[str, int]],
    pods: Sequence[SimPod],
    daemonsets: Mapping[tuple[str, str], DaemonSet],
    options: ImpactOptions,
    change: Mapping[str, Mapping[str, int]],
    eligibility: Eligibility | None = None,
) -> _Side:
    state = ClusterState.build(nodes, allocatable)
    if any(p.spread or p.soft_spread or p.pod_affinity or p.pod_affinity.preferred for p in pods):
        state.counts = PodCounts()
        state.counts.register(pods)
    scheduler = Scheduler(state, options.fit_args, options.percentage_of_nodes_to_score, eligibility=eligibility)
    where = state.position()
    # 1. each node admits its pods again
    per_node: list[list[SimPod]] = [[] for _ in range(len(state))]
    queue: list[SimPod] = []
    gated: list[SimPod] = []
    for pod in pods:
        if pod.holds_room and pod.node in where:
            per_node[where[pod.node]].append(pod)
        elif pod.pending:
            (gated if "scheduling gates" in pod.not_simulated else queue).append(pod)
    rejected: list[tuple[SimPod, int, tuple[Shortfall, ...]]] = []
    home: dict[int, str] = {}  # id(recreated pod) -> the pool it ran in
    copies: dict[int, SimPod] = {}  # id(rejected pod) -> its recreated copy
    for i, on_node in enumerate(per_node):
        if not on_node:
            continue
        admitted, refused = readmit(on_node, state.allocatable[i], options.fit_args, state.nodes[i])
        for pod in admitted:
            state.bind(pod, i)
        for r in refused:
            shortfall = (
                *(Shortfall(s.resource, s.requested, s.used, s.allocatable) for s in r.reasons),
                *(Shortfall("", 0, 0, 0, predicate=p) for p in r.predicates),
            )
            rejected.append((r.pod, i, shortfall))
            copy = replace(r.pod, node=None, phase="Pending")  # as its controller creates it again
            copies[id(r.pod)] = copy
            home[id(copy)] = state.nodes[i].pool
            queue.append(copy)
    added = partial = 0
    if options.complete_daemonsets:
        added, partial = _complete_daemonsets(scheduler, daemonsets, where, queue)
    # 2. the scheduler queue
    queue.sort(key=lambda p: (-p.priority, p.created, p.namespace, p.name))
    placed: dict[int, int] = {}
    pending: list[SimPod] = []
    for pod in queue:
        target = scheduler.place(pod)
        if target is None:
            pending.append(pod)
        else:
            placed[id(pod)] = target
    # 3. the autoscaler
    reps = representatives(state.nodes)
    groups = group(daemonsets.values())
    templates: dict[str, Template] = {}
    for pool in sorted({n.pool for n in state.nodes} | set(options.templates)):
        spec = options.templates.get(pool)
        if spec is not None:
            spec = TemplateSpec(spec.labels, _apply(spec.allocatable, change.get(pool)), spec.taints, spec.static_pods)
        elif pool in reps:
            i = reps[pool]
            node = state.nodes[i]
            statics = tuple(p for p in state.pods[i] if p.mirror)
            spec = TemplateSpec(node.labels, state.allocatable[i], node.taints, statics)
        else:
            continue
        templates[pool] = build_template(pool, spec, groups)
    attributed: dict[str, list[SimPod]] = {}
    unplaceable: list[SimPod] = []
    for pod in pending:
        chosen = _attribute(pod, home.get(id(pod)), templates, options.fit_args)
        if chosen is None:
            unplaceable.append(pod)
        else:
            attributed.setdefault(chosen, []).append(pod)
    estimates: dict[str, tuple[Estimate, int]] = {}
    for pool, pool_pods in attributed.items():
        limit = options.max_new_nodes.get(pool, MAX_NODES_PER_SCALEUP)
        result = estimate(pool_pods, templates[pool], limit if limit != 0 else -1, options.fit_args, scheduler.filters)
        estimates[pool] = (result, lower_bound(pool_pods, templates[pool]))
    diagnoses: dict[int, Diagnosis] = {}
    by_shape: dict[tuple[object, ...], Diagnosis] = {}
    for pod in pending:
        key = (
            pod.affinity,
            pod.scheduling_tolerations(),
            tuple(sorted(pod.requests.items())),
            pod.host_ports,
            pod.namespace,
            pod.labels,
            pod.spread,
            pod.pod_affinity,
        )
        if key not in by_shape:
            by_shape[key] = _diagnose(scheduler, pod)
        diagnoses[id(pod)] = by_shape[key]
    # 4. the opposite direction, on what placement left
    by_pool: dict[str, list[int]] = {}
    for i, node in enumerate(state.nodes):
        by_pool.setdefault(node.pool, []).append(i)
    bounds = {pool: _removable_bound(state, positions, templates.get(pool)) for pool, positions in by_pool.items()}
    down = scale_down(scheduler, options.scale_down) if options.scale_down is not None else ScaleDownResult()
    moved_to = {original: placed.get(id(copy)) for original, copy in copies.items()}
    return _Side(
        scheduler,
        where,
        rejected,
        moved_to,
        pending,
        gated,
        templates,
        attributed,
        unplaceable,
        estimates,
        down,
        bounds,
        diagnoses,
        added,
        partial,
    )


def _rejected(side: _Side, rejected: Sequence[tuple[SimPod, int, tuple[Shortfall, ...]]]) -> tuple[Displaced, ...]:
    """The pods a run's kubelets reject, with their reasons and where that run's scheduler put their copies, sorted
    by pool, node and pod (read before the run's state is released)."""
    nodes = side.scheduler.state.nodes
    out: list[Displaced] = []
    for pod, i, shortfall in rejected:
        node = nodes[i]
        target = side.moved_to.get(id(pod))
        to = nodes[target] if target is not None else None
        out.append(
            Displaced(
                pod.key,
                node.name,
                node.pool,
                shortfall,
                to.name if to else None,
                to.pool if to else None,
                pod.daemonset,
            )
        )
    return tuple(sorted(out, key=lambda d: (d.pool, d.node, d.pod)))


def _attribute(pod: SimPod, home: str | None, templates: Mapping[str, Template], args: FitArgs) -> str | None:
    """The pool whose new node would take ``pod``: its own pool first, else the first by name; None if none would."""

    def takes(pool: str) -> bool:
        t = templates[pool]
        if not t.admits(pod):
            return False
        return fits(pod.requests, t.allocatable, t.used, t.pod_count, args)

    if home is not None and home in templates and takes(home):
        return home
    return next((pool for pool in sorted(templates) if takes(pool)), None)


def _removable_bound(state: ClusterState, positions: Sequence[int], template: Template | None) -> int:
    """Nodes of a pool beyond what the requests of its movable pods need: an upper bound on what scale-down can
    remove if the pool's pods stay in the pool."""
    if template is None or not positions:
        return 0
    movable = [p for i in positions for p in state.pods[i] if not p.daemonset and not p.mirror]
    return max(len(positions) - lower_bound(movable, template), 0)


def _side_of(side: _Side, pool: str, daemon_pending: int) -> PoolSide:
    template = side.templates.get(pool)
    pods = side.attributed.get(pool, [])
    if pool in side.estimates:
        est, bound = side.estimates[pool]
        scale_up = ScaleUp(len(pods), est.nodes, bound, est.limited, len(est.unscheduled))
    else:
        scale_up = ScaleUp(0, 0, 0)
    return PoolSide(
        allocatable=dict(template.allocatable) if template else {},
        daemon_overhead={**template.used, PODS: template.pod_count} if template else {},
        pending=len(pods) + daemon_pending,
        daemonset_pending=daemon_pending,
        scale_up=scale_up,
        removable=side.scale_down.removed_by_pool.get(pool, 0),
        removable_bound=side.removable_bound.get(pool, 0),
    )


def _daemon_pending(side: _Side) -> dict[str, int]:
    out: dict[str, int] = {}
    for pod in side.pending:
        if pod.daemonset:
            pool = side.pinned_pool(pod)
            if pool is not None:
                out[pool] = out.get(pool, 0) + 1
    return out


def _not_simulated(affected: Iterable[SimPod]) -> tuple[NotSimulated, ...]:
    users: dict[str, list[str]] = {}
    for pod in affected:
        for feature in pod.not_simulated:
            users.setdefault(feature, []).append(pod.key)
    out = []
    for feature, meaning in NOT_SIMULATED.items():
        keys = sorted(set(users.get(feature, ())))
        if keys or feature in _ALWAYS:
            out.append(NotSimulated(feature, meaning, len(keys), tuple(keys[:_EXAMPLES])))
    return tuple(out)


def simulate(
    nodes: Sequence[SimNode],
    pods: Iterable[SimPod],
    change: Mapping[str, Mapping[str, int]],
    options: ImpactOptions | None = None,
) -> ImpactResult:
    """The impact of ``change`` — per pool, the allocatable resources that change (scheduler integers) — on a
    snapshot of ``nodes`` (their allocatable as reported) and ``pods``."""
    options = options or ImpactOptions()
    pods = list(pods)
    narrow_labels(pods)  # only the label keys some selector reads: the pod counters' memory follows the selectors
    names = {n.name for n in nodes}
    daemonsets = collect(pods)
    before = _run(nodes, [n.allocatable for n in nodes], pods, daemonsets, options, {})
    rejected_before = _rejected(before, before.rejected)
    before.scheduler.release()  # its results are taken: one run's per-node state in memory at a time
    after_alloc = [_apply(_apply(n.allocatable, change.get(n.pool)), options.node_change.get(n.name)) for n in nodes]
    after = _run(nodes, after_alloc, pods, daemonsets, options, change, before.scheduler.eligibility)

    was_rejected = {id(p) for p, _, _ in before.rejected}
    displaced = _rejected(after, [r for r in after.rejected if id(r[0]) not in was_rejected])

    pending_before = {p.key for p in before.pending}
    pool_of: dict[str, str] = {}
    for pool, members in after.attributed.items():
        for p in members:
            pool_of[p.key] = pool
    pending = sorted(
        (
            PendingPod(
                p.key,
                pool_of.get(p.key) or (after.pinned_pool(p) if p.daemonset else None),
                dict(p.requests),
                after.diagnoses[id(p)],
                p.daemonset,
                p.key not in pending_before,
                f"{p.owner_kind}/{p.owner_name}" if p.owner_kind else None,
            )
            for p in after.pending
        ),
        key=lambda p: p.pod,
    )
    displaced_by_pool: dict[str, int] = {}
    for d in displaced:
        displaced_by_pool[d.pool] = displaced_by_pool.get(d.pool, 0) + 1
    pool_names = sorted({n.pool for n in nodes} | set(options.templates))
    count = {pool: 0 for pool in pool_names}
    for n in nodes:
        count[n.pool] += 1
    ds_before, ds_after = _daemon_pending(before), _daemon_pending(after)
    pools = tuple(
        PoolImpact(
            pool,
            count[pool],
            displaced_by_pool.get(pool, 0),
            _side_of(before, pool, ds_before.get(pool, 0)),
            _side_of(after, pool, ds_after.get(pool, 0)),
        )
        for pool in pool_names
    )
    affected = [p for p, _, _ in after.rejected] + after.pending + after.gated
    all_pods = pods
    summary = InputSummary(
        nodes=len(nodes),
        pods=len(all_pods),
        running=sum(1 for p in all_pods if p.holds_room and p.node in names),
        pending=sum(1 for p in all_pods if p.pending),
        terminated=sum(1 for p in all_pods if not p.holds_room and not p.pending),
        unknown_node=sum(1 for p in all_pods if p.holds_room and p.node not in names),
        daemonsets=len(daemonsets),
        daemon_pods_added=after.daemon_pods_added,
        daemonsets_partial=after.daemonsets_partial,
    )
    counters = {
        "nodesExamined": before.scheduler.examined + after.scheduler.examined,
        "nodesScored": before.scheduler.scored + after.scheduler.scored,
        "treeNodesVisited": before.scheduler.visited + after.scheduler.visited,
        "staticFilterEvaluations": after.scheduler.eligibility.evaluations,  # one index, shared by both runs
    }
    return ImpactResult(
        pools=pools,
        displaced=tuple(displaced),
        pending=tuple(pending),
        unplaceable=tuple(sorted(p.key for p in after.unplaceable if not p.daemonset)),
        gated=tuple(sorted(p.key for p in after.gated)),
        not_simulated=_not_simulated(affected),
        inputs=summary,
        overcommitted_before=len(before.rejected),
        rejected_before=rejected_before,
        counters=counters,
        scheduled=tuple(sorted(pending_before - {p.key for p in after.pending} - {p.key for p in after.gated})),
        pending_before={
            pool: tuple(sorted(p.key for p in members if not p.daemonset))
            for pool, members in sorted(before.attributed.items())
        },
    )
