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

``non_missing`` is upstream's ``NonMissingContainerRequests`` option: a container (regular or init) without a request
for one of those resources counts the given amount instead (an explicit ``0`` stays 0). The scheduler's scoring plugins
count pods this way, with 100m cpu and 200Mi memory (``schedutil.DefaultMilliCPURequest``/``DefaultMemoryRequest``).

Pods in phase Succeeded or Failed hold nothing; every other pod bound to a node (``spec.nodeName``) counts, and
counts against the node's pod limit. Cost: O(containers) per pod.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from renderer.findings import FieldPath
from renderer.loading.prune import KeepSpec
from renderer.quantity import Quantity, QuantityError

__all__ = ["POD_KEEP", "PodRecord", "pod_record", "pod_requests"]

_CONTAINER_KEEP: KeepSpec = {"name": True, "resources": {"requests": True}, "restartPolicy": True}
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
    "status": {"phase": True},
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


def _requests(obj: Any, where: FieldPath) -> dict[str, Quantity]:
    if obj is None:
        return {}
    if not isinstance(obj, dict):
        raise PodError(where, "must be a mapping of resource names to quantities")
    out: dict[str, Quantity] = {}
    for name, raw in obj.items():
        try:
            out[str(name)] = Quantity.parse(str(raw))
        except QuantityError as exc:
            raise PodError((*where, str(name)), str(exc)) from None
    return out


def _add(into: dict[str, Quantity], more: dict[str, Quantity]) -> None:
    for k, v in more.items():
        into[k] = into[k] + v if k in into else v


def _max(into: dict[str, Quantity], other: dict[str, Quantity]) -> None:
    for k, v in other.items():
        if k not in into or v > into[k]:
            into[k] = v


def _container_requests(
    c: Any, where: FieldPath, non_missing: Mapping[str, Quantity] | None = None
) -> dict[str, Quantity]:
    if not isinstance(c, dict):
        raise PodError(where, "must be a mapping")
    resources = c.get("resources") or {}
    if not isinstance(resources, dict):
        raise PodError((*where, "resources"), "must be a mapping")
    out = _requests(resources.get("requests"), (*where, "resources", "requests"))
    if non_missing:
        for name, amount in non_missing.items():
            out.setdefault(name, amount)
    return out


def _is_pod_level(name: str) -> bool:
    return name in ("cpu", "memory") or name.startswith("hugepages-")


def _list(spec: dict[str, Any], key: str) -> list[Any]:
    value = spec.get(key) or []
    if not isinstance(value, list):
        raise PodError(("spec", key), "must be a list")
    return value


def pod_requests(spec: dict[str, Any], non_missing: Mapping[str, Quantity] | None = None) -> dict[str, Quantity]:
    """The pod's effective requests per resource (see the module docstring)."""
    result: dict[str, Quantity] = {}
    for i, c in enumerate(_list(spec, "containers")):
        _add(result, _container_requests(c, ("spec", "containers", i), non_missing))
    sidecars: dict[str, Quantity] = {}
    init_peak: dict[str, Quantity] = {}
    for i, c in enumerate(_list(spec, "initContainers")):
        req = _container_requests(c, ("spec", "initContainers", i), non_missing)
        if c.get("restartPolicy") == "Always":
            _add(result, req)
            _add(sidecars, req)
            moment = dict(sidecars)
        else:
            moment = dict(req)
            _add(moment, sidecars)
        _max(init_peak, moment)
    _max(result, init_peak)
    resources = spec.get("resources") or {}
    if not isinstance(resources, dict):
        raise PodError(("spec", "resources"), "must be a mapping")
    pod_level = _requests(resources.get("requests"), ("spec", "resources", "requests"))
    for name, q in pod_level.items():
        if _is_pod_level(name):
            result[name] = q
    _add(result, _requests(spec.get("overhead"), ("spec", "overhead")))
    return result


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


def pod_record(data: dict[str, Any]) -> PodRecord:
    """A pruned Pod object → its record (``PodError`` names a field that cannot be read)."""
    meta = data.get("metadata") or {}
    spec = data.get("spec") or {}
    status = data.get("status") or {}
    for key, value in (("metadata", meta), ("spec", spec), ("status", status)):
        if not isinstance(value, dict):
            raise PodError((key,), "must be a mapping")
    node = spec.get("nodeName")
    return PodRecord(
        namespace=str(meta.get("namespace") or ""),
        name=str(meta.get("name") or ""),
        node=str(node) if node else None,
        phase=str(status.get("phase") or ""),
        requests=pod_requests(spec),
    )
