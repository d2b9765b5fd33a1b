"""One view of the node inventory, whether it came from NodePool objects or from real Node objects."""

from __future__ import annotations

from dataclasses import dataclass, field

from renderer.findings import SourceRef
from renderer.models.node import Node, node_machine_config_pool, node_platform
from renderer.models.nodepool import Delivery, NodePool
from renderer.quantity import Quantity

_POOL_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pods")


@dataclass(frozen=True)
class Pool:
    name: str
    origin: str  # "NodePool" or "Node"
    labels: dict[str, str]
    capacity: dict[str, Quantity]
    count: int
    platform: str
    machine_config_pool: str | None
    max_pods: int | None
    source: SourceRef
    annotations: dict[str, str] = field(default_factory=dict)
    delivery: Delivery | None = None  # how a NodePool's kubelet settings reach its nodes (None for Nodes)

    @property
    def ref(self) -> str:
        return f"{self.origin}/{self.name}"


def pool_from_nodepool(obj: NodePool, source: SourceRef) -> Pool:
    spec = obj.spec
    return Pool(
        name=obj.metadata.name,
        origin="NodePool",
        labels=dict(spec.labels),
        capacity=dict(spec.capacity),
        count=spec.count,
        platform=spec.platform,
        machine_config_pool=spec.machineConfigPool,
        max_pods=spec.maxPods,
        source=source,
        annotations=dict(obj.metadata.annotations or {}),
        delivery=spec.delivery,
    )


def pool_from_node(obj: Node, source: SourceRef) -> Pool:
    labels = dict(obj.metadata.labels)
    capacity = {k: v for k, v in obj.status.capacity.items() if k in _POOL_RESOURCES or k.startswith("hugepages-")}
    platform = node_platform(labels)
    pods = capacity.get("pods")
    return Pool(
        name=obj.metadata.name,
        origin="Node",
        labels=labels,
        capacity=capacity,
        count=1,
        platform=platform,
        machine_config_pool=node_machine_config_pool(labels) if platform == "openshift" else None,
        max_pods=pods.int_value() if pods is not None else None,
        source=source,
    )
