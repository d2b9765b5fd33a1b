"""Machine memory: the size a machine type is sold as, which some platforms compute their reservation from.

GKE computes its kube-reserved memory from the machine type's memory (``memoryMb`` of the Compute Engine
MachineType, which the cluster autoscaler also reads: kubernetes/autoscaler@55c37cd5:cluster-autoscaler/cloudprovider/
gce/machine_types.go ``NewMachineTypeFromAPI``), not from the node's MemTotal (``status.capacity.memory``, a few hundred
MiB less). So does AKS from the VM size's memory. A formula fed MemTotal reserves too little: an n2-highmem-4 (sold as
32 GB) gets 3606Mi on a real node, 3566Mi from its MemTotal.

Two built-in tables, each from a published source:

- Compute Engine predefined machine types (cloud.google.com/compute/docs/general-purpose-machines,
  .../compute-optimized-machines, .../machine-resource): Compute Engine's "GB" of memory is GiB, so a type with G GB
  per vCPU has G x 1024 MiB per vCPU. Where G x 1024 is not whole (n1-highcpu, 0.9 GB per vCPU) the API's memoryMb is
  the nearest MiB (n1-highcpu-2 1843, n1-highcpu-16 14746, n1-highcpu-32 29491 as listed by the machineTypes API,
  gist.github.com/jeffgodwyll/01149892acbb4d7d9f4ec64533b6a0f1); the shared-core f1-micro and g1-small are 614 and
  1740 MiB there. Custom types carry their memory in the name (``n2-custom-8-16384``: 16384 MiB; an ``-ext`` suffix
  is extended memory, same reading).
- Azure VM sizes (``data/azure_vm_sizes.csv``, 1370 sizes): the cluster autoscaler's generated table
  (kubernetes/autoscaler@55c37cd5eb550756c5ccc5a89e9068d77797e575:cluster-autoscaler/cloudprovider/azure/
  azure_instance_types.go). Its generator computes ``int64(MemoryGB) * 1024`` (``azure_instance_types/gen.go``
  l.131-136), dropping the fraction of sizes sold with fractional GiB; the sizes known to be affected are corrected
  here from Azure's size pages: Standard_B1ls 0.5 GiB, Standard_D1/DS1/D1_v2/DS1_v2 3.5 GiB, Standard_M8ms/M8-2ms/
  M8-4ms 218.75 GiB, Standard_M16ms/M16-4ms/M16-8ms 437.5 GiB. The table is read on first use.

Which table a pool uses is its platform's choice (``table_memory`` of its module); this module holds the data and the
parts every platform shares: NodePool.spec.machineMemory and ``machineTypes`` in .allocatable.yaml come first.

Pure data and lookups: O(1) per pool (the Azure table is parsed once, O(sizes)).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import ROUND_HALF_UP, Decimal
from functools import lru_cache
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

if TYPE_CHECKING:
    from renderer.quantity import Quantity

__all__ = [
    "AZURE_CORRECTIONS",
    "MachineMemory",
    "azure_vm_memory_mib",
    "azure_vm_sizes",
    "configured_memory",
    "gce_machine_memory_mib",
]

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

_PREDEFINED = r"^([a-z][a-z0-9]*-(?:standard|highmem|highcpu))-([0-9]+)(-lssd)?$"  # compiled on first use
_CUSTOM = r"^(?:([a-z][a-z0-9]*)-)?custom-([0-9]+)-([0-9]+)(-ext)?$"

#: Azure sizes sold with a fractional GiB, which the autoscaler's generator truncates: the size's real memory in MiB
#: (Azure's size pages: B-series 0.5 GiB, Dv1/DSv1/Dv2/DSv2 3.5 GiB, M-series 218.75 and 437.5 GiB).
AZURE_CORRECTIONS: Mapping[str, int] = {
    "Standard_B1ls": 512,
    "Standard_D1": 3584,
    "Standard_DS1": 3584,
    "Standard_D1_v2": 3584,
    "Standard_DS1_v2": 3584,
    "Standard_M8ms": 224000,
    "Standard_M8-2ms": 224000,
    "Standard_M8-4ms": 224000,
    "Standard_M16ms": 448000,
    "Standard_M16-4ms": 448000,
    "Standard_M16-8ms": 448000,
}


def gce_machine_memory_mib(machine_type: str) -> int | None:
    """Memory in MiB of a Compute Engine predefined or custom machine type, or None if it is not one."""
    if machine_type in _GCE_SHARED_CORE_MIB:
        return _GCE_SHARED_CORE_MIB[machine_type]
    m = re.match(_PREDEFINED, machine_type)
    if m is not None:
        entry = _GCE_FAMILIES.get(m.group(1))
        vcpus = int(m.group(2))
        if entry is None or vcpus not in entry[1]:
            return None
        if m.group(3) and not m.group(1).startswith("c3-"):
            return None
        mib = Decimal(entry[0]) * 1024 * vcpus
        return int(mib.to_integral_value(rounding=ROUND_HALF_UP))
    m = re.match(_CUSTOM, machine_type)
    if m is not None:
        return int(m.group(3))
    return None


@lru_cache(maxsize=1)
def azure_vm_sizes() -> dict[str, tuple[int, int]]:
    """Every Azure VM size of the built-in table: name -> (vCPUs, memory MiB as the table lists it)."""
    from importlib.resources import files

    text = files("renderer.platforms").joinpath("data/azure_vm_sizes.csv").read_text(encoding="utf-8")
    out: dict[str, tuple[int, int]] = {}
    for line in text.splitlines():
        if not line or line.startswith(("#", "name,")):
            continue
        name, vcpus, mib = line.split(",")
        out[name] = (int(vcpus), int(mib))
    return out


def azure_vm_memory_mib(size: str) -> tuple[int, str] | None:
    """Memory in MiB of an Azure VM size and where it comes from, or None if the size is not in the table."""
    if size in AZURE_CORRECTIONS:
        return AZURE_CORRECTIONS[size], f"Azure VM size {size} (the autoscaler's table truncates it; Azure's size page)"
    entry = azure_vm_sizes().get(size)
    if entry is None or entry[1] <= 0:
        return None
    return entry[1], f"Azure VM size {size}"


class MachineMemory(NamedTuple):
    """The memory a platform formula is computed from, and where that number came from."""

    bytes: int
    source: str  # "NodePool.spec.machineMemory", "machineTypes[x]", "Compute Engine x", "capacity"

    @property
    def from_capacity(self) -> bool:
        return self.source == "capacity"


class _Sized(Protocol):
    @property
    def machine_memory(self) -> Quantity | None: ...
    @property
    def instance_type(self) -> str | None: ...


class _MachineTypes(Protocol):
    @property
    def machineTypes(self) -> Mapping[str, Any]: ...


def configured_memory(pool: _Sized, settings: _MachineTypes) -> MachineMemory | None:
    """The machine memory the repo states: NodePool.spec.machineMemory, else machineTypes by instance type."""
    if pool.machine_memory is not None:
        return MachineMemory(pool.machine_memory.int_value(), "NodePool.spec.machineMemory")
    itype = pool.instance_type
    if itype:
        configured = settings.machineTypes.get(itype)
        if configured is not None and configured.memory is not None:
            return MachineMemory(configured.memory.int_value(), f"machineTypes[{itype}] in .allocatable.yaml")
    return None
