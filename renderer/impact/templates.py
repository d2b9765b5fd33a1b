"""The node the cluster autoscaler imagines when it adds one to a pool.

For a group with nodes, the autoscaler copies a real one (kubernetes/autoscaler
processors/nodeinfosprovider/mixed_nodeinfos_processor.go: the first ready, schedulable node not being deleted) with
its real allocatable — so an allocatable change reaches the estimate as soon as one node runs with it — and sanitizes
it (simulator/node_info_utils.go): a new name and hostname label; taints the autoscaler itself or the node's
conditions put there removed (``ToBeDeletedByClusterAutoscaler``, ``DeletionCandidateOfClusterAutoscaler``, the
``node.kubernetes.io/*`` condition and cordon taints, and the ``ignore-taint``/``startup-taint``/``status-taint``
``.cluster-autoscaler.kubernetes.io/`` prefixes); the copy keeps the node's static (mirror) pods and gets every
DaemonSet pod that would run on it. A pool without a usable node needs a template from elsewhere (a cloud provider's
scale-from-zero template: ``provisioners/``), given as a :class:`TemplateSpec`.

Cost: O(pools × groups of DaemonSets) for the DaemonSet pods (``daemonsets.group``: DaemonSets the controller's
predicate cannot tell apart are one group), O(nodes) to pick the representatives.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from renderer.impact.daemonsets import DaemonSetGroup, should_run
from renderer.impact.estimator import Template
from renderer.impact.nodes import SimNode
from renderer.impact.pods import SimPod
from renderer.impact.ports import HostPort
from renderer.impact.taints import Taint

__all__ = ["TemplateSpec", "build_template", "representatives", "sanitize_taints"]

HOSTNAME_LABEL = "kubernetes.io/hostname"
_DROPPED_TAINTS = frozenset(
    {
        "ToBeDeletedByClusterAutoscaler",
        "DeletionCandidateOfClusterAutoscaler",
        "node.kubernetes.io/unschedulable",
        "node.kubernetes.io/not-ready",
        "node.kubernetes.io/unreachable",
        "node.kubernetes.io/memory-pressure",
        "node.kubernetes.io/disk-pressure",
        "node.kubernetes.io/pid-pressure",
        "node.kubernetes.io/network-unavailable",
        "node.kubernetes.io/out-of-service",
        "node.cloudprovider.kubernetes.io/uninitialized",
        "node.cloudprovider.kubernetes.io/shutdown",
    }
)
_DROPPED_PREFIXES = (
    "ignore-taint.cluster-autoscaler.kubernetes.io/",
    "startup-taint.cluster-autoscaler.kubernetes.io/",
    "status-taint.cluster-autoscaler.kubernetes.io/",
)
_DELETING = ("ToBeDeletedByClusterAutoscaler", "karpenter.sh/disrupted")


@dataclass(frozen=True)
class TemplateSpec:
    """A pool's new node given by the caller (scale from zero, or an override): labels, taints, allocatable."""

    labels: Mapping[str, str]
    allocatable: Mapping[str, int]
    taints: tuple[Taint, ...] = ()
    static_pods: tuple[SimPod, ...] = field(default=())


def sanitize_taints(taints: Iterable[Taint]) -> tuple[Taint, ...]:
    """The taints a new node of the group starts with (see the module docstring)."""
    return tuple(t for t in taints if t.key not in _DROPPED_TAINTS and not t.key.startswith(_DROPPED_PREFIXES))


def representatives(nodes: Sequence[SimNode]) -> dict[str, int]:
    """Per pool, the position of the node a template is copied from: the first one that is schedulable and not being
    deleted; a pool whose nodes are all cordoned or leaving has none."""
    found: dict[str, int] = {}
    for i, node in enumerate(nodes):
        if node.pool in found or node.unschedulable or any(t.key in _DELETING for t in node.taints):
            continue
        found[node.pool] = i
    return found


def build_template(
    pool: str,
    spec: TemplateSpec,
    daemonsets: Iterable[DaemonSetGroup],
) -> Template:
    """The estimator's template: ``spec`` with a template name and hostname, its static pods and every DaemonSet pod
    that would run there counted as used (``daemonsets``: the DaemonSets grouped by ``daemonsets.group``)."""
    name = f"template-node-for-{pool}"
    labels = dict(spec.labels)
    labels[HOSTNAME_LABEL] = name
    taints = sanitize_taints(spec.taints)
    used: dict[str, int] = {}
    ports: set[HostPort] = set()
    count = 0
    for pod in spec.static_pods:
        for resource, amount in pod.requests.items():
            used[resource] = used.get(resource, 0) + amount
        ports.update(pod.host_ports)
        count += 1
    for g in daemonsets:
        if should_run(g, labels, name, taints):
            for resource, amount in g.requests.items():
                used[resource] = used.get(resource, 0) + amount
            ports.update(g.host_ports)
            count += g.count
    return Template(pool, name, labels, taints, dict(spec.allocatable), used, count, frozenset(ports))
