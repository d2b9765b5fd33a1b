"""NodePool (policy.allocatable.dev/v1alpha1): the inventory the policies apply to (schema:
``renderer.models.schema.nodepool``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from renderer.models.common import ObjectMeta
from renderer.models.record import Record
from renderer.quantity import Quantity

if TYPE_CHECKING:
    from pydantic_core.core_schema import ValidationInfo

#: a platform name (``renderer/platforms/<name>.py``), checked by ``renderer.platforms.check_platform_name``
Platform = str
_CAPACITY_KEY = re.compile(r"^(cpu|memory|ephemeral-storage|pods|hugepages-[0-9]+(Ki|Mi|Gi|Ti|Pi|Ei|[kMGTPE])?)$")


def check_capacity_key(key: str) -> str:
    if not _CAPACITY_KEY.match(key):
        raise ValueError(
            f'unknown capacity resource "{key}": use cpu, memory, ephemeral-storage, pods or hugepages-<size> '
            '(e.g. "hugepages-2Mi")'
        )
    return key


def check_capacity(cap: dict[str, object]) -> dict[str, object]:
    missing = [k for k in ("cpu", "memory") if k not in cap]
    if missing:
        raise ValueError(f"capacity needs {' and '.join(missing)}")
    return cap


# A KubeadmConfigTemplate rendered for a rollout is named <kubeadmConfigTemplate>-<10 hex digits>, and the whole name
# must stay a DNS-1123 subdomain (at most 253 characters).
TEMPLATE_HASH_LENGTH = 10
_MAX_TEMPLATE_BASE = 253 - 1 - TEMPLATE_HASH_LENGTH


def check_template_base(name: str) -> str:
    if len(name) > _MAX_TEMPLATE_BASE:
        raise ValueError(
            f"kubeadmConfigTemplate is longer than {_MAX_TEMPLATE_BASE} characters: the rendered template is named "
            f"<kubeadmConfigTemplate>-<{TEMPLATE_HASH_LENGTH} hex digits>, which must fit in 253"
        )
    return name


class KarpenterDelivery(Record):
    """Kubelet settings travel in the kubelet block of a Karpenter EC2NodeClass (karpenter.k8s.aws/v1)."""

    ec2NodeClass: str


class ClusterAPIDelivery(Record):
    """Kubelet settings travel as kubeletExtraArgs of a Cluster API KubeadmConfigTemplate (bootstrap v1beta2)."""

    kubeadmConfigTemplate: str
    namespace: str
    machineDeployments: list[str]


class Delivery(Record):
    """How the pool's kubelet settings reach its nodes (one way per pool)."""

    karpenter: KarpenterDelivery | None
    clusterAPI: ClusterAPIDelivery | None
    nodeadm: bool

    def ways(self) -> list[str]:
        return [
            name
            for name, on in (
                ("karpenter", self.karpenter is not None),
                ("clusterAPI", self.clusterAPI is not None),
                ("nodeadm", self.nodeadm),
            )
            if on
        ]


def check_delivery(delivery: Delivery | None, info: ValidationInfo) -> Delivery | None:
    if delivery is None:
        return delivery
    ways = delivery.ways()
    if len(ways) > 1:
        raise ValueError(
            f"delivery names {' and '.join(ways)}: a pool's nodes get their kubelet settings one way; keep one"
        )
    if not ways:
        raise ValueError("delivery names no way: set karpenter, clusterAPI or nodeadm: true (or remove delivery)")
    from renderer import platforms

    name = info.data.get("platform") or platforms.fallback().name
    try:
        platform = platforms.get(name)
    except KeyError:
        return delivery  # the platform field reports its own error
    if platform.machine_config_pools:
        raise ValueError(
            f"{platform.title} pools get their kubelet settings through their MachineConfigPool: remove delivery and "
            "set machineConfigPool"
        )
    if ways[0] not in platform.deliveries:
        takers = sorted(p.name for p in platforms.ordered() if ways[0] in p.deliveries)
        raise ValueError(
            f"delivery {ways[0]} is for {', '.join(takers)} nodes, but the pool's platform is {name}; set platform: "
            f"{takers[0]} or use clusterAPI"
        )
    return delivery


class NodePoolSpec(Record):
    labels: dict[str, str]
    capacity: dict[str, Quantity]
    count: int
    platform: Platform
    machineConfigPool: str | None
    maxPods: int | None
    machineMemory: Quantity | None
    bootDiskSize: Quantity | None
    delivery: Delivery | None


class NodePool(Record):
    """A group of identical nodes: labels, capacity per node, how many."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["NodePool"]
    metadata: ObjectMeta
    spec: NodePoolSpec
