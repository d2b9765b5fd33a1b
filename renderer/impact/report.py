"""What the impact reporters print: the simulation's result with what the reader needs around it — which side is
which, each pool's machine shape, what was skipped while reading, the provisioners' view and the exit threshold.

Also the two small decisions the composer needs and that are the impact's own:

- :func:`pool_of`: which pool a real node belongs to — the policy repo's NodePool whose ``spec.labels`` the node
  carries (the most labels wins, then the name), else the node group its provisioner labels it with (Karpenter's
  NodePool, an EKS or eksctl node group, a GKE or AKS node pool), else its instance type;
- :func:`karpenter_view`: from real Karpenter nodes (labelled ``karpenter.k8s.aws/instance-memory`` and
  ``-instance-cpu`` by Karpenter itself), the ``vmMemoryOverheadPercent`` that keeps Karpenter's estimate safe per
  instance family (``provisioners.karpenter_overhead``), and per instance type Karpenter's predicted allocatable
  (``provisioners.karpenter``: the kube-reserved, system-reserved, eviction and maxPods of the EC2NodeClass the
  repo delivers to the node's pool — Karpenter's defaults where it delivers none — and the node's reported pod
  capacity as its ENI pod count) against what the node advertises after the change (``provisioners.gaps``);
- :func:`autoscaler_view`: for pools whose Auto Scaling groups the cluster autoscaler scales from zero
  (``spec.clusterAutoscaler``), the node it imagines for the group (``provisioners.cluster_autoscaler_aws``: the
  instance type's cpu and memory, 110 pods, allocatable = capacity, overridden by the ``resources/*`` tags the repo
  renders) against what the pool's nodes advertise after the change, each instance type of the pool once.

Cost: O(labels of the NodePools) to index them and O(labels of a node + the pools filed under them) per node to
assign pools (:class:`PoolIndex`), O(nodes) for the rest, plus the gaps' packing of the pods a pool's new node
would be launched for.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from renderer.impact.nodes import SimNode
from renderer.impact.pods import SimPod
from renderer.impact.provisioners.cluster_autoscaler_aws import MIB, AsgInstance, template_node
from renderer.impact.provisioners.gaps import ProvisionerGap, compare
from renderer.impact.provisioners.karpenter import InstanceType, KarpenterOptions, NodeClass, predict
from renderer.impact.provisioners.karpenter_overhead import FamilyRecommendation, Observation, recommend
from renderer.impact.provisioners.karpenter_plan import KarpenterPlan, plan
from renderer.impact.resources import CPU, MEMORY, PODS
from renderer.impact.result import ImpactResult

__all__ = [
    "GROUP_LABELS",
    "AsgPool",
    "ImpactReport",
    "PoolIndex",
    "autoscaler_view",
    "karpenter_plans",
    "karpenter_view",
    "pool_of",
]

#: Labels provisioners put on the nodes of one group, in the order they are tried.
GROUP_LABELS = (
    "karpenter.sh/nodepool",
    "eks.amazonaws.com/nodegroup",
    "alpha.eksctl.io/nodegroup-name",
    "cloud.google.com/gke-nodepool",
    "kubernetes.azure.com/agentpool",
    "agentpool",
)
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
INSTANCE_MEMORY = "karpenter.k8s.aws/instance-memory"
INSTANCE_CPU = "karpenter.k8s.aws/instance-cpu"
ARCH = "kubernetes.io/arch"
KARPENTER_DEFAULT_OVERHEAD = 0.075


class PoolIndex:
    """The repo's NodePools indexed by their ``spec.labels``, for :func:`pool_of`.

    Pools with the same labels are one entry (the first name wins: same label count, then the name). Each entry is
    filed under one of its (key, value) pairs, the one fewest entries share, so a node looks up each of its own
    labels once and compares only the entries filed under them. Cost: building O(labels of the NodePools); a node
    O(its labels + entries filed under them), in practice the few pools that share its rarest label."""

    def __init__(self, nodepools: Sequence[tuple[str, Mapping[str, str]]]) -> None:
        best: dict[frozenset[tuple[str, str]], str] = {}
        for name, wanted in nodepools:
            if not wanted:
                continue
            key = frozenset(wanted.items())
            if key not in best or name < best[key]:
                best[key] = name
        shared: dict[tuple[str, str], int] = {}
        for key in best:
            for pair in key:
                shared[pair] = shared.get(pair, 0) + 1
        self._by_pair: dict[tuple[str, str], list[tuple[int, str, tuple[tuple[str, str], ...]]]] = {}
        for key, name in best.items():
            anchor = min(key, key=lambda pair: (shared[pair], pair))
            entry = (-len(key), name, tuple(sorted(key)))
            self._by_pair.setdefault(anchor, []).append(entry)

    def best(self, labels: Mapping[str, str]) -> str | None:
        """The NodePool whose labels ``labels`` carries, the most labels then the name first; None when none."""
        found: tuple[int, str] | None = None
        by_pair = self._by_pair
        for pair in labels.items():
            for size, name, wanted in by_pair.get(pair, ()):
                if (found is None or (size, name) < found) and all(labels.get(k) == v for k, v in wanted):
                    found = (size, name)
        return None if found is None else found[1]


def pool_of(labels: Mapping[str, str], nodepools: PoolIndex) -> str:
    """The pool a node with ``labels`` belongs to (see the module docstring). ``nodepools``: the repo's NodePools by
    their ``spec.labels``."""
    best = nodepools.best(labels)
    if best is not None:
        return best
    for group in GROUP_LABELS:
        value = labels.get(group)
        if value:
            return value
    return labels.get(INSTANCE_TYPE) or "(no pool)"


def _int(text: str | None) -> int | None:
    if text is None or not text.isdigit() or len(text) > 9:
        return None
    return int(text)


def karpenter_view(
    nodes: Sequence[SimNode],
    after: Mapping[str, Mapping[str, int]],
    percent: float,
    node_classes: Mapping[str, NodeClass] | None = None,
) -> tuple[list[FamilyRecommendation], list[ProvisionerGap]]:
    """Recommendations and prediction gaps from the Karpenter nodes among ``nodes``; ``after``: per node name, the
    allocatable it advertises after the change; ``node_classes``: per pool, the EC2NodeClass the repo delivers to it
    (Karpenter's defaults for the others)."""
    node_classes = node_classes or {}
    observations: dict[str, Observation] = {}
    gaps: dict[tuple[str, str], ProvisionerGap] = {}
    for node in nodes:
        memory_mib, vcpus = _int(node.labels.get(INSTANCE_MEMORY)), _int(node.labels.get(INSTANCE_CPU))
        name = node.labels.get(INSTANCE_TYPE)
        capacity = node.capacity.get(MEMORY)
        if memory_mib is None or not name or capacity is None:
            continue
        arch = node.labels.get(ARCH, "amd64")
        observations.setdefault(name, Observation(name, memory_mib, capacity, arch))
        pods = node.capacity.get(PODS)
        if vcpus is None or not pods:
            continue
        it = InstanceType(name, vcpus, memory_mib, arch, eni_pods=pods)
        predicted = predict(it, node_classes.get(node.pool), KarpenterOptions(percent)).allocatable
        actual = after.get(node.name, node.allocatable)
        shared = {r: predicted[r] for r in (CPU, MEMORY, PODS) if r in actual}
        for gap in compare("karpenter", node.pool, name, shared, {r: actual[r] for r in shared}):
            key = (node.pool, f"{name}/{gap.resource}")
            if key not in gaps or abs(gap.delta) > abs(gaps[key].delta):
                gaps[key] = gap
    found = [gaps[k] for k in sorted(gaps)]
    return recommend(observations.values(), current=percent), found


def karpenter_plans(
    nodes: Sequence[SimNode],
    pods: Sequence[SimPod],
    result: ImpactResult,
    percent: float,
    node_classes: Mapping[str, NodeClass],
    before: bool = False,
) -> list[KarpenterPlan]:
    """Per pool of Karpenter nodes (labelled ``karpenter.k8s.aws/instance-memory`` by Karpenter) with Pending pods
    attributed to it after the change (DaemonSet pods aside: Karpenter launches nothing for them), what Karpenter plans
    for them on its own view of the instance types the pool's nodes run (``provisioners.karpenter_plan``), with the
    DaemonSet overhead of a new node and the nodes the pods need on what the nodes will advertise (the cluster
    autoscaler's estimate). ``before``: the same for the pods Pending before the change (``result.pending_before``),
    with the pool's overhead and estimate before it — what Karpenter launches anyway. Cost: O(nodes), and O(pods)
    when such a pool has Pending pods."""
    karpenter = {n.pool for n in nodes if INSTANCE_MEMORY in n.labels}
    attributed = (
        [(pool, key) for pool, keys in result.pending_before.items() for key in keys]
        if before
        else [(p.pool, p.pod) for p in result.pending if p.pool is not None and not p.daemonset]
    )
    wanted = {key for pool, key in attributed if pool in karpenter}
    if not wanted:
        return []
    by_key = {p.key: p for p in pods if p.key in wanted}
    pending: dict[str, list[SimPod]] = {}
    for pool, key in attributed:
        if key in by_key:
            pending.setdefault(pool, []).append(by_key[key])
    types: dict[str, dict[str, dict[str, int]]] = {}
    for node in nodes:
        if node.pool not in pending:
            continue
        memory_mib, vcpus = _int(node.labels.get(INSTANCE_MEMORY)), _int(node.labels.get(INSTANCE_CPU))
        name = node.labels.get(INSTANCE_TYPE)
        capacity_pods = node.capacity.get(PODS)
        if memory_mib is None or vcpus is None or not name or not capacity_pods or name in types.get(node.pool, {}):
            continue
        it = InstanceType(name, vcpus, memory_mib, node.labels.get(ARCH, "amd64"), eni_pods=capacity_pods)
        predicted = predict(it, node_classes.get(node.pool), KarpenterOptions(percent)).allocatable
        types.setdefault(node.pool, {})[name] = dict(predicted)
    sides = {p.pool: p.before if before else p.after for p in result.pools}
    out = []
    for pool in sorted(types):
        side = sides.get(pool)
        overhead = side.daemon_overhead if side is not None else {}
        needed = side.scale_up.nodes if side is not None else None
        out.append(plan(pool, types[pool], pending[pool], overhead, needed))
    return out


@dataclass(frozen=True)
class AsgPool:
    """A pool the cluster autoscaler scales from zero: its groups and the ``resources/*`` tags they will carry (none
    when the repo does not render them), with what a new node of it takes for DaemonSets and the pods it would be
    launched for."""

    pool: str
    groups: tuple[str, ...]
    tags: Mapping[str, str]
    overhead: Mapping[str, int] = field(default_factory=dict)
    pods: Sequence[SimPod] = ()


def autoscaler_view(
    nodes: Sequence[SimNode], after: Mapping[str, Mapping[str, int]], pools: Sequence[AsgPool]
) -> list[ProvisionerGap]:
    """The gaps between the cluster autoscaler's template node and what the nodes of each pool in ``pools``
    advertise after the change (``after``: per node name), one per (pool, instance type, resource). The template's
    memory without a tag: Karpenter's ``instance-memory`` label when the node has one, else the node's memory
    capacity (the autoscaler's table holds the nominal size, a little more: the over-estimate shown is then a lower
    bound)."""
    by_pool = {p.pool: p for p in pools}
    seen: set[tuple[str, str]] = set()
    gaps: list[ProvisionerGap] = []
    for node in nodes:
        asg = by_pool.get(node.pool)
        name = node.labels.get(INSTANCE_TYPE)
        cpu, memory = node.capacity.get(CPU), node.capacity.get(MEMORY)
        if asg is None or not name or not cpu or not memory or (node.pool, name) in seen:
            continue
        seen.add((node.pool, name))
        memory_mib = _int(node.labels.get(INSTANCE_MEMORY)) or memory // MIB
        instance = AsgInstance(name, (cpu + 999) // 1000, memory_mib, arch=node.labels.get(ARCH, "amd64"))
        template = template_node(instance, asg.tags)
        predicted = template.allocatable_units()
        actual = after.get(node.name, node.allocatable)
        shared = [r for r in (CPU, MEMORY, PODS) if r in actual and r in predicted]
        group = "/".join(asg.groups) or node.pool
        gaps += compare(
            "cluster-autoscaler",
            node.pool,
            f"{name} ({group})",
            {r: predicted[r] for r in shared},
            {r: actual[r] for r in shared},
            asg.overhead,
            asg.pods,
            template.labels,
            template.taints,
        )
    return sorted(gaps, key=lambda g: (g.pool, g.instance_type, g.resource))


@dataclass
class ImpactReport:
    """The simulation of one change on one snapshot, for the reporters (``as_dict``: the JSON form)."""

    mode: str  # "diff": base revision → head; "verify": what nodes report → what the repo predicts
    before: str
    after: str
    result: ImpactResult
    #: Per pool, the instance type(s) of its nodes ("c6i.8xlarge", or several joined with "/").
    shapes: Mapping[str, str] = field(default_factory=dict)
    skipped: Mapping[str, int] = field(default_factory=dict)
    #: Pods read in a way worth saying: note -> count (``Snapshot.counted``: an in-place resize at its status, ...).
    counted: Mapping[str, int] = field(default_factory=dict)
    sources: Sequence[str] = ()
    nodes_changed: int = 0
    #: Exit 1 when the change leaves more than this many pods newly Pending (``impact.maxNewPendingPods``).
    max_new_pending: int = 0
    recommendations: Sequence[FamilyRecommendation] = ()
    gaps: Sequence[ProvisionerGap] = ()
    vm_overhead_percent: float = KARPENTER_DEFAULT_OVERHEAD
    #: The cluster autoscaler's scale-from-zero templates against the nodes (pools with ``spec.clusterAutoscaler``).
    autoscaler_gaps: Sequence[ProvisionerGap] = ()
    #: What Karpenter plans for the Pending pods of its pools, on its own view of their instance types.
    karpenter_plans: Sequence[KarpenterPlan] = ()
    #: Karpenter's plans for the pods Pending before the change (what it launches anyway; priced against, not shown).
    karpenter_before: Sequence[KarpenterPlan] = ()
    #: ``verify``: the fleet change priced (``renderer.capacity.cost.ChangeCost``) when the repo has ``pricing``;
    #: ``diff`` prices the change in its own report instead.
    cost: Any = None

    @property
    def failed(self) -> bool:
        return self.result.new_pending > self.max_new_pending

    def shape(self, pool: str) -> str:
        return self.shapes.get(pool) or pool

    def as_dict(self) -> dict[str, Any]:
        r = self.result
        out: dict[str, Any] = {
            "mode": self.mode,
            "before": self.before,
            "after": self.after,
            "summary": {
                "nodesChanged": self.nodes_changed,
                "displaced": len(r.displaced),
                "newPending": r.new_pending,
                "pending": len(r.pending),
                "nodesToAdd": sum(max(p.nodes_to_add, 0) for p in r.pools),
                "nodesFreed": sum(max(p.nodes_freed, 0) for p in r.pools),
                "maxNewPendingPods": self.max_new_pending,
                "failed": self.failed,
            },
            "sources": list(self.sources),
            "skipped": dict(sorted(self.skipped.items())),
            "shapes": dict(sorted(self.shapes.items())),
        }
        if self.counted:
            out["counted"] = dict(sorted(self.counted.items()))
        out.update(r.as_dict())
        out["provisioners"] = {
            "karpenter": {
                "vmMemoryOverheadPercent": self.vm_overhead_percent,
                "recommendations": [_recommendation(x) for x in self.recommendations],
                "gaps": [g.as_dict() for g in self.gaps],
            }
        }
        if self.karpenter_plans:
            out["provisioners"]["karpenter"]["plans"] = [p.as_dict() for p in self.karpenter_plans]
        if self.autoscaler_gaps:
            out["provisioners"]["clusterAutoscaler"] = {"gaps": [g.as_dict() for g in self.autoscaler_gaps]}
        return out


def _recommendation(r: FamilyRecommendation) -> dict[str, Any]:
    return {
        "family": r.family,
        "vmMemoryOverheadPercent": str(r.percent),
        "decidedBy": r.decided_by,
        "types": r.types,
        "overEstimatedNow": list(r.over_estimated),
        "largestOverEstimateMiB": r.largest_over_estimate_mib,
    }


def fleet_percent(recommendations: Sequence[FamilyRecommendation]) -> Decimal | None:
    """The controller-wide value: the largest family's (None without Karpenter nodes)."""
    return max((r.percent for r in recommendations), default=None)
