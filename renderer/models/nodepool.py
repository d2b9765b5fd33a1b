"""NodePool (policy.allocatable.dev/v1alpha1): the inventory the policies apply to."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from renderer.models.common import DNSLabel, Labels, NonNegativeQuantity, ObjectMeta, Strict

Platform = Literal["generic", "openshift", "gke", "aks", "eks"]
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


class NodePool(Strict):
    """A group of identical nodes: labels, capacity per node, how many."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["NodePool"]
    metadata: ObjectMeta
    spec: NodePoolSpec
