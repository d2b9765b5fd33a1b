"""How many nodes of one group the cluster autoscaler would add for pending pods: its binpacking estimator.

kubernetes/autoscaler cluster-autoscaler/estimator (release-1.36, ea47d9bb): ``binpacking_estimator.go``,
``decreasing_pod_orderer.go``, ``threshold_based_limiter.go``; vectors in fixtures/ca_binpacking_cases.yaml.

1. Pods are grouped into equivalence groups (same controller, same scheduling-relevant spec: here the same owner,
   requests, node affinity, tolerations and host ports), in order of first appearance.
2. Groups are ordered by their first pod's ``cpu / template cpu + memory / template memory`` (float64), largest first
   (upstream's sort is not stable; this one is).
3. Per group: each pod is tried on the nodes added so far, first fit, the scan starting after the node that took the
   previous pod; at the first pod that fits none, the rest of the group goes on: try the node added last; if it does
   not fit there, stop the group when that node is still empty (the pod cannot fit the template at all), else ask the
   limiter, add a fresh copy of the template and put the pod there (stop the group if even that fails).
4. The estimate is the number of added nodes that received a pod.

Fit on a template node uses the scheduler's filters as the simulation models them (``scheduler.py``): taints,
cordon, node affinity, host ports, resources and pod count, with the DaemonSet and static pods the template carries
already counted, and PodTopologySpread and InterPodAffinity (``podfilters.py``) over the cluster's nodes and pods
plus the nodes added so far, each named ``<template>-e-<k>`` with that name as its hostname (the autoscaler's
``SanitizedNodeInfo``). As upstream, a pod that fails the node added last on a hostname spread constraint is tried on
the other added nodes before another node is added (``tryToScheduleOnNewNodes``; upstream tries every node but the
last, the cluster's too: here the cluster's nodes already refused the pod in placement).

Beside it, :func:`lower_bound`: ``ceil(total requests / room of one empty template node)`` per resource (pods
included), the largest — no packing can use fewer nodes, so the gap between the two shows how much the estimate owes to
fragmentation.

Cost: O(pods × nodes added) fit checks in the worst case (first fit over added nodes), O(groups log groups) to sort.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from renderer.impact.cluster import ClusterState, Eligibility
from renderer.impact.fit import DEFAULT_ARGS, FitArgs, fits
from renderer.impact.podfilters import SPREAD_REASON, ExtraNode, PodFilters, Restriction
from renderer.impact.pods import SimPod
from renderer.impact.ports import HostPort, conflicts
from renderer.impact.resources import CPU, MEMORY, PODS
from renderer.impact.taints import Taint, first_untolerated

__all__ = [
    "Estimate",
    "Template",
    "cluster_capacity_threshold",
    "estimate",
    "lower_bound",
    "node_limit",
    "order_groups",
    "similar_groups_threshold",
]

#: ``--max-nodes-per-scaleup`` default.
MAX_NODES_PER_SCALEUP = 1000
HOSTNAME_LABEL = "kubernetes.io/hostname"


@dataclass(frozen=True)
class Template:
    """A node of the group as the autoscaler imagines a new one: allocatable, labels, taints, and what the DaemonSet
    and static pods that would run there already use."""

    pool: str
    name: str
    labels: Mapping[str, str]
    taints: tuple[Taint, ...]
    allocatable: Mapping[str, int]
    used: Mapping[str, int] = field(default_factory=dict)
    pod_count: int = 0
    ports: frozenset[HostPort] = frozenset()

    def room(self) -> dict[str, int]:
        """What one empty new node leaves for pending pods (pods included)."""
        names = set(self.allocatable) | set(self.used)
        out = {name: self.allocatable.get(name, 0) - self.used.get(name, 0) for name in names}
        out[PODS] = self.allocatable.get(PODS, 0) - self.pod_count
        return out

    def admits(self, pod: SimPod) -> bool:
        """The static filters on a node built from this template (never cordoned, so NodeUnschedulable passes)."""
        tolerations = pod.scheduling_tolerations()
        if first_untolerated(self.taints, tolerations) is not None:
            return False
        return pod.affinity.matches(self.labels, self.name)


@dataclass
class _NewNode:
    used: dict[str, int]
    count: int
    ports: set[HostPort]
    pods: int = 0
    #: What the spread and inter-pod filters see of it.
    seen: ExtraNode | None = None


@dataclass(frozen=True)
class Estimate:
    """The estimator's answer for one group: ``nodes`` added (with at least one pod), the pods they take, and the pods
    left (limiter reached, or they fit no copy of the template)."""

    nodes: int
    scheduled: tuple[SimPod, ...]
    unscheduled: tuple[SimPod, ...]
    limited: bool = False


def _group_key(pod: SimPod) -> tuple[object, ...]:
    owner = pod.owner or ("", "", pod.key)
    return (
        owner,
        tuple(sorted(pod.requests.items())),
        pod.affinity,
        pod.scheduling_tolerations(),
        pod.host_ports,
        pod.labels,
        pod.spread,
        pod.pod_affinity,
    )


def _groups(pods: Sequence[SimPod]) -> list[list[SimPod]]:
    groups: dict[tuple[object, ...], list[SimPod]] = {}
    for pod in pods:
        groups.setdefault(_group_key(pod), []).append(pod)
    return list(groups.values())


def _score(pod: SimPod, allocatable: Mapping[str, int]) -> float:
    cpu, mem = allocatable.get(CPU, 0), allocatable.get(MEMORY, 0)
    score = 0.0
    if cpu:
        score += pod.requests.get(CPU, 0) / cpu
    if mem:
        score += pod.requests.get(MEMORY, 0) / mem
    return score


def order_groups(groups: Sequence[list[SimPod]], allocatable: Mapping[str, int]) -> list[list[SimPod]]:
    """``DecreasingPodOrderer``: by the first pod's cpu and memory fractions of the template, largest first."""
    return sorted(groups, key=lambda g: -_score(g[0], allocatable))


def _fits(pod: SimPod, template: Template, node: _NewNode, args: FitArgs, seen: Restriction | None = None) -> bool:
    if pod.host_ports and conflicts(pod.host_ports, node.ports):
        return False
    if not fits(pod.requests, template.allocatable, node.used, node.count, args):
        return False
    return seen is None or node.seen is None or seen.failure(node.seen.labels) is None


class _Filters:
    """PodTopologySpread and InterPodAffinity on the added nodes (and the cluster's, through ``filters``)."""

    def __init__(self, filters: PodFilters | None, added: list[_NewNode]) -> None:
        self.filters = filters
        self.added = added

    def of(self, pod: SimPod) -> Restriction | None:
        """The checks for ``pod`` now; None when it has none to pass."""
        extra = [n.seen for n in self.added if n.seen is not None]
        if not (pod.spread or pod.pod_affinity or any(x.holders for x in extra)) and (
            self.filters is None or not self.filters.applies(pod)
        ):
            return None
        if self.filters is None:
            empty = ClusterState.build([])
            self.filters = PodFilters(empty, Eligibility(empty.nodes))
        return self.filters.restrict(pod, extra)


def _retry_elsewhere(pod: SimPod, template: Template, added: list[_NewNode], args: FitArgs, seen: Restriction) -> int:
    """After the node added last failed ``pod`` on a hostname spread constraint: the first other added node that
    takes it, -1 when none does (``tryToScheduleOnNewNodes``'s retroactive step)."""
    last = added[-1].seen
    if last is None or seen.failure(last.labels) != SPREAD_REASON:
        return -1
    if not any(c.topology_key == HOSTNAME_LABEL for c in pod.spread):
        return -1
    for j, node in enumerate(added[:-1]):
        if _fits(pod, template, node, args, seen):
            return j
    return -1


def _new_node(template: Template, index: int) -> _NewNode:
    name = f"{template.name}-e-{index}"
    seen = ExtraNode(name, {**template.labels, HOSTNAME_LABEL: name}, template.taints)
    return _NewNode(dict(template.used), template.pod_count, set(template.ports), seen=seen)


def estimate(
    pods: Sequence[SimPod],
    template: Template,
    max_nodes: int = 0,
    fit_args: FitArgs = DEFAULT_ARGS,
    filters: PodFilters | None = None,
) -> Estimate:
    """Run the binpacking estimator for ``pods`` on copies of ``template``; ``max_nodes`` > 0 caps the nodes added
    (the limiter), a negative value allows none. ``filters``: the cluster whose pods the spread and inter-pod filters
    count besides the added nodes' (None: the added nodes alone)."""
    scheduled: list[SimPod] = []
    unscheduled: list[SimPod] = []
    added: list[_NewNode] = []
    checks = _Filters(filters, added)
    limited = False
    start = 0  # where the first-fit scan over added nodes starts (after the node that took the last pod)
    for group in order_groups(_groups(pods), template.allocatable):
        if not template.admits(group[0]):
            unscheduled.extend(group)
            continue
        index = 0
        while index < len(group):  # on the nodes added so far
            pod = group[index]
            seen = checks.of(pod)
            hit = -1
            for k in range(len(added)):
                j = (start + k) % len(added)
                if _fits(pod, template, added[j], fit_args, seen):
                    hit = j
                    break
            if hit < 0:
                break
            _bind(added[hit], pod)
            scheduled.append(pod)
            start = (hit + 1) % len(added)
            index += 1
        for pos in range(index, len(group)):  # on new nodes
            pod = group[pos]
            seen = checks.of(pod)
            if added and _fits(pod, template, added[-1], fit_args, seen):
                _bind(added[-1], pod)
                scheduled.append(pod)
                continue
            other = _retry_elsewhere(pod, template, added, fit_args, seen) if added and seen is not None else -1
            if other >= 0:
                _bind(added[other], pod)
                scheduled.append(pod)
                continue
            if added and added[-1].pods == 0:
                unscheduled.extend(group[pos:])
                break
            if max_nodes < 0 or (max_nodes > 0 and len(added) >= max_nodes):
                limited = True
                unscheduled.extend(group[pos:])
                break
            added.append(_new_node(template, len(added)))
            if seen is not None:
                seen = checks.of(pod)  # the new node is a domain of its own
            if not _fits(pod, template, added[-1], fit_args, seen):
                unscheduled.extend(group[pos:])
                break
            _bind(added[-1], pod)
            scheduled.append(pod)
    return Estimate(sum(1 for n in added if n.pods), tuple(scheduled), tuple(unscheduled), limited)


def _bind(node: _NewNode, pod: SimPod) -> None:
    for name, amount in pod.requests.items():
        node.used[name] = node.used.get(name, 0) + amount
    node.count += 1
    node.pods += 1
    node.ports.update(pod.host_ports)
    if node.seen is not None:
        node.seen.add(pod)


def lower_bound(pods: Sequence[SimPod], template: Template) -> int:
    """``max over resources of ceil(Σ requests / room of one new node)``, pods counted as a resource; pods that do not
    fit an empty template node are the caller's to leave out."""
    if not pods:
        return 0
    room = template.room()
    need: dict[str, int] = {PODS: len(pods)}
    for pod in pods:
        for name, amount in pod.requests.items():
            if name != PODS:
                need[name] = need.get(name, 0) + amount
    bound = 0
    for name, amount in need.items():
        have = room.get(name, 0)
        if amount > 0 and have > 0:
            bound = max(bound, -(-amount // have))
    return bound


def node_limit(limits: Sequence[int]) -> int:
    """Combine node limits as ``thresholdBasedEstimationLimiter`` does: any negative limit allows no node; otherwise
    the smallest positive one; 0 (all unlimited) means no limit."""
    if any(limit < 0 for limit in limits):
        return -1
    positive = [limit for limit in limits if limit > 0]
    return min(positive) if positive else 0


def similar_groups_threshold(current: tuple[int, int], similar: Sequence[tuple[int, int]]) -> int:
    """Room left in this group and its similar groups: Σ max(0, max size - target size) over (max, target) pairs;
    -1 when there is none (``sng_capacity_threshold.go``)."""
    room = sum(max(0, high - target) for high, target in (current, *similar))
    return room if room > 0 else -1


def cluster_capacity_threshold(max_nodes_total: int, current_nodes: int) -> int:
    """``--max-nodes-total`` minus the nodes there are: 0 (unlimited) when the flag is 0, -1 when nothing is left
    (``cluster_capacity_threshold.go``)."""
    if max_nodes_total == 0:
        return 0
    if max_nodes_total <= current_nodes:
        return -1
    return max_nodes_total - current_nodes
