"""Platform reservation formulas: what a node of a given shape ends up reserving.

Each formula reproduces the numbers a platform component actually writes onto the node (OpenShift's
``dynamic-system-reserved-calc.sh``, GKE's node bootstrap, AKS's node provisioning, EKS's nodeadm), including
their truncation and rounding quirks, because users compare our output with what their nodes report.

Pure domain code: no I/O and no third-party imports.  All arithmetic is exact ``Decimal``/``int`` arithmetic;
a local decimal context traps ``Inexact`` so a silent rounding error cannot slip in, and every rounding step
the platforms perform is done explicitly with integer arithmetic.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, Inexact, localcontext
from fractions import Fraction
from typing import Final, Literal

from renderer.models.kubelet_fields import KUBELET_DEFAULT_EVICTION_HARD

__all__ = [
    "AKS_CPU_TABLE",
    "DEFAULT_MAX_PODS",
    "FORMULAS",
    "FORMULA_NAMES",
    "GIB",
    "MIB",
    "FormulaError",
    "FormulaInfo",
    "FormulaName",
    "FormulaResult",
    "MachineShape",
    "compute",
]

FormulaName = Literal["openshift", "openshift-4.20", "gke", "aks", "aks-legacy", "eks"]
FORMULA_NAMES: tuple[str, ...] = ("openshift", "openshift-4.20", "gke", "aks", "aks-legacy", "eks")

Fills = Literal["systemReserved", "kubeReserved"]

MIB: Final = 1024**2
GIB: Final = 1024**3

#: max pods assumed when the shape does not say (kubelet default; nodeadm's fallback for unknown types).
DEFAULT_MAX_PODS: Final = 110

# Kubelet's built-in Linux evictionHard defaults (used as-is by OpenShift, which does not set evictionHard).
_KUBELET_DEFAULT_EVICTION: Final[dict[str, str]] = KUBELET_DEFAULT_EVICTION_HARD
# GKE and AKS nodes carry the disk thresholds too (GKE "Plan node sizes": memory.available<100Mi plus
# nodefs.available 10%; AKS's kubelet flags as Azure/AgentBaker@06836ee2:e2e/node_config.go passes them:
# --eviction-hard=memory.available<750Mi,nodefs.available<10%,nodefs.inodesFree<5% before 1.29, 100Mi after).
_GKE_EVICTION: Final[dict[str, str]] = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
}
_AKS_EVICTION: Final[dict[str, str]] = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
}
_AKS_LEGACY_EVICTION: Final[dict[str, str]] = {
    "memory.available": "750Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
}
_EKS_EVICTION: Final[dict[str, str]] = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
}

# OpenShift passes ephemeral-storage through untouched; the default the unit hands the script is 1Gi.
_OPENSHIFT_EPHEMERAL_STORAGE: Final = "1Gi"
_OPENSHIFT_CPU_FLOOR: Final = Decimal("0.5")

# GKE's node bootstrap reads "GB" in its memory tiers as 1000 MiB (not 1024 MiB, not 10^9 bytes).
_GKE_GB_MIB: Final = 1000
_GKE_SMALL_MACHINE_MIB: Final = 255
_GKE_SHARED_CORE_E2: Final = frozenset({"e2-micro", "e2-small", "e2-medium"})
_GKE_SHARED_CORE_CPU_MILLI: Final = 1060

# (upper bound of the bracket or None for "no bound", marginal rate); lower bound = previous upper bound.
_Brackets = tuple[tuple[int | None, Decimal], ...]

_GKE_CPU_BRACKETS_MILLI: Final[_Brackets] = (
    (1000, Decimal("0.06")),
    (2000, Decimal("0.01")),
    (4000, Decimal("0.005")),
    (None, Decimal("0.0025")),
)
_AKS_CPU_BRACKETS_CORES: Final[_Brackets] = (
    (1, Decimal("0.06")),
    (2, Decimal("0.04")),
    (4, Decimal("0.02")),
    (None, Decimal("0.01")),
)
#: the table AKS publishes (cores -> millicores); the brackets above reproduce every row exactly.
AKS_CPU_TABLE: Final[tuple[tuple[int, int], ...]] = (
    (1, 60),
    (2, 100),
    (4, 140),
    (8, 180),
    (16, 260),
    (32, 420),
    (64, 740),
)


def _memory_tiers(unit: int) -> _Brackets:
    """25% of the first 4 units, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128."""
    return (
        (4 * unit, Decimal("0.25")),
        (8 * unit, Decimal("0.20")),
        (16 * unit, Decimal("0.10")),
        (128 * unit, Decimal("0.06")),
        (None, Decimal("0.02")),
    )


class FormulaError(ValueError):
    """An unknown formula or an impossible machine shape (one-line message)."""


@dataclass(frozen=True)
class MachineShape:
    """The machine a reservation is computed for.

    cpus: logical CPUs; may be fractional (``Decimal("3.5")``); must be > 0.
    memory_bytes: memory in bytes; must be > 0.  OpenShift's script reads the node's MemTotal (``free -g``),
        so pass MemTotal for the ``openshift*`` formulas.  GKE and AKS compute from the machine type's nominal
        memory, so pass the nominal size (e.g. 16 GiB) for those.  EKS ignores memory.
    max_pods: the node's maxPods; None means 110 (EKS nodeadm's fallback, and the value AKS is assumed to use
        when the network plugin's default is not known).  Only ``aks`` and ``eks`` use it.
    machine_type: the instance type; ``gke`` reserves a flat 1060m cpu on shared-core E2 types.
    boot_disk_bytes / local_ssd_count: ``gke`` sizes its ephemeral-storage kube-reserved from the boot disk, or from
        the number of local SSDs when ephemeral storage lives on them; None leaves ephemeral-storage unreserved.
    system_reserved_es: the ``openshift*`` formulas pass SYSTEM_RESERVED_ES through (default 1Gi).
    """

    cpus: Decimal
    memory_bytes: int
    max_pods: int | None = None
    machine_type: str | None = None
    boot_disk_bytes: int | None = None
    local_ssd_count: int | None = None
    system_reserved_es: str | None = None


@dataclass(frozen=True)
class FormulaResult:
    formula: str
    fills: Fills
    system_reserved: dict[str, str]
    kube_reserved: dict[str, str]
    eviction_hard: dict[str, str]
    notes: tuple[str, ...]


@dataclass(frozen=True)
class FormulaInfo:
    name: str
    fills: str
    summary: str
    eviction_hard: dict[str, str]
    doc: str


# ----------------------------------------------------------------------------------------------------
# exact helpers


def _floor(value: Decimal) -> int:
    num, den = value.as_integer_ratio()
    return num // den


def _round_half_up(value: Decimal) -> int:
    """Round a non-negative value half up to an integer (what ``printf("%d", x + 0.5)`` does for x >= 0)."""
    num, den = value.as_integer_ratio()
    return (2 * num + den) // (2 * den)


def _fmt(value: Decimal | int) -> str:
    """Plain decimal notation without exponent or trailing zeros (for notes)."""
    if isinstance(value, int):
        return str(value)
    text = format(value, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def _gib_display(memory_bytes: int) -> str:
    hundredths = memory_bytes * 100 // GIB
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def _bracketed(amount: Decimal, brackets: _Brackets) -> Decimal:
    """Sum of rate x (part of ``amount`` that falls inside each bracket)."""
    total = Decimal(0)
    lower = Decimal(0)
    for upper, rate in brackets:
        if amount <= lower:
            break
        top = amount if upper is None else min(amount, Decimal(upper))
        total += (top - lower) * rate
        if upper is None:
            break
        lower = Decimal(upper)
    return total


def _whole_cpus(cpus: Decimal, notes: list[str], who: str) -> int:
    """Node-side calculators count online CPUs, which is always a whole number >= 1."""
    whole = max(1, _floor(cpus))
    if whole != cpus:
        notes.append(f"cpu: {who} counts whole online CPUs; {_fmt(cpus)} CPUs taken as {whole}")
    return whole


def _unused_max_pods(shape: MachineShape, notes: list[str]) -> None:
    if shape.max_pods is not None:
        notes.append(f"max_pods ({shape.max_pods}) is not an input to this formula and was ignored")


# ----------------------------------------------------------------------------------------------------
# OpenShift


def _openshift_memory_gib(shape: MachineShape, notes: list[str]) -> int:
    gib = shape.memory_bytes // GIB
    if shape.memory_bytes % GIB:
        notes.append(
            f"memory: `free -g` truncates {_gib_display(shape.memory_bytes)} GiB to {gib} GiB "
            "before the formula is applied"
        )
    else:
        notes.append(f"memory: `free -g` reports {gib} GiB")
    return gib


def _openshift_round_memory(raw: Decimal, notes: list[str], derivation: str) -> str:
    whole = _round_half_up(raw)
    notes.append(f"memory: {derivation} = {_fmt(raw)}, rounded half up to {whole} -> {whole}Gi")
    digits = len(raw.normalize().as_tuple().digits)
    if digits > 6:
        notes.append(
            "memory: the node's awk prints intermediate values with 6 significant digits; at this size the "
            "node may differ from this exact result"
        )
    return f"{whole}Gi"


def _openshift_memory_current(gib: int, notes: list[str]) -> str:
    if gib <= 8:
        return _openshift_round_memory(Decimal(1), notes, f"{gib} GiB <= 8 GiB: fixed 1")
    if gib <= 128:
        raw = 1 + Decimal("0.06") * (gib - 8)
        return _openshift_round_memory(raw, notes, f"1 + 0.06 x ({gib} - 8)")
    raw = 1 + Decimal("6.72") + Decimal("0.02") * (gib - 120)
    notes.append(
        "memory: above 128 GiB the script counts the 2% tier from 120 GiB, not 128 GiB (upstream quirk), "
        "so the reservation dips just above 128 GiB"
    )
    return _openshift_round_memory(raw, notes, f"1 + 6.72 + 0.02 x ({gib} - 120)")


def _openshift_memory_legacy(gib: int, notes: list[str]) -> str:
    raw = _bracketed(Decimal(gib), _memory_tiers(1))
    return _openshift_round_memory(raw, notes, f"tiers 25/20/10/6/2% of {gib} GiB (4/4/8/112 GiB, then above 128)")


def _openshift_cpu_v2(cpus: Decimal, notes: list[str]) -> str:
    count = _whole_cpus(cpus, notes, "the OpenShift script (getconf _NPROCESSORS_ONLN)")
    if count > 1:
        raw = Decimal("0.06") + Decimal("0.012") * (count - 1)
        hundredths = _round_half_up(raw * 100)  # awk printf "%.2f"; ties cannot occur for this series
        printed = f"{hundredths // 100}.{hundredths % 100:02d}"
        derivation = f"0.06 + 0.012 x ({count} - 1) = {_fmt(raw)}, printed with 2 decimals as {printed}"
    else:
        printed = "0.06"
        derivation = "1 CPU: base 0.06"
    if Decimal(printed) < _OPENSHIFT_CPU_FLOOR:
        notes.append(f"cpu: script version 2: {derivation}; below the 0.5 floor -> 0.5")
        return "0.5"
    notes.append(f"cpu: script version 2: {derivation} (written as printed, cores without a unit)")
    return printed


def _openshift(shape: MachineShape, legacy: bool) -> tuple[dict[str, str], dict[str, str], list[str]]:
    notes: list[str] = []
    gib = _openshift_memory_gib(shape, notes)
    memory = _openshift_memory_legacy(gib, notes) if legacy else _openshift_memory_current(gib, notes)
    cpu = _openshift_cpu_v2(shape.cpus, notes)
    es = shape.system_reserved_es or _OPENSHIFT_EPHEMERAL_STORAGE
    notes.append(
        f"ephemeral-storage: SYSTEM_RESERVED_ES passed through unchanged ({es}"
        + (")" if shape.system_reserved_es else ", the default)")
    )
    _unused_max_pods(shape, notes)
    system = {"cpu": cpu, "memory": memory, "ephemeral-storage": es}
    return system, {}, notes


def _compute_openshift(shape: MachineShape) -> tuple[dict[str, str], dict[str, str], list[str]]:
    return _openshift(shape, legacy=False)


def _compute_openshift_legacy(shape: MachineShape) -> tuple[dict[str, str], dict[str, str], list[str]]:
    return _openshift(shape, legacy=True)


# ----------------------------------------------------------------------------------------------------
# GKE / EKS CPU tiers


def _gke_cpu_millicores(cpus: Decimal, notes: list[str]) -> int:
    milli = _floor(cpus * 1000)
    raw = _bracketed(Decimal(milli), _GKE_CPU_BRACKETS_MILLI)
    result = _floor(raw)
    truncated = "" if raw == result else f", truncated to {result}"
    notes.append(f"cpu: 6/1/0.5/0.25% tiers of {milli}m = {_fmt(raw)}m{truncated} -> {result}m")
    return result


def _eks_cpu_millicores(cpus: Decimal, notes: list[str]) -> int:
    count = _whole_cpus(cpus, notes, "nodeadm (number of CPUs x 1000)")
    total = count * 1000
    reserved = 0
    lower = 0
    # nodeadm: per range, (min(total, end) - start) * basis-points / 10000 in integer arithmetic.
    for upper, basis_points in ((1000, 600), (2000, 100), (4000, 50), (total, 25)):
        if total > lower:
            reserved += (min(total, upper) - lower) * basis_points // 10000
        lower = upper
    notes.append(f"cpu: 6/1/0.5/0.25% tiers of {total}m in integer millicores (each tier truncated) -> {reserved}m")
    return reserved


# ----------------------------------------------------------------------------------------------------
# GKE


def _compute_gke(shape: MachineShape) -> tuple[dict[str, str], dict[str, str], list[str]]:
    notes: list[str] = []
    mib = shape.memory_bytes // MIB
    if mib <= _GKE_GB_MIB:
        memory_mib = _GKE_SMALL_MACHINE_MIB
        notes.append(f"memory: {mib} MiB is at most 1 GB (1000 MiB): fixed {memory_mib}Mi")
    else:
        raw = _bracketed(Decimal(mib), _memory_tiers(_GKE_GB_MIB))
        memory_mib = _floor(raw)
        notes.append(
            f"memory: tiers 25/20/10/6/2% of {mib} MiB with 1 GB read as 1000 MiB = {_fmt(raw)} MiB, "
            f"truncated -> {memory_mib}Mi"
        )
        doc_value = _floor(_bracketed(Decimal(mib), _memory_tiers(1024)))
        if doc_value != memory_mib:
            notes.append(
                f"memory: the published tiers read with 1 GB = 1 GiB would give {doc_value}Mi; "
                "GKE nodes write the 1000-MiB value"
            )
    if shape.machine_type in _GKE_SHARED_CORE_E2:
        cpu = _GKE_SHARED_CORE_CPU_MILLI
        notes.append(f"cpu: shared-core {shape.machine_type}: GKE reserves a flat {cpu}m")
    else:
        cpu = _gke_cpu_millicores(shape.cpus, notes)
    _unused_max_pods(shape, notes)
    kube = {"cpu": f"{cpu}m", "memory": f"{memory_mib}Mi"}
    es = _gke_ephemeral_storage(shape, notes)
    if es is not None:
        kube["ephemeral-storage"] = es
    return {}, kube, notes


def _gke_ephemeral_storage(shape: MachineShape, notes: list[str]) -> str | None:
    """GKE "Plan node sizes", local ephemeral storage reservation: on the boot disk, min(50% of the disk,
    6 GiB + 35% of the disk, 100 GiB) besides the 10% eviction threshold; on local SSDs, 50 GiB for one SSD,
    75 GiB for two, 100 GiB for three or more."""
    if shape.local_ssd_count:
        gib = 50 if shape.local_ssd_count == 1 else 75 if shape.local_ssd_count == 2 else 100
        notes.append(f"ephemeral-storage: on {shape.local_ssd_count} local SSD(s): {gib}Gi")
        return f"{gib}Gi"
    if not shape.boot_disk_bytes:
        notes.append("ephemeral-storage: boot disk size unknown, nothing reserved")
        return None
    disk = shape.boot_disk_bytes
    exact = min(Fraction(disk, 2), 6 * GIB + Fraction(35 * disk, 100), Fraction(100 * GIB))
    mib = math.floor(exact / MIB)
    shown = f"{mib // 1024}Gi" if mib % 1024 == 0 else f"{mib}Mi"
    truncated = "" if exact == mib * MIB else " (truncated to whole MiB: GKE does not publish its rounding)"
    notes.append(
        f"ephemeral-storage: boot disk {_gib_display(shape.boot_disk_bytes)} GiB: min(50%, 6 GiB + 35%, 100 GiB) "
        f"-> {shown}{truncated}"
    )
    return shown


# ----------------------------------------------------------------------------------------------------
# AKS


def _aks_cpu_millicores(cpus: Decimal, notes: list[str]) -> int:
    raw = _bracketed(cpus, _AKS_CPU_BRACKETS_CORES) * 1000
    result = _floor(raw)
    rows = dict(AKS_CPU_TABLE)
    if cpus in rows:
        notes.append(f"cpu: AKS table row for {_fmt(cpus)} cores -> {result}m")
        return result
    largest = AKS_CPU_TABLE[-1]
    if cpus > largest[0]:
        notes.append(
            f"cpu: {_fmt(cpus)} cores is beyond the published table (last row {largest[0]} cores -> "
            f"{largest[1]}m); extrapolated at the table's last slope of 10m per core -> {result}m"
        )
        return result
    below = (0, 0)
    above = AKS_CPU_TABLE[0]
    for row in AKS_CPU_TABLE:
        if row[0] < cpus:
            below = row
        else:
            above = row
            break
    truncated = "" if raw == result else f" ({_fmt(raw)}m truncated)"
    notes.append(
        f"cpu: {_fmt(cpus)} cores is not a published table row; interpolated linearly between "
        f"{below[0]} cores ({below[1]}m) and {above[0]} cores ({above[1]}m) -> {result}m{truncated}"
    )
    return result


def _max_pods(shape: MachineShape, notes: list[str], who: str) -> int:
    if shape.max_pods is None:
        notes.append(f"maxPods not given: assumed {DEFAULT_MAX_PODS} ({who})")
        return DEFAULT_MAX_PODS
    return shape.max_pods


def _compute_aks(shape: MachineShape) -> tuple[dict[str, str], dict[str, str], list[str]]:
    notes: list[str] = []
    pods = _max_pods(shape, notes, "AKS's default depends on the network plugin")
    per_pods = 20 * pods + 50
    quarter = shape.memory_bytes // 4 // MIB
    memory_mib = min(per_pods, quarter)
    chosen = "20 x maxPods + 50" if per_pods <= quarter else "25% of memory"
    notes.append(
        f"memory: min(20 x {pods} + 50 = {per_pods} MiB, 25% of memory = {quarter} MiB) -> {chosen} -> "
        f"{memory_mib}Mi (the documented 'MB' is MiB on the node)"
    )
    cpu = _aks_cpu_millicores(shape.cpus, notes)
    return {}, {"cpu": f"{cpu}m", "memory": f"{memory_mib}Mi"}, notes


def _compute_aks_legacy(shape: MachineShape) -> tuple[dict[str, str], dict[str, str], list[str]]:
    notes: list[str] = []
    raw_bytes = _bracketed(Decimal(shape.memory_bytes), _memory_tiers(GIB))
    raw_mib = raw_bytes / MIB
    memory_mib = _floor(raw_mib)
    notes.append(
        f"memory: tiers 25/20/10/6/2% of {_gib_display(shape.memory_bytes)} GiB = {_fmt(raw_mib)} MiB, "
        f"truncated -> {memory_mib}Mi"
    )
    cpu = _aks_cpu_millicores(shape.cpus, notes)
    _unused_max_pods(shape, notes)
    return {}, {"cpu": f"{cpu}m", "memory": f"{memory_mib}Mi"}, notes


# ----------------------------------------------------------------------------------------------------
# EKS


def _compute_eks(shape: MachineShape) -> tuple[dict[str, str], dict[str, str], list[str]]:
    notes: list[str] = []
    pods = _max_pods(shape, notes, "nodeadm's fallback when the instance type's ENI limits are unknown")
    memory_mib = 11 * pods + 255
    notes.append(f"memory: 11 x {pods} + 255 = {memory_mib}Mi (independent of the machine's memory)")
    cpu = _eks_cpu_millicores(shape.cpus, notes)
    notes.append("ephemeral-storage: fixed 1Gi")
    return {}, {"cpu": f"{cpu}m", "ephemeral-storage": "1Gi", "memory": f"{memory_mib}Mi"}, notes


# ----------------------------------------------------------------------------------------------------
# registry

_OPENSHIFT_COMMON_DOC = """\
  Input: the script reads MemTotal with `free -g`, i.e. truncated to whole GiB (a nominal 16 GiB VM usually
  reports 15), and counts online CPUs with getconf (fractional cpus input is truncated to a whole count,
  minimum 1).  Pass MemTotal as memory_bytes.
  CPU (script "version 2", the default): 0.06 + 0.012 x (CPUs - 1) cores (0.06 for one CPU), printed with two
  decimals; anything below 0.5 becomes 0.5.  The value is written exactly as the script prints it: "0.5" when
  the floor applies, otherwise two decimals such as "0.50" (38 CPUs), "0.82" (64 CPUs), "1.20" (96 CPUs).
  ephemeral-storage is passed through from SYSTEM_RESERVED_ES (the autoSizing fallback's ephemeral-storage;
  default 1Gi): with NODE_SIZING_ENABLED=true the script computes cpu and memory and ignores their fallbacks,
  but hands the ES value on as the real reservation (openshift/machine-config-operator@7ff337a4:templates/
  common/_base/files/kubelet-auto-sizing.yaml, dynamic_node_sizing).
  Only systemReserved is filled; kubeReserved stays unset.  evictionHard is not set by OpenShift, so the
  kubelet's Linux defaults apply."""

_OPENSHIFT_DOC = f"""\
OpenShift 4.21+ automatic node sizing (dynamic-system-reserved-calc.sh, autoSizingReserved: true).
  Memory (M = whole GiB): M <= 8 -> 1; 8 < M <= 128 -> 1 + 0.06 x (M - 8); M > 128 -> 1 + 6.72 +
  0.02 x (M - 120).  The last tier is counted from 120 GiB (upstream quirk), so the value dips just above
  128 GiB (128 GiB -> 8.2, 129 GiB -> 7.9).  The result is rounded half up to whole GiB and written "<n>Gi".
{_OPENSHIFT_COMMON_DOC}
  Example: 8 CPUs, 32 GiB -> memory 2Gi, cpu 0.5, ephemeral-storage 1Gi."""

_OPENSHIFT_LEGACY_DOC = f"""\
OpenShift 4.20 and earlier automatic node sizing (legacy memory tiers).
  Memory (M = whole GiB): 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112,
  2% above 128; rounded half up to whole GiB and written "<n>Gi" (so a 1 GiB node gets 0Gi, 2 GiB gets 1Gi).
  CPU: the 4.20-era script already defaults to "version 2" (a node keeps version 1 only if its
  /etc/node-sizing-version.json says so); this formula uses version 2.
{_OPENSHIFT_COMMON_DOC}
  Example: 8 CPUs, 32 GiB -> memory 4Gi, cpu 0.5, ephemeral-storage 1Gi."""

_GKE_DOC = """\
GKE kube-reserved, as GKE nodes write it.
  Memory: 255Mi when the machine has at most 1 GB; otherwise 25% of the first 4 GB, 20% of the next 4, 10% of
  the next 8, 6% of the next 112 and 2% above 128.  GKE's node bootstrap reads "GB" here as 1000 MiB (the
  cluster autoscaler copies this deliberately to predict nodes exactly, and real nodes show it: an
  n1-standard-2 with 7.5 GiB gets 1736Mi, an e2-medium with 4 GiB gets 1019Mi).  The tiers are applied to the
  machine's memory in whole MiB and the result is truncated to whole MiB, written "<n>Mi".  Pass the machine
  type's nominal memory as memory_bytes.  Where the published tiers read with GiB would differ, the result
  notes say so.
  CPU: 6% of the first core, 1% of the next, 0.5% of the next 2, 0.25% of each core above 4, computed in
  millicores and truncated to whole millicores, written "<n>m" (2 cores -> 70m, 5 cores -> 82m).
  Shared-core E2 types (e2-micro, e2-small, e2-medium) get a flat 1060m cpu instead (GKE "Plan node sizes").
  ephemeral-storage (GKE "Plan node sizes", local ephemeral storage reservation): min(50% of the boot disk,
  6 GiB + 35% of the boot disk, 100 GiB), e.g. 41Gi on a 100 GiB boot disk; with ephemeral storage on local
  SSDs, 50Gi for one SSD, 75Gi for two, 100Gi for three or more.  Without a known boot disk, none.
  Hard eviction: memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%."""

_AKS_CPU_DOC = """\
  CPU: AKS publishes only a table (1 core 60m, 2 100m, 4 140m, 8 180m, 16 260m, 32 420m, 64 740m).  The table
  is exactly the marginal schedule 6% of the first core, 4% of the second, 2% of each of the next two and 1%
  of every core above 4, which is also how Microsoft's own Karpenter provider for AKS computes it.  This
  formula therefore interpolates linearly between rows (3 cores -> 120m, 6 -> 160m, 48 -> 580m) and extends
  the last slope, 10m per core, beyond 64 cores (96 -> 1060m); fractional results are truncated to whole
  millicores.  The result notes say when a size is interpolated or extrapolated."""

_AKS_DOC = f"""\
AKS 1.29+ kube-reserved (Linux nodes).
  Memory: min(20 x maxPods + 50, 25% of memory) in MiB: the documentation writes "MB", but nodes are given
  MiB (110 pods -> memory=2250Mi).  25% of memory is truncated to whole MiB.  Pass the VM size's nominal
  memory.  maxPods defaults to 110 when not given (AKS's real default depends on the network plugin: set it).
{_AKS_CPU_DOC}
  Hard eviction: memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%.  Windows nodes reserve
  2 GB more; not modelled."""

_AKS_LEGACY_DOC = f"""\
AKS before 1.29 kube-reserved (Linux nodes).
  Memory: 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128 of
  the VM size's nominal memory, truncated to whole MiB and written "<n>Mi" (7 GiB -> 1638Mi, 8 GiB -> 1843Mi,
  16 GiB -> 2662Mi).  Unlike GKE there is no 255Mi minimum, and "GB" means GiB.  maxPods is not used.
{_AKS_CPU_DOC}
  Hard eviction: memory.available 750Mi, nodefs.available 10%, nodefs.inodesFree 5%.  Windows nodes reserve
  2 GB more; not modelled."""

_EKS_DOC = """\
EKS (nodeadm on AL2023, and the older bootstrap.sh) kube-reserved.
  Memory: 11 x maxPods + 255, written "<n>Mi"; the machine's memory is not an input.  maxPods comes from the
  instance's ENI limits (ENIs x (IPv4 addresses per ENI - 1) + 2); 110 when not given (nodeadm's fallback).
  CPU: 6% of the first core, 1% of the next, 0.5% of the next 2 and 0.25% of each core above 4, in integer
  millicores with every tier truncated separately, written "<n>m" (2 vCPUs -> 70m).  nodeadm counts whole
  CPUs, so fractional cpus input is truncated (minimum 1).
  ephemeral-storage: 1Gi.
  Hard eviction: memory.available 100Mi, nodefs.available 10%, nodefs.inodesFree 5%.
  Example: m5.large (2 vCPUs, 29 pods) -> memory 574Mi, cpu 70m, ephemeral-storage 1Gi."""

_Computer = Callable[[MachineShape], tuple[dict[str, str], dict[str, str], list[str]]]


@dataclass(frozen=True)
class _Formula:
    info: FormulaInfo
    fills: Fills
    compute: _Computer
    eviction_hard: dict[str, str]


_REGISTRY: Final[dict[str, _Formula]] = {
    "openshift": _Formula(
        FormulaInfo(
            name="openshift",
            fills="systemReserved",
            summary="OpenShift 4.21+ auto node sizing: 1 GiB + 6% above 8 GiB (2% above 128), cpu >= 0.5",
            eviction_hard=dict(_KUBELET_DEFAULT_EVICTION),
            doc=_OPENSHIFT_DOC,
        ),
        "systemReserved",
        _compute_openshift,
        _KUBELET_DEFAULT_EVICTION,
    ),
    "openshift-4.20": _Formula(
        FormulaInfo(
            name="openshift-4.20",
            fills="systemReserved",
            summary="OpenShift 4.20 and earlier auto node sizing: 25/20/10/6/2% memory tiers, cpu >= 0.5",
            eviction_hard=dict(_KUBELET_DEFAULT_EVICTION),
            doc=_OPENSHIFT_LEGACY_DOC,
        ),
        "systemReserved",
        _compute_openshift_legacy,
        _KUBELET_DEFAULT_EVICTION,
    ),
    "gke": _Formula(
        FormulaInfo(
            name="gke",
            fills="kubeReserved",
            summary="GKE: 25/20/10/6/2% memory tiers (1 GB = 1000 MiB), 6/1/0.5/0.25% cpu tiers",
            eviction_hard=dict(_GKE_EVICTION),
            doc=_GKE_DOC,
        ),
        "kubeReserved",
        _compute_gke,
        _GKE_EVICTION,
    ),
    "aks": _Formula(
        FormulaInfo(
            name="aks",
            fills="kubeReserved",
            summary="AKS 1.29+: memory min(20 MiB x maxPods + 50 MiB, 25%), cpu from the AKS table",
            eviction_hard=dict(_AKS_EVICTION),
            doc=_AKS_DOC,
        ),
        "kubeReserved",
        _compute_aks,
        _AKS_EVICTION,
    ),
    "aks-legacy": _Formula(
        FormulaInfo(
            name="aks-legacy",
            fills="kubeReserved",
            summary="AKS before 1.29: 25/20/10/6/2% memory tiers, cpu from the AKS table, eviction 750Mi",
            eviction_hard=dict(_AKS_LEGACY_EVICTION),
            doc=_AKS_LEGACY_DOC,
        ),
        "kubeReserved",
        _compute_aks_legacy,
        _AKS_LEGACY_EVICTION,
    ),
    "eks": _Formula(
        FormulaInfo(
            name="eks",
            fills="kubeReserved",
            summary="EKS nodeadm: memory 11 MiB x maxPods + 255 MiB, 6/1/0.5/0.25% cpu tiers, 1Gi storage",
            eviction_hard=dict(_EKS_EVICTION),
            doc=_EKS_DOC,
        ),
        "kubeReserved",
        _compute_eks,
        _EKS_EVICTION,
    ),
}

FORMULAS: dict[str, FormulaInfo] = {name: _REGISTRY[name].info for name in FORMULA_NAMES}


# ----------------------------------------------------------------------------------------------------
# entry point


def _validate(shape: MachineShape) -> None:
    cpus: object = shape.cpus
    if isinstance(cpus, bool) or not isinstance(cpus, (Decimal, int)):
        raise FormulaError(f"cpus must be a Decimal or an integer, got {type(cpus).__name__} {cpus!r}")
    if not Decimal(cpus).is_finite() or cpus <= 0:
        raise FormulaError(f"cpus must be a finite number greater than 0, got {cpus}")
    memory: object = shape.memory_bytes
    if isinstance(memory, bool) or not isinstance(memory, int):
        raise FormulaError(f"memory_bytes must be an integer, got {type(memory).__name__} {memory!r}")
    if memory <= 0:
        raise FormulaError(f"memory_bytes must be greater than 0, got {memory}")
    pods: object = shape.max_pods
    if pods is not None and (isinstance(pods, bool) or not isinstance(pods, int)):
        raise FormulaError(f"max_pods must be an integer, got {type(pods).__name__} {pods!r}")
    if isinstance(pods, int) and pods < 1:
        raise FormulaError(f"max_pods must be at least 1, got {pods}")


def compute(formula: str, shape: MachineShape) -> FormulaResult:
    """Compute the reservation ``formula`` gives a machine of ``shape``.

    Raises FormulaError for an unknown formula or an impossible shape.
    """
    entry = _REGISTRY.get(formula)
    if entry is None:
        raise FormulaError(f"unknown formula {formula!r}; valid formulas: {', '.join(FORMULA_NAMES)}")
    _validate(shape)
    normalized = MachineShape(
        Decimal(shape.cpus),
        shape.memory_bytes,
        shape.max_pods,
        shape.machine_type,
        shape.boot_disk_bytes,
        shape.local_ssd_count,
        shape.system_reserved_es,
    )
    with localcontext() as ctx:
        ctx.prec = 100
        ctx.traps[Inexact] = True
        try:
            system_reserved, kube_reserved, notes = entry.compute(normalized)
        except Inexact:
            raise FormulaError(
                f"machine shape cpus={shape.cpus} memory_bytes={shape.memory_bytes} is too large or too precise "
                "to compute exactly"
            ) from None
    return FormulaResult(
        formula=formula,
        fills=entry.fills,
        system_reserved=system_reserved,
        kube_reserved=kube_reserved,
        eviction_hard=dict(entry.eviction_hard),
        notes=tuple(notes),
    )
