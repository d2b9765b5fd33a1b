"""PromQL the project ships, in one place: the alerting expressions of ``render --target monitoring``.

Each expression reads series ``allocatable serve`` exports (``renderer.serve.metrics``; docs/serve.md lists them) and,
for usage, cAdvisor's and kube-state-metrics' series as a Prometheus Operator or OpenShift install scrapes them (the
cAdvisor series with a ``node`` label, which the kubelet ServiceMonitors of kube-prometheus and OpenShift add, and
which OpenShift's own rule below relies on).

``RESERVATION_EXHAUSTED`` is OpenShift's ``SystemMemoryExceedsReservation`` made cross-platform and exact.
OpenShift's (openshift/machine-config-operator@06b45b2a4c911d41466df240c3c15664dd1937df,
``install/0000_90_machine-config_01_prometheus-rules.yaml``, group ``system-memory-exceeds-reservation``) fires when
``sum by (node) (container_memory_rss{id="/system.slice"})`` exceeds 0.95 × (capacity − allocatable memory) for 15
minutes, severity warning. Two things are not exact there: capacity − allocatable also holds the hard eviction
threshold (reserved for pods' eviction, not for system daemons), and only ``system.slice`` is measured while the
kubelet and the container runtime run in ``/kubelet.slice``, ``/runtime.slice`` or ``/podruntime.slice`` on some
platforms (EKS AL2023, GKE COS, Talos, with ``kubeReservedCgroup``). Here the usage is every one of those slices and
the reservation is the repo's own systemReserved + kubeReserved memory of the node's pool
(``allocatable_pool_reserved_memory_bytes``), joined to the node by ``allocatable_node_info``; the threshold (95 %)
and the duration (15 minutes) are OpenShift's.
"""

from __future__ import annotations

__all__ = [
    "DAEMON_SLICES",
    "DAEMON_USAGE_BYTES",
    "REPO_DAEMON_RESERVED_BYTES",
    "RESERVATION_EXHAUSTED",
    "RESERVATION_EXHAUSTED_FOR",
    "RESERVATION_EXHAUSTED_RATIO",
]

#: The top-level cgroups system daemons, the kubelet and the container runtime run in (cAdvisor's ``id``).
DAEMON_SLICES = ("/system.slice", "/kubelet.slice", "/runtime.slice", "/podruntime.slice")

#: Memory the node's daemons use, per node: the resident set of their slices.
DAEMON_USAGE_BYTES = f'sum by (node) (container_memory_rss{{id=~"{"|".join(DAEMON_SLICES)}"}})'

#: Memory the repo reserves for those daemons on each node: systemReserved + kubeReserved of the node's pool.
REPO_DAEMON_RESERVED_BYTES = (
    "sum by (node) (allocatable_node_info * on (pool) group_left () "
    'sum by (pool) (allocatable_pool_reserved_memory_bytes{slice=~"system|kube"}))'
)

#: OpenShift's threshold and duration (see the module's docstring).
RESERVATION_EXHAUSTED_RATIO = 0.95
RESERVATION_EXHAUSTED_FOR = "15m"

#: Fires per node whose daemons use more than 95 % of what the repo reserves for them.
RESERVATION_EXHAUSTED = (
    f"{DAEMON_USAGE_BYTES}\n  > on (node)\n{RESERVATION_EXHAUSTED_RATIO} * {REPO_DAEMON_RESERVED_BYTES}"
)
