"""What a managed platform reserves on its own, and the inputs its formulas read from a pool.

A node of a known platform gets that platform's reservation whether or not the repo states it. When no
ReservationPolicy selects a pool, the capacity model applies the default below, shown in ``explain`` with the source
``platform-default:<name>``:

- ``eks``: nodeadm's kube-reserved (cpu tiers, memory 11 MiB x maxPods + 255 MiB, ephemeral-storage 1Gi) and its
  evictionHard memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%
  (awslabs/amazon-eks-ami@81fec2e8:nodeadm/internal/kubelet/config.go ``withDefaultReservedResources``,
  ``defaultKubeletSubConfig``).
- ``gke``: the ``gke`` formula from the machine type's memory, the boot disk's ephemeral-storage reservation and
  GKE's evictionHard (memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%).
- ``aks`` / ``aks-legacy``: AKS 1.29+ or the older tiers; a Node's kubelet version decides, otherwise
  ``platformDefaults.aks`` in .allocatable.yaml.
- ``openshift`` / ``openshift-static``: OpenShift 4.21 turned automatic node sizing on for workers
  (``NODE_SIZING_ENABLED=true`` in openshift/machine-config-operator@db84d836 (release-4.21):templates/common/
  _base/files/kubelet-auto-node-sizing-enabled.yaml, commit e97d1a08; control plane and arbiter stay off, and
  HyperShift workers stay off in 4.21 and 4.22 until 0431fe7f); with it off the script writes the static
  system-reserved cpu 500m, memory 1Gi, ephemeral-storage 1Gi. OpenShift sets no evictionHard, so the
  kubelet's defaults apply. A Node's kubelet version tells 4.21+ (Kubernetes 1.34+) from older releases;
  NodePools follow ``platformDefaults.openshift``.
- ``aks-engine`` (self-managed AKS Engine clusters): no reservation, evictionHard memory.available 750Mi,
  nodefs.available 10%, nodefs.inodesFree 5%.
- ``generic``: nothing (the kubelet's defaults: no reservation, evictionHard memory.available 100Mi,
  nodefs.available 10%, ...).

Cost: O(1) per pool.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING

from renderer.capacity.formulas import GIB, MIB, MachineShape
from renderer.capacity.machine_types import machine_memory

if TYPE_CHECKING:
    from renderer.models.inventory import Pool
    from renderer.models.settings import Settings

__all__ = [
    "MEMORY_FORMULAS",
    "OPENSHIFT_STATIC",
    "PlatformDefault",
    "boot_disk",
    "formula_inputs",
    "kubelet_minor",
    "platform_default",
]

#: Formulas the platforms compute from the machine type's advertised memory (not MemTotal).
MEMORY_FORMULAS = frozenset({"gke", "aks", "aks-legacy"})

#: The static system-reserved values OpenShift's script writes when auto sizing is off (the unit's defaults).
OPENSHIFT_STATIC: dict[str, str] = {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"}

_AKS_ENGINE_EVICTION = {"memory.available": "750Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
_OPENSHIFT_CONTROL_PLANE = frozenset({"master", "control-plane", "arbiter"})
_HYPERSHIFT_LABEL = "hypershift.openshift.io/nodePool"
_VERSION = re.compile(r"^v?(\d+)\.(\d+)")


@dataclass(frozen=True)
class PlatformDefault:
    """The reservation a platform applies by itself: a formula, or static systemReserved values."""

    name: str  # shown as platform-default:<name>
    formula: str | None
    system_reserved: dict[str, str] = field(default_factory=dict)
    eviction_hard: dict[str, str] | None = None  # None: the formula's eviction defaults
    reason: str = ""

    @property
    def source(self) -> str:
        return f"platform-default:{self.name}"


def kubelet_minor(pool: Pool) -> int | None:
    """Kubernetes minor version of a Node's kubelet (``v1.31.7-eks-473151a`` → 31), None when unknown."""
    m = _VERSION.match(pool.node_info.get("kubeletVersion", ""))
    if m is None or m.group(1) != "1":
        return None
    return int(m.group(2))


def _openshift_role(pool: Pool) -> str | None:
    if pool.machine_config_pool:
        return pool.machine_config_pool
    roles = {k.split("/", 1)[1] for k in pool.labels if k.startswith("node-role.kubernetes.io/")}
    return next((r for r in sorted(roles) if r in _OPENSHIFT_CONTROL_PLANE), None)


def platform_default(pool: Pool, settings: Settings) -> PlatformDefault | None:
    """The default reservation of the pool's platform (None for generic pools)."""
    platform = pool.platform
    minor = kubelet_minor(pool)
    if platform == "eks":
        return PlatformDefault("eks", "eks", reason="EKS nodeadm / bootstrap defaults")
    if platform == "gke":
        return PlatformDefault("gke", "gke", reason="GKE node defaults")
    if platform == "aks":
        if minor is not None:
            name = "aks" if minor >= 29 else "aks-legacy"
            why = f"kubelet {pool.node_info['kubeletVersion']} is {'1.29 or later' if minor >= 29 else 'before 1.29'}"
        else:
            name = settings.platformDefaults.aks
            why = "platformDefaults.aks"
        return PlatformDefault(name, name, reason=why)
    if platform == "aks-engine":
        # Self-managed AKS Engine clusters: no --kube-reserved/--system-reserved among the Linux kubelet defaults,
        # --eviction-hard=memory.available<750Mi,nodefs.available<10%,nodefs.inodesFree<5%
        # (Azure/aks-engine@01171b04:pkg/api/defaults-kubelet.go, DefaultKubernetesHardEvictionThreshold).
        return PlatformDefault("aks-engine", None, {}, dict(_AKS_ENGINE_EVICTION), "AKS Engine kubelet defaults")
    if platform == "openshift":
        role = _openshift_role(pool)
        if role in _OPENSHIFT_CONTROL_PLANE:
            return _openshift_static(pool, f"auto node sizing is off on {role} nodes")
        if minor is not None:
            hypershift = _HYPERSHIFT_LABEL in pool.labels
            auto = minor >= 34 and not (hypershift and minor < 36)
            version = pool.node_info["kubeletVersion"]
            why = (
                f"kubelet {version}: OpenShift 4.21 or later, auto node sizing on for workers"
                if auto
                else f"kubelet {version}: auto node sizing off (OpenShift before 4.21"
                + (", or a HyperShift worker before 4.23)" if hypershift and minor >= 34 else ")")
            )
            name = "openshift" if auto else "openshift-static"
        else:
            name = settings.platformDefaults.openshift
            why = "platformDefaults.openshift"
        if name == "openshift":
            return PlatformDefault("openshift", "openshift", reason=why)
        return _openshift_static(pool, why)
    return None


_RHCOS = re.compile(r"CoreOS (\d)(\d+)\.\d+\.(\d{8})")
#: Release branches that got SYSTEM_RESERVED_ES into the kubelet's --system-reserved flag after 4.8 dropped it, and
#: the day the backport merged (openshift/machine-config-operator: 8bf71f78 on release-4.11, d09be517 on 4.10,
#: release-4.9's kubelet.service as of 2022-11-23; main (4.12) got 28f062ba on 2022-10-17).
_ES_FLAG_BACKPORT = {9: "20221123", 10: "20221110", 11: "20221021"}


def _openshift_static(pool: Pool, why: str) -> PlatformDefault:
    """Static system-reserved, with ephemeral-storage as the release really reserves it.

    Up to 4.7 kubelet.conf carried systemReserved {cpu 500m, memory 1Gi, ephemeral-storage 1Gi}. From 4.8 the
    kubelet got ``--system-reserved=cpu=...,memory=...`` from /etc/node-sizing.env instead, and a command-line map
    replaces the config file's whole map, so ephemeral-storage was not reserved until SYSTEM_RESERVED_ES was added to
    the flag (4.12, backported to 4.9-4.11 z-streams). The node's RHCOS build (``osImage``: ``411.85.202206032330``
    is 4.11 built 2022-06-03) tells which side of the backport it is on."""
    values = dict(OPENSHIFT_STATIC)
    m = _RHCOS.search(pool.node_info.get("osImage", ""))
    if m is not None and m.group(1) == "4":
        minor, built = int(m.group(2)), m.group(3)
        backport = _ES_FLAG_BACKPORT.get(minor)
        if minor == 8 or (backport is not None and built < backport):
            del values["ephemeral-storage"]
            why += (
                f"; RHCOS {m.group(1)}.{minor} built {built}: the kubelet's --system-reserved has no ephemeral-storage"
            )
    else:
        kubelet = kubelet_minor(pool)
        if kubelet == 21:  # OpenShift 4.8
            del values["ephemeral-storage"]
            why += "; OpenShift 4.8: the kubelet's --system-reserved has no ephemeral-storage"
    return PlatformDefault("openshift-static", None, values, {}, why)


# ----------------------------------------------------------------------------------------------------
# GKE boot disk

_LOCAL_SSD_LABEL = "cloud.google.com/gke-ephemeral-storage-local-ssd"
_OS_DISTRIBUTION_LABEL = "cloud.google.com/gke-os-distribution"
_LOCAL_SSD_BYTES = 375 * GIB


def _os_reserved(disk: int, distribution: str, arm64: bool) -> int:
    """How much of a boot disk the OS keeps (not in the ephemeral-storage capacity), as the cluster autoscaler
    estimates it: kubernetes/autoscaler@55c37cd5:cluster-autoscaler/cloudprovider/gce/gce_reserved.go
    ``CalculateOSReservedEphemeralStorage``."""
    buffer = min(100 * MIB, math.ceil(Decimal("0.001") * disk))
    if distribution == "ubuntu":
        return math.ceil(Decimal("0.03083") * disk) + math.ceil(Decimal("0.171") * GIB) + buffer
    storage = math.ceil(Decimal("0.015635") * disk) + math.ceil(Decimal("4.148") * GIB) + buffer
    return storage + (64 * MIB if arm64 else 0)


def boot_disk(pool: Pool) -> tuple[int | None, int | None, str | None]:
    """(boot disk bytes, local SSD count, note) of a GKE pool, inferred from its ephemeral-storage capacity.

    GKE boot disks come in whole GB (GiB); the filesystem the kubelet reports is the disk minus what the OS keeps,
    which the cluster autoscaler estimates per image; the boot disk is the whole-GiB size whose estimate is
    nearest to the capacity. With ephemeral storage on local SSDs (375 GiB each) the count is what the capacity
    needs."""
    cap_q = pool.capacity.get("ephemeral-storage")
    if pool.labels.get(_LOCAL_SSD_LABEL) != "true" and pool.boot_disk is not None:
        return pool.boot_disk.int_value(), None, f"boot disk {pool.boot_disk} (NodePool.spec.bootDiskSize)"
    if cap_q is None or cap_q.is_zero():
        return None, None, None
    cap = cap_q.int_value()
    if pool.labels.get(_LOCAL_SSD_LABEL) == "true":
        count = max(1, -(-cap // _LOCAL_SSD_BYTES))
        return None, count, f"ephemeral storage on local SSDs: {count} x 375 GiB for {cap_q} of capacity"
    distribution = pool.labels.get(_OS_DISTRIBUTION_LABEL, "")
    if not distribution:
        image = pool.node_info.get("osImage", "").lower()
        distribution = "ubuntu" if "ubuntu" in image else "cos"
    arm64 = pool.labels.get("kubernetes.io/arch") == "arm64"
    # invert the estimate (its 0.1% buffer is at most 100 MiB), then compare the whole sizes around that
    rate, fixed = (
        (Decimal("0.03083"), Decimal("0.171")) if distribution == "ubuntu" else (Decimal("0.015635"), Decimal("4.148"))
    )
    guess = max(10, round((Decimal(cap) / GIB + fixed + Decimal("0.1")) / (1 - rate)))
    best = min(
        range(max(10, guess - 3), guess + 4),
        key=lambda g: abs(g * GIB - _os_reserved(g * GIB, distribution, arm64) - cap),
    )
    disk = best * GIB
    return (
        disk,
        None,
        f"boot disk taken as {best} GiB: the size whose {distribution} OS partitions (cluster autoscaler's estimate) "
        f"leave {cap_q} of ephemeral-storage capacity",
    )


# ----------------------------------------------------------------------------------------------------
# formula inputs


def formula_inputs(
    pool: Pool, formula: str, settings: Settings, max_pods: int, system_reserved_es: str | None = None
) -> tuple[MachineShape | None, list[str]]:
    """The machine shape ``formula`` is computed from for ``pool`` (None without cpu or memory), and notes."""
    notes: list[str] = []
    cpu = pool.capacity.get("cpu")
    mem = pool.capacity.get("memory")
    if cpu is None or mem is None or cpu.value <= 0 or mem.int_value() <= 0:
        return None, notes
    memory_bytes = mem.int_value()
    if formula in MEMORY_FORMULAS:
        machine = machine_memory(pool, settings)
        if machine is not None:
            if machine.from_capacity:
                notes.append(
                    f"memory: {formula} is computed from the machine type's advertised memory; it is not known for "
                    f"{pool.instance_type or 'this pool'}, so the capacity ({mem}, MemTotal) was used and the "
                    "reservation may be low: set NodePool.spec.machineMemory or machineTypes in .allocatable.yaml"
                )
            else:
                notes.append(f"memory: {formula} computed from {machine.bytes // MIB}Mi ({machine.source})")
            memory_bytes = machine.bytes
    boot = ssd = None
    if formula == "gke":
        boot, ssd, note = boot_disk(pool)
        if note:
            notes.append(note)
    shape = MachineShape(
        cpus=cpu.value,
        memory_bytes=memory_bytes,
        max_pods=max_pods,
        machine_type=pool.instance_type,
        boot_disk_bytes=boot,
        local_ssd_count=ssd,
        system_reserved_es=system_reserved_es,
    )
    return shape, notes
