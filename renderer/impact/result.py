"""What an impact simulation found, as plain data a reporter prints (text, JSON, Markdown, GitHub) without computing.

Every collection is sorted (pools by name, pods by namespace/name) so output is byte-stable; ``as_dict`` gives the
JSON form with quantities as canonical strings. Amounts are the scheduler's integers (``resources.py``):
millicores for cpu, bytes for memory and storage, counts otherwise.

Cost: O(size of the result).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from renderer.impact.resources import quantity

__all__ = [
    "Diagnosis",
    "Displaced",
    "ImpactResult",
    "InputSummary",
    "NotSimulated",
    "PendingPod",
    "PoolImpact",
    "PoolSide",
    "ScaleUp",
    "Shortfall",
]


def _amounts(values: Mapping[str, int]) -> dict[str, str]:
    return {name: quantity(name, amount).canonical() for name, amount in sorted(values.items())}


@dataclass(frozen=True)
class Shortfall:
    """One resource a pod no longer gets on its node: it asks ``requested``; ``used`` of ``allocatable`` went to the
    pods admitted before it."""

    resource: str
    requested: int
    used: int
    allocatable: int
    #: A check of the kubelet's other than resources (``resource`` empty): its reason, in the kubelet's words.
    predicate: str = ""

    @property
    def reason(self) -> str:
        if self.predicate:
            return self.predicate
        return "Too many pods" if self.resource == "pods" else f"Insufficient {self.resource}"

    def as_dict(self) -> dict[str, Any]:
        if self.predicate:
            return {"reason": self.predicate}
        return {
            "resource": self.resource,
            "requested": quantity(self.resource, self.requested).canonical(),
            "used": quantity(self.resource, self.used).canonical(),
            "allocatable": quantity(self.resource, self.allocatable).canonical(),
        }


@dataclass(frozen=True)
class Displaced:
    """A running pod the node's kubelet would reject after the change, and where the scheduler would put it instead
    (``to_node`` None: it waits Pending)."""

    pod: str  # namespace/name
    node: str
    pool: str
    shortfall: tuple[Shortfall, ...]
    to_node: str | None
    to_pool: str | None
    daemonset: bool = False

    def as_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "node": self.node,
            "pool": self.pool,
            "reasons": [s.as_dict() for s in self.shortfall],
            "movesTo": None if self.to_node is None else {"node": self.to_node, "pool": self.to_pool},
            "daemonSet": self.daemonset,
        }


@dataclass(frozen=True)
class Diagnosis:
    """Why no node took a pod, counted per reason over all nodes, as the scheduler's FailedScheduling event counts."""

    nodes: int
    reasons: tuple[tuple[str, int], ...]  # (reason, nodes), sorted by reason

    @property
    def message(self) -> str:
        """The scheduler's wording: ``0/5 nodes are available: 2 Insufficient cpu, 3 node(s) ...``."""
        parts = sorted(f"{count} {reason}" for reason, count in self.reasons)
        return f"0/{self.nodes} nodes are available: {', '.join(parts)}."

    def as_dict(self) -> dict[str, Any]:
        return {"nodes": self.nodes, "reasons": dict(self.reasons), "message": self.message}


@dataclass(frozen=True)
class PendingPod:
    pod: str
    pool: str | None  # the pool whose new nodes would take it (its own first), None when no pool's would
    requests: Mapping[str, int]
    diagnosis: Diagnosis
    daemonset: bool = False
    new: bool = True  # False when it was Pending before the change as well
    #: The controlling owner reference, ``Kind/name`` in the pod's namespace (``ReplicaSet/web-5c7b9``); None for a
    #: bare pod. The reporters group a controller's Pending pods on one line by it.
    owner: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "pool": self.pool,
            "requests": _amounts(self.requests),
            "why": self.diagnosis.as_dict(),
            "daemonSet": self.daemonset,
            "new": self.new,
            "owner": self.owner,
        }


@dataclass(frozen=True)
class ScaleUp:
    """The cluster autoscaler's estimate for one pool: nodes of the pool's shape it would add for the pods attributed
    to the pool, the total-requests lower bound beside it, and the pods even a new node would not take."""

    pods: int
    nodes: int
    lower_bound: int
    limited: bool = False
    unfit: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "pods": self.pods,
            "nodes": self.nodes,
            "lowerBound": self.lower_bound,
            "limited": self.limited,
            "podsNoNewNodeTakes": self.unfit,
        }


@dataclass(frozen=True)
class PoolSide:
    """One pool, before or after the change."""

    allocatable: Mapping[str, int]  # of the pool's template node
    daemon_overhead: Mapping[str, int]  # what DaemonSet and static pods take on a new node
    pending: int
    daemonset_pending: int
    scale_up: ScaleUp
    removable: int
    removable_bound: int

    def as_dict(self) -> dict[str, Any]:
        return {
            "allocatable": _amounts(self.allocatable),
            "daemonOverhead": _amounts(self.daemon_overhead),
            "pending": self.pending,
            "daemonSetPending": self.daemonset_pending,
            "scaleUp": self.scale_up.as_dict(),
            "removableNodes": self.removable,
            "removableNodesBound": self.removable_bound,
        }


@dataclass(frozen=True)
class PoolImpact:
    pool: str
    nodes: int
    displaced: int
    before: PoolSide
    after: PoolSide

    @property
    def new_pending(self) -> int:
        return self.after.pending - self.before.pending

    @property
    def nodes_to_add(self) -> int:
        """Nodes the autoscaler would add after the change beyond what it would add anyway."""
        return self.after.scale_up.nodes - self.before.scale_up.nodes

    @property
    def nodes_freed(self) -> int:
        """Nodes the autoscaler could remove after the change beyond what it could remove anyway."""
        return self.after.removable - self.before.removable

    def as_dict(self) -> dict[str, Any]:
        return {
            "pool": self.pool,
            "nodes": self.nodes,
            "displaced": self.displaced,
            "newPending": self.new_pending,
            "nodesToAdd": self.nodes_to_add,
            "nodesFreed": self.nodes_freed,
            "before": self.before.as_dict(),
            "after": self.after.as_dict(),
        }


@dataclass(frozen=True)
class NotSimulated:
    """A scheduling feature the simulation does not model, with the affected pods that use it."""

    feature: str
    meaning: str
    pods: int = 0
    examples: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {"feature": self.feature, "meaning": self.meaning, "pods": self.pods, "examples": list(self.examples)}


@dataclass(frozen=True)
class InputSummary:
    """What was read and what was left out, and why."""

    nodes: int
    pods: int
    running: int  # bound and not terminated
    pending: int  # not bound, not terminated
    terminated: int  # Succeeded/Failed: hold nothing
    unknown_node: int  # bound to a node the snapshot does not have: left out
    daemonsets: int
    daemon_pods_added: int  # pods a DaemonSet would create on an eligible node that had none in the snapshot
    #: DaemonSets whose pods cover fewer than half the nodes their template selects: not completed
    daemonsets_partial: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "nodes": self.nodes,
            "pods": self.pods,
            "running": self.running,
            "pending": self.pending,
            "terminated": self.terminated,
            "unknownNode": self.unknown_node,
            "daemonSets": self.daemonsets,
            "daemonPodsAdded": self.daemon_pods_added,
            "daemonSetsPartial": self.daemonsets_partial,
        }


@dataclass(frozen=True)
class ImpactResult:
    pools: tuple[PoolImpact, ...]
    displaced: tuple[Displaced, ...]
    pending: tuple[PendingPod, ...]  # after the change (new and old)
    unplaceable: tuple[str, ...]  # pending pods no pool's new node would take (the autoscaler cannot help)
    gated: tuple[str, ...]  # pods with scheduling gates: not placed by anyone until the gates go
    not_simulated: tuple[NotSimulated, ...]
    inputs: InputSummary
    overcommitted_before: int  # pods the kubelets would reject even at the current allocatable
    counters: Mapping[str, int] = field(default_factory=dict)
    #: Pods Pending before the change that the change lets the scheduler place (namespace/name, sorted).
    scheduled: tuple[str, ...] = ()
    #: Per pool, the pods (namespace/name, DaemonSet pods aside) Pending before the change that its new nodes would
    #: take: what a provisioner would launch anyway, so a change is priced beyond it. Not in the JSON form.
    pending_before: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: The ``overcommitted_before`` pods themselves: rejected by their node's kubelet before the change (resources,
    #: or a check of ``generalFilter``'s such as an untolerated NoExecute taint, in the kubelet's words), and where
    #: the before run's scheduler put them. Sorted like ``displaced``.
    rejected_before: tuple[Displaced, ...] = ()

    @property
    def new_pending(self) -> int:
        return sum(1 for p in self.pending if p.new)

    def as_dict(self) -> dict[str, Any]:
        return {
            "inputs": self.inputs.as_dict(),
            "pools": [p.as_dict() for p in self.pools],
            "displaced": [d.as_dict() for d in self.displaced],
            "pending": [p.as_dict() for p in self.pending],
            "unplaceable": list(self.unplaceable),
            "gated": list(self.gated),
            "overcommittedBefore": self.overcommitted_before,
            "rejectedBefore": [d.as_dict() for d in self.rejected_before],
            "nowScheduled": list(self.scheduled),
            "notSimulated": [n.as_dict() for n in self.not_simulated],
        }
