"""Real ``kubectl get nodes -o yaml|json`` output: a v1 Node (or a v1 List of them) becomes a pool of one.

Used: metadata.name, metadata.labels, the annotations named in ``KEPT_ANNOTATIONS``, spec.providerID,
status.capacity, status.allocatable (what ``allocatable verify`` compares with) and status.nodeInfo (the platform and
its release: ``renderer/platforms/``). Every other field a Node carries is ignored. Schema:
``renderer.models.schema.node``.
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


class NodeSpec(Record):
    providerID: str


class NodeStatus(Record):
    capacity: dict[str, Quantity]
    allocatable: dict[str, Quantity]
    nodeInfo: NodeInfo


class Node(Record):
    """A v1 Node as the API server returns it."""

    apiVersion: Literal["v1"]
    kind: Literal["Node"]
    metadata: NodeMeta
    spec: NodeSpec
    status: NodeStatus
