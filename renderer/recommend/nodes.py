"""Per node and day, the signals a recommendation reads, from the daily peaks of :class:`Usage`.

The reserved slices: ``kube`` is the kubelet's service plus the container runtime's (containerd, CRI-O or docker);
``system`` is what ``/system.slice`` holds besides them. With the systemd cgroup driver (and every cgroup v2 host
running systemd) both services are children of ``/system.slice``, so its working set already includes theirs: the
node's total is ``/system.slice`` itself (never less than the two services), and ``system`` is that total less the
services. Where a service lives elsewhere (``/runtime.slice/kubelet.service``, or ``/kubelet.service``), it is added
to ``/system.slice`` instead. Which applies is told per node from the cgroup ids that answered; a pool whose nodes do
it both ways is said to be mixed. The kubelet Summary API's system containers (``renderer.recommend.summary``) are
named ``kubelet``, ``runtime`` and ``misc`` (the system cgroups' processes, beside the other two).

The kubelet's and the runtime's daily peaks are added, though they may peak at different moments: the sum is never
below the peak of the sum, so a reservation from it errs towards safety (and the total, from ``/system.slice`` or the
sum, bounds it from above).

The evidence queries' series carry the kind of their value as ``id`` (``renderer.recommend.queries``): OOM kills per
scope (``OOM_SCOPES``), memory stall per PSI line (``STALL_KINDS``); an ``id`` of another kind is left out.

Cost: O(nodes × cgroups × days).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from renderer.promql import SYSTEM_SLICE
from renderer.recommend.usage import Usage

__all__ = ["OOM_SCOPES", "STALL_KINDS", "NodeDays", "node_days"]

#: The ``id`` of the oom_kills query's series: where the killed process ran (``renderer.recommend.queries``).
OOM_SCOPES = ("system", "pods", "all")
#: The ``id`` of the memory_stall query's series: PSI's two lines.
STALL_KINDS = ("some", "full")

_KUBELET = re.compile(r".*/kubelet\.service")
_RUNTIME = re.compile(r".*/(containerd|crio|docker)\.service")


@dataclass
class NodeDays:
    """One node's signals, day → value (memory in bytes, cpu in cores, ratios as fractions)."""

    name: str
    kube: dict[str, dict[int, float]] = field(default_factory=dict)  # "memory"/"cpu" → day → value
    system: dict[str, dict[int, float]] = field(default_factory=dict)
    total: dict[str, dict[int, float]] = field(default_factory=dict)
    pods: dict[int, float] = field(default_factory=dict)
    memory_ratio: dict[int, float] = field(default_factory=dict)
    cpu_ratio: dict[int, float] = field(default_factory=dict)
    #: 1 on the days the node reported MemoryPressure
    pressure: dict[int, float] = field(default_factory=dict)
    #: OOM kills: "system" (in the reserved cgroups), "pods", "all" (node-exporter: any process) → day → kills
    oom: dict[str, dict[int, float]] = field(default_factory=dict)
    #: memory PSI: "some", "full" → day → the largest 5-minute share of time stalled
    stall: dict[str, dict[int, float]] = field(default_factory=dict)
    #: "nested" (services under /system.slice), "beside" (elsewhere), "" (unknown: a service's series missing)
    layout: str = ""
    #: the reserved cgroups with no series on this node: "/system.slice", "kubelet.service", "runtime service"
    missing: list[str] = field(default_factory=list)


def node_days(usage: Usage) -> dict[str, NodeDays]:
    """Every node some query answered for, by name."""
    out: dict[str, NodeDays] = {}

    def get(node: str) -> NodeDays:
        nd = out.get(node)
        if nd is None:
            nd = out[node] = NodeDays(node)
        return nd

    for resource, query in (("memory", "reserved_memory"), ("cpu", "reserved_cpu")):
        per_node: dict[str, dict[str, list[tuple[str, dict[int, float]]]]] = {}
        for (node, cgroup), days in usage.days.get(query, {}).items():
            if cgroup in (SYSTEM_SLICE, "misc"):  # misc: the Summary API's system containers (--system-cgroups)
                role = "system"
            elif cgroup == "kubelet" or _KUBELET.fullmatch(cgroup):
                role = "kubelet"
            elif cgroup == "runtime" or _RUNTIME.fullmatch(cgroup):
                role = "runtime"
            else:
                continue
            per_node.setdefault(node, {}).setdefault(role, []).append((cgroup, days))
        for node, roles in per_node.items():
            _combine(get(node), resource, roles)
    for query, attr in (
        ("running_pods", "pods"),
        ("pods_memory_ratio", "memory_ratio"),
        ("pods_cpu_ratio", "cpu_ratio"),
        ("memory_pressure", "pressure"),
    ):
        for (node, _), days in usage.days.get(query, {}).items():
            target: dict[int, float] = getattr(get(node), attr)
            for day, value in days.items():
                if value > target.get(day, -1.0):
                    target[day] = value
    for query, attr, kinds in (("oom_kills", "oom", OOM_SCOPES), ("memory_stall", "stall", STALL_KINDS)):
        for (node, kind), days in usage.days.get(query, {}).items():
            if kind not in kinds:
                continue  # a series of another kind (an overridden query's): not ours to guess
            by_kind: dict[str, dict[int, float]] = getattr(get(node), attr)
            target = by_kind.setdefault(kind, {})
            for day, value in days.items():
                if value > target.get(day, -1.0):
                    target[day] = value
    return out


def _combine(nd: NodeDays, resource: str, roles: dict[str, list[tuple[str, dict[int, float]]]]) -> None:
    services = roles.get("kubelet", []) + roles.get("runtime", [])
    missing = [
        label
        for role, label in (("system", SYSTEM_SLICE), ("kubelet", "kubelet.service"), ("runtime", "runtime service"))
        if role not in roles
    ]
    for label in missing:
        if label not in nd.missing:
            nd.missing.append(label)
    nested = bool(services) and all(cgroup.startswith(SYSTEM_SLICE + "/") for cgroup, _ in services)
    if services and "system" in roles:
        nd.layout = "nested" if nested else "beside"
    kube: dict[int, float] = {}
    for _, days in services:
        for day, value in days.items():
            kube[day] = kube.get(day, 0.0) + value
    system_slice: dict[int, float] = {}
    for _, days in roles.get("system", []):
        for day, value in days.items():
            system_slice[day] = max(system_slice.get(day, 0.0), value)
    total: dict[int, float] = {}
    system: dict[int, float] = {}
    for day in set(kube) | set(system_slice):
        k, s = kube.get(day, 0.0), system_slice.get(day, 0.0)
        t = max(s, k) if nested or not services else s + k
        total[day] = t
        system[day] = max(t - k, 0.0)
    nd.kube[resource] = kube
    nd.system[resource] = system
    nd.total[resource] = total
