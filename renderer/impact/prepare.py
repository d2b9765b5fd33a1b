"""The simulation's inputs, prepared from plain ones: a snapshot's nodes matched to the repo's pools, the allocatable
each node would advertise under a policy set, the provisioners' views (Karpenter's EC2NodeClass, the cluster
autoscaler's scale-from-zero groups), and the fleet change priced; for ``verify``, its node and pod dumps read
(each once). ``renderer.pipeline`` calls it for ``verify``, ``diff --snapshot`` and ``recommend --snapshot``; it
prints nothing.

Cost: stated per function (``impact_report``: two capacity models of the snapshot's nodes, a chunk at a time, then
``renderer.impact.repack``'s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from renderer.capacity.cost import ChangeCost, FleetChange
    from renderer.capacity.diff import DiffResult
    from renderer.capacity.model import CapacityModel
    from renderer.cost.resolve import Pricing
    from renderer.impact.pods import SimPod
    from renderer.impact.provisioners.karpenter import NodeClass
    from renderer.impact.report import AsgPool, ImpactReport
    from renderer.impact.result import ImpactResult
    from renderer.impact.snapshot import Snapshot
    from renderer.models.inventory import Pool
    from renderer.platforms import Assignment
    from renderer.validation.validate import PolicySet
    from renderer.verify.kubectl import Kubectl
    from renderer.verify.pods import PodRecord


def read_verify_input(
    nodes: str | None,
    pods: str | None,
    live: Kubectl | None,
    platform: list[Assignment] | None,
    simulate: bool,
    max_file_bytes: int | None,
) -> tuple[Snapshot | None, list[Pool], list[PodRecord] | None]:
    """``verify``'s dumps: the nodes (of ``nodes``, a ``kubectl get nodes`` dump, or of the ``live`` cluster) as
    pools of one, the pods of ``pods``, and — when the simulation can run (``simulate``, both dumps given) — the
    cluster snapshot it re-packs, each dump read once. Raises ``SnapshotError`` for a dump that cannot be read."""
    from renderer.verify.nodes import read_nodes, read_pods

    if live is not None:
        from renderer.loading.bounds import DEFAULT_MAX_FILE_BYTES
        from renderer.verify.kubectl import live_nodes

        source = live_nodes(live, max_file_bytes or DEFAULT_MAX_FILE_BYTES)
        snapshot = read_nodes(source, platform, max_file_bytes)
        return None, snapshot, read_pods(pods, max_file_bytes) if pods is not None else None
    if pods is not None and simulate and nodes is not None:
        from renderer.impact.snapshot import read_verify_dumps

        cluster, pod_records = read_verify_dumps(nodes, pods, platform, max_file_bytes)
        return cluster, cluster.pools, pod_records
    snapshot = read_nodes(nodes, platform, max_file_bytes, mixed=nodes == pods) if nodes else []
    return None, snapshot, read_pods(pods, max_file_bytes, mixed=nodes == pods) if pods is not None else None


def impact_report(
    cluster: Snapshot,
    before: PolicySet | None,
    after: PolicySet,
    mode: str,
    before_label: str,
    after_label: str,
    model: CapacityModel | None = None,
) -> ImpactReport:
    """The re-packing simulation of ``after`` on ``cluster``: each node modelled as verify models it (a pool of one,
    the policies that select it), its allocatable moved by what ``after`` advertises differently from ``before`` —
    from what the node reports when ``before`` is None (verify) — and grouped into the repo's pools for the report.
    The provisioners' views read ``model`` (``after``'s capacity model, built here when not given and needed): the
    EC2NodeClass of pools delivered through Karpenter, the scale-from-zero tags of pools with ``clusterAutoscaler``.
    Cost: two capacity models of the snapshot's nodes (built ``_NODE_CHUNK`` nodes at a time), then
    ``renderer.impact.repack``'s."""
    from dataclasses import replace

    from renderer.impact.capacity_view import advertised
    from renderer.impact.repack import simulate
    from renderer.impact.report import (
        ImpactReport,
        PoolIndex,
        autoscaler_view,
        karpenter_plans,
        karpenter_view,
        pool_of,
    )
    from renderer.verify.compare import node_model

    nodepools = PoolIndex([(p.name, p.labels) for p in after.pools if p.origin == "NodePool"])
    for node in cluster.nodes:
        node.pool = pool_of(node.labels, nodepools)

    def advertised_by(policies: PolicySet) -> dict[str, dict[str, int]]:
        # The nodes in chunks: each node is a pool of its own, so a chunk's model is the whole model's for its
        # nodes, and only one chunk's PoolCapacity objects are alive at a time.
        bare = replace(policies, pools=[])
        out: dict[str, dict[str, int]] = {}
        for k in range(0, len(cluster.pools), _NODE_CHUNK):
            out.update(
                (pc.pool.name, advertised(pc)) for pc in node_model(bare, cluster.pools[k : k + _NODE_CHUNK]).pools
            )
        return out

    head = advertised_by(after)
    base = advertised_by(before) if before is not None else {n.name: n.allocatable for n in cluster.nodes}
    change: dict[str, dict[str, int]] = {}
    for name, now in head.items():
        was = base.get(name, {})
        moved = {r: v for r, v in now.items() if was.get(r) != v}
        if moved:
            change[name] = moved
    from renderer.impact.repack import ImpactOptions

    result = simulate(cluster.nodes, cluster.pods, {}, ImpactOptions(node_change=change))
    shapes: dict[str, set[str]] = {}
    for node in cluster.nodes:
        kind = node.labels.get("node.kubernetes.io/instance-type")
        if kind:
            shapes.setdefault(node.pool, set()).add(kind)
    settings = after.settings.impact
    after_alloc = {n.name: {**n.allocatable, **change.get(n.name, {})} for n in cluster.nodes}
    delivered = [p for p in after.pools if p.origin == "NodePool" and (p.cluster_autoscaler or _karpenter(p))]
    if delivered and model is None:
        from renderer.capacity.pools import build

        model = build(after)
    node_classes, asg_pools = _provisioned(model, after, cluster, result) if delivered and model else ({}, [])
    recommendations, gaps = karpenter_view(cluster.nodes, after_alloc, settings.vmMemoryOverheadPercent, node_classes)
    autoscaler_gaps = autoscaler_view(cluster.nodes, after_alloc, asg_pools)
    plans = karpenter_plans(cluster.nodes, cluster.pods, result, settings.vmMemoryOverheadPercent, node_classes)
    plans_before = karpenter_plans(
        cluster.nodes, cluster.pods, result, settings.vmMemoryOverheadPercent, node_classes, before=True
    )
    return ImpactReport(
        mode=mode,
        before=before_label,
        after=after_label,
        result=result,
        shapes={pool: "/".join(sorted(kinds)) for pool, kinds in shapes.items()},
        skipped=dict(cluster.skipped),
        counted=dict(cluster.counted),
        sources=list(cluster.sources),
        nodes_changed=len(change),
        max_new_pending=settings.maxNewPendingPods,
        recommendations=recommendations,
        gaps=gaps,
        vm_overhead_percent=settings.vmMemoryOverheadPercent,
        autoscaler_gaps=autoscaler_gaps,
        karpenter_plans=plans,
        karpenter_before=plans_before,
    )


#: Nodes modelled at a time for the simulation (memory: one chunk's capacity model, not 20,000 nodes').
_NODE_CHUNK = 1000


def _karpenter(pool: Pool) -> bool:
    return pool.delivery is not None and pool.delivery.karpenter is not None


def _provisioned(
    model: CapacityModel, after: PolicySet, cluster: Snapshot, result: ImpactResult
) -> tuple[dict[str, NodeClass], list[AsgPool]]:
    """Per pool delivered through Karpenter, the EC2NodeClass its nodes get (the kubelet block ``render`` writes:
    reservations, hard eviction, maxPods when the policy sets it; kube-reserved left to Karpenter where the pool's
    formula is Karpenter's own default); the pools the cluster autoscaler scales from zero, with the ``resources/*``
    tags their groups carry when the ``cluster-autoscaler-tags`` target is rendered."""
    from renderer.capacity.cluster_autoscaler import resource_tags
    from renderer.capacity.kubeletfields import eviction_hard
    from renderer.impact.provisioners.karpenter import NodeClass
    from renderer.impact.report import AsgPool
    from renderer.impact.resources import from_quantities
    from renderer.render.engine import select_targets

    tagged = "cluster-autoscaler-tags" in select_targets(after.settings.render, None)
    by_key = {p.key: p for p in cluster.pods}
    pending: dict[str, list[SimPod]] = {}
    for p in result.pending:
        if p.pool is not None and p.pod in by_key:
            pending.setdefault(p.pool, []).append(by_key[p.pod])
    sides = {p.pool: p.after for p in result.pools}
    node_classes: dict[str, NodeClass] = {}
    asg_pools: list[AsgPool] = []
    for pc in model.pools:
        pool = pc.pool
        if pool.origin != "NodePool":
            continue
        if _karpenter(pool):
            spec = pc.policy.model.spec if pc.policy is not None else None
            formula = pc.formula.spec if pc.formula is not None else None
            left = formula is not None and formula.delivery_default == "karpenter"
            kube = {} if left else from_quantities({k: r.quantity for k, r in pc.kube_reserved.items()})
            pods_set = spec is not None and (spec.maxPods is not None or spec.podsPerCore is not None)
            node_classes[pool.name] = NodeClass(
                max_pods=pc.max_pods if pods_set else None,
                kube_reserved=kube,
                system_reserved=from_quantities({k: r.quantity for k, r in pc.system_reserved.items()}),
                eviction_hard=eviction_hard(pc, platform_formula_ok=True) or {},
            )
        if pool.cluster_autoscaler is not None:
            side = sides.get(pool.name)
            asg_pools.append(
                AsgPool(
                    pool.name,
                    tuple(pool.cluster_autoscaler.autoScalingGroups),
                    resource_tags(pc) if tagged else {},
                    side.daemon_overhead if side is not None else {},
                    pending.get(pool.name, []),
                )
            )
    return node_classes, asg_pools


def fleet(report: ImpactReport, cluster: Snapshot, policies: PolicySet, pricing: Pricing) -> list[FleetChange]:
    """The node count the simulation ``report`` of ``cluster`` asks for, per pool of ``policies``, priced
    (``renderer.impact.cost.fleet_changes``)."""
    from renderer.impact.cost import fleet_changes

    return fleet_changes(report, cluster.nodes, cluster.pools, policies.pools, pricing)


def rollout_cost(report: ImpactReport, cluster: Snapshot, policies: PolicySet, pricing: Pricing) -> ChangeCost:
    """The fleet change alone, priced: what rolling ``policies`` out does to the node count (``verify --pods``)."""
    from renderer.capacity.cost import fleet_cost

    return fleet_cost(pricing, fleet(report, cluster, policies, pricing), "rolling the policy repo out")


def priced_change(
    result: DiffResult,
    base: CapacityModel,
    head: CapacityModel,
    pricing: Pricing,
    report: ImpactReport | None,
    cluster: Snapshot | None,
    policies: PolicySet,
    limit: float | None,
) -> ChangeCost:
    """The diff ``result`` priced (``renderer.capacity.cost.change_cost``): its committed allocatable, and with a
    simulation (``report`` of ``cluster``, ``policies`` the head's) the node count it changes; ``limit``: the monthly
    increase allowed."""
    from renderer.capacity.cost import change_cost

    changes = fleet(report, cluster, policies, pricing) if report is not None and cluster is not None else []
    return change_cost(result, base, head, pricing, changes, limit)
