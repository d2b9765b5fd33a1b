"""NodePool (policy.allocatable.dev/v1alpha1): the inventory the policies apply to."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from renderer.models.common import DNSLabel, Labels, NonNegativeQuantity, ObjectMeta, Strict

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


class NodePool(Strict):
    """A group of identical nodes: labels, capacity per node, how many."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["NodePool"]
    metadata: ObjectMeta
    spec: NodePoolSpec
