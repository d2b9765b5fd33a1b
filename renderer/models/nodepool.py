"""NodePool (policy.allocatable.dev/v1alpha1): the inventory the policies apply to."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field, ValidationInfo, field_validator

from renderer.models.common import DNSLabel, DNSSubdomain, Labels, NonNegativeQuantity, ObjectMeta, Strict

Platform = Literal["generic", "openshift", "gke", "aks", "aks-engine", "eks"]
_CAPACITY_KEY = re.compile(r"^(cpu|memory|ephemeral-storage|pods|hugepages-[0-9]+(Ki|Mi|Gi|Ti|Pi|Ei|[kMGTPE])?)$")


def _check_capacity_key(key: str) -> str:
    if not _CAPACITY_KEY.match(key):
        raise ValueError(
            f'unknown capacity resource "{key}": use cpu, memory, ephemeral-storage, pods or hugepages-<size> '
            '(e.g. "hugepages-2Mi")'
        )
    return key


# Checked key by key, so that an error points at the offending key.
CapacityKey = Annotated[str, AfterValidator(_check_capacity_key)]


def _check_capacity(cap: dict[str, object]) -> dict[str, object]:
    missing = [k for k in ("cpu", "memory") if k not in cap]
    if missing:
        raise ValueError(f"capacity needs {' and '.join(missing)}")
    return cap


# A KubeadmConfigTemplate rendered for a rollout is named <kubeadmConfigTemplate>-<10 hex digits>, and the whole name
# must stay a DNS-1123 subdomain (at most 253 characters).
TEMPLATE_HASH_LENGTH = 10
_MAX_TEMPLATE_BASE = 253 - 1 - TEMPLATE_HASH_LENGTH


def _check_template_base(name: str) -> str:
    if len(name) > _MAX_TEMPLATE_BASE:
        raise ValueError(
            f"kubeadmConfigTemplate is longer than {_MAX_TEMPLATE_BASE} characters: the rendered template is named "
            f"<kubeadmConfigTemplate>-<{TEMPLATE_HASH_LENGTH} hex digits>, which must fit in 253"
        )
    return name


class KarpenterDelivery(Strict):
    """Kubelet settings travel in the kubelet block of a Karpenter EC2NodeClass (karpenter.k8s.aws/v1)."""

    ec2NodeClass: DNSSubdomain = Field(
        description="name of the EC2NodeClass the pool's Karpenter NodePool uses; render writes "
        "karpenter/<ec2NodeClass>.yaml holding only its spec.kubelet (see docs/karpenter.md)"
    )


class ClusterAPIDelivery(Strict):
    """Kubelet settings travel as kubeletExtraArgs of a Cluster API KubeadmConfigTemplate (bootstrap v1beta2)."""

    kubeadmConfigTemplate: Annotated[DNSSubdomain, AfterValidator(_check_template_base)] = Field(
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


class Delivery(Strict):
    """How the pool's kubelet settings reach its nodes (one way per pool)."""

    karpenter: KarpenterDelivery | None = Field(default=None, description="Karpenter EC2NodeClass (EKS)")
    clusterAPI: ClusterAPIDelivery | None = Field(default=None, description="Cluster API KubeadmConfigTemplate")
    nodeadm: bool = Field(
        default=False, description="true: a nodeadm NodeConfig (node.eks.aws/v1alpha1) for launch-template user data"
    )

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


class NodePoolSpec(Strict):
    labels: Labels = Field(default_factory=dict)
    capacity: Annotated[dict[CapacityKey, NonNegativeQuantity], AfterValidator(_check_capacity)]
    count: int = Field(ge=0, le=1_000_000)
    platform: Platform = "generic"
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
    delivery: Delivery | None = Field(
        default=None,
        description="how the pool's kubelet settings reach its nodes: karpenter, clusterAPI or nodeadm "
        "(OpenShift pools use machineConfigPool instead)",
    )

    @field_validator("delivery")
    @classmethod
    def _check_delivery(cls, delivery: Delivery | None, info: ValidationInfo) -> Delivery | None:
        if delivery is None:
            return delivery
        ways = delivery.ways()
        if len(ways) > 1:
            raise ValueError(
                f"delivery names {' and '.join(ways)}: a pool's nodes get their kubelet settings one way; keep one"
            )
        if not ways:
            raise ValueError("delivery names no way: set karpenter, clusterAPI or nodeadm: true (or remove delivery)")
        platform = info.data.get("platform", "generic")
        if platform == "openshift":
            raise ValueError(
                "OpenShift pools get their kubelet settings through their MachineConfigPool: remove delivery and set "
                "machineConfigPool"
            )
        if ways[0] in ("karpenter", "nodeadm") and platform != "eks":
            raise ValueError(
                f"delivery {ways[0]} is for EKS nodes (Karpenter's EC2NodeClass and nodeadm run on AWS), but the "
                f"pool's platform is {platform}; set platform: eks or use clusterAPI"
            )
        return delivery


class NodePool(Strict):
    """A group of identical nodes: labels, capacity per node, how many."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["NodePool"]
    metadata: ObjectMeta
    spec: NodePoolSpec
