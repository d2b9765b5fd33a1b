"""Advertised memory of Compute Engine predefined machine types, and what a pool's machine memory is.

GKE computes its kube-reserved memory from the machine type's memory (``memoryMb`` of the Compute Engine
MachineType, which the cluster autoscaler also reads: kubernetes/autoscaler@55c37cd5:cluster-autoscaler/cloudprovider/
gce/machine_types.go ``NewMachineTypeFromAPI``), not from the node's MemTotal (``status.capacity.memory``, a few hundred
MiB less). So does AKS from the VM size's memory. A formula fed MemTotal reserves too little: an n2-highmem-4 (sold as
32 GB) gets 3606Mi on a real node, 3566Mi from its MemTotal.

The table below is Google's published predefined machine types (cloud.google.com/compute/docs/general-purpose-machines,
.../compute-optimized-machines, .../machine-resource): Compute Engine's "GB" of memory is GiB, so a type with G GB
per vCPU has G x 1024 MiB per vCPU. Where G x 1024 is not whole (n1-highcpu, 0.9 GB per vCPU) the API's memoryMb is
the nearest MiB (n1-highcpu-2 1843, n1-highcpu-16 14746, n1-highcpu-32 29491 as listed by the machineTypes API,
gist.github.com/jeffgodwyll/01149892acbb4d7d9f4ec64533b6a0f1); the shared-core f1-micro and g1-small are 614 and
1740 MiB there. AKS nodes carry the VM size's memory in the label ``kubernetes.azure.com/sku-memory`` (MiB). Custom types carry their memory in the name (``n2-custom-8-16384``: 16384 MiB; an ``-ext`` suffix is
extended memory, same reading). Types not in the table (and not custom) are left to ``machineTypes`` in
.allocatable.yaml or ``NodePool.spec.machineMemory``.

Pure data and lookups: O(1) per pool.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import TYPE_CHECKING

from renderer.quantity import Quantity

if TYPE_CHECKING:
    from renderer.models.inventory import Pool
    from renderer.models.settings import Settings

__all__ = ["MachineMemory", "gce_machine_memory_mib", "machine_memory"]

# family-class: (GB of memory per vCPU, predefined vCPU counts)
_GCE_FAMILIES: dict[str, tuple[str, tuple[int, ...]]] = {
    "n1-standard": ("3.75", (1, 2, 4, 8, 16, 32, 64, 96)),
    "n1-highmem": ("6.5", (2, 4, 8, 16, 32, 64, 96)),
    "n1-highcpu": ("0.9", (2, 4, 8, 16, 32, 64, 96)),
    "n2-standard": ("4", (2, 4, 8, 16, 32, 48, 64, 80, 96, 128)),
    "n2-highmem": ("8", (2, 4, 8, 16, 32, 48, 64, 80, 96)),
    "n2-highcpu": ("1", (2, 4, 8, 16, 32, 48, 64, 80, 96)),
    "n2d-standard": ("4", (2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224)),
    "n2d-highmem": ("8", (2, 4, 8, 16, 32, 48, 64, 80, 96)),
    "n2d-highcpu": ("1", (2, 4, 8, 16, 32, 48, 64, 80, 96, 128, 224)),
    "e2-standard": ("4", (2, 4, 8, 16, 32)),
    "e2-highmem": ("8", (2, 4, 8, 16)),
    "e2-highcpu": ("1", (2, 4, 8, 16, 32)),
    "c2-standard": ("4", (4, 8, 16, 30, 60)),
    "c2d-standard": ("4", (2, 4, 8, 16, 32, 56, 112)),
    "c2d-highmem": ("8", (2, 4, 8, 16, 32, 56, 112)),
    "c2d-highcpu": ("2", (2, 4, 8, 16, 32, 56, 112)),
    "c3-standard": ("4", (4, 8, 22, 44, 88, 176)),
    "c3-highmem": ("8", (4, 8, 22, 44, 88, 176)),
    "c3-highcpu": ("2", (4, 8, 22, 44, 88, 176)),
    "t2d-standard": ("4", (1, 2, 4, 8, 16, 32, 48, 60)),
}
# Shared-core types: MiB as the machineTypes API lists them (E2: 1, 2 and 4 GB).
_GCE_SHARED_CORE_MIB: dict[str, int] = {
    "e2-micro": 1024,
    "e2-small": 2048,
    "e2-medium": 4096,
    "f1-micro": 614,
    "g1-small": 1740,
}
#: GKE reserves a flat 1060 millicores on shared-core E2 machines (GKE "Plan node sizes": "For shared-core E2
#: machine types, GKE reserves a total of 1060 millicores"), so they allocate 940m of their 2 vCPUs.
GKE_SHARED_CORE_E2 = frozenset({"e2-micro", "e2-small", "e2-medium"})

#: AKS nodes label the VM size's memory in MiB (e.g. 8192 on a Standard_D2as_v4).
AKS_SKU_MEMORY_LABEL = "kubernetes.azure.com/sku-memory"

_PREDEFINED = re.compile(r"^([a-z][a-z0-9]*-(?:standard|highmem|highcpu))-([0-9]+)(-lssd)?$")
_CUSTOM = re.compile(r"^(?:([a-z][a-z0-9]*)-)?custom-([0-9]+)-([0-9]+)(-ext)?$")


def gce_machine_memory_mib(machine_type: str) -> int | None:
    """Memory in MiB of a Compute Engine predefined or custom machine type, or None if it is not one."""
    if machine_type in _GCE_SHARED_CORE_MIB:
        return _GCE_SHARED_CORE_MIB[machine_type]
    m = _PREDEFINED.match(machine_type)
    if m is not None:
        entry = _GCE_FAMILIES.get(m.group(1))
        vcpus = int(m.group(2))
        if entry is None or vcpus not in entry[1]:
            return None
        if m.group(3) and not m.group(1).startswith("c3-"):
            return None
        mib = Decimal(entry[0]) * 1024 * vcpus
        return int(mib.to_integral_value(rounding=ROUND_HALF_UP))
    m = _CUSTOM.match(machine_type)
    if m is not None:
        return int(m.group(3))
    return None


@dataclass(frozen=True)
class MachineMemory:
    """The memory a platform formula is computed from, and where that number came from."""

    bytes: int
    source: str  # "NodePool.spec.machineMemory", "machineTypes[x]", "Compute Engine x", "capacity"

    @property
    def from_capacity(self) -> bool:
        return self.source == "capacity"


def machine_memory(pool: Pool, settings: Settings) -> MachineMemory | None:
    """The advertised memory of the pool's machines: spec.machineMemory, settings machineTypes by instance type,
    the built-in Compute Engine table, else the capacity (MemTotal). None without a memory capacity."""
    if pool.machine_memory is not None:
        return MachineMemory(pool.machine_memory.int_value(), "NodePool.spec.machineMemory")
    itype = pool.instance_type
    if itype:
        configured = settings.machineTypes.get(itype)
        if configured is not None:
            return MachineMemory(configured.memory.int_value(), f"machineTypes[{itype}] in .allocatable.yaml")
    sku = pool.labels.get(AKS_SKU_MEMORY_LABEL, "")
    if sku.isdigit() and int(sku) > 0:
        return MachineMemory(int(sku) * 1024 * 1024, f"{AKS_SKU_MEMORY_LABEL}={sku} (MiB)")
    if itype:
        mib = gce_machine_memory_mib(itype)
        if mib is not None:
            return MachineMemory(mib * 1024 * 1024, f"Compute Engine machine type {itype}")
    cap = pool.capacity.get("memory")
    if cap is None:
        return None
    return MachineMemory(cap.int_value(), "capacity")


def quantity_mib(n_bytes: int) -> Quantity:
    return Quantity.from_value(n_bytes, "BinarySI")
