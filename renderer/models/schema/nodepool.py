"""pydantic schema of NodePool (the runtime records are ``renderer.models.nodepool``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, WithJsonSchema

from renderer import platforms
from renderer.models import nodepool as records
from renderer.models.nodepool import (
    CURRENCY_PATTERN,
    PRICE_PATTERN,
    check_capacity,
    check_capacity_key,
    check_cluster_autoscaler,
    check_delivery,
    check_pool_price,
    check_talos,
    check_template_base,
)
from renderer.models.schema.common import DNSLabel, DNSSubdomain, Labels, NonNegativeQuantity, ObjectMeta, Strict

PlatformName = Annotated[
    str,
    AfterValidator(platforms.check_platform_name),
    WithJsonSchema(
        {
            "type": "string",
            "enum": platforms.module_names(),
            "description": "the platform whose defaults and formulas apply (docs/platforms.md)",
        }
    ),
]

# Checked key by key, so that an error points at the offending key.
CapacityKey = Annotated[str, AfterValidator(check_capacity_key)]


class KarpenterDelivery(Strict, records.KarpenterDelivery):
    """Kubelet settings travel in the kubelet block of a Karpenter EC2NodeClass (karpenter.k8s.aws/v1)."""

    ec2NodeClass: DNSSubdomain = Field(
        description="name of the EC2NodeClass the pool's Karpenter NodePool uses; render writes "
        "karpenter/<ec2NodeClass>.yaml holding only its spec.kubelet (see docs/karpenter.md)"
    )


class ClusterAPIDelivery(Strict, records.ClusterAPIDelivery):
    """Kubelet settings travel as kubeletExtraArgs of a Cluster API KubeadmConfigTemplate (bootstrap v1beta2)."""

    kubeadmConfigTemplate: Annotated[DNSSubdomain, AfterValidator(check_template_base)] = Field(
        description="name of the KubeadmConfigTemplate the pool's MachineDeployments use now; render writes "
        "cluster-api/<namespace>/<kubeadmConfigTemplate>.yaml (see docs/cluster-api.md)"
    )
    namespace: DNSLabel = Field(description="namespace of the template and its MachineDeployments")
    machineDeployments: list[DNSSubdomain] = Field(
        default_factory=list,
        description="MachineDeployments that use the template: each is re-pointed to the rendered template, whose "
        "name carries a content hash, so a change rolls their Machines; without them a change reaches only "
        "Machines created later",
    )


class GKESystemConfigDelivery(Strict, records.GKESystemConfigDelivery):
    """Kubelet settings travel in a GKE node pool's system configuration (NodeKubeletConfig)."""

    format: Literal["gcloud", "rest"] = Field(
        default="gcloud",
        description="gcloud: gke/<pool>.system-config.yaml for `gcloud container node-pools create|update "
        "--system-config-from-file` (no reservations: gcloud takes none); rest: gke/<pool>.node-kubelet-config.json, "
        "the REST NodeKubeletConfig with reservedResourcesConfig (container v1 discovery revision 20261027); see "
        "docs/gke.md",
    )


class AKSKubeletConfigDelivery(Strict, records.AKSKubeletConfigDelivery):
    """Kubelet settings travel in an AKS agent pool's kubeletConfig (az aks nodepool add --kubelet-config)."""

    apiVersion: Literal["2026-08-02-preview", "2026-06-01"] = Field(
        description="the Microsoft.ContainerService api-version the file is for: 2026-08-02-preview has kubeReserved "
        "and hardEvictionThreshold, 2026-06-01 (GA) has neither; see docs/aks.md"
    )


class TalosDelivery(Strict, records.TalosDelivery):
    """Kubelet settings travel in a Talos machine-config patch."""

    document: Literal["v1alpha1", "KubeletConfig"] = Field(
        default="v1alpha1",
        description="v1alpha1: a strategic merge patch of machine.kubelet.extraConfig (Talos up to 1.13); "
        "KubeletConfig: the separate KubeletConfig document of Talos 1.14+ (needs image); see docs/talos.md",
    )
    image: str | None = Field(
        default=None,
        min_length=1,
        max_length=512,
        pattern=r"^\S+:[^\s/:@]+(@sha256:[0-9a-f]{64})?$",
        description="the kubelet image of a KubeletConfig document, with its tag (e.g. "
        "ghcr.io/siderolabs/kubelet:v1.34.1): Talos requires it there",
    )


class Delivery(Strict, records.Delivery):
    """How the pool's kubelet settings reach its nodes (one way per pool)."""

    karpenter: KarpenterDelivery | None = Field(default=None, description="Karpenter EC2NodeClass (EKS)")
    clusterAPI: ClusterAPIDelivery | None = Field(default=None, description="Cluster API KubeadmConfigTemplate")
    nodeadm: bool = Field(
        default=False, description="true: a nodeadm NodeConfig (node.eks.aws/v1alpha1) for launch-template user data"
    )
    gkeSystemConfig: GKESystemConfigDelivery | None = Field(
        default=None, description="GKE node pool system configuration (kubeletConfig)"
    )
    aksKubeletConfig: AKSKubeletConfigDelivery | None = Field(
        default=None, description="AKS agent pool kubeletConfig (az aks nodepool add/update --kubelet-config)"
    )
    bottlerocket: bool = Field(
        default=False,
        description="true: Bottlerocket user data (settings.kubernetes TOML), bottlerocket/<pool>.settings.toml; see "
        "docs/bottlerocket.md",
    )
    talos: Annotated[TalosDelivery | None, AfterValidator(check_talos)] = Field(
        default=None, description="Talos machine-config patch (talos/<pool>.patch.yaml)"
    )


class ClusterAutoscaler(Strict, records.ClusterAutoscaler):
    """Cluster Autoscaler (AWS) scale-from-zero: the Auto Scaling groups of the pool, tagged with its allocatable."""

    autoScalingGroups: list[Annotated[str, Field(min_length=1, max_length=255, pattern=r"^[\x20-\x7e]+$")]] = Field(
        min_length=1,
        description="names of the Auto Scaling groups (or EKS managed node groups' groups) the pool's nodes come from; "
        "render writes cluster-autoscaler/<pool>.tags.yaml with their k8s.io/cluster-autoscaler/node-template/resources/* "
        "tags (see docs/cluster-autoscaler.md)",
    )


class PoolPrice(Strict, records.PoolPrice):
    """What one node of the pool costs (on-prem, negotiated or reserved prices): hourly or monthly, one of them."""

    hourly: str | None = Field(
        default=None,
        pattern=PRICE_PATTERN,
        description='price of one node per hour, as a decimal string (e.g. "0.34"); wins over every other price '
        "source (docs/cost.md)",
    )
    monthly: str | None = Field(
        default=None,
        pattern=PRICE_PATTERN,
        description='price of one node per month, as a decimal string (e.g. "248.20"), divided by '
        "pricing.hoursPerMonth for the hourly price",
    )
    currency: str | None = Field(
        default=None,
        pattern=CURRENCY_PATTERN,
        description="ISO 4217 code of the price; must be pricing.currency (default: pricing.currency)",
    )


class NodePoolSpec(Strict, records.NodePoolSpec):
    labels: Labels = Field(default_factory=dict)
    capacity: Annotated[dict[CapacityKey, NonNegativeQuantity], AfterValidator(check_capacity)]
    count: int = Field(ge=0, le=1_000_000)
    platform: PlatformName = Field(default_factory=platforms.fallback_name)
    machineConfigPool: DNSLabel | None = None
    maxPods: int | None = Field(default=None, ge=1, le=100_000)
    machineMemory: NonNegativeQuantity | None = Field(
        default=None,
        description="the machine type's advertised memory (e.g. 32Gi for an n2-highmem-4), for platforms that size "
        "their reservation from it (gke, aks, aks-legacy) rather than from the node's MemTotal "
        "(capacity.memory); default: machineTypes in .allocatable.yaml or the built-in Compute Engine table, by the "
        "node.kubernetes.io/instance-type label",
    )
    bootDiskSize: NonNegativeQuantity | None = Field(
        default=None,
        description="GKE: the boot disk size (e.g. 100Gi), which GKE's ephemeral-storage kube-reserved is computed "
        "from; default: inferred from capacity.ephemeral-storage (the filesystem, a few GiB smaller than the disk)",
    )
    delivery: Annotated[Delivery | None, AfterValidator(check_delivery)] = Field(
        default=None,
        description="how the pool's kubelet settings reach its nodes: karpenter, clusterAPI, nodeadm, "
        "gkeSystemConfig, aksKubeletConfig, bottlerocket or talos, as the platform allows (OpenShift pools use "
        "machineConfigPool instead)",
    )
    clusterAutoscaler: Annotated[ClusterAutoscaler | None, AfterValidator(check_cluster_autoscaler)] = Field(
        default=None,
        description="Cluster Autoscaler on AWS: tag these Auto Scaling groups with the pool's allocatable for scale "
        "from zero",
    )
    price: Annotated[PoolPrice | None, AfterValidator(check_pool_price)] = Field(
        default=None,
        description="what one node of the pool costs, for the priced reports (docs/cost.md); default: the price "
        "source of pricing in .allocatable.yaml",
    )


class NodePool(Strict, records.NodePool):
    """A group of identical nodes: labels, capacity per node, how many."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["NodePool"]
    metadata: ObjectMeta
    spec: NodePoolSpec
