"""Azure Kubernetes Service: Linux node pools before and from 1.29, and Windows node pools.

The formula lives in the closed AKS resource provider; AKS publishes it in "Node resource reservations"
(learn.microsoft.com/azure/aks/node-resource-reservations):

- cpu: a table, 1 core 60m, 2 100m, 4 140m, 8 180m, 16 260m, 32 420m, 64 740m. It is exactly the marginal schedule
  6% of the first core, 4% of the second, 2% of each of the next two and 1% of every core above 4, which this module
  uses to interpolate between rows and to extend the last slope (10m per core) beyond 64 cores.
- memory, 1.29 and later: min(20 MB x maxPods + 50 MB, 25% of the memory), with evictionHard memory.available
  100Mi; real nodes write MiB (110 pods -> memory=2250Mi: tests/real-nodes/aks). Before 1.29: 25% of the first 4 GiB,
  20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128, truncated to whole MiB, with
  memory.available 750Mi (Azure/AgentBaker@06836ee2 e2e/node_config.go l.78-91: ``--kube-reserved=cpu=100m,
  memory=1638Mi`` for a 7 GiB size). Both nodefs.available 10%, nodefs.inodesFree 5%.
- Both read the VM size's memory (label ``kubernetes.azure.com/sku-memory`` in MiB, or the built-in Azure VM-size
  table), not MemTotal.
- Windows: no hard eviction and no allocatable enforcement (``--cgroups-per-qos=false``); "AKS reserves an additional
  2 GB for system processes in Windows nodes" (the docs), which AKS folds into kube-reserved:
  Azure/AgentBaker@06836ee2 e2e/node_config.go l.1043-1058 passes ``--kube-reserved=cpu=100m,memory=3891Mi`` (1843Mi
  of an 8 GiB size plus 2048Mi) and ``--eviction-hard=""``. Whether the 1.29 memory rule applies to Windows is not
  stated; the fixture uses the tiers, and so does this module.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import TYPE_CHECKING

from renderer.platforms._base import Default, Platform, PoolView, Release, Signal, kubelet_minor, profile_of, register
from renderer.platforms._formula import (
    MIB,
    Clamp,
    Formula,
    MachineShape,
    Rounding,
    Term,
    cpu_tiers,
    fmt_number,
    memory_tiers,
)
from renderer.platforms._machines import MachineMemory, azure_vm_memory_mib

if TYPE_CHECKING:
    from renderer.platforms._base import Settings

_DOCS = "learn.microsoft.com/azure/aks/node-resource-reservations"
_AGENTBAKER = "Azure/AgentBaker@06836ee2301e362039418c3a7ed0fe6004a641fd:e2e/node_config.go"
_EVICTION = {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
_LEGACY_EVICTION = {"memory.available": "750Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
#: AKS nodes label the VM size's memory in MiB (e.g. 8192 on a Standard_D2as_v4).
SKU_MEMORY_LABEL = "kubernetes.azure.com/sku-memory"

#: the table AKS publishes (cores -> millicores); the cpu term reproduces every row exactly.
CPU_TABLE: tuple[tuple[int, int], ...] = ((1, 60), (2, 100), (4, 140), (8, 180), (16, 260), (32, 420), (64, 740))

_CPU = Term(
    input="cpu",
    tiers=cpu_tiers((1, "0.06"), (2, "0.04"), (4, "0.02"), (None, "0.01")),
    rounding=Rounding("down", Fraction(1, 1000)),
    unit="m",
)
_MIB = Rounding("down", Fraction(MIB))
_LEGACY_MEMORY = Term(input="machineMemory", tiers=memory_tiers(1024 * MIB), rounding=_MIB, unit="Mi")


def _cpu_notes(shape: MachineShape, formula: Formula, values: dict[str, dict[str, Fraction]]) -> list[str]:
    """How the cpu value relates to the published table (a row, between rows, beyond the last)."""
    got = values["kubeReserved"].get("cpu")
    if got is None:
        return []
    cpus = Decimal(shape.cpus)
    result = f"{fmt_number(got * 1000)}m"
    rows = dict(CPU_TABLE)
    if cpus in rows:
        return [f"cpu: AKS table row for {fmt_number(cpus)} cores -> {result}"]
    last = CPU_TABLE[-1]
    if cpus > last[0]:
        return [
            f"cpu: {fmt_number(cpus)} cores is beyond the published table (last row {last[0]} cores -> {last[1]}m); "
            f"extrapolated at the table's last slope of 10m per core -> {result}"
        ]
    below, above = (0, 0), CPU_TABLE[0]
    for row in CPU_TABLE:
        if row[0] < cpus:
            below = row
        else:
            above = row
            break
    return [
        f"cpu: {fmt_number(cpus)} cores is not a published table row; interpolated linearly between {below[0]} cores "
        f"({below[1]}m) and {above[0]} cores ({above[1]}m) -> {result}"
    ]


def _memory_notes(shape: MachineShape, formula: Formula, values: dict[str, dict[str, Fraction]]) -> list[str]:
    return [*_cpu_notes(shape, formula, values), "memory: the documented 'MB' is MiB on the node"]


_CPU_DOC = """\
  CPU: AKS publishes only a table (1 core 60m, 2 100m, 4 140m, 8 180m, 16 260m, 32 420m, 64 740m).  The table
  is exactly the marginal schedule 6% of the first core, 4% of the second, 2% of each of the next two and 1%
  of every core above 4, which is also how Microsoft's own Karpenter provider for AKS computes it.  This
  formula therefore interpolates linearly between rows (3 cores -> 120m, 6 -> 160m, 48 -> 580m) and extends
  the last slope, 10m per core, beyond 64 cores (96 -> 1060m); fractional results are truncated to whole
  millicores.  The result notes say when a size is interpolated or extrapolated."""

AKS = Formula(
    name="aks",
    summary="AKS 1.29+: memory min(20 MiB x maxPods + 50 MiB, 25%), cpu from the AKS table",
    terms={
        "kubeReserved": {
            "cpu": _CPU,
            "memory": Term(
                input="machineMemory",
                base=Fraction(50 * MIB),
                per_pod=Fraction(20 * MIB),
                maximum=Clamp(fraction=Fraction(1, 4)),
                rounding=_MIB,
                unit="Mi",
            ),
        }
    },
    eviction_hard=_EVICTION,
    notes=_memory_notes,
    doc=f"""\
AKS 1.29+ kube-reserved (Linux nodes).
  Memory: min(20 x maxPods + 50, 25% of memory) in MiB: the documentation writes "MB", but nodes are given
  MiB (110 pods -> memory=2250Mi).  25% of memory is truncated to whole MiB.  Pass the VM size's nominal
  memory.  maxPods defaults to 110 when not given (AKS's real default depends on the network plugin: set it).
{_CPU_DOC}
  Hard eviction: memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%.  Windows nodes: the
  aks-windows formula.""",
    sources=(_DOCS,),
)
AKS_LEGACY = Formula(
    name="aks-legacy",
    summary="AKS before 1.29: 25/20/10/6/2% memory tiers, cpu from the AKS table, eviction 750Mi",
    terms={"kubeReserved": {"cpu": _CPU, "memory": _LEGACY_MEMORY}},
    eviction_hard=_LEGACY_EVICTION,
    notes=_cpu_notes,
    doc=f"""\
AKS before 1.29 kube-reserved (Linux nodes).
  Memory: 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128 of
  the VM size's nominal memory, truncated to whole MiB and written "<n>Mi" (7 GiB -> 1638Mi, 8 GiB -> 1843Mi,
  16 GiB -> 2662Mi).  Unlike GKE there is no 255Mi minimum, and "GB" means GiB.  maxPods is not used.
{_CPU_DOC}
  Hard eviction: memory.available 750Mi, nodefs.available 10%, nodefs.inodesFree 5%.  Windows nodes: the
  aks-windows formula.""",
    sources=(_DOCS, _AGENTBAKER),
)
AKS_WINDOWS = Formula(
    name="aks-windows",
    summary="AKS Windows: the 25/20/10/6/2% memory tiers + 2 GiB, cpu from the AKS table, no hard eviction",
    terms={"kubeReserved": {"cpu": _CPU, "memory": _LEGACY_MEMORY._replace(base=Fraction(2048 * MIB))}},
    eviction_hard={},
    notes=_cpu_notes,
    doc=f"""\
AKS Windows node pools kube-reserved.
  Memory: the tiers of aks-legacy plus 2048 MiB ("AKS reserves an additional 2 GB for system processes in
  Windows nodes"; AgentBaker's Windows fixture: 1843Mi + 2048Mi = 3891Mi for 8 GiB).
{_CPU_DOC}
  No hard eviction and no node allocatable enforcement on Windows.""",
    sources=(_DOCS, f"{_AGENTBAKER} l.1043-1058"),
)

_NODE_NAME = r"^aks-[a-z0-9]+-[0-9]+-vmss[0-9a-z]{6}$"


@register
class Aks(Platform):
    title = "Azure Kubernetes Service"
    summary = "AKS: the AKS cpu table and memory rules (1.29+, before 1.29, Windows) from the VM size's memory"
    order = 40
    signals = (
        Signal("label", "kubernetes.azure.com/agentpool", "AKS labels every node with its agent pool"),
        Signal("label", "kubernetes.azure.com/mode", "AKS (system / user pools)"),
        Signal("label", "kubernetes.azure.com/node-image-version", "AKS node images"),
        Signal("name", _NODE_NAME, "AKS VM scale set naming (aks-<pool>-<digits>-vmss<6 chars>); a convention"),
    )
    hints = (
        Signal("label-prefix", "kubernetes.azure.com/", "AKS node labels (also on AKS Engine's nodes)"),
        Signal("name", r"^aks-[a-z0-9]+-", "AKS node names start aks-<pool>- (scale sets and availability sets)"),
        Signal("providerID", "azure://", "the Azure cloud provider (also AKS Engine and self-managed clusters)"),
        Signal(
            "resource", "attachable-volumes-azure-disk", "the in-tree Azure Disk volume limit of nodes on Azure VMs"
        ),
    )
    formulas = (AKS, AKS_LEGACY, AKS_WINDOWS)
    memory_source = (
        f"the VM size's memory: label {SKU_MEMORY_LABEL} (MiB), else the built-in Azure VM-size table "
        "(kubernetes/autoscaler@55c37cd5, fractional-GiB sizes corrected), not MemTotal"
    )
    defaults = (
        Default(
            "aks",
            "AKS 1.29+ Linux: cpu table, min(20 MiB x maxPods + 50 MiB, 25%); evictionHard 100Mi",
            AKS,
            _EVICTION,
            (_DOCS,),
        ),
        Default(
            "aks-legacy",
            "AKS before 1.29 Linux: cpu table, memory tiers; evictionHard 750Mi",
            AKS_LEGACY,
            _LEGACY_EVICTION,
            (_DOCS, _AGENTBAKER),
        ),
        Default(
            "aks-windows",
            "AKS Windows: cpu table, memory tiers + 2 GiB; no hard eviction",
            AKS_WINDOWS,
            {},
            (_DOCS, f"{_AGENTBAKER} l.1043-1058"),
            os="windows",
        ),
    )
    profiles = {d.name: d.title for d in defaults}
    history = (
        Release(
            "before 1.29 (Linux)",
            "",
            "aks-legacy",
            _DOCS,
            "AgentBaker fixtures: --kube-reserved memory 1638Mi for 7 GiB, --eviction-hard memory.available<750Mi",
        ),
        Release(
            "1.29 and later (Linux)",
            "",
            "aks",
            _DOCS,
            "memory min(20 MB x maxPods + 50 MB, 25%), eviction 100Mi; real nodes write MiB",
        ),
        Release(
            "Windows node pools",
            "2018-12-01",
            "aks-windows",
            f"{_DOCS}; {_AGENTBAKER} l.1043-1058; "
            "Azure/aks-engine@0e1bf562 (#3999, --system-reserved=memory=2Gi on aks-engine)",
        ),
    )
    render_notes = (
        "AKS manages the kubelet of its node pools: spec.delivery.aksKubeletConfig renders the agent pool's "
        "kubeletConfig (aks/<pool>.kubelet-config.json for az aks nodepool add|update --kubelet-config); "
        "kubeReserved (cpuMillicores >= 140, memoryMB >= 750 MiB) and hardEvictionThreshold only in api-version "
        "2026-08-02-preview, no systemReserved",
    )
    deliveries = frozenset({"aksKubeletConfig"})
    kubelet_file = False
    no_kubelet_file = (
        "AKS nodes read no KubeletConfiguration file a user supplies; set spec.delivery.aksKubeletConfig to render the "
        "agent pool's kubeletConfig"
    )

    def recommended_for(self, pool: PoolView, settings: Settings) -> str | None:
        d = self.default(pool, settings)
        return None if d is None or d.formula is None else d.formula.name

    def default(self, pool: PoolView, settings: Settings) -> Default | None:
        chosen, why = profile_of(pool, settings, self.name)
        if chosen is not None:
            return self.default_named(chosen).because(why)
        windows = pool.labels.get("kubernetes.io/os") == "windows" or pool.node_info.get("operatingSystem") == "windows"
        if windows:
            return self.default_named("aks-windows").because("a Windows node")
        minor = kubelet_minor(pool)
        if minor is None:
            return self.default_named("aks").because("AKS 1.29 and later (no kubelet version to tell)")
        version = pool.node_info["kubeletVersion"]
        if minor >= 29:
            return self.default_named("aks").because(f"kubelet {version} is 1.29 or later")
        return self.default_named("aks-legacy").because(f"kubelet {version} is before 1.29")

    def table_memory(self, pool: PoolView) -> MachineMemory | None:
        sku = pool.labels.get(SKU_MEMORY_LABEL, "")
        if sku.isdigit() and int(sku) > 0:
            return MachineMemory(int(sku) * MIB, f"{SKU_MEMORY_LABEL}={sku} (MiB)")
        itype = pool.instance_type
        if itype:
            found = azure_vm_memory_mib(itype)
            if found is not None:
                return MachineMemory(found[0] * MIB, found[1])
        return None
