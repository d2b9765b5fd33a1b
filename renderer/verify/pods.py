"""What running pods request from a node, counted as the scheduler and the kubelet count it.

``pod_requests`` follows ``PodRequests`` of k8s.io/component-helpers/resource (kubernetes/kubernetes@0085214e:
staging/src/k8s.io/component-helpers/resource/helpers.go), the function the scheduler's NodeResourcesFit and the
kubelet's admission use:

- the containers' requests are summed;
- init containers run one at a time, so each counts with the restartable init containers (sidecars,
  ``restartPolicy: Always``) started before it, and the pod needs the largest such moment if it exceeds the sum;
  sidecars themselves also run alongside the containers, so their requests are added to the sum;
- pod-level requests (``spec.resources.requests``, PodLevelResources) replace the aggregate for cpu, memory and
  hugepages-*;
- ``spec.overhead`` (set by admission from the RuntimeClass) is added last.

In-place resize (``UseStatusResources``, on since Kubernetes 1.33; ``renderer.verify.podstatus`` reads the status):
the aggregate is the per-resource maximum of three aggregates — the spec's, the allocated resources'
(``status.containerStatuses[].allocatedResources``, else the spec) and the actuated ones'
(``status.containerStatuses[].resources.requests``, else the allocated, else the spec) — and, while the pod carries
``PodResizePending`` with reason ``Infeasible``, of the last two only (a container with neither then counts nothing,
as upstream). With pod-level status (KEP-5419: ``status.allocatedResources`` and ``status.resources.requests``, both
present) those replace the two container aggregates, and pod-level requests follow the same rule, the pod overhead taken out of the
status values first. The kubelet admits on its allocation instead of the spec (``allocation_manager.go``
``UpdatePodFromAllocation`` overlays it): ``kubelet=True`` reads a container's ``allocatedResources`` as its spec,
and the pod-level ``status.allocatedResources`` (less the overhead) as the pod-level requests.

``non_missing`` is upstream's ``NonMissingContainerRequests`` option: a container (regular or init) without a request
for one of those resources counts the given amount instead (an explicit ``0`` stays 0). The scheduler's scoring plugins
count pods this way, with 100m cpu and 200Mi memory (``schedutil.DefaultMilliCPURequest``/``DefaultMemoryRequest``).

A sum past 2^63-1 (each quantity the API server accepts is at most that, their sum is not bounded) is a ``PodError``
naming the field whose addition leaves the range: Kubernetes adds quantities without bound but counts them in int64
(``MilliValue``/``Value`` in ``framework.Resource``), so what it makes of such a pod is not a resource amount, and
the simulation does not guess one (docs/security.md).

Pods in phase Succeeded or Failed hold nothing; every other pod bound to a node (``spec.nodeName``) counts, and
counts against the node's pod limit. Cost: O(containers) per pod.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from renderer.escaping import plain
from renderer.loading.prune import KeepSpec
from renderer.quantity import Quantity
from renderer.verify.podrequests import (
    MAX_QUANTITY,
    PAST_RANGE,
    PodError,
    Requests,
    add,
    aggregate,
    is_pod_level,
    requests_of,
    spec_requests,
)
from renderer.verify.podstatus import status_requests

__all__ = [
    "MAX_QUANTITY",
    "POD_KEEP",
    "STATUS_KEEP",
    "NodeTotals",
    "PodError",
    "PodRecord",
    "Requests",
    "pod_problem",
    "pod_record",
    "pod_requests",
]

_CONTAINER_KEEP: KeepSpec = {"name": True, "resources": {"requests": True}, "restartPolicy": True}
_CONTAINER_STATUS_KEEP: KeepSpec = {"name": True, "allocatedResources": True, "resources": {"requests": True}}
#: What the in-place resize rule reads of a pod's status (``renderer.verify.podstatus``).
STATUS_KEEP: KeepSpec = {
    "phase": True,
    "conditions": {"type": True, "reason": True},
    "resize": True,
    "containerStatuses": _CONTAINER_STATUS_KEEP,
    "initContainerStatuses": _CONTAINER_STATUS_KEEP,
    "allocatedResources": True,
    "resources": {"requests": True},
}
#: The fields of a Pod verify reads (everything else in the dump is skipped while reading; the spec for
#: containers applies to each container).
POD_KEEP: KeepSpec = {
    "apiVersion": True,
    "kind": True,
    "metadata": {"name": True, "namespace": True},
    "spec": {
        "nodeName": True,
        "containers": _CONTAINER_KEEP,
        "initContainers": _CONTAINER_KEEP,
        "overhead": True,
        "resources": {"requests": True},
    },
    "status": STATUS_KEEP,
}
TERMINAL_PHASES = ("Succeeded", "Failed")


def pod_requests(
    spec: Mapping[str, Any],
    non_missing: Mapping[str, Quantity] | None = None,
    status: Mapping[str, Any] | None = None,
    *,
    kubelet: bool = False,
) -> Requests:
    """The pod's effective requests per resource (see the module docstring). ``status``: the pod's status, for the
    in-place resize rule (None: the spec alone, ``UseStatusResources`` off); ``kubelet``: the kubelet's view, its
    allocation read as the spec."""
    if status is not None:
        result = status_requests(spec, status, non_missing, kubelet=kubelet)
    else:
        result = aggregate(spec, spec_requests, non_missing)
        resources = spec.get("resources") or {}
        if not isinstance(resources, dict):
            raise PodError(("spec", "resources"), "must be a mapping")
        for name, q in requests_of(resources.get("requests"), ("spec", "resources", "requests")).items():
            if is_pod_level(name):
                result[name] = q
    add(result, requests_of(spec.get("overhead"), ("spec", "overhead")), ("spec", "overhead"), keyed=True)
    return result


class NodeTotals:
    """The requests of the pods bound to each node, added up as they are read: a node whose pods together request
    more than 2^63-1 of a resource is refused (``PodError`` on the pod that crosses it), as one pod is."""

    def __init__(self) -> None:
        self._totals: dict[str, dict[str, Any]] = {}

    def add(self, node: str, requests: Mapping[str, Quantity]) -> None:
        totals = self._totals.setdefault(node, {})
        for name, q in requests.items():
            value = totals.get(name, 0) + q.value
            if value > MAX_QUANTITY:
                raise PodError(
                    ("spec", "nodeName"),
                    f"the {plain(name)} requests of the pods on node {plain(node)} add up {PAST_RANGE}",
                )
            totals[name] = value


def pod_problem(data: Mapping[str, Any], index: int, exc: PodError) -> str:
    """The message of a pod that cannot be read, naming it: ``Pod NAMESPACE/NAME (item N): FIELD: WHAT``."""
    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if not isinstance(name, str) or not name:
        return f"Pod item {index + 1}: {exc}"
    namespace = meta.get("namespace") if isinstance(meta, dict) else None
    shown = f"{namespace}/{name}" if isinstance(namespace, str) and namespace else name
    return f"Pod {plain(shown)} (item {index + 1}): {exc}"


@dataclass(frozen=True)
class PodRecord:
    namespace: str
    name: str
    node: str | None
    phase: str
    requests: dict[str, Quantity]

    @property
    def holds_resources(self) -> bool:
        return self.node is not None and self.phase not in TERMINAL_PHASES


def pod_record(data: dict[str, Any], totals: NodeTotals | None = None) -> PodRecord:
    """A pruned Pod object → its record (``PodError`` names a field that cannot be read); ``totals`` adds a pod that
    holds room to its node's."""
    meta = data.get("metadata") or {}
    spec = data.get("spec") or {}
    status = data.get("status") or {}
    for key, value in (("metadata", meta), ("spec", spec), ("status", status)):
        if not isinstance(value, dict):
            raise PodError((key,), "must be a mapping")
    node = spec.get("nodeName")
    record = PodRecord(
        namespace=str(meta.get("namespace") or ""),
        name=str(meta.get("name") or ""),
        node=str(node) if node else None,
        phase=str(status.get("phase") or ""),
        requests=pod_requests(spec, status=status),
    )
    if totals is not None and record.holds_resources and record.node is not None:
        totals.add(record.node, record.requests)
    return record
