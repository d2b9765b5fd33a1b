"""PromQL the project ships, in one place: the series ``allocatable recommend`` measures and the alerting expressions
of ``render --target monitoring``.

The label matchers, cgroup ids and metric names of the measured usage are :class:`Selectors` (kube-prometheus-stack's
conventions by default, ``recommend.selectors`` in ``.allocatable.yaml`` otherwise: ``RecommendSelectors.promql()`` of its record).
``renderer.recommend.queries`` builds its daily range queries from them, and :func:`reservation_exhausted` its alert:
one definition of what "the reserved slices' usage" is, so the alert fires on what ``recommend`` sizes.

``ReservationExhausted`` is OpenShift's ``SystemMemoryExceedsReservation`` made cross-platform and exact.
OpenShift's (openshift/machine-config-operator@06b45b2a4c911d41466df240c3c15664dd1937df,
``install/0000_90_machine-config_01_prometheus-rules.yaml``, group ``system-memory-exceeds-reservation``) fires when
``sum by (node) (container_memory_rss{id="/system.slice"})`` exceeds 0.95 × (capacity − allocatable memory) for 15
minutes, severity warning. Two things are not exact there: capacity − allocatable also holds the hard eviction
threshold (reserved for pods' eviction, not for system daemons), and only ``system.slice`` is measured while the
kubelet and the container runtime run elsewhere on some platforms (``/runtime.slice/containerd.service``, a
``kubelet.service`` outside ``/system.slice``). Here the usage is recommend's reserved cgroups, each counted once (the
services nested in ``/system.slice`` are in its figure already: the rule ``renderer.recommend.nodes`` applies per
node), in recommend's memory series (the working set by default, ``container_memory_rss`` as OpenShift with
``memoryMetric``), against the repo's own systemReserved + kubeReserved memory of the node's pool
(``allocatable_pool_reserved_memory_bytes``, exported by ``allocatable serve``), joined to the node by
``allocatable_node_info``; the threshold (95 %) and the duration (15 minutes) are OpenShift's.

Cost: nothing at import (``typing`` only).
"""

from __future__ import annotations

from typing import Final, NamedTuple

__all__ = [
    "CADVISOR",
    "NODE_EXPORTER_NODE",
    "REPO_DAEMON_RESERVED_BYTES",
    "RESERVATION_EXHAUSTED",
    "RESERVATION_EXHAUSTED_FOR",
    "RESERVATION_EXHAUSTED_RATIO",
    "SYSTEM_SLICE",
    "WORKING_SET",
    "Selectors",
    "daemon_memory_bytes",
    "node_exporter_by_node",
    "pods_series",
    "reservation_exhausted",
    "reserved_series",
]

#: cAdvisor's memory series read by default: the working set (what the kubelet's eviction reads; a setup may choose
#: the RSS, container_memory_rss, what OpenShift's SystemMemoryExceedsReservation alert reads).
WORKING_SET: Final = "container_memory_working_set_bytes"
#: The cAdvisor series as kube-prometheus-stack scrapes them.
CADVISOR = 'job="kubelet", metrics_path="/metrics/cadvisor"'
#: The cgroup of the system services (systemd); with the systemd driver the kubelet's and the runtime's are in it.
SYSTEM_SLICE = "/system.slice"


class Selectors(NamedTuple):
    """The parts of the queries a setup may change (``.allocatable.yaml`` ``recommend.selectors``)."""

    cadvisor: str = CADVISOR
    kubelet: str = 'job="kubelet", metrics_path="/metrics"'
    kube_state_metrics: str = 'job="kube-state-metrics"'
    #: cgroup ids of the reserved slices: /system.slice, the kubelet's and the runtime's services, wherever the host
    #: puts them (under /system.slice with systemd; /runtime.slice or / on some distributions).
    reserved_ids: str = "/system.slice|.*/kubelet.service|.*/(containerd|crio|docker).service"
    #: cgroup ids of the pods: systemd driver, cgroupfs driver.
    pods_ids: str = "/kubepods.slice|/kubepods"
    #: the percentile of the pods' cpu usage / requests per node and day (the commit percent's statistic)
    cpu_quantile: str = "0.99"
    #: the memory series: the working set (what the kubelet's eviction reads) or the RSS (what OpenShift's
    #: SystemMemoryExceedsReservation alert reads)
    memory_metric: str = WORKING_SET
    #: node-exporter's series (node_pressure_memory_*, node_vmstat_oom_kill) as kube-prometheus-stack scrapes them
    node_exporter: str = 'job="node-exporter"'
    #: how a node-exporter series gets its node (``NODE_EXPORTER_NODE``): "podInfo" or "instance"
    node_exporter_node: str = "podInfo"


def reserved_series(s: Selectors, metric: str, *more: str) -> str:
    """cAdvisor's ``metric`` of the reserved cgroups (a series per node and cgroup ``id``), ``more`` matchers added."""
    matchers = ", ".join([s.cadvisor, f'id=~"{s.reserved_ids}"', *more])
    return f"{metric}{{{matchers}}}"


def pods_series(s: Selectors, metric: str) -> str:
    """cAdvisor's ``metric`` of the pods' top cgroup (one series per node)."""
    return f'{metric}{{{s.cadvisor}, id=~"{s.pods_ids}"}}'


#: How node-exporter's series (which carry ``instance``, ``namespace`` and ``pod``, not ``node``) get a node label:
#:
#: - ``podInfo``: kubernetes-mixin's own join (rules/node.libsonnet, recording rule ``node_namespace_pod:kube_pod_info:``
#:   and its use in ``node:node_num_cpu:sum``: ``* on (namespace, pod) group_left(node) topk by (namespace, pod) (1,
#:   ...)``), written out on kube-state-metrics' ``kube_pod_info`` so it needs no recording rule. As the mixin's, the
#:   join is instant (the pods at the day's end): a range over every pod of the cluster would read each one's whole
#:   day of samples, 14 times a fortnight; the price is that a node-exporter pod replaced during a day finds no node
#:   for the part of the day its predecessor measured;
#: - ``instance``: kube-prometheus' node-exporter ServiceMonitor relabels ``__meta_kubernetes_pod_node_name`` into
#:   ``instance`` (jsonnet/kube-prometheus/components/node-exporter.libsonnet), so ``instance`` is the node's name.
NODE_EXPORTER_NODE = ("podInfo", "instance")


def node_exporter_by_node(s: Selectors, expr: str) -> str:
    """``expr`` (a vector of node-exporter series, evaluated at a day's end) with a ``node`` label, the way
    ``s.node_exporter_node`` says."""
    if s.node_exporter_node == "instance":
        return f'label_replace({expr}, "node", "$1", "instance", "(.+)")'
    pods = f'max by (node, namespace, pod) (kube_pod_info{{{s.kube_state_metrics}, node!=""}})'
    return f"({expr}) * on (namespace, pod) group_left (node) topk by (namespace, pod) (1, {pods})"


def daemon_memory_bytes(s: Selectors) -> str:
    """Per node, now: the memory the reserved cgroups use, each counted once (a service nested in /system.slice is
    already in its figure)."""
    not_nested = f'id!~"{SYSTEM_SLICE}/.+"'
    return f"sum by (node) ({reserved_series(s, s.memory_metric, not_nested)})"


#: Memory the repo reserves for those daemons on each node: systemReserved + kubeReserved of the node's pool.
REPO_DAEMON_RESERVED_BYTES = (
    "sum by (node) (allocatable_node_info * on (pool) group_left () "
    'sum by (pool) (allocatable_pool_reserved_memory_bytes{slice=~"system|kube"}))'
)

#: OpenShift's threshold and duration (see the module's docstring).
RESERVATION_EXHAUSTED_RATIO = 0.95
RESERVATION_EXHAUSTED_FOR = "15m"


def reservation_exhausted(s: Selectors | None = None) -> str:
    """Fires per node whose daemons use more than 95 % of what the repo reserves for them."""
    usage = daemon_memory_bytes(s or Selectors())
    return f"{usage}\n  > on (node)\n{RESERVATION_EXHAUSTED_RATIO} * {REPO_DAEMON_RESERVED_BYTES}"


#: The alert with kube-prometheus-stack's selectors.
RESERVATION_EXHAUSTED = reservation_exhausted()
