"""Real ``kubectl get nodes -o yaml|json`` output: a v1 Node (or a v1 List of them) becomes a pool of one.

Only metadata.name, metadata.labels and status.capacity are used; every other field a Node carries is ignored.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from renderer.models.common import DNSSubdomain, Labels, NonNegativeQuantity


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


class NodeMeta(_Lenient):
    name: DNSSubdomain
    labels: Labels = Field(default_factory=dict)


class NodeStatus(_Lenient):
    capacity: dict[str, NonNegativeQuantity] = Field(default_factory=dict)


class Node(_Lenient):
    """A v1 Node as the API server returns it."""

    apiVersion: Literal["v1"]
    kind: Literal["Node"]
    metadata: NodeMeta
    status: NodeStatus = Field(default_factory=NodeStatus)


# Label-based platform detection for Nodes (NodePool objects say it themselves).
PLATFORM_LABELS: tuple[tuple[str, str], ...] = (
    ("node.openshift.io/os_id", "openshift"),
    ("machineconfiguration.openshift.io/role", "openshift"),
    ("eks.amazonaws.com/nodegroup", "eks"),
    ("eks.amazonaws.com/compute-type", "eks"),
    ("karpenter.k8s.aws/instance-family", "eks"),
    ("cloud.google.com/gke-nodepool", "gke"),
    ("kubernetes.azure.com/cluster", "aks"),
    ("kubernetes.azure.com/agentpool", "aks"),
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
