"""A pod's status as the in-place resize rule reads it (``PodRequests`` with ``UseStatusResources``, Kubernetes 1.33+:
kubernetes/kubernetes@0085214e staging/src/k8s.io/component-helpers/resource/helpers.go; the rule itself is described
in ``renderer.verify.pods``).

What a snapshot from another Kubernetes version may hold is read without guesses, and :func:`resize_notes` says what
was found so the caller can count it:

- no status fields (before 1.33, or the feature off): the spec alone, as those schedulers count it;
- ``PodResizePending`` with reason ``Infeasible``: the status values only; with ``Deferred`` or any other reason
  (a newer one this project does not know) the three-way maximum, as ``IsPodResizeInfeasible`` reads only
  ``Infeasible``;
- the ``status.resize`` field of 1.27–1.32 (removed in 1.33): ``Infeasible`` there is read as the condition, as the
  schedulers of those versions read it;
- an infeasible resize whose container reports neither ``allocatedResources`` nor ``resources``: that container
  counts nothing, as upstream (``containerActuatedRequests`` returns nil), and it is said;
- any other resize pending whose container reports no ``allocatedResources`` (a kubelet that does not write them):
  the spec and the running resources count, as upstream, and it is said; the kubelet re-admits such a container at
  its running resources (its checkpointed allocation until it admits the resize).

Cost: O(containers + container statuses) per pod.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from renderer.findings import FieldPath
from renderer.quantity import Quantity
from renderer.verify.podrequests import (
    Getter,
    PodError,
    Requests,
    aggregate,
    is_pod_level,
    max_of,
    requests_of,
    spec_list,
    spec_requests,
)

__all__ = [
    "INFEASIBLE_EMPTY",
    "LEGACY_RESIZE",
    "NO_ALLOCATION",
    "RESIZE_INFEASIBLE",
    "UNKNOWN_REASON",
    "resize_notes",
    "status_is_plain",
    "status_requests",
]

#: The notes :func:`resize_notes` gives, by what they say.
RESIZE_INFEASIBLE: Final = "in-place resize Infeasible: counted at the resources the node runs it with"
UNKNOWN_REASON: Final = "PodResizePending with a reason other than Infeasible or Deferred: counted as a resize underway"
LEGACY_RESIZE: Final = "status.resize of Kubernetes 1.27-1.32: read as the PodResizePending condition"
INFEASIBLE_EMPTY: Final = (
    "in-place resize Infeasible without status resources for a container: that container counts nothing, as the "
    "scheduler counts it"
)
NO_ALLOCATION: Final = (
    "a resize pending without allocatedResources for a container (its kubelet does not report them): counted at "
    "the spec and the running resources, as the scheduler counts it, and re-admitted at the running resources (the "
    "kubelet's allocation until it admits the resize)"
)
_KNOWN_REASONS: Final = ("Infeasible", "Deferred")
#: The 1.27–1.32 ``status.resize`` values of a resize the kubelet has not admitted yet (``InProgress`` has been).
_LEGACY_PENDING: Final = ("Proposed", "Deferred", "Infeasible")


def _dict(value: Any, where: FieldPath) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise PodError(where, "must be a mapping")
    return value


def _resize_reason(status: Mapping[str, Any]) -> tuple[str | None, bool]:
    """The reason of the first ``PodResizePending`` condition (``IsPodResizeInfeasible`` reads the first), else that
    of the legacy ``status.resize`` field; and whether it came from the legacy field."""
    conditions = status.get("conditions")
    if conditions is not None and not isinstance(conditions, list):
        raise PodError(("status", "conditions"), "must be a list")
    for c in conditions or ():
        if isinstance(c, dict) and c.get("type") == "PodResizePending":
            return str(c.get("reason") or ""), False
    legacy = status.get("resize")
    if isinstance(legacy, str) and legacy:
        return legacy, True
    return None, False


def _statuses(status: Mapping[str, Any]) -> dict[str, tuple[FieldPath, Mapping[str, Any]]]:
    """Container statuses by name (``findContainerStatus``: the containers' first, then the init containers')."""
    out: dict[str, tuple[FieldPath, Mapping[str, Any]]] = {}
    for key in ("containerStatuses", "initContainerStatuses"):
        items = status.get(key)
        if items is None:
            continue
        if not isinstance(items, list):
            raise PodError(("status", key), "must be a list")
        for j, cs in enumerate(items):
            where: FieldPath = ("status", key, j)
            cs = _dict(cs, where)
            out.setdefault(str(cs.get("name") or ""), (where, cs))
    return out


class _Status:
    """One pod's status, read once: the getters ``aggregateContainerResourcesByFn`` is called with."""

    def __init__(self, status: Mapping[str, Any], kubelet: bool) -> None:
        reason, legacy = _resize_reason(status)
        self.infeasible = reason == "Infeasible"
        self.reason, self.legacy = reason, legacy
        self.kubelet = kubelet
        self.pending = reason is not None and (not legacy or reason in _LEGACY_PENDING)
        self.by_name = _statuses(status)

    def find(self, c: Mapping[str, Any]) -> tuple[FieldPath, Mapping[str, Any]] | None:
        return self.by_name.get(str(c.get("name") or ""))

    def status_allocated(self, found: tuple[FieldPath, Mapping[str, Any]] | None) -> Requests | None:
        if found is None:
            return None
        where, cs = found
        raw = cs.get("allocatedResources")
        return None if raw is None else requests_of(raw, (*where, "allocatedResources"))

    def status_actuated(self, found: tuple[FieldPath, Mapping[str, Any]] | None) -> Requests | None:
        if found is None:
            return None
        where, cs = found
        resources = _dict(cs.get("resources"), (*where, "resources"))
        raw = resources.get("requests")
        return None if raw is None else requests_of(raw, (*where, "resources", "requests"))

    def spec(self, c: Mapping[str, Any], where: FieldPath) -> tuple[Requests | None, FieldPath]:
        """The spec, or for the kubelet its allocation where it has one (``UpdatePodFromAllocation``). A kubelet that
        does not report ``allocatedResources`` (the field is behind an alpha gate since 1.33) still has one in its
        checkpoint: while a resize is pending (not yet admitted: ``PodResizePending``, or the 1.27–1.32 ``Proposed``,
        ``Deferred`` and ``Infeasible``) that allocation is what the container runs with, so the running resources
        stand for it; otherwise (no resize, or one admitted and in progress) the allocation is the spec."""
        if self.kubelet:
            found = self.find(c)
            allocated = self.status_allocated(found)
            if allocated is not None and found is not None:
                return allocated, (*found[0], "allocatedResources")
            if self.pending and found is not None:
                running = self.status_actuated(found)
                if running is not None:
                    return running, (*found[0], "resources", "requests")
        return spec_requests(c, where)

    def allocated(self, c: Mapping[str, Any], where: FieldPath) -> tuple[Requests | None, FieldPath]:
        """``containerAllocatedRequests``."""
        found = self.find(c)
        got = self.status_allocated(found)
        if got is not None and found is not None:
            return got, (*found[0], "allocatedResources")
        return (None, where) if self.infeasible else self.spec(c, where)

    def actuated(self, c: Mapping[str, Any], where: FieldPath) -> tuple[Requests | None, FieldPath]:
        """``containerActuatedRequests``."""
        found = self.find(c)
        got = self.status_actuated(found)
        if got is not None and found is not None:
            return got, (*found[0], "resources", "requests")
        return self.allocated(c, where)


def _pod_level_status(status: Mapping[str, Any]) -> tuple[Requests | None, Requests | None, bool]:
    """(``status.resources.requests``, ``status.allocatedResources``, whether either object is present)."""
    resources = status.get("resources")
    allocated_raw = status.get("allocatedResources")
    actuated = None
    if resources is not None:
        resources = _dict(resources, ("status", "resources"))
        raw = resources.get("requests")
        actuated = None if raw is None else requests_of(raw, ("status", "resources", "requests"))
    allocated = None if allocated_raw is None else requests_of(allocated_raw, ("status", "allocatedResources"))
    return actuated, allocated, resources is not None or allocated_raw is not None


def _less_overhead(values: Requests | None, overhead: Requests) -> Requests | None:
    """``subtractResourceList``: the overhead taken out of the names the list has, never below zero."""
    if values is None:
        return None
    out = dict(values)
    for name, q in overhead.items():
        if name in out:
            left = out[name].value - q.value
            out[name] = Quantity(left if left > 0 else 0, out[name].format)
    return out


def status_requests(
    spec: Mapping[str, Any], status: Mapping[str, Any], non_missing: Mapping[str, Quantity] | None, *, kubelet: bool
) -> Requests:
    """``PodRequests`` with ``UseStatusResources`` (and pod-level status, KEP-5419), overhead left to the caller."""
    view = _Status(status, kubelet)
    getters: tuple[Getter, Getter, Getter] = (view.spec, view.allocated, view.actuated)
    spec_agg = aggregate(spec, getters[0], non_missing)
    actuated_pl, allocated_pl, pod_status = _pod_level_status(status)
    if allocated_pl is not None and actuated_pl is not None:
        allocated_agg, actuated_agg = allocated_pl, actuated_pl
    else:
        allocated_agg = aggregate(spec, getters[1], non_missing)
        actuated_agg = aggregate(spec, getters[2], non_missing)
    result = max_of(None if view.infeasible else spec_agg, actuated_agg, allocated_agg)
    resources = _dict(spec.get("resources"), ("spec", "resources"))
    pod_level = requests_of(resources.get("requests"), ("spec", "resources", "requests"))
    if any(is_pod_level(n) for n in pod_level):
        effective: Requests = pod_level
        if pod_status:
            overhead = requests_of(spec.get("overhead"), ("spec", "overhead"))
            if kubelet and allocated_pl is not None:
                # the kubelet's pod is its checkpointed allocation (UpdatePodFromAllocation sets spec.resources),
                # which the status shows with the overhead in it
                pod_level = {n: q for n, q in (_less_overhead(allocated_pl, overhead) or {}).items() if is_pod_level(n)}
            effective = max_of(
                None if view.infeasible else pod_level,
                _less_overhead(actuated_pl, overhead),
                _less_overhead(allocated_pl, overhead),
            )
        for name, q in effective.items():
            if is_pod_level(name):
                result[name] = q
    return result


def status_is_plain(spec: Mapping[str, Any], status: Mapping[str, Any]) -> bool:
    """True when the status cannot change the count: no resize condition, no pod-level status resources, and every
    container's status resources written as its spec requests (the common case, checked on the text as read; a
    status that differs only in spelling, ``0.5`` for ``500m``, is read in full and counts the same)."""
    if status.get("resize") or status.get("allocatedResources") is not None or status.get("resources") is not None:
        return False
    for key in ("conditions", "containerStatuses", "initContainerStatuses"):
        if status.get(key) is not None and not isinstance(status.get(key), list):
            return False  # read in full, to be refused with its place
    conditions = status.get("conditions")
    if isinstance(conditions, list) and any(
        isinstance(c, dict) and c.get("type") == "PodResizePending" for c in conditions
    ):
        return False
    wanted: dict[str, Any] = {}
    for key in ("initContainers", "containers"):
        for c in spec_list(spec, key):
            if isinstance(c, dict):
                resources = c.get("resources")
                wanted[str(c.get("name") or "")] = resources.get("requests") if isinstance(resources, dict) else None
    for key in ("containerStatuses", "initContainerStatuses"):
        items = status.get(key)
        for cs in items if isinstance(items, list) else ():
            if not isinstance(cs, dict):
                return False
            spec_req = wanted.get(str(cs.get("name") or "")) or {}
            allocated = cs.get("allocatedResources")
            resources = cs.get("resources")
            actuated = resources.get("requests") if isinstance(resources, dict) else None
            if (allocated is not None and allocated != spec_req) or (actuated is not None and actuated != spec_req):
                return False
            if resources is not None and not isinstance(resources, dict):
                return False
    return True


def resize_notes(spec: Mapping[str, Any], status: Mapping[str, Any]) -> tuple[str, ...]:
    """What the status says that a reader of the result should be told (the notes above); () for most pods."""
    reason, legacy = _resize_reason(status)
    notes: list[str] = []
    if legacy:
        notes.append(LEGACY_RESIZE)
    if reason == "Infeasible":
        notes.append(RESIZE_INFEASIBLE)
        view = _Status(status, kubelet=False)
        for key in ("containers", "initContainers"):
            for c in spec_list(spec, key):
                found = view.find(c) if isinstance(c, dict) else None
                if found is None or (view.status_allocated(found) is None and view.status_actuated(found) is None):
                    notes.append(INFEASIBLE_EMPTY)
                    return tuple(notes)
    elif reason is not None:
        if reason not in _KNOWN_REASONS and not legacy:
            notes.append(UNKNOWN_REASON)
        view = _Status(status, kubelet=False)
        for key in ("containers", "initContainers"):
            for c in spec_list(spec, key):
                found = view.find(c) if isinstance(c, dict) else None
                if found is None or view.status_allocated(found) is None:
                    notes.append(NO_ALLOCATION)
                    return tuple(notes)
    return tuple(notes)
