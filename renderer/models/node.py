"""Real ``kubectl get nodes -o yaml|json`` output: a v1 Node (or a v1 List of them) becomes a pool of one.

Used: metadata.name, metadata.labels, the annotations named in ``KEPT_ANNOTATIONS``, status.capacity,
status.allocatable (what ``allocatable verify`` compares with) and status.nodeInfo (the kubelet version tells AKS
1.29+ from legacy nodes and OpenShift 4.21+ from older releases). Every other field a Node carries is ignored. Schema: ``renderer.models.schema.node``.
"""

from __future__ import annotations

from typing import Literal

from renderer.models.record import Record
from renderer.quantity import Quantity

#: Koordinator's node annotations: the un-amplified kubelet allocatable, and the amplification ratios
#: (koordinator-sh/koordinator@a7a1b76b:apis/extension/node_resource_amplification.go).
RAW_ALLOCATABLE_ANNOTATION = "node.koordinator.sh/raw-allocatable"
AMPLIFICATION_RATIO_ANNOTATION = "node.koordinator.sh/resource-amplification-ratio"
KEPT_ANNOTATIONS = (RAW_ALLOCATABLE_ANNOTATION, AMPLIFICATION_RATIO_ANNOTATION)


class NodeMeta(Record):
    name: str
    labels: dict[str, str]
    annotations: dict[str, str]


class NodeInfo(Record):
    kubeletVersion: str
    osImage: str
    kernelVersion: str
    containerRuntimeVersion: str
    operatingSystem: str
    architecture: str


class NodeStatus(Record):
    capacity: dict[str, Quantity]
    allocatable: dict[str, Quantity]
    nodeInfo: NodeInfo


class Node(Record):
    """A v1 Node as the API server returns it."""

    apiVersion: Literal["v1"]
    kind: Literal["Node"]
    metadata: NodeMeta
    status: NodeStatus


# Label-based platform detection for Nodes (NodePool objects say it themselves), first match wins. AKS nodes carry
# kubernetes.azure.com/agentpool, /mode or /node-image-version; self-managed AKS Engine clusters only
# kubernetes.azure.com/cluster and /role, and their kubelets run with other defaults.
PLATFORM_LABELS: tuple[tuple[str, str], ...] = (
    ("node.openshift.io/os_id", "openshift"),
    ("machineconfiguration.openshift.io/role", "openshift"),
    ("eks.amazonaws.com/nodegroup", "eks"),
    ("eks.amazonaws.com/compute-type", "eks"),
    ("karpenter.k8s.aws/instance-family", "eks"),
    ("cloud.google.com/gke-nodepool", "gke"),
    ("kubernetes.azure.com/agentpool", "aks"),
    ("kubernetes.azure.com/mode", "aks"),
    ("kubernetes.azure.com/node-image-version", "aks"),
    ("kubernetes.azure.com/cluster", "aks-engine"),
    ("kubernetes.azure.com/role", "aks-engine"),
)


def node_platform(labels: dict[str, str]) -> str:
    for key, platform in PLATFORM_LABELS:
        if key in labels:
            return platform
    return "generic"


def node_machine_config_pool(labels: dict[str, str]) -> str | None:
    """OpenShift pool of a node: its most specific node-role (infra over worker, master/control-plane last)."""
    roles = sorted(k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/"))
    for generic in ("worker", "control-plane", "master"):
        if generic in roles and len(roles) > 1:
            roles.remove(generic)
    if not roles:
        return None
    role = roles[0]
    return "master" if role == "control-plane" else role
