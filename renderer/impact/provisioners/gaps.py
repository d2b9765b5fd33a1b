"""A provisioner's belief about a new node next to what the kubelet will report, as findings.

For one instance type (or node group), per resource: ``predicted`` is what the provisioner thinks the node's
allocatable is (Karpenter's prediction, the cluster autoscaler's template), ``actual`` what the node will advertise
(the project's capacity model). ``overhead`` is what DaemonSet and static pods take on a fresh node, off both.

- over-estimate (predicted > actual): the provisioner can launch this type for a pod whose request lies between the
  two rooms; the node comes up and the pod does not fit — it stays Pending and the provisioner tries again. With such
  a pod it is an error; without one, a warning (the next pod of that size hits it);
- under-estimate (predicted < actual): the provisioner does not pick this type for a pod that would fit, and launches
  a bigger type or one node more. With such a pod a warning; without, information.

Given pods, the gap is also measured in nodes: the pods packed first-fit decreasing onto nodes of the predicted room
and of the actual room (the cluster autoscaler's estimator, ``estimator.py``). Fewer nodes predicted than needed is an
error (pods wait for another launch), more a warning (a node too many) — the i4i.32xlarge report
(aws/karpenter-provider-aws#6611) is this case: each pod fits either view, four of them fit one real node but not
Karpenter's view of it.

Cost: O(resources × pods) for the per-pod check, O(pods × nodes) for the packing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from renderer.impact.estimator import Template, estimate
from renderer.impact.pods import SimPod
from renderer.impact.resources import PODS, quantity
from renderer.impact.taints import Taint
from renderer.units import column

__all__ = ["ProvisionerGap", "compare"]

Kind = Literal["over-estimate", "under-estimate"]
Severity = Literal["error", "warning", "info"]
_EXAMPLES = 5
_UNLIMITED = 2**62


@dataclass(frozen=True)
class ProvisionerGap:
    provisioner: str
    pool: str
    instance_type: str
    resource: str
    predicted: int
    actual: int
    pods: tuple[str, ...]  # pods whose fit on an empty node the gap flips (namespace/name)
    #: Nodes the given pods need in the provisioner's view and in reality (None: no pods given).
    nodes_predicted: int | None = None
    nodes_actual: int | None = None

    @property
    def kind(self) -> Kind:
        return "over-estimate" if self.predicted > self.actual else "under-estimate"

    @property
    def severity(self) -> Severity:
        packing = self.nodes_predicted is not None and self.nodes_predicted != self.nodes_actual
        if self.kind == "over-estimate":
            return "error" if self.pods or packing else "warning"
        return "warning" if self.pods or packing else "info"

    @property
    def delta(self) -> int:
        return self.predicted - self.actual

    @property
    def message(self) -> str:
        # Both figures in one unit (renderer.units): "offers memory 14.52Gi; its nodes will offer 14.43Gi".
        believed, offered = column([quantity(self.resource, v) for v in (self.predicted, self.actual)], self.resource)
        unit = " cores" if self.resource == "cpu" else ""
        head = (
            f"{self.provisioner} believes {self.instance_type} in {self.pool} offers {self.resource} {believed}{unit}; "
            f"its nodes will offer {offered}{unit}"
        )
        shown = ", ".join(self.pods[:_EXAMPLES]) + (
            f" and {len(self.pods) - _EXAMPLES} more" if len(self.pods) > _EXAMPLES else ""
        )
        if self.kind == "over-estimate":
            tail = f": it would launch one for {shown}, which will not fit" if self.pods else ""
        else:
            tail = f": it will not choose it for {shown}, which would fit" if self.pods else ""
        if self.nodes_predicted is not None and self.nodes_predicted != self.nodes_actual:
            tail += f"; the pods need {self.nodes_actual} node(s), it plans {self.nodes_predicted}"
        return head + tail

    def as_dict(self) -> dict[str, Any]:
        return {
            "provisioner": self.provisioner,
            "pool": self.pool,
            "instanceType": self.instance_type,
            "resource": self.resource,
            "predicted": quantity(self.resource, self.predicted).canonical(),
            "actual": quantity(self.resource, self.actual).canonical(),
            "kind": self.kind,
            "severity": self.severity,
            "pods": list(self.pods),
            "nodesPredicted": self.nodes_predicted,
            "nodesActual": self.nodes_actual,
        }


def _fits(pod: SimPod, room: Mapping[str, int]) -> bool:
    """Whether ``pod`` fits an empty node with ``room`` (resources ``room`` does not state do not limit it)."""
    return room.get(PODS, 1) >= 1 and all(
        amount <= room.get(name, _UNLIMITED) for name, amount in pod.requests.items() if name != PODS
    )


def compare(
    provisioner: str,
    pool: str,
    instance_type: str,
    predicted: Mapping[str, int],
    actual: Mapping[str, int],
    overhead: Mapping[str, int] | None = None,
    pods: Sequence[SimPod] = (),
    labels: Mapping[str, str] | None = None,
    taints: tuple[Taint, ...] = (),
) -> list[ProvisionerGap]:
    """The gaps between ``predicted`` and ``actual`` allocatable, per resource both state (sorted by resource);
    ``labels`` and ``taints`` of the new node decide which of ``pods`` may use it when packing."""
    overhead = overhead or {}
    room_p = {name: amount - overhead.get(name, 0) for name, amount in predicted.items()}
    room_a = {name: amount - overhead.get(name, 0) for name, amount in actual.items()}
    nodes_p = nodes_a = None
    # Packing compares the pods both views admit (a pod only one admits is named per resource below); resources
    # neither view states do not limit it.
    both = [p for p in pods if _fits(p, room_p) and _fits(p, room_a)]
    if both:
        unstated = {name: _UNLIMITED for pod in both for name in pod.requests} | {PODS: _UNLIMITED}
        nodes_p, nodes_a = (
            estimate(both, Template(pool, instance_type, labels or {}, taints, {**unstated, **alloc}, overhead)).nodes
            for alloc in (predicted, actual)
        )
    out = []
    for resource in sorted(set(predicted) & set(actual)):
        if predicted[resource] == actual[resource]:
            continue
        # The pods this resource decides: they fit one room, and their request for it lies between the two.
        if predicted[resource] > actual[resource]:
            fits_room, other = room_p, room_a
        else:
            fits_room, other = room_a, room_p
        flipped = [p.key for p in pods if _fits(p, fits_room) and p.requests.get(resource, 0) > other.get(resource, 0)]
        out.append(
            ProvisionerGap(
                provisioner,
                pool,
                instance_type,
                resource,
                predicted[resource],
                actual[resource],
                tuple(sorted(flipped)),
                nodes_p,
                nodes_a,
            )
        )
    return out
