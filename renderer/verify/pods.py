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
as upstream). With pod-level status (KEP-5419: ``status.allocatedResources`` and ``status.resources.requests``) those
replace the two container aggregates, and pod-level requests follow the same rule, the pod overhead taken out of the
status values first. The kubelet admits on its allocation instead of the spec (``allocation_manager.go``
``UpdatePodFromAllocation`` overlays it): ``kubelet=True`` reads a container's ``allocatedResources`` as its spec.

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

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from renderer.findings import FieldPath
from renderer.loading.prune import KeepSpec
from renderer.quantity import Quantity, QuantityError

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

Requests = dict[str, Quantity]
#: The largest quantity Kubernetes stores (int64), in each quantity's own unit.
MAX_QUANTITY: Final = 2**63 - 1
_PAST_RANGE: Final = (
    f"past 2^63-1 ({MAX_QUANTITY}), the largest quantity Kubernetes holds: the scheduler and the kubelet count it in "
    "int64 arithmetic that leaves its range, so no count of this pod can be trusted; lower the requests, or leave the "
    "pod out of the dump"
)

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


class PodError(ValueError):
    """A field of a pod that cannot be read: the message names it, ``field_path`` leads to it."""

    def __init__(self, field_path: FieldPath, message: str) -> None:
        super().__init__(f"{_dotted(field_path)}: {message}" if field_path else message)
        self.field_path = field_path


def _dotted(path: FieldPath) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def requests_of(obj: Any, where: FieldPath) -> Requests:
    """A resource list (``requests``, ``overhead``, ``allocatedResources``) as quantities; absent or null: empty."""
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise PodError(where, "must be a mapping of resource names to quantities")
    out: Requests = {}
    for name, raw in obj.items():
        try:
            out[str(name)] = Quantity.parse(str(raw))
        except QuantityError as exc:
            raise PodError((*where, str(name)), str(exc)) from None
    return out


def _add(into: Requests, more: Mapping[str, Quantity], where: FieldPath, keyed: bool = False) -> None:
    """``into += more``; a sum past 2^63-1 is a ``PodError`` at ``where`` (the added list's own entry: ``keyed``)."""
    for k, v in more.items():
        if k not in into:
            into[k] = v
            continue
        try:
            into[k] = into[k] + v
        except QuantityError:
            raise PodError((*where, k) if keyed else where, f"the pod's {k} requests add up {_PAST_RANGE}") from None


def _max(into: Requests, other: Mapping[str, Quantity] | None) -> None:
    for k, v in (other or {}).items():
        if k not in into or v > into[k]:
            into[k] = v


def max_of(first: Requests | None, *others: Requests | None) -> Requests:
    """Upstream's ``max``: per resource, the largest of the lists (None: a list that is absent, Go's nil)."""
    out = dict(first or {})
    for other in others:
        _max(out, other)
    return out


def _container_requests(c: Any, where: FieldPath) -> Requests:
    if not isinstance(c, dict):
        raise PodError(where, "must be a mapping")
    resources = c.get("resources") or {}
    if not isinstance(resources, dict):
        raise PodError((*where, "resources"), "must be a mapping")
    return requests_of(resources.get("requests"), (*where, "resources", "requests"))


def is_pod_level(name: str) -> bool:
    """A resource pod-level requests can set (``IsSupportedPodLevelResource``)."""
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def _list(spec: Mapping[str, Any], key: str) -> list[Any]:
    value = spec.get(key) or []
    if not isinstance(value, list):
        raise PodError(("spec", key), "must be a list")
    return value


#: One container's requests as a source counts them: (the container, where it is) → a list, or None for Go's nil.
Getter = Callable[[Mapping[str, Any], FieldPath], "Requests | None"]


def aggregate(spec: Mapping[str, Any], get: Getter, non_missing: Mapping[str, Quantity] | None = None) -> Requests:
    """``aggregateContainerResourcesByFn``: the containers summed, then the init-container rule with sidecars."""
    result: Requests = {}
    for i, c in enumerate(_list(spec, "containers")):
        where: FieldPath = ("spec", "containers", i)
        _add(result, _filled(get(_mapping(c, where), where), non_missing), where)
    sidecars: Requests = {}
    init_peak: Requests = {}
    for i, c in enumerate(_list(spec, "initContainers")):
        where = ("spec", "initContainers", i)
        req = _filled(get(_mapping(c, where), where), non_missing)
        if c.get("restartPolicy") == "Always":
            _add(result, req, where)
            _add(sidecars, req, where)
            moment = dict(sidecars)
        else:
            moment = dict(req)
            _add(moment, sidecars, where)
        _max(init_peak, moment)
    _max(result, init_peak)
    return result


def _mapping(c: Any, where: FieldPath) -> Mapping[str, Any]:
    if not isinstance(c, dict):
        raise PodError(where, "must be a mapping")
    return c


def _filled(req: Requests | None, non_missing: Mapping[str, Quantity] | None) -> Requests:
    out = dict(req or {})
    for name, amount in (non_missing or {}).items():
        out.setdefault(name, amount)
    return out


def spec_requests(c: Mapping[str, Any], where: FieldPath) -> Requests:
    """The spec getter (``containerSpecRequests``)."""
    return _container_requests(c, where)


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
        from renderer.verify.podstatus import status_requests

        result = status_requests(spec, status, non_missing, kubelet=kubelet)
    else:
        result = aggregate(spec, spec_requests, non_missing)
        resources = spec.get("resources") or {}
        if not isinstance(resources, dict):
            raise PodError(("spec", "resources"), "must be a mapping")
        for name, q in requests_of(resources.get("requests"), ("spec", "resources", "requests")).items():
            if is_pod_level(name):
                result[name] = q
    _add(result, requests_of(spec.get("overhead"), ("spec", "overhead")), ("spec", "overhead"), keyed=True)
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
                    ("spec", "nodeName"), f"the {name} requests of the pods on node {node} add up {_PAST_RANGE}"
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
    return f"Pod {shown} (item {index + 1}): {exc}"


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
