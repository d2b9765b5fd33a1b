"""One view of the node inventory, whether it came from NodePool objects or from real Node objects."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

from renderer import platforms
from renderer.findings import SourceRef
from renderer.models.node import KEPT_ANNOTATIONS, Node
from renderer.models.nodepool import ClusterAutoscaler, Delivery, NodePool, PoolPrice
from renderer.models.record import as_dict
from renderer.quantity import Quantity
from renderer.reprs import fields_repr
from renderer.resourcenames import is_extended

_POOL_RESOURCES = ("cpu", "memory", "ephemeral-storage", "pods")


@dataclass(frozen=True, slots=True, repr=False)
class Pool:
    """A group of identical nodes (a NodePool, or a Node as a pool of one) as the capacity model reads it."""

    __repr__ = fields_repr

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
    cluster_autoscaler: ClusterAutoscaler | None = None  # NodePool.spec.clusterAutoscaler (ASG tags)
    # NodePool.spec.machineMemory: the advertised memory GKE/AKS formulas are computed from.
    machine_memory: Quantity | None = None
    boot_disk: Quantity | None = None  # NodePool.spec.bootDiskSize (GKE)
    # Nodes only: status.nodeInfo (kubeletVersion, osImage, ...) and status.allocatable as reported.
    node_info: dict[str, str] = field(default_factory=dict)
    reported: dict[str, Quantity] = field(default_factory=dict)
    provider_id: str = ""  # Nodes: spec.providerID
    # Nodes: every resource name of status.capacity, attachable-volumes-* included (platform identity, not capacity)
    resources: tuple[str, ...] = ()
    profile: str | None = None  # the platform profile `verify --platform <platform>/<profile>` chose for it
    evidence: str = ""  # what identified the platform (Nodes)
    price: PoolPrice | None = None  # NodePool.spec.price: one node's own price (docs/cost.md)

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
        cluster_autoscaler=spec.clusterAutoscaler,
        price=spec.price,
    )


def _kept(resource: str) -> bool:
    """The resources of a Node the model reads: cpu, memory, ephemeral-storage, pods, hugepages-* and extended
    resources (``nvidia.com/gpu``); not attachable-volumes-* nor other kubernetes.io names."""
    return resource in _POOL_RESOURCES or resource.startswith("hugepages-") or is_extended(resource)


def pool_from_node(obj: Node, source: SourceRef) -> Pool:
    labels = dict(obj.metadata.labels)
    capacity = {k: v for k, v in obj.status.capacity.items() if _kept(k)}
    node_info = {k: v for k, v in as_dict(obj.status.nodeInfo).items() if v}
    provider_id = obj.spec.providerID if getattr(obj, "spec", None) is not None else ""
    resources = tuple(sorted(obj.status.capacity))
    platform, evidence = platforms.detect(_Facts(obj.metadata.name, labels, node_info, provider_id, resources))
    pods = capacity.get("pods")
    return Pool(
        name=obj.metadata.name,
        origin="Node",
        labels=labels,
        capacity=capacity,
        count=1,
        platform=platform,
        machine_config_pool=platforms.get(platform).machine_config_pool(labels),
        max_pods=pods.int_value() if pods is not None else None,
        source=source,
        annotations={k: v for k, v in obj.metadata.annotations.items() if k in KEPT_ANNOTATIONS},
        node_info=node_info,
        reported={k: v for k, v in obj.status.allocatable.items() if _kept(k)},
        provider_id=provider_id,
        resources=resources,
        evidence=evidence,
    )


class _Facts(NamedTuple):
    name: str
    labels: dict[str, str]
    node_info: dict[str, str]
    provider_id: str
    resources: tuple[str, ...]


def with_platform(pool: Pool, platform: str, profile: str | None = None) -> Pool:
    """``pool`` on another platform (``verify --platform``): its pool grouping follows that platform."""
    from dataclasses import replace

    return replace(
        pool,
        platform=platform,
        profile=profile,
        machine_config_pool=platforms.get(platform).machine_config_pool(pool.labels),
        evidence="--platform",
    )
