"""What Karpenter (AWS provider) believes an instance type's node will offer, before it launches one.

Read from aws/karpenter-provider-aws v1.14.1 (bde00654): pkg/providers/instancetype/types.go (``memory``, ``pods``,
``ENILimitedPods``, ``ephemeralStorage``, ``kubeReservedResources``, ``evictionThreshold``), pkg/providers/amifamily
(per-family feature flags and default block devices), and kubernetes-sigs/karpenter v1.14.1
pkg/cloudprovider/types.go (``allocatable = capacity - (kubeReserved + systemReserved + eviction)``, per resource, no
floor). Proven against the provider's unit tests (fixtures/karpenter_cases.yaml) and every row of its generated
instance-type table (fixtures/karpenter_instance_types_v1.14.1.json).

capacity
    cpu ``vCPUs × 1000`` m. memory: ``m`` = EC2 MiB (``- 64`` on arm64, the Graviton CMA reservation), minus
    ``ceil(float64(m × 2^20) × vmMemoryOverheadPercent / 1024 / 1024)`` MiB — the overhead rounded *up* to a whole
    MiB in float64 arithmetic, as Go computes it — unless a real node of the type already reported its memory
    (the discovered-capacity cache, v1.1+), which then replaces it. pods: ``maxPods``, else the ENI limit
    ``usable ENIs × (IPv4 per ENI - 1) + 2`` (usable = the default card's interfaces - reservedENIs - EFA-only ones,
    0 pods when none is left) for families that size pods by ENIs, else 110; then ``min(podsPerCore × vCPUs, ·)``
    where the family honours podsPerCore. ephemeral-storage: the RAID0 instance store (decimal GB), else the root
    volume's size, else (Custom) the last block device's, else the family's ephemeral device's, else 20Gi.
kubeReserved (each key replaced individually by the EC2NodeClass)
    cpu 6 % of the first core, 1 % of the second, 0.5 % of cores 3-4, 0.25 % of the rest, each tier truncated to
    whole millicores; memory ``11 × pods + 255`` MiB, with pods the ENI limit at reservedENIs 0 on AL2, AL2023 and
    Custom since v1.6.0 (before: with reservedENIs), the pods capacity on Bottlerocket and Windows; storage 1Gi.
eviction
    memory 100Mi, storage 10 %; ``evictionHard`` memory.available / nodefs.available replace them; a percentage is
    of the capacity above (memory after the VM overhead): ``ceil(capacity / 100 × percent)`` in float64; ``100%``
    means 0. ``evictionSoft`` counts only before v1.9.0 (per signal, the larger), on families that support it.

Pure arithmetic: O(1) per instance type.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Final

from renderer.quantity import Quantity

__all__ = [
    "FAMILIES",
    "BlockDevice",
    "Family",
    "InstanceType",
    "KarpenterOptions",
    "NodeClass",
    "Prediction",
    "eni_limited_pods",
    "kube_reserved_cpu",
    "predict",
    "vm_overhead_mib",
]

MIB: Final = 1024 * 1024
GIB: Final = 1024 * MIB
DEFAULT_EBS: Final = 20 * GIB


@dataclass(frozen=True)
class Family:
    """An AMI family's feature flags (pkg/providers/amifamily ``FeatureFlags``) and its ephemeral block device."""

    uses_eni_limited_memory_overhead: bool
    pods_per_core_enabled: bool
    eviction_soft_enabled: bool
    supports_eni_limited_pod_density: bool
    ephemeral_device: str | None  # None: Custom (the last block device counts)
    default_ephemeral: int  # bytes of the family's default ephemeral device


_DEFAULT = Family(True, True, True, True, "/dev/xvda", DEFAULT_EBS)
_WINDOWS = Family(False, True, True, False, "/dev/sda1", 50 * GIB)
FAMILIES: Final[dict[str, Family]] = {
    "AL2": _DEFAULT,
    "AL2023": _DEFAULT,
    "Bottlerocket": Family(False, False, False, True, "/dev/xvdb", DEFAULT_EBS),
    "Windows2019": _WINDOWS,
    "Windows2022": _WINDOWS,
    "Windows2025": _WINDOWS,
    "Custom": Family(True, True, True, True, None, DEFAULT_EBS),
}


@dataclass(frozen=True)
class InstanceType:
    """What EC2 DescribeInstanceTypes says of a type (only what the prediction reads)."""

    name: str
    vcpus: int
    memory_mib: int
    arch: str = "amd64"
    #: The default network card's MaximumNetworkInterfaces and the IPv4 addresses per interface; without them,
    #: ``eni_pods`` (the published ENI limit at reservedENIs 0) stands in.
    max_network_interfaces: int | None = None
    ipv4_per_interface: int | None = None
    eni_pods: int | None = None
    efa_only_interfaces: int = 0  # EFA-only interfaces the EC2NodeClass puts on card 0
    instance_store_gb: int | None = None

    @property
    def family(self) -> str:
        """``m5`` of ``m5.xlarge`` (Karpenter's ``karpenter.k8s.aws/instance-family`` label)."""
        return self.name.split(".", 1)[0]


@dataclass(frozen=True)
class BlockDevice:
    device_name: str
    volume_size: int | None = None  # bytes
    root_volume: bool = False


@dataclass(frozen=True)
class NodeClass:
    """The EC2NodeClass fields the prediction reads; reservations in bytes (cpu in millicores), eviction signals as
    written (``"500Mi"``, ``"10%"``)."""

    ami_family: str = "AL2023"
    max_pods: int | None = None
    pods_per_core: int | None = None
    kube_reserved: Mapping[str, int] = field(default_factory=dict)
    system_reserved: Mapping[str, int] = field(default_factory=dict)
    eviction_hard: Mapping[str, str] = field(default_factory=dict)
    eviction_soft: Mapping[str, str] = field(default_factory=dict)
    block_devices: tuple[BlockDevice, ...] = ()
    instance_store_policy: str | None = None


@dataclass(frozen=True)
class KarpenterOptions:
    vm_memory_overhead_percent: float = 0.075
    reserved_enis: int = 0
    version: tuple[int, int, int] = (1, 14, 1)


@dataclass(frozen=True)
class Prediction:
    """Karpenter's view of one instance type: integers (millicores, bytes, counts)."""

    capacity: dict[str, int]
    kube_reserved: dict[str, int]
    system_reserved: dict[str, int]
    eviction: dict[str, int]
    allocatable: dict[str, int]


def vm_overhead_mib(memory_mib: int, percent: float) -> int:
    """The VM memory overhead Karpenter subtracts, in whole MiB: Go's
    ``int64(math.Ceil(float64(bytes) * percent / 1024 / 1024))``, float64 operations in that order."""
    return math.ceil(float(memory_mib * MIB) * percent / 1024 / 1024)


def _family(node_class: NodeClass) -> Family:
    try:
        return FAMILIES[node_class.ami_family]
    except KeyError:
        raise ValueError(
            f"unknown amiFamily {node_class.ami_family!r}; Karpenter knows {', '.join(sorted(FAMILIES))}"
        ) from None


def eni_limited_pods(it: InstanceType, reserved_enis: int = 0) -> int:
    """``ENILimitedPods``: usable interfaces × (IPv4 per interface - 1) + 2, and 0 when no interface is usable."""
    if it.max_network_interfaces is None or it.ipv4_per_interface is None:
        if it.eni_pods is not None and reserved_enis == 0 and it.efa_only_interfaces == 0:
            return it.eni_pods
        raise ValueError(f"{it.name}: the ENI pod limit needs the interface counts of the instance type")
    usable = max(it.max_network_interfaces - reserved_enis - it.efa_only_interfaces, 0)
    if usable == 0:
        return 0
    return usable * (it.ipv4_per_interface - 1) + 2


def kube_reserved_cpu(vcpus: int) -> int:
    """Karpenter's default kube-reserved cpu in millicores (the tiers above, each truncated)."""
    milli = vcpus * 1000
    total = 0
    for start, end, pct in ((0, 1000, 0.06), (1000, 2000, 0.01), (2000, 4000, 0.005), (4000, 1 << 31, 0.0025)):
        if milli >= start:
            span = float(min(milli, end) - start)
            total += int(span * pct)
    return total


def _pods(it: InstanceType, family: Family, node_class: NodeClass, options: KarpenterOptions) -> int:
    if node_class.max_pods is not None:
        count = node_class.max_pods
    elif family.supports_eni_limited_pod_density:
        count = eni_limited_pods(it, options.reserved_enis)
    else:
        count = 110
    if node_class.pods_per_core and node_class.pods_per_core > 0 and family.pods_per_core_enabled:
        count = min(node_class.pods_per_core * it.vcpus, count)
    return count


def _ephemeral(it: InstanceType, family: Family, node_class: NodeClass) -> int:
    if node_class.instance_store_policy == "RAID0" and it.instance_store_gb:
        return it.instance_store_gb * 10**9
    devices = node_class.block_devices
    if devices:
        root = next((d for d in devices if d.root_volume), None)
        if root is not None and root.volume_size is not None:
            return root.volume_size
        if family.ephemeral_device is None:
            last = devices[-1].volume_size
            return last if last is not None else DEFAULT_EBS
        match = next((d for d in devices if d.device_name == family.ephemeral_device), None)
        if match is not None and match.volume_size is not None:
            return match.volume_size
    return family.default_ephemeral if family.ephemeral_device is not None else DEFAULT_EBS


def _signal(value: str, capacity: int) -> int:
    """One eviction signal in bytes: a percentage of ``capacity`` (``100%`` = off) or a quantity."""
    text = value.strip()
    if text.endswith("%"):
        pct = float(text[:-1])
        if pct == 100:
            pct = 0.0
        return math.ceil(capacity / 100 * pct)
    return Quantity.parse(text).int_value()


_SIGNALS: Final = {"memory.available": "memory", "nodefs.available": "ephemeral-storage"}


def predict(
    it: InstanceType,
    node_class: NodeClass | None = None,
    options: KarpenterOptions | None = None,
    discovered_memory: int | None = None,
) -> Prediction:
    """Karpenter's capacity, overhead and allocatable for ``it`` (see the module docstring). ``discovered_memory``:
    a real node's ``status.capacity.memory`` in bytes from the discovered-capacity cache."""
    node_class = node_class or NodeClass()
    options = options or KarpenterOptions()
    family = _family(node_class)
    m = it.memory_mib - (64 if it.arch == "arm64" else 0)
    if discovered_memory is not None:
        memory = discovered_memory
    else:
        memory = (m - vm_overhead_mib(m, options.vm_memory_overhead_percent)) * MIB
    pods = _pods(it, family, node_class, options)
    capacity = {
        "cpu": it.vcpus * 1000,
        "memory": memory,
        "pods": pods,
        "ephemeral-storage": _ephemeral(it, family, node_class),
    }

    if family.uses_eni_limited_memory_overhead:
        reserved_pods = eni_limited_pods(it, 0 if options.version >= (1, 6, 0) else options.reserved_enis)
    else:
        reserved_pods = pods
    kube = {"cpu": kube_reserved_cpu(it.vcpus), "memory": (11 * reserved_pods + 255) * MIB, "ephemeral-storage": GIB}
    kube.update(node_class.kube_reserved)
    system = dict(node_class.system_reserved)

    eviction = {
        "memory": 100 * MIB,
        "ephemeral-storage": _signal("10%", capacity["ephemeral-storage"]),
    }
    for signal, resource in _SIGNALS.items():
        hard = node_class.eviction_hard.get(signal)
        value = _signal(hard, capacity[resource]) if hard is not None else None
        soft = node_class.eviction_soft.get(signal)
        if soft is not None and options.version < (1, 9, 0) and family.eviction_soft_enabled:
            soft_value = _signal(soft, capacity[resource])
            value = soft_value if value is None else max(value, soft_value)
        if value is not None:
            eviction[resource] = value

    allocatable = dict(capacity)
    for overhead in (kube, system, eviction):
        for resource, amount in overhead.items():
            if resource in allocatable:
                allocatable[resource] -= amount
    return Prediction(capacity, kube, system, eviction, allocatable)
