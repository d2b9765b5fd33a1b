"""Google Kubernetes Engine (Standard; Autopilot nodes are GKE nodes too).

GKE "Plan node sizes" (cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes) publishes the reservation:
kube-reserved memory 255 MiB on machines with at most 1 GB, else 25% of the first 4 GB, 20% of the next 4, 10% of the
next 8, 6% of the next 112 and 2% above 128; cpu 6% of the first core, 1% of the next, 0.5% of the next 2 and 0.25%
above 4; a flat 1060 millicores on shared-core E2 machines; ephemeral storage min(50% of the boot disk, 6 GiB + 35%,
100 GiB), or 50/75/100 GiB on 1/2/3+ local SSDs; evictionHard memory.available 100Mi, nodefs.available 10%,
nodefs.inodesFree 5%. Real nodes show that GKE's bootstrap reads "GB" as 1000 MiB (an n1-standard-2 with 7.5 GiB gets
1736Mi, not the 1740Mi of GiB tiers; the cluster autoscaler copies this, kubernetes/autoscaler@55c37cd5
``cloudprovider/gce/reserved.go``), computed from the machine type's memory, not MemTotal.

Autopilot: Google publishes no separate node reservation for Autopilot
(cloud.google.com/kubernetes-engine/docs/concepts/autopilot-resource-requests describes pod requests only); its
nodes are modelled as GKE Standard's, which is an assumption.
"""

from __future__ import annotations

import math
from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from renderer.platforms._base import Default, Platform, PoolView, Release, Signal, register
from renderer.platforms._formula import (
    GIB,
    MIB,
    Clamp,
    Formula,
    MachineShape,
    Override,
    Rounding,
    Step,
    Term,
    Tier,
    cpu_tiers,
    memory_tiers,
)
from renderer.platforms._machines import MachineMemory, gce_machine_memory_mib

if TYPE_CHECKING:
    from renderer.platforms._base import Settings

_EVICTION = {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
_GB = 1000 * MIB  # GKE's bootstrap reads "GB" as 1000 MiB
_SHARED_CORE_E2 = frozenset({"e2-micro", "e2-small", "e2-medium"})
_LOCAL_SSD_LABEL = "cloud.google.com/gke-ephemeral-storage-local-ssd"
_OS_DISTRIBUTION_LABEL = "cloud.google.com/gke-os-distribution"
_LOCAL_SSD_BYTES = 375 * GIB
_PLAN = "cloud.google.com/kubernetes-engine/docs/concepts/plan-node-sizes"


def _gib_reading(shape: MachineShape, formula: Formula, values: dict[str, dict[str, Fraction]]) -> list[str]:
    """Where the published tiers read with GiB would give another value, say so."""
    got = values["kubeReserved"].get("memory")
    memory = shape.machine_memory_bytes if shape.machine_memory_bytes is not None else shape.memory_bytes
    mib = memory // MIB
    if got is None or mib <= 1000:
        return []
    total = Fraction(0)
    lower = 0
    for tier in memory_tiers(1024):
        top = mib if tier.up_to is None else min(mib, int(tier.up_to))
        if top > lower:
            total += (top - lower) * tier.fraction
        if tier.up_to is None:
            break
        lower = int(tier.up_to)
    doc_value = math.floor(total)
    if doc_value * MIB == got:
        return []
    return [
        f"memory: the published tiers read with 1 GB = 1 GiB would give {doc_value}Mi; GKE nodes write the "
        "1000-MiB value"
    ]


GKE = Formula(
    name="gke",
    summary="GKE: 25/20/10/6/2% memory tiers (1 GB = 1000 MiB), 6/1/0.5/0.25% cpu tiers",
    terms={
        "kubeReserved": {
            "cpu": Term(
                input="cpu",
                whole=Fraction(1, 1000),
                tiers=cpu_tiers((1, "0.06"), (2, "0.01"), (4, "0.005"), (None, "0.0025")),
                rounding=Rounding("down", Fraction(1, 1000)),
                unit="m",
            ),
            "memory": Term(
                input="machineMemory",
                whole=Fraction(MIB),
                steps=(Step(Fraction(_GB), Fraction(255 * MIB), "255Mi"),),
                tiers=memory_tiers(_GB),
                rounding=Rounding("down", Fraction(MIB)),
                unit="Mi",
                shown_in=(Fraction(MIB), "MiB, 1 GB read as 1000 MiB"),
            ),
            "ephemeral-storage": Term(
                input="bootDisk",
                tiers=(Tier(Fraction(40 * GIB), Fraction(1, 2)), Tier(None, Fraction(35, 100))),
                maximum=Clamp(amount=Fraction(100 * GIB)),
                rounding=Rounding("down", Fraction(MIB)),
                unit="GiMi",
            ),
        }
    },
    eviction_hard=_EVICTION,
    overrides=(
        Override(
            {"kubeReserved": {"cpu": Term(base=Fraction(106, 100), unit="m", text="1060m")}},
            machine_types=_SHARED_CORE_E2,
            note="cpu: shared-core {machine_type}: GKE reserves a flat 1060m",
            karpenter=False,  # Compute Engine types: never among Karpenter's (EC2) instance types
        ),
        Override(
            {
                "kubeReserved": {
                    "ephemeral-storage": Term(
                        input="localSsds",
                        steps=(
                            Step(Fraction(1), Fraction(50 * GIB), "50Gi"),
                            Step(Fraction(2), Fraction(75 * GIB), "75Gi"),
                        ),
                        base=Fraction(100 * GIB),
                        unit="GiMi",
                    )
                }
            },
            when_input="localSsds",
            note="ephemeral-storage: on local SSDs: 50Gi for one, 75Gi for two, 100Gi for three or more",
        ),
    ),
    notes=_gib_reading,
    doc="""\
GKE kube-reserved, as GKE nodes write it.
  Memory: 255Mi when the machine has at most 1 GB; otherwise 25% of the first 4 GB, 20% of the next 4, 10% of
  the next 8, 6% of the next 112 and 2% above 128.  GKE's node bootstrap reads "GB" here as 1000 MiB (the
  cluster autoscaler copies this deliberately to predict nodes exactly, and real nodes show it: an
  n1-standard-2 with 7.5 GiB gets 1736Mi, an e2-medium with 4 GiB gets 1019Mi).  The tiers are applied to the
  machine's memory in whole MiB and the result is truncated to whole MiB, written "<n>Mi".  Pass the machine
  type's nominal memory.  Where the published tiers read with GiB would differ, the result notes say so.
  CPU: 6% of the first core, 1% of the next, 0.5% of the next 2, 0.25% of each core above 4, computed in
  millicores and truncated to whole millicores, written "<n>m" (2 cores -> 70m, 5 cores -> 82m).
  Shared-core E2 types (e2-micro, e2-small, e2-medium) get a flat 1060m cpu instead (GKE "Plan node sizes").
  ephemeral-storage (GKE "Plan node sizes", local ephemeral storage reservation): min(50% of the boot disk,
  6 GiB + 35% of the boot disk, 100 GiB), e.g. 41Gi on a 100 GiB boot disk; with ephemeral storage on local
  SSDs, 50Gi for one SSD, 75Gi for two, 100Gi for three or more.  Without a known boot disk, none.
  Hard eviction: memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%.""",
    sources=(_PLAN,),
)


def _os_reserved(disk: int, distribution: str, arm64: bool) -> int:
    """How much of a boot disk the OS keeps (not in the ephemeral-storage capacity), as the cluster autoscaler
    estimates it: kubernetes/autoscaler@55c37cd5:cluster-autoscaler/cloudprovider/gce/gce_reserved.go
    ``CalculateOSReservedEphemeralStorage``."""
    buffer = min(100 * MIB, math.ceil(Decimal("0.001") * disk))
    if distribution == "ubuntu":
        return math.ceil(Decimal("0.03083") * disk) + math.ceil(Decimal("0.171") * GIB) + buffer
    storage = math.ceil(Decimal("0.015635") * disk) + math.ceil(Decimal("4.148") * GIB) + buffer
    return storage + (64 * MIB if arm64 else 0)


def boot_disk(pool: PoolView) -> tuple[int | None, int | None, str | None]:
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
    return (
        best * GIB,
        None,
        f"boot disk taken as {best} GiB: the size whose {distribution} OS partitions (cluster autoscaler's estimate) "
        f"leave {cap_q} of ephemeral-storage capacity",
    )


def _boot_disk_cause(probe: Any) -> str | None:
    """Another boot disk size reproduces the ephemeral-storage."""
    formula = probe.formula
    if formula is None or formula is not GKE or probe.resource != "ephemeral-storage" or probe.pool.boot_disk:
        return None
    from dataclasses import replace

    from renderer.quantity import Quantity

    cap = probe.pool.capacity["ephemeral-storage"].int_value()
    for gib in range(max(10, cap // GIB - 20), cap // GIB + 40):
        if probe.matches_with(pool=replace(probe.pool, boot_disk=Quantity.from_value(gib * GIB, "BinarySI"))):
            return (
                f"it matches a {gib} GiB boot disk: set NodePool.spec.bootDiskSize: {gib}Gi (the disk could not be "
                "told from the capacity)"
            )
    return None


@register
class Gke(Platform):
    title = "Google Kubernetes Engine"
    summary = "GKE Standard (and Autopilot): kube-reserved from the machine type's memory and cpu, and the boot disk"
    order = 30
    signals = (
        Signal("label", "cloud.google.com/gke-nodepool", "GKE labels every node with its node pool"),
        Signal("kubeletVersion", r"-gke\.", "GKE kubelet builds (v1.31.4-gke.1256000)"),
    )
    hints = (
        Signal("label-prefix", "cloud.google.com/gke-", "GKE node labels (gke-os-distribution, gke-boot-disk, ...)"),
        Signal("label-prefix", "topology.gke.io/", "GKE's Persistent Disk CSI driver topology label"),
        Signal("providerID", "gce://", "the GCE cloud provider (also self-managed clusters and OpenShift on GCP)"),
        Signal("resource", "attachable-volumes-gce-pd", "the in-tree GCE PD volume limit of nodes on Compute Engine"),
        Signal("name", r"^gke-", "GKE names its nodes gke-<cluster>-<pool>-<hash>-<suffix>; a convention"),
    )
    formulas = (GKE,)
    recommended = "gke"
    memory_source = (
        "the Compute Engine machine type's memory (built-in table of predefined and custom types), not MemTotal"
    )
    defaults = (
        Default(
            "gke",
            "GKE: memory and cpu tiers, ephemeral-storage from the boot disk; evictionHard 100Mi / 10% / 5%",
            GKE,
            _EVICTION,
            (_PLAN,),
        ),
    )
    history = (
        Release(
            "GKE Standard, every version in the published docs",
            "",
            "gke",
            _PLAN,
            "1 GB read as 1000 MiB as real nodes show (n1-standard-2: 1736Mi)",
        ),
        Release(
            "GKE Autopilot",
            "",
            "gke",
            "cloud.google.com/kubernetes-engine/docs/concepts/autopilot-resource-requests",
            "no node reservation published for Autopilot; GKE Standard's is assumed",
        ),
    )
    causes = (_boot_disk_cause,)
    render_notes = (
        "GKE manages the kubelet of its node pools: spec.delivery.gkeSystemConfig renders the node pool's system "
        "configuration (gcloud --system-config-from-file YAML, or the REST NodeKubeletConfig); gcloud takes no "
        "kube-reserved, system-reserved or eviction-hard, REST only one combined reservedResourcesConfig",
    )
    deliveries = frozenset({"gkeSystemConfig"})
    kubelet_file = False
    no_kubelet_file = (
        "GKE nodes read no KubeletConfiguration file a user supplies; set spec.delivery.gkeSystemConfig to render the "
        "node pool's system configuration"
    )

    def default(self, pool: PoolView, settings: Settings) -> Default | None:
        return self.defaults[0].because("GKE node defaults")

    def table_memory(self, pool: PoolView) -> MachineMemory | None:
        itype = pool.instance_type
        if itype:
            mib = gce_machine_memory_mib(itype)
            if mib is not None:
                return MachineMemory(mib * MIB, f"Compute Engine machine type {itype}")
        return None

    def shape_inputs(self, pool: PoolView, formula: Formula) -> tuple[dict[str, Any], list[str]]:
        if not {"bootDisk", "localSsds"} & formula.inputs():
            return {}, []
        boot, ssd, note = boot_disk(pool)
        return {"boot_disk_bytes": boot, "local_ssd_count": ssd}, [note] if note else []
