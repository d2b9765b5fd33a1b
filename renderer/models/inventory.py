"""One view of the node inventory, whether it came from NodePool objects or from real Node objects."""

from __future__ import annotations

from dataclasses import dataclass, field

from renderer.findings import SourceRef
from renderer.models.node import KEPT_ANNOTATIONS, Node, node_machine_config_pool, node_platform
from renderer.models.nodepool import Delivery, NodePool
from renderer.models.record import as_dict
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
    # NodePool.spec.machineMemory: the advertised memory GKE/AKS formulas are computed from.
    machine_memory: Quantity | None = None
    boot_disk: Quantity | None = None  # NodePool.spec.bootDiskSize (GKE)
    # Nodes only: status.nodeInfo (kubeletVersion, osImage, ...) and status.allocatable as reported.
    node_info: dict[str, str] = field(default_factory=dict)
    reported: dict[str, Quantity] = field(default_factory=dict)

    @property
    def instance_type(self) -> str | None:
        return self.labels.get("node.kubernetes.io/instance-type") or self.labels.get(
            "beta.kubernetes.io/instance-type"
        )

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
        machine_memory=spec.machineMemory,
        boot_disk=spec.bootDiskSize,
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
        annotations={k: v for k, v in obj.metadata.annotations.items() if k in KEPT_ANNOTATIONS},
        node_info={k: v for k, v in as_dict(obj.status.nodeInfo).items() if v},
        reported={
            k: v for k, v in obj.status.allocatable.items() if k in _POOL_RESOURCES or k.startswith("hugepages-")
        },
    )
