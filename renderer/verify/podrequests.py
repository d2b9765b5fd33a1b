"""The arithmetic of pod requests shared by ``renderer.verify.pods`` (the rule) and ``renderer.verify.podstatus``
(what a pod's status adds to it): resource lists read as quantities, their sums bounded by what a quantity holds, the
per-resource maximum, and the aggregate of a pod's containers with the init-container rule (component-helpers
``aggregateContainerResourcesByFn``).

Cost: O(containers × resources) per aggregate.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from renderer.escaping import plain
from renderer.findings import FieldPath
from renderer.quantity import Quantity, QuantityError

__all__ = [
    "MAX_QUANTITY",
    "PAST_RANGE",
    "Getter",
    "PodError",
    "Requests",
    "add",
    "aggregate",
    "is_pod_level",
    "max_of",
    "requests_of",
    "spec_list",
    "spec_requests",
]

Requests = dict[str, Quantity]
#: The largest quantity Kubernetes stores (int64), in each quantity's own unit.
MAX_QUANTITY: Final = 2**63 - 1
PAST_RANGE: Final = (
    f"past 2^63-1 ({MAX_QUANTITY}), the largest quantity Kubernetes holds: the scheduler and the kubelet count it in "
    "int64 arithmetic that leaves its range, so no count of this pod can be trusted; lower the requests, or leave the "
    "pod out of the dump"
)


class PodError(ValueError):
    """A field of a pod that cannot be read: the message names it, ``field_path`` leads to it."""

    def __init__(self, field_path: FieldPath, message: str) -> None:
        super().__init__(f"{_dotted(field_path)}: {message}" if field_path else message)
        self.field_path = field_path
        self.reason = message


def _dotted(path: FieldPath) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{plain(step)}" if out else plain(str(step)))
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


def add(into: Requests, more: Mapping[str, Quantity], where: FieldPath, keyed: bool = False) -> None:
    """``into += more``; a sum past 2^63-1 is a ``PodError`` at ``where`` (the added list's own entry: ``keyed``)."""
    for k, v in more.items():
        if k not in into:
            into[k] = v
            continue
        try:
            into[k] = into[k] + v
        except QuantityError:
            raise PodError(
                (*where, k) if keyed else where, f"the pod's {plain(k)} requests add up {PAST_RANGE}"
            ) from None


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


def spec_list(spec: Mapping[str, Any], key: str) -> list[Any]:
    """``spec.<key>`` (containers, initContainers) as a list; anything else a ``PodError`` naming it."""
    value = spec.get(key) or []
    if not isinstance(value, list):
        raise PodError(("spec", key), "must be a list")
    return value


#: One container's requests as a source counts them: (the container, where it is) → (a list, or None for Go's nil;
#: where that list is, for a sum that leaves the range).
Getter = Callable[[Mapping[str, Any], FieldPath], "tuple[Requests | None, FieldPath]"]


def aggregate(spec: Mapping[str, Any], get: Getter, non_missing: Mapping[str, Quantity] | None = None) -> Requests:
    """``aggregateContainerResourcesByFn``: the containers summed, then the init-container rule with sidecars."""
    result: Requests = {}
    for i, c in enumerate(spec_list(spec, "containers")):
        where: FieldPath = ("spec", "containers", i)
        got, at = get(_mapping(c, where), where)
        add(result, _filled(got, non_missing), at)
    sidecars: Requests = {}
    init_peak: Requests = {}
    for i, c in enumerate(spec_list(spec, "initContainers")):
        where = ("spec", "initContainers", i)
        got, at = get(_mapping(c, where), where)
        req = _filled(got, non_missing)
        if c.get("restartPolicy") == "Always":
            add(result, req, at)
            add(sidecars, req, at)
            moment = dict(sidecars)
        else:
            moment = dict(req)
            add(moment, sidecars, at)
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


def spec_requests(c: Mapping[str, Any], where: FieldPath) -> tuple[Requests, FieldPath]:
    """The spec getter (``containerSpecRequests``)."""
    return _container_requests(c, where), where
