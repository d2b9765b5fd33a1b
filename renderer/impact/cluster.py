"""The simulated cluster: nodes in the scheduler's order, what each one has left, and which nodes a pod may use at all.

Node order: the scheduler walks its snapshot's node list, which its node tree builds by taking one node of each zone
in turn (kube-scheduler internal/cache node_tree.go: zones keyed by region and zone labels, nodes of a zone in the
order they were added). :func:`scheduler_order` reproduces that from the dump's order.

Usage per node (``bind``/``unbind``): the pods' requests summed (what NodeResourcesFit compares), the scoring requests
(what LeastAllocated compares), the pod count and the host ports in use.

Static eligibility (:class:`Eligibility`): the filters that do not depend on usage — NodeUnschedulable,
TaintToleration, NodeAffinity — decided once per distinct (node affinity, tolerations) and kept as a sorted list of
node positions. Labels are matched through ``label_index.LabelIndex`` (candidates from the most selective requirement,
so a pod pinned to one node or one pool costs the size of that pool, not of the cluster); taints and cordon are
decided once per distinct (taints, unschedulable) of the nodes.

Cost: building O(nodes + labels); each distinct (affinity, tolerations) O(matching nodes + taint groups); bind and
unbind O(resources the pod requests + its host ports); the change log one position per bind, unbind, removal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from renderer.capacity.label_index import LabelIndex
from renderer.impact.affinity import NodeAffinity, only_node
from renderer.impact.nodes import SimNode
from renderer.impact.podcounts import PodCounts
from renderer.impact.pods import SimPod
from renderer.impact.ports import HostPort
from renderer.impact.resources import CPU, MEMORY
from renderer.impact.taints import Taint, Toleration, first_untolerated, tolerates_unschedulable

__all__ = ["ClusterState", "Eligibility", "Rejection", "scheduler_order"]

ZONE_LABELS = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")
REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")


def _label(node: SimNode, keys: Sequence[str]) -> str:
    for key in keys:
        value = node.labels.get(key)
        if value is not None:
            return value
    return ""


def scheduler_order(nodes: Sequence[SimNode]) -> list[int]:
    """Positions of ``nodes`` in the order the scheduler lists them: one node per zone in turn, zones in the order
    they first appear."""
    zones: dict[str, list[int]] = {}
    for i, node in enumerate(nodes):
        zones.setdefault(f"{_label(node, REGION_LABELS)}:\x00:{_label(node, ZONE_LABELS)}", []).append(i)
    order: list[int] = []
    lists = list(zones.values())
    depth = max((len(z) for z in lists), default=0)
    for k in range(depth):
        order.extend(z[k] for z in lists if k < len(z))
    return order


@dataclass
class ClusterState:
    """Nodes (in scheduler order) with the allocatable being simulated and what their pods use."""

    nodes: list[SimNode]
    allocatable: list[dict[str, int]]
    used: list[dict[str, int]] = field(default_factory=list)
    # cpu and memory of allocatable and of the pods' requests again, as flat lists for the scoring loop.
    alloc_cpu: list[int] = field(default_factory=list)
    alloc_mem: list[int] = field(default_factory=list)
    used_cpu: list[int] = field(default_factory=list)
    used_mem: list[int] = field(default_factory=list)
    score_cpu: list[int] = field(default_factory=list)
    score_memory: list[int] = field(default_factory=list)
    count: list[int] = field(default_factory=list)
    ports: list[set[HostPort]] = field(default_factory=list)
    pods: list[list[SimPod]] = field(default_factory=list)
    removed: bytearray = field(default_factory=bytearray)
    removed_count: int = 0
    #: Bumped whenever room is freed (a pod unbound, a node restored), so cached "cannot fit" answers are dropped.
    epoch: int = 0
    #: Positions of the nodes whose usage changed, in order, once a reader asked for them (``scoretree.ScoreTree``
    #: re-reads them; None until then: the pods bound while the state is built are not logged).
    changes: list[int] | None = None
    #: Matching pods per selector and the anti-affinity terms bound pods hold (``podcounts.py``), kept when some pod
    #: has topology spread constraints or inter-pod affinity terms (None otherwise: binding costs nothing more).
    counts: PodCounts | None = None

    @classmethod
    def build(cls, nodes: Sequence[SimNode], allocatable: Sequence[dict[str, int]] | None = None) -> ClusterState:
        """``allocatable[i]`` replaces ``nodes[i].allocatable`` when given (the allocatable after a change)."""
        order = scheduler_order(nodes)
        ordered = [nodes[i] for i in order]
        alloc = [dict(allocatable[i] if allocatable is not None else nodes[i].allocatable) for i in order]
        n = len(ordered)
        return cls(
            nodes=ordered,
            allocatable=alloc,
            used=[{} for _ in range(n)],
            alloc_cpu=[a.get(CPU, 0) for a in alloc],
            alloc_mem=[a.get(MEMORY, 0) for a in alloc],
            used_cpu=[0] * n,
            used_mem=[0] * n,
            score_cpu=[0] * n,
            score_memory=[0] * n,
            count=[0] * n,
            ports=[set() for _ in range(n)],
            pods=[[] for _ in range(n)],
            removed=bytearray(n),
        )

    def __len__(self) -> int:
        return len(self.nodes)

    def position(self) -> dict[str, int]:
        """Node name → position."""
        return {node.name: i for i, node in enumerate(self.nodes)}

    def bind(self, pod: SimPod, i: int) -> None:
        used = self.used[i]
        for name, amount in pod.requests.items():
            used[name] = used.get(name, 0) + amount
        requests = pod.requests
        self.used_cpu[i] += requests.get(CPU, 0)
        self.used_mem[i] += requests.get(MEMORY, 0)
        self.score_cpu[i] += pod.score_cpu
        self.score_memory[i] += pod.score_memory
        self.count[i] += 1
        if pod.host_ports:
            self.ports[i].update(pod.host_ports)
        self.pods[i].append(pod)
        if self.changes is not None:
            self.changes.append(i)
        if self.counts is not None:
            self.counts.update(pod, i, 1)

    def unbind(self, pod: SimPod, i: int, fresh: bool = True) -> None:
        """Take ``pod`` off node ``i``; ``fresh=False`` when the caller keeps cached answers right itself (a
        scheduler trial, or a node that is gone)."""
        used = self.used[i]
        for name, amount in pod.requests.items():
            used[name] -= amount
        requests = pod.requests
        self.used_cpu[i] -= requests.get(CPU, 0)
        self.used_mem[i] -= requests.get(MEMORY, 0)
        self.score_cpu[i] -= pod.score_cpu
        self.score_memory[i] -= pod.score_memory
        self.count[i] -= 1
        if pod.host_ports:
            self.ports[i].difference_update(pod.host_ports)
        self.pods[i].remove(pod)
        if self.changes is not None:
            self.changes.append(i)
        if self.counts is not None:
            self.counts.update(pod, i, -1)
        if fresh:
            self.epoch += 1

    def release(self) -> None:
        """Drop what each node holds (its pods, usage and ports) once a run's results are taken: the nodes, their
        order and allocatable stay."""
        n = len(self.nodes)
        self.pods = [[] for _ in range(n)]
        self.used = [{} for _ in range(n)]
        self.ports = [set() for _ in range(n)]
        self.changes = None
        self.counts = None

    def remove_node(self, i: int) -> None:
        """Take node ``i`` out (scale-down): no pod is placed there any more."""
        if not self.removed[i]:
            self.removed[i] = 1
            self.removed_count += 1
            if self.changes is not None:
                self.changes.append(i)

    def restore_node(self, i: int, fresh: bool = True) -> None:
        if self.removed[i]:
            self.removed[i] = 0
            self.removed_count -= 1
            if self.changes is not None:
                self.changes.append(i)
            if fresh:
                self.epoch += 1


@dataclass(frozen=True, slots=True)
class Rejection:
    """Why nodes reject a pod before resources are looked at, counted per reason."""

    unschedulable: int = 0
    taint: dict[str, int] = field(default_factory=dict)  # taint text -> nodes
    affinity: int = 0


class Eligibility:
    """Static filters, decided once per distinct (node affinity, tolerations); see the module docstring."""

    def __init__(self, nodes: Sequence[SimNode]) -> None:
        self._nodes = nodes
        self._index = LabelIndex((i, node.labels, node.name) for i, node in enumerate(nodes))
        groups: dict[tuple[tuple[Taint, ...], bool], int] = {}
        self._group_of: list[int] = []
        for node in nodes:
            key = (node.taints, node.unschedulable)
            self._group_of.append(groups.setdefault(key, len(groups)))
        self._groups = list(groups)
        self._sizes = [0] * len(self._groups)
        for g in self._group_of:
            self._sizes[g] += 1
        self._cache: dict[tuple[NodeAffinity, tuple[Toleration, ...]], list[int]] = {}
        self._allowed: dict[tuple[Toleration, ...], list[bool]] = {}
        self._position = {node.name: i for i, node in enumerate(nodes)}
        self._all = list(range(len(nodes)))
        #: Distinct (affinity, tolerations) evaluated so far (an operation count for tests and benchmarks).
        self.evaluations = 0

    def admits(self, i: int, affinity: NodeAffinity, tolerations: tuple[Toleration, ...]) -> bool:
        """Whether node ``i`` passes the static filters, without listing the others (a pod pinned to one node).
        Cost: O(the affinity's requirements), the taint groups once per distinct tolerations."""
        allowed = self._allowed.get(tolerations)
        if allowed is None:
            allowed = self._allowed[tolerations] = self._allowed_groups(tolerations)
        node = self._nodes[i]
        return allowed[self._group_of[i]] and affinity.matches(node.labels, node.name)

    def _by_labels(self, affinity: NodeAffinity) -> list[int]:
        if not affinity.constrains:
            return self._all
        found: list[int] | None = None
        if affinity.node_selector:
            found = self._index.match_labels(dict(affinity.node_selector))
        if affinity.required is not None:
            matched = self._index.match(affinity.required)
            found = matched if found is None else sorted(set(found).intersection(matched))
        return found if found is not None else self._all

    def _allowed_groups(self, tolerations: tuple[Toleration, ...]) -> list[bool]:
        cordon_ok = tolerates_unschedulable(tolerations)
        return [
            (cordon_ok or not unschedulable) and first_untolerated(taints, tolerations) is None
            for taints, unschedulable in self._groups
        ]

    def eligible(self, affinity: NodeAffinity, tolerations: tuple[Toleration, ...]) -> list[int]:
        """Sorted positions of the nodes that pass NodeUnschedulable, TaintToleration and NodeAffinity. A pod pinned
        to one node by name (``affinity.only_node``: every DaemonSet pod) is answered from that node alone and not
        kept: one entry per pinned pod would grow with the pods."""
        pinned = only_node(affinity)
        if pinned is not None:
            i = self._position.get(pinned)
            return [i] if i is not None and self.admits(i, affinity, tolerations) else []
        key = (affinity, tolerations)
        got = self._cache.get(key)
        if got is not None:
            return got
        self.evaluations += 1
        candidates = self._by_labels(affinity)
        allowed = self._allowed_groups(tolerations)
        if all(allowed):
            got = candidates
        else:
            group_of = self._group_of
            got = [i for i in candidates if allowed[group_of[i]]]
        self._cache[key] = got
        return got

    def rejection(self, affinity: NodeAffinity, tolerations: tuple[Toleration, ...]) -> Rejection:
        """How many nodes each static filter rejects, in the scheduler's filter order (unschedulable, taints,
        affinity); a node is counted once, under the first filter it fails. Cost: O(taint groups + nodes the
        affinity matches), so a pod pinned to one node (a DaemonSet's) costs the taint groups, not the cluster."""
        cordon_ok = tolerates_unschedulable(tolerations)
        unschedulable = 0
        taints: dict[str, int] = {}
        passing = [False] * len(self._groups)
        passing_nodes = 0
        for g, (group_taints, cordoned) in enumerate(self._groups):
            size = self._sizes[g]
            if cordoned and not cordon_ok:
                unschedulable += size
                continue
            failed = first_untolerated(group_taints, tolerations)
            if failed is not None:
                taints[str(failed)] = taints.get(str(failed), 0) + size
                continue
            passing[g] = True
            passing_nodes += size
        group_of = self._group_of
        matching = sum(1 for i in self._by_labels(affinity) if passing[group_of[i]])
        return Rejection(unschedulable, taints, passing_nodes - matching)
