"""OpenShift's reservation formulas, and which one a node runs: the auto node sizing script's memory and cpu curves
release by release, the static values, ROSA / OSD's, and the release read from a node's RHCOS build or kubelet.

The facts and their sources (openshift/machine-config-operator, openshift/managed-cluster-config) are listed in
``renderer.platforms.openshift``, the platform that offers these formulas and picks one per pool.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from fractions import Fraction

from renderer.platforms._base import KUBELET_DEFAULTS, PoolView, kubelet_minor
from renderer.platforms._formula import (
    GIB,
    Clamp,
    Formula,
    MachineShape,
    Rounding,
    Term,
    Tier,
    constant,
    cpu_tiers,
    memory_tiers,
)

_MCO = "openshift/machine-config-operator"
_MCC = "openshift/managed-cluster-config"
_SCRIPT = "dynamic-system-reserved-calc.sh"
_CONTROL_PLANE = frozenset({"master", "control-plane", "arbiter"})
_HYPERSHIFT_LABEL = "hypershift.openshift.io/nodePool"
_RHCOS = re.compile(r"CoreOS (\d)(\d+)\.\d+\.(\d{8})")
#: Release branches that got SYSTEM_RESERVED_ES into the kubelet's --system-reserved flag after 4.8 dropped it, and
#: the day the backport merged (8bf71f78 on release-4.11, d09be517 on 4.10, release-4.9's kubelet.service as of
#: 2022-11-23; main (4.12) got 28f062ba on 2022-10-17).
_ES_FLAG_BACKPORT = {9: "20221123", 10: "20221110", 11: "20221021"}
_CPU_FLOOR_416 = "20250707"  # cee78ae5
_CPU_FLOOR_417 = "20250513"  # 10f431d8 on main; the 4.17-4.19 backports are later
#: ab2ee0cf (authored 2020-02-06) merged into release-4.3 on 2020-05-01 (9ddb81966ad238ade8932b147a50d660509d07af,
#: PR #1458, Bug 1801824): 4.3.z built before it keep 500m / 500Mi (a published 4.3.8 node, RHCOS 43.81.20200319,
#: reserves exactly that: tests/real-nodes/openshift/ocp43-aws-m4-4xlarge-worker.yaml)
_ES_43 = "20200501"

_GIB_SHOWN = (Fraction(GIB), "GiB")
_HALF_UP_GIB = Rounding("half-up", Fraction(GIB))
_FREE_G = "`free -g`"
_NPROC = "the OpenShift script (getconf _NPROCESSORS_ONLN)"


def _dip(shape: MachineShape, formula: Formula, values: dict[str, dict[str, Fraction]]) -> list[str]:
    if shape.memory_bytes // GIB > 128:
        return [
            "memory: above 128 GiB the script counts the 2% tier from 120 GiB, not 128 GiB (upstream quirk), so the "
            "reservation dips just above 128 GiB"
        ]
    return []


_MEMORY_CURRENT = Term(
    input="memory",
    whole=Fraction(GIB),
    base=Fraction(GIB),
    tiers=(
        Tier(Fraction(8 * GIB), Fraction(0)),
        Tier(Fraction(128 * GIB), Fraction(6, 100)),
        Tier(None, Fraction(2, 100), add=-Fraction(32 * GIB, 100)),
    ),
    rounding=_HALF_UP_GIB,
    unit="Gi",
    reader=_FREE_G,
    shown_in=_GIB_SHOWN,
)
_MEMORY_LEGACY = Term(
    input="memory",
    whole=Fraction(GIB),
    tiers=memory_tiers(GIB),
    rounding=_HALF_UP_GIB,
    unit="Gi",
    reader=_FREE_G,
    shown_in=_GIB_SHOWN,
)
#: 4.8-4.11: the awk sum written as it is (``2.6Gi``).
_MEMORY_411 = Term(
    input="memory", whole=Fraction(GIB), tiers=memory_tiers(GIB), unit="Gi", reader=_FREE_G, shown_in=_GIB_SHOWN
)
_FLOOR = Clamp(amount=Fraction(1, 2), text="0.5")
_CPU_V2 = Term(
    input="cpu",
    whole=Fraction(1),
    at_least=Fraction(1),
    tiers=cpu_tiers((1, "0.06"), (None, "0.012")),
    rounding=Rounding("half-up", Fraction(1, 100)),
    unit="cores.2",
    reader=_NPROC,
)
_CPU_V1 = Term(
    input="cpu",
    whole=Fraction(1),
    at_least=Fraction(1),
    tiers=cpu_tiers((1, "0.06"), (2, "0.01"), (4, "0.005"), (None, "0.0025")),
    unit="cores",
    reader=_NPROC,
)
_CPU_V2_FLOOR = _CPU_V2._replace(minimum=_FLOOR)
_CPU_V1_FLOOR = _CPU_V1._replace(minimum=_FLOOR)
_ES = Term(input="fallback", base=Fraction(GIB), unit="Gi", text="1Gi")

_NOT_EXPRESSIBLE = (
    "OpenShift's node-sizing script computes systemReserved on the node from the kernel's MemTotal (`free -g`, "
    "whole GiB) and the online CPU count; Karpenter's expressions only see the instance type's nominal memory "
    "(memory_mib), which is larger than MemTotal, so no expression reproduces it (and OpenShift nodes are not "
    "launched by Karpenter)"
)
_COMMON_DOC = """\
  Input: the script reads MemTotal with `free -g`, i.e. truncated to whole GiB (a nominal 16 GiB VM usually
  reports 15), and counts online CPUs with getconf (fractional cpus input is truncated to a whole count,
  minimum 1).
  ephemeral-storage is passed through from SYSTEM_RESERVED_ES (the autoSizing fallback's ephemeral-storage;
  default 1Gi): with NODE_SIZING_ENABLED=true the script computes cpu and memory and ignores their fallbacks,
  but hands the ES value on as the real reservation (openshift/machine-config-operator@7ff337a4:templates/
  common/_base/files/kubelet-auto-sizing.yaml, dynamic_node_sizing).
  Only systemReserved is filled; kubeReserved stays unset.  evictionHard is not set by OpenShift, so the
  kubelet's Linux defaults apply."""
_CPU_V2_DOC = """\
  CPU (script "version 2"): 0.06 + 0.012 x (CPUs - 1) cores (0.06 for one CPU), printed with two decimals;
  anything below 0.5 becomes 0.5.  The value is written exactly as the script prints it: "0.5" when the
  floor applies, otherwise two decimals such as "0.50" (38 CPUs), "0.82" (64 CPUs), "1.20" (96 CPUs)."""
_CPU_V1_DOC = """\
  CPU (script "version 1"): 6% of the first core, 1% of the second, 0.5% of the next two, 0.25% of each
  further core, printed as awk prints it (e.g. 0.08 for 8 CPUs)"""


def _auto(name: str, summary: str, memory: Term, cpu: Term, doc: str, notes: bool = False) -> Formula:
    return Formula(
        name=name,
        summary=summary,
        terms={"systemReserved": {"cpu": cpu, "memory": memory, "ephemeral-storage": _ES}},
        eviction_hard=dict(KUBELET_DEFAULTS),
        notes=_dip if notes else None,
        on_node="autoSizingReserved",
        not_expressible=_NOT_EXPRESSIBLE,
        doc=doc,
        sources=(f"{_MCO}:templates/common/_base/files/kubelet-auto-sizing.yaml ({_SCRIPT})",),
    )


OPENSHIFT = _auto(
    "openshift",
    "OpenShift 4.21+ auto node sizing: 1 GiB + 6% above 8 GiB (2% above 128), cpu >= 0.5",
    _MEMORY_CURRENT,
    _CPU_V2_FLOOR,
    f"""\
OpenShift 4.21+ automatic node sizing ({_SCRIPT}, autoSizingReserved: true).
  Memory (M = whole GiB): M <= 8 -> 1; 8 < M <= 128 -> 1 + 0.06 x (M - 8); M > 128 -> 1 + 6.72 +
  0.02 x (M - 120).  The last tier is counted from 120 GiB (upstream quirk), so the value dips just above
  128 GiB (128 GiB -> 8.2, 129 GiB -> 7.9).  The result is rounded half up to whole GiB and written "<n>Gi".
{_CPU_V2_DOC}
{_COMMON_DOC}
  Example: 8 CPUs, 32 GiB -> memory 2Gi, cpu 0.5, ephemeral-storage 1Gi.""",
    notes=True,
)
OPENSHIFT_CPU_V1 = _auto(
    "openshift-cpu-v1",
    "OpenShift 4.21+ auto node sizing on a node whose node-sizing-version.json says 1: cpu version 1 >= 0.5",
    _MEMORY_CURRENT,
    _CPU_V1_FLOOR,
    f"""\
OpenShift 4.21+ automatic node sizing on a node that first ran auto sizing on 4.16 or earlier.
  The script keeps the CPU version stored in /etc/node-sizing-version.json, so such nodes keep version 1.
  Memory as the openshift formula.
{_CPU_V1_DOC}; anything below 0.5 becomes 0.5.
{_COMMON_DOC}""",
    notes=True,
)
_LEGACY_MEMORY_DOC = """\
  Memory (M = whole GiB): 25% of the first 4 GiB, 20% of the next 4, 10% of the next 8, 6% of the next 112,
  2% above 128; rounded half up to whole GiB and written "<n>Gi" (so a 1 GiB node gets 0Gi, 2 GiB gets 1Gi)."""
OPENSHIFT_420 = _auto(
    "openshift-4.20",
    "OpenShift 4.20 and earlier auto node sizing: 25/20/10/6/2% memory tiers, cpu >= 0.5",
    _MEMORY_LEGACY,
    _CPU_V2_FLOOR,
    f"""\
OpenShift 4.20 automatic node sizing (legacy memory tiers; also 4.17-4.19 with the floor backports).
{_LEGACY_MEMORY_DOC}
{_CPU_V2_DOC}  The 4.20-era script defaults to "version 2" (a node keeps version 1 only if its
  /etc/node-sizing-version.json says so).
{_COMMON_DOC}
  Example: 8 CPUs, 32 GiB -> memory 4Gi, cpu 0.5, ephemeral-storage 1Gi.""",
)
OPENSHIFT_417 = _auto(
    "openshift-4.17",
    "OpenShift 4.17-4.19 auto node sizing before the cpu floor: memory tiers, cpu version 2 without 0.5 floor",
    _MEMORY_LEGACY,
    _CPU_V2,
    f"""\
OpenShift 4.17 to 4.19 automatic node sizing before the 0.5-core floor was backported.
{_LEGACY_MEMORY_DOC}
  CPU (version 2): 0.06 + 0.012 x (CPUs - 1), printed with two decimals, no floor (8 CPUs -> 0.14).
{_COMMON_DOC}""",
)
OPENSHIFT_416 = _auto(
    "openshift-4.16",
    "OpenShift 4.16 auto node sizing with the cpu floor (and 4.17+ nodes on version 1): cpu version 1 >= 0.5",
    _MEMORY_LEGACY,
    _CPU_V1_FLOOR,
    f"""\
OpenShift 4.16 automatic node sizing after cee78ae5 (2025-07-07), and 4.17-4.20 nodes whose
/etc/node-sizing-version.json says 1.
{_LEGACY_MEMORY_DOC}
{_CPU_V1_DOC}; anything below 0.5 becomes 0.5.
{_COMMON_DOC}""",
)
OPENSHIFT_415 = _auto(
    "openshift-4.15",
    "OpenShift 4.12-4.16 auto node sizing: memory tiers rounded half up, cpu version 1 (no floor)",
    _MEMORY_LEGACY,
    _CPU_V1,
    f"""\
OpenShift 4.12 to 4.16 automatic node sizing (before any floor).
{_LEGACY_MEMORY_DOC}
{_CPU_V1_DOC} (8 CPUs -> 0.08).
{_COMMON_DOC}""",
)
OPENSHIFT_411 = _auto(
    "openshift-4.11",
    "OpenShift 4.8-4.11 auto node sizing: memory tiers written unrounded (2.6Gi), cpu version 1",
    _MEMORY_411,
    _CPU_V1,
    f"""\
OpenShift 4.8 to 4.11 automatic node sizing.
  Memory: the 25/20/10/6/2% tiers of `free -g`, written as awk prints the sum ("2.6Gi", "3.44Gi"): the
  rounding came with f14eff0b7 (4.12).
{_CPU_V1_DOC} (8 CPUs -> 0.08).
{_COMMON_DOC}""",
)


def _static(name: str, summary: str, values: Mapping[str, str], source: str) -> Formula:
    return Formula(
        name=name,
        summary=summary,
        terms={"systemReserved": {r: constant(r, v) for r, v in values.items()}},
        eviction_hard=dict(KUBELET_DEFAULTS),
        sources=(source,),
    )


_STATIC = _static(
    "openshift-static",
    "OpenShift with auto sizing off: system-reserved cpu 500m, memory 1Gi, ephemeral-storage 1Gi",
    {"cpu": "500m", "memory": "1Gi", "ephemeral-storage": "1Gi"},
    f"{_MCO}@ab2ee0cfaddee95c255c063f4125bc413b76bb7a (release-4.3 from 9ddb8196, 2020-05-01; 4.4: b8116160)",
)
_STATIC_42 = _static(
    "openshift-4.2",
    "OpenShift 4.1-4.2: system-reserved cpu 500m, memory 500Mi",
    {"cpu": "500m", "memory": "500Mi"},
    f"{_MCO} release-4.1/4.2:templates/worker/01-worker-kubelet/_base/files/kubelet.yaml",
)
_ROSA_48 = _static(
    "rosa-4.8",
    "ROSA / OSD 4.1-4.8: system-reserved cpu 1000m, memory 1Gi (plus the release's ephemeral-storage)",
    {"cpu": "1000m", "memory": "1Gi", "ephemeral-storage": "1Gi"},
    f"{_MCC}@c7a113886f92bf63019d1df3aff439be573782e2:deploy/kubelet-config/pre-4.9",
)

_AUTO = {
    f.name: f
    for f in (OPENSHIFT, OPENSHIFT_CPU_V1, OPENSHIFT_420, OPENSHIFT_417, OPENSHIFT_416, OPENSHIFT_415, OPENSHIFT_411)
}


def _release(pool: PoolView) -> tuple[int | None, str | None]:
    """(OpenShift minor, RHCOS build date YYYYMMDD) of a node, as far as it says."""
    m = _RHCOS.search(pool.node_info.get("osImage", ""))
    if m is not None and m.group(1) == "4":
        return int(m.group(2)), m.group(3)
    minor = kubelet_minor(pool)
    if minor is None:
        return None, None
    if minor <= 13:
        return 1, None
    if minor == 14:
        return 2, None
    return minor - 13, None


def _auto_formula(minor: int | None, built: str | None) -> Formula:
    """The auto-sizing script a release runs (for a node without an older version file)."""
    if minor is None or minor >= 21:
        return OPENSHIFT
    if minor == 20:
        return OPENSHIFT_420
    if minor >= 17:
        return OPENSHIFT_420 if built is not None and built >= _CPU_FLOOR_417 else OPENSHIFT_417
    if minor == 16 and built is not None and built >= _CPU_FLOOR_416:
        return OPENSHIFT_416
    if minor >= 12:
        return OPENSHIFT_415
    return OPENSHIFT_411


def _without_es(minor: int | None, built: str | None, pool: PoolView) -> str | None:
    """Why the release's --system-reserved flag carries no ephemeral-storage (None: it does)."""
    if minor is None:
        return (
            "OpenShift 4.8: the kubelet's --system-reserved has no ephemeral-storage"
            if kubelet_minor(pool) == 21
            else None
        )
    if built is None:
        return "OpenShift 4.8: the kubelet's --system-reserved has no ephemeral-storage" if minor == 8 else None
    backport = _ES_FLAG_BACKPORT.get(minor)
    if minor == 8 or (backport is not None and built < backport):
        return f"RHCOS 4.{minor} built {built}: the kubelet's --system-reserved has no ephemeral-storage"
    return None
