"""NodePool (policy.allocatable.dev/v1alpha1): the inventory the policies apply to (schema:
``renderer.models.schema.nodepool``)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

from renderer.models.common import ObjectMeta
from renderer.models.record import Record
from renderer.quantity import Quantity
from renderer.resourcenames import INTEGER_MSG, is_extended

if TYPE_CHECKING:
    from pydantic_core.core_schema import ValidationInfo

#: a platform name (``renderer/platforms/<name>.py``), checked by ``renderer.platforms.check_platform_name``
Platform = str
_CAPACITY_KEY = re.compile(r"^(cpu|memory|ephemeral-storage|pods|hugepages-[0-9]+(Ki|Mi|Gi|Ti|Pi|Ei|[kMGTPE])?)$")


def check_capacity_key(key: str) -> str:
    if not _CAPACITY_KEY.match(key) and not is_extended(key):
        raise ValueError(
            f'unknown capacity resource "{key}": use cpu, memory, ephemeral-storage, pods, hugepages-<size> '
            '(e.g. "hugepages-2Mi") or an extended resource <domain>/<name> outside kubernetes.io (e.g. '
            '"nvidia.com/gpu")'
        )
    return key


def check_capacity(cap: dict[str, object]) -> dict[str, object]:
    missing = [k for k in ("cpu", "memory") if k not in cap]
    if missing:
        raise ValueError(f"capacity needs {' and '.join(missing)}")
    for key, value in cap.items():
        # Extended resources count whole units: apimachinery's ValidateResourceQuantityValue checks an integer
        # resource's MilliValue() % 1000.
        if is_extended(key) and isinstance(value, Quantity) and value.milli_value() % 1000 != 0:
            raise ValueError(f"capacity {key}: {INTEGER_MSG} (an extended resource counts whole units), not {value}")
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


class GKESystemConfigDelivery(Record):
    """Kubelet settings travel in a GKE node pool's system configuration (NodeKubeletConfig)."""

    format: str  # "gcloud": the --system-config-from-file YAML; "rest": the REST NodeKubeletConfig JSON


class AKSKubeletConfigDelivery(Record):
    """Kubelet settings travel in an AKS agent pool's kubeletConfig (az aks nodepool add --kubelet-config)."""

    apiVersion: str


class TalosDelivery(Record):
    """Kubelet settings travel in a Talos machine-config patch."""

    document: str  # "v1alpha1": machine.kubelet.extraConfig; "KubeletConfig": the v1.14+ KubeletConfig document
    image: str | None


class Delivery(Record):
    """How the pool's kubelet settings reach its nodes (one way per pool)."""

    karpenter: KarpenterDelivery | None
    clusterAPI: ClusterAPIDelivery | None
    nodeadm: bool
    gkeSystemConfig: GKESystemConfigDelivery | None
    aksKubeletConfig: AKSKubeletConfigDelivery | None
    bottlerocket: bool
    talos: TalosDelivery | None

    def ways(self) -> list[str]:
        return [
            name
            for name, on in (
                ("karpenter", self.karpenter is not None),
                ("clusterAPI", self.clusterAPI is not None),
                ("nodeadm", self.nodeadm),
                ("gkeSystemConfig", self.gkeSystemConfig is not None),
                ("aksKubeletConfig", self.aksKubeletConfig is not None),
                ("bottlerocket", self.bottlerocket),
                ("talos", self.talos is not None),
            )
            if on
        ]


class ClusterAutoscaler(Record):
    """Cluster Autoscaler (AWS) scale-from-zero: the Auto Scaling groups of the pool, tagged with its allocatable."""

    autoScalingGroups: list[str]


def check_delivery(delivery: Delivery | None, info: ValidationInfo) -> Delivery | None:
    if delivery is None:
        return delivery
    ways = delivery.ways()
    if len(ways) > 1:
        raise ValueError(
            f"delivery names {' and '.join(ways)}: a pool's nodes get their kubelet settings one way; keep one"
        )
    if not ways:
        raise ValueError(
            "delivery names no way: set karpenter, clusterAPI, nodeadm: true, gkeSystemConfig, aksKubeletConfig, "
            "bottlerocket: true or talos (or remove delivery)"
        )
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
        own = sorted(platform.deliveries)
        raise ValueError(
            f"delivery {ways[0]} is for {', '.join(takers)} nodes, but the pool's platform is {name}; set platform: "
            f"{takers[0]}" + (f" or use {' or '.join(own)}" if own else "")
        )
    return delivery


def check_talos(value: TalosDelivery | None) -> TalosDelivery | None:
    """The KubeletConfig document requires the kubelet image (Talos' schema); machine.kubelet.image is not ours."""
    if value is None:
        return value
    if value.document == "KubeletConfig" and value.image is None:
        raise ValueError(
            "a KubeletConfig document needs image (Talos requires it), e.g. image: ghcr.io/siderolabs/kubelet:v1.34.1"
        )
    if value.document != "KubeletConfig" and value.image is not None:
        raise ValueError("image belongs to the KubeletConfig document; remove it or set document: KubeletConfig")
    return value


def check_cluster_autoscaler(value: ClusterAutoscaler | None, info: ValidationInfo) -> ClusterAutoscaler | None:
    """Node-template tags are an AWS Auto Scaling group feature: only platforms whose nodes run in ASGs take them."""
    if value is None:
        return value
    from renderer import platforms

    name = info.data.get("platform") or platforms.fallback().name
    try:
        platform = platforms.get(name)
    except KeyError:
        return value
    if not platform.asg_tags:
        takers = sorted(p.name for p in platforms.ordered() if p.asg_tags)
        raise ValueError(
            f"clusterAutoscaler tags Auto Scaling groups, which {platform.title} node pools are not; it is for "
            f"{', '.join(takers)} pools"
        )
    if len(set(value.autoScalingGroups)) != len(value.autoScalingGroups):
        raise ValueError("autoScalingGroups lists a group twice")
    return value


#: ISO 4217: three capital letters (USD, EUR, ...).
CURRENCY_PATTERN = r"^[A-Z]{3}$"
#: A price as a decimal string ("0.34", "248.20"): read exactly, never as a float.
PRICE_PATTERN = r"^[0-9]{1,7}(\.[0-9]{1,10})?$"


class PoolPrice(Record):
    """What one node of the pool costs (on-prem, negotiated or reserved prices): hourly or monthly, one of them."""

    hourly: str | None
    monthly: str | None
    currency: str | None


def check_pool_price(value: PoolPrice | None) -> PoolPrice | None:
    if value is None:
        return value
    if (value.hourly is None) == (value.monthly is None):
        raise ValueError(
            "price gives hourly or monthly, one of them (per node; monthly is divided by pricing.hoursPerMonth)"
        )
    return value


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
    clusterAutoscaler: ClusterAutoscaler | None
    price: PoolPrice | None


class NodePool(Record):
    """A group of identical nodes: labels, capacity per node, how many."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["NodePool"]
    metadata: ObjectMeta
    spec: NodePoolSpec
