"""The NodeResourcesFit filter: does a pod's request fit what a node has left?

Order and rules (kubernetes/kubernetes pkg/scheduler/framework/plugins/noderesources/fit.go ``fitsRequest``; vectors
in tests/impact/fixtures/fit_cases.yaml):

1. pods: ``pods on the node + 1 > allocatable pods`` fails ("Too many pods") — always checked, even for a pod that
   requests nothing;
2. a pod whose cpu, memory and ephemeral-storage requests are all 0 and that has no other (scalar) request fits;
3. cpu, memory, ephemeral-storage: checked only when the pod requests more than 0 of it; fails when
   ``request > allocatable - used`` (so an already over-committed node still takes pods that request none of it);
4. every other requested resource (extended resources, hugepages-*): skipped when ignored (``ignored_resources``, or
   its domain prefix in ``ignored_groups``; only extended resources can be ignored), else fails when
   ``request > allocatable - used``; a resource the node does not advertise has allocatable 0.

Every insufficiency is collected. Newer schedulers mark one *unresolvable* when ``request > allocatable`` on its own
(no preemption could free enough); :attr:`Insufficient.unresolvable` records it.

Cost: O(resources the pod requests) per (pod, node).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from renderer.impact.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS

__all__ = ["FitArgs", "Insufficient", "fits", "insufficient"]


@dataclass(frozen=True, slots=True)
class Insufficient:
    """One failed check: the pod asks ``requested`` with ``used`` of ``allocatable`` already taken."""

    resource: str
    requested: int
    used: int
    allocatable: int

    @property
    def unresolvable(self) -> bool:
        """True when the request exceeds the node's whole allocatable (preemption cannot help)."""
        return self.requested > self.allocatable

    @property
    def reason(self) -> str:
        """The scheduler's wording."""
        return "Too many pods" if self.resource == PODS else f"Insufficient {self.resource}"


@dataclass(frozen=True, slots=True)
class FitArgs:
    """NodeResourcesFitArgs that change the filter: extended resources it ignores."""

    ignored_resources: frozenset[str] = frozenset()
    ignored_groups: frozenset[str] = frozenset()

    def ignores(self, name: str) -> bool:
        if not _is_extended(name):
            return False
        return name in self.ignored_resources or name.split("/", 1)[0] in self.ignored_groups


DEFAULT_ARGS = FitArgs()


def _is_extended(name: str) -> bool:
    # v1helper.IsExtendedResourceName: a domain-prefixed name outside kubernetes.io (and not requests.*).
    if "/" not in name or name.startswith("requests."):
        return False
    domain = name.split("/", 1)[0]
    return not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io"))


def insufficient(
    request: Mapping[str, int],
    allocatable: Mapping[str, int],
    used: Mapping[str, int],
    pod_count: int,
    args: FitArgs = DEFAULT_ARGS,
) -> list[Insufficient]:
    """Every check the pod fails on a node with ``allocatable``, ``used`` (requests of its pods) and ``pod_count``
    pods; empty when it fits. ``request`` holds the pod's non-zero requests."""
    out: list[Insufficient] = []
    max_pods = allocatable.get(PODS, 0)
    if pod_count + 1 > max_pods:
        out.append(Insufficient(PODS, 1, pod_count, max_pods))
    if not request:
        return out
    for name in (CPU, MEMORY, EPHEMERAL_STORAGE):
        want = request.get(name, 0)
        if want > 0:
            have, taken = allocatable.get(name, 0), used.get(name, 0)
            if want > have - taken:
                out.append(Insufficient(name, want, taken, have))
    for name, want in request.items():
        if name in (CPU, MEMORY, EPHEMERAL_STORAGE, PODS) or want == 0 or args.ignores(name):
            continue
        have, taken = allocatable.get(name, 0), used.get(name, 0)
        if want > have - taken:
            out.append(Insufficient(name, want, taken, have))
    return out


def fits(
    request: Mapping[str, int],
    allocatable: Mapping[str, int],
    used: Mapping[str, int],
    pod_count: int,
    args: FitArgs = DEFAULT_ARGS,
) -> bool:
    """``not insufficient(...)``, without building the list (the hot path of placement)."""
    if pod_count >= allocatable.get(PODS, 0):
        return False
    for name, want in request.items():
        if want > 0 and name != PODS and want > allocatable.get(name, 0) - used.get(name, 0):
            if args is not DEFAULT_ARGS and args.ignores(name):
                continue
            return False
    return True
