"""Tests for renderer.capacity.formulas.

Every expected value below is derived by hand from the formula text; the derivation is in the comment of its
row so a reviewer can check it without running anything.  GiB = 1024 MiB; "M" is the whole-GiB count the
OpenShift script sees (`free -g`, truncated).
"""

from __future__ import annotations

import re
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from renderer import platforms
from renderer.capacity.formulas import FormulaError, FormulaResult, MachineShape, compute

FORMULAS = platforms.formulas()
FORMULA_NAMES = platforms.formula_names()
#: the formulas that reserve both cpu and memory from the machine's size (every built-in one)
SIZED = tuple(n for n in FORMULA_NAMES if {"cpu", "memory"} <= FORMULAS[n].resources)

MIB = 1024**2
GIB = 1024**3

# Kubernetes resource.Quantity syntax (decimal number, optional binary/decimal suffix or exponent).
QUANTITY = re.compile(r"^[+-]?(\d+(\.\d*)?|\.\d+)([numkMGTPE]|[KMGTPE]i|[eE][+-]?\d+)?$")


def shape(cpus: str | int, gib: str | int, max_pods: int | None = None) -> MachineShape:
    memory = Decimal(str(gib)) * GIB
    assert memory == memory.to_integral_value()
    return MachineShape(cpus=Decimal(str(cpus)), memory_bytes=int(memory), max_pods=max_pods)


def reserved(result: FormulaResult) -> dict[str, str]:
    return result.system_reserved if result.fills == "systemReserved" else result.kube_reserved


# ---------------------------------------------------------------------------------------------------------
# worked examples from the reference


def test_worked_example_openshift_current_8_cores_32_gib() -> None:
    result = compute("openshift", shape(8, 32))
    assert result.fills == "systemReserved"
    assert result.system_reserved == {"cpu": "0.5", "memory": "2Gi", "ephemeral-storage": "1Gi"}
    assert result.kube_reserved == {}


def test_worked_example_openshift_legacy_8_cores_32_gib() -> None:
    result = compute("openshift-4.20", shape(8, 32))
    assert result.system_reserved == {"cpu": "0.5", "memory": "4Gi", "ephemeral-storage": "1Gi"}
    assert result.kube_reserved == {}


def test_worked_example_gke_2_cores_70m() -> None:
    result = compute("gke", shape(2, 8))
    assert result.fills == "kubeReserved"
    assert result.kube_reserved["cpu"] == "70m"
    assert result.system_reserved == {}


def test_worked_example_eks_m5_large() -> None:
    # m5.large: 2 vCPU, 8 GiB, 3 ENIs x (10 IPv4 - 1) + 2 = 29 pods.
    result = compute("eks", shape(2, 8, max_pods=29))
    assert result.kube_reserved == {"cpu": "70m", "ephemeral-storage": "1Gi", "memory": "574Mi"}
    assert result.eviction_hard == {
        "memory.available": "100Mi",
        "nodefs.available": "10%",
        "nodefs.inodesFree": "5%",
    }


# ---------------------------------------------------------------------------------------------------------
# OpenShift 4.21+ (current memory tiers, CPU script version 2)

OPENSHIFT_CURRENT = [
    # cpus, GiB, cpu, memory
    # M=1 <= 8 -> 1 -> 1Gi.  cpu 1 CPU -> base 0.06 < 0.5 -> 0.5
    (1, 1, "0.5", "1Gi"),
    # M=4 <= 8 -> 1Gi.  cpu 0.06 + 0.012*1 = 0.072 -> "0.07" < 0.5 -> 0.5
    (2, 4, "0.5", "1Gi"),
    # M=16: 1 + 0.06*8 = 1.48 -> 1Gi.  cpu 0.06 + 0.036 = 0.096 -> 0.5
    (4, 16, "0.5", "1Gi"),
    # M=32: 1 + 0.06*24 = 2.44 -> 2Gi.  cpu 0.06 + 0.084 = 0.144 -> 0.5
    (8, 32, "0.5", "2Gi"),
    # M=64: 1 + 0.06*56 = 4.36 -> 4Gi.  cpu 0.06 + 0.18 = 0.24 -> 0.5
    (16, 64, "0.5", "4Gi"),
    # M=128: 1 + 0.06*120 = 8.2 -> 8Gi.  cpu 0.06 + 0.372 = 0.432 -> "0.43" -> 0.5
    (32, 128, "0.5", "8Gi"),
    # M=256: 1 + 6.72 + 0.02*(256-120) = 7.72 + 2.72 = 10.44 -> 10Gi.  cpu 0.06 + 0.756 = 0.816 -> "0.82"
    (64, 256, "0.82", "10Gi"),
    # M=384: 7.72 + 0.02*264 = 7.72 + 5.28 = 13.00 -> 13Gi.  cpu 0.06 + 1.14 = 1.200 -> "1.20"
    (96, 384, "1.20", "13Gi"),
    # M=1536: 7.72 + 0.02*1416 = 7.72 + 28.32 = 36.04 -> 36Gi.  cpu 0.06 + 2.292 = 2.352 -> "2.35"
    (192, 1536, "2.35", "36Gi"),
    # M=8: boundary, still the fixed 1 -> 1Gi.  cpu 0.06 + 0.06 = 0.120 -> 0.5
    (6, 8, "0.5", "1Gi"),
    # M=33: 1 + 0.06*25 = 2.5 exactly -> half up -> 3Gi.  cpu 0.06 + 0.012*36 = 0.492 -> "0.49" -> 0.5
    (37, 33, "0.5", "3Gi"),
]


@pytest.mark.parametrize(("cpus", "gib", "cpu", "memory"), OPENSHIFT_CURRENT)
def test_openshift_current_table(cpus: int, gib: int, cpu: str, memory: str) -> None:
    result = compute("openshift", shape(cpus, gib))
    assert result.system_reserved == {"cpu": cpu, "memory": memory, "ephemeral-storage": "1Gi"}


OPENSHIFT_LEGACY = [
    # cpus, GiB, cpu, memory
    # M=1: 0.25*1 = 0.25 -> half up -> 0Gi (the 1 GiB node gets nothing)
    (1, 1, "0.5", "0Gi"),
    # M=2: 0.25*2 = 0.5 -> half up -> 1Gi
    (1, 2, "0.5", "1Gi"),
    # M=4: 0.25*4 = 1 -> 1Gi
    (2, 4, "0.5", "1Gi"),
    # M=16: 1 + 0.8 + 0.8 = 2.6 -> 3Gi
    (4, 16, "0.5", "3Gi"),
    # M=32: 2.6 + 0.06*16 = 3.56 -> 4Gi
    (8, 32, "0.5", "4Gi"),
    # M=64: 2.6 + 0.06*48 = 5.48 -> 5Gi
    (16, 64, "0.5", "5Gi"),
    # M=128: 2.6 + 0.06*112 = 9.32 -> 9Gi
    (32, 128, "0.5", "9Gi"),
    # M=256: 9.32 + 0.02*128 = 11.88 -> 12Gi.  cpu "0.82" (as current)
    (64, 256, "0.82", "12Gi"),
    # M=384: 9.32 + 0.02*256 = 14.44 -> 14Gi.  cpu "1.20"
    (96, 384, "1.20", "14Gi"),
    # M=1536: 9.32 + 0.02*1408 = 37.48 -> 37Gi.  cpu "2.35"
    (192, 1536, "2.35", "37Gi"),
    # M=15: 1 + 0.8 + 0.1*7 = 2.5 exactly -> half up -> 3Gi
    (4, 15, "0.5", "3Gi"),
    # M=30: 2.6 + 0.06*14 = 3.44 -> 3Gi
    (8, 30, "0.5", "3Gi"),
]


@pytest.mark.parametrize(("cpus", "gib", "cpu", "memory"), OPENSHIFT_LEGACY)
def test_openshift_legacy_table(cpus: int, gib: int, cpu: str, memory: str) -> None:
    result = compute("openshift-4.20", shape(cpus, gib))
    assert result.system_reserved == {"cpu": cpu, "memory": memory, "ephemeral-storage": "1Gi"}


def test_openshift_memory_is_truncated_to_whole_gib_before_the_formula() -> None:
    # Nominal 17 GiB VM that reports just under 17 GiB: free -g says 16 -> 1 + 0.06*8 = 1.48 -> 1Gi.
    # Rounding the GiB instead of truncating would give M=17 -> 1.54 -> 2Gi.
    just_under = MachineShape(Decimal(4), 17 * GIB - 1)
    assert compute("openshift", just_under).system_reserved["memory"] == "1Gi"
    assert compute("openshift", MachineShape(Decimal(4), 17 * GIB)).system_reserved["memory"] == "2Gi"


def test_openshift_nominal_16_gib_node_reporting_15_point_6_gib() -> None:
    # MemTotal 16,357,000 KiB = 15.599... GiB -> free -g 15.
    # current: 1 + 0.06*7 = 1.42 -> 1Gi; legacy: 1 + 0.8 + 0.1*7 = 2.5 -> half up -> 3Gi.
    node = MachineShape(Decimal(4), 16_357_000 * 1024)
    current = compute("openshift", node)
    legacy = compute("openshift-4.20", node)
    assert current.system_reserved["memory"] == "1Gi"
    assert legacy.system_reserved["memory"] == "3Gi"
    assert any("15.59 GiB to 15 GiB" in note for note in current.notes)


def test_openshift_truncation_changes_a_100_gib_node() -> None:
    # MemTotal 99.5 GiB -> M=99: 1 + 0.06*91 = 6.46 -> 6Gi; a true 100 GiB -> 1 + 0.06*92 = 6.52 -> 7Gi.
    assert compute("openshift", MachineShape(Decimal(16), 199 * GIB // 2)).system_reserved["memory"] == "6Gi"
    assert compute("openshift", shape(16, 100)).system_reserved["memory"] == "7Gi"


@pytest.mark.parametrize(
    ("gib", "memory"),
    [
        # M=128: 1 + 0.06*120 = 8.20 -> 8Gi
        (128, "8Gi"),
        # M=129: 1 + 6.72 + 0.02*(129-120) = 7.90 -> 8Gi (below the 8.20 of 128 GiB: the dip)
        (129, "8Gi"),
        # M=150: 7.72 + 0.02*30 = 8.32 -> 8Gi (continuing from 128 at 2% would be 8.64 -> 9Gi)
        (150, "8Gi"),
        # M=158: 7.72 + 0.02*38 = 8.48 -> 8Gi
        (158, "8Gi"),
        # M=159: 7.72 + 0.02*39 = 8.50 -> half up -> 9Gi
        (159, "9Gi"),
    ],
)
def test_openshift_current_dip_above_128_gib(gib: int, memory: str) -> None:
    result = compute("openshift", shape(8, gib))
    assert result.system_reserved["memory"] == memory


def test_openshift_dip_is_explained_in_the_notes() -> None:
    notes = compute("openshift", shape(8, 129)).notes
    assert any("120 GiB" in note and "dip" in note for note in notes)
    assert any("= 7.9" in note for note in notes)
    assert not any("dip" in note for note in compute("openshift", shape(8, 128)).notes)


def test_openshift_legacy_has_no_dip() -> None:
    # M=128: 9.32; M=129: 9.32 + 0.02 = 9.34 -> both 9Gi, and M=153: 9.32 + 0.5 = 9.82 -> 10Gi
    assert compute("openshift-4.20", shape(8, 129)).system_reserved["memory"] == "9Gi"
    assert compute("openshift-4.20", shape(8, 153)).system_reserved["memory"] == "10Gi"


@pytest.mark.parametrize(
    ("cpus", "cpu"),
    [
        # 1 CPU: base 0.06 -> floor 0.5
        (1, "0.5"),
        # 37 CPUs: 0.06 + 0.012*36 = 0.492 -> "0.49" -> floor 0.5
        (37, "0.5"),
        # 38 CPUs: 0.06 + 0.012*37 = 0.504 -> "0.50" is not below 0.5 -> written as printed, "0.50"
        (38, "0.50"),
        # 39 CPUs: 0.06 + 0.012*38 = 0.516 -> "0.52"
        (39, "0.52"),
        # 128 CPUs: 0.06 + 0.012*127 = 1.584 -> "1.58"
        (128, "1.58"),
    ],
)
def test_openshift_cpu_floor_and_two_decimal_printing(cpus: int, cpu: str) -> None:
    for formula in ("openshift", "openshift-4.20"):
        assert compute(formula, shape(cpus, 32)).system_reserved["cpu"] == cpu


def test_openshift_fractional_cpus_counted_as_whole_online_cpus() -> None:
    # 38.9 -> 38 online CPUs -> "0.50"; 0.5 -> at least 1 CPU -> 0.5
    result = compute("openshift", shape("38.9", 32))
    assert result.system_reserved["cpu"] == "0.50"
    assert any("38.9 CPUs taken as 38" in note for note in result.notes)
    assert compute("openshift", shape("0.5", 32)).system_reserved["cpu"] == "0.5"


def test_openshift_sub_gib_node() -> None:
    # 512 MiB -> free -g 0 -> current: 0 <= 8 -> 1Gi; legacy: 0.25*0 = 0 -> 0Gi
    node = MachineShape(Decimal(1), 512 * MIB)
    assert compute("openshift", node).system_reserved["memory"] == "1Gi"
    assert compute("openshift-4.20", node).system_reserved["memory"] == "0Gi"


def test_openshift_ignores_max_pods_and_says_so() -> None:
    with_pods = compute("openshift", shape(8, 32, max_pods=250))
    assert with_pods.system_reserved == compute("openshift", shape(8, 32)).system_reserved
    assert any("max_pods" in note for note in with_pods.notes)


# ---------------------------------------------------------------------------------------------------------
# GKE (tiers with 1 GB = 1000 MiB, truncated to whole MiB; cpu truncated to whole millicores)

GKE = [
    # cpus, GiB, cpu, memory
    # 1024 MiB > 1000: 0.25*1024 = 256 -> 256Mi.  cpu 6% of 1000m = 60m
    (1, 1, "60m", "256Mi"),
    # 4096 MiB: 0.25*4000 + 0.2*96 = 1000 + 19.2 = 1019.2 -> 1019Mi.  cpu 60 + 10 = 70m
    (2, 4, "70m", "1019Mi"),
    # 16384 MiB: 1000 + 800 + 800 + 0.06*384 = 2623.04 -> 2623Mi.  cpu 60 + 10 + 10 = 80m
    (4, 16, "80m", "2623Mi"),
    # 32768 MiB: 2600 + 0.06*16768 = 2600 + 1006.08 = 3606.08 -> 3606Mi.  cpu 80 + 0.0025*4000 = 90m
    (8, 32, "90m", "3606Mi"),
    # 65536 MiB: 2600 + 0.06*49536 = 2600 + 2972.16 = 5572.16 -> 5572Mi.  cpu 80 + 0.0025*12000 = 110m
    (16, 64, "110m", "5572Mi"),
    # 131072 MiB: 2600 + 6720 + 0.02*3072 = 9320 + 61.44 = 9381.44 -> 9381Mi.  cpu 80 + 70 = 150m
    (32, 128, "150m", "9381Mi"),
    # 262144 MiB: 9320 + 0.02*134144 = 9320 + 2682.88 = 12002.88 -> 12002Mi.  cpu 80 + 150 = 230m
    (64, 256, "230m", "12002Mi"),
    # 393216 MiB: 9320 + 0.02*265216 = 9320 + 5304.32 = 14624.32 -> 14624Mi.  cpu 80 + 230 = 310m
    (96, 384, "310m", "14624Mi"),
    # 1572864 MiB: 9320 + 0.02*1444864 = 9320 + 28897.28 = 38217.28 -> 38217Mi.  cpu 80 + 470 = 550m
    (192, 1536, "550m", "38217Mi"),
    # n1-standard-2, 7.5 GiB = 7680 MiB: 1000 + 0.2*3680 = 1736 -> 1736Mi (what GKE nodes show)
    (2, "7.5", "70m", "1736Mi"),
    # 5 cores: 80 + 0.0025*1000 = 82.5 -> truncated 82m.  3 GiB = 3072 MiB: 0.25*3072 = 768 -> 768Mi
    (5, 3, "82m", "768Mi"),
    # 0.5 cores = 500m: 0.06*500 = 30m.  0.5 GiB = 512 MiB <= 1000 MiB -> fixed 255Mi
    ("0.5", "0.5", "30m", "255Mi"),
    # 3 cores: 60 + 10 + 0.005*1000 = 75m
    (3, 4, "75m", "1019Mi"),
]


@pytest.mark.parametrize(("cpus", "gib", "cpu", "memory"), GKE)
def test_gke_table(cpus: int | str, gib: int | str, cpu: str, memory: str) -> None:
    result = compute("gke", shape(cpus, gib))
    assert result.kube_reserved == {"cpu": cpu, "memory": memory}
    assert result.system_reserved == {}
    assert result.eviction_hard == {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}


@pytest.mark.parametrize(
    ("mib", "memory"),
    [
        # <= 1000 MiB ("1 GB"): fixed 255Mi
        (1, "255Mi"),
        (999, "255Mi"),
        (1000, "255Mi"),
        # 1001 MiB: 0.25*1001 = 250.25 -> 250Mi (the tiers take over above 1 GB)
        (1001, "250Mi"),
    ],
)
def test_gke_small_machines_get_255_mib(mib: int, memory: str) -> None:
    assert compute("gke", MachineShape(Decimal(1), mib * MIB)).kube_reserved["memory"] == memory


def test_gke_notes_show_the_gib_reading_when_it_differs() -> None:
    # 7680 MiB read with GiB tiers: 1024 + 0.2*3584 = 1740.8 -> 1740Mi
    notes = compute("gke", shape(2, "7.5")).notes
    assert any("1740Mi" in note for note in notes)
    # 1 GiB: both readings give 256Mi, so no such note
    assert not any("would give" in note for note in compute("gke", shape(1, 1)).notes)


# ---------------------------------------------------------------------------------------------------------
# AKS: CPU table with interpolation / extrapolation, 1.29+ and legacy memory

AKS_CPU = [
    # cores, millicores
    # published rows
    (1, "60m"),
    (2, "100m"),
    (4, "140m"),
    (8, "180m"),
    (16, "260m"),
    (32, "420m"),
    (64, "740m"),
    # between rows, linear: 3 -> 100 + (140-100)/2 = 120m
    (3, "120m"),
    # 6 -> 140 + (180-140)*2/4 = 160m
    (6, "160m"),
    # 12 -> 180 + (260-180)*4/8 = 220m
    (12, "220m"),
    # 48 -> 420 + (740-420)*16/32 = 580m
    (48, "580m"),
    # 1.5 -> 60 + (100-60)*0.5 = 80m
    ("1.5", "80m"),
    # below one core, from 0: 0.5 -> 60*0.5 = 30m
    ("0.5", "30m"),
    # 2.25 -> 100 + 40*0.25/2 = 105m
    ("2.25", "105m"),
    # 2.0125 -> 100 + 40*0.0125/2 = 100.25 -> truncated 100m
    ("2.0125", "100m"),
    # beyond 64, last slope (740-420)/32 = 10m per core: 96 -> 740 + 320 = 1060m
    (96, "1060m"),
    # 192 -> 740 + 10*128 = 2020m
    (192, "2020m"),
]


@pytest.mark.parametrize(("cpus", "cpu"), AKS_CPU)
def test_aks_cpu_table_interpolation_and_extrapolation(cpus: int | str, cpu: str) -> None:
    for formula in ("aks", "aks-legacy"):
        assert compute(formula, shape(cpus, 16)).kube_reserved["cpu"] == cpu


def test_aks_cpu_notes_say_how_the_value_was_obtained() -> None:
    assert any("table row" in n for n in compute("aks", shape(4, 16)).notes)
    between = compute("aks", shape(3, 16)).notes
    assert any("interpolated" in n and "2 cores (100m)" in n and "4 cores (140m)" in n for n in between)
    beyond = compute("aks", shape(96, 16)).notes
    assert any("extrapolated" in n and "10m per core" in n for n in beyond)


AKS_MEMORY = [
    # cpus, GiB, maxPods, memory
    # documented example: 8 GB, 30 pods: min(20*30 + 50 = 650, 25% of 8192 = 2048) -> 650Mi
    (2, 8, 30, "650Mi"),
    # documented example: 4 GB, 70 pods: min(1450, 1024) -> 1024Mi (the docs round this to "1000 MB")
    (2, 4, 70, "1024Mi"),
    # maxPods unknown -> 110: min(2250, 25% of 16384 = 4096) -> 2250Mi
    (4, 16, None, "2250Mi"),
    # 110 pods on 8 GiB: min(2250, 2048) -> 2048Mi
    (2, 8, None, "2048Mi"),
    # 250 pods on 16 GiB: min(5050, 4096) -> 4096Mi; on 32 GiB: min(5050, 8192) -> 5050Mi
    (4, 16, 250, "4096Mi"),
    (8, 32, 250, "5050Mi"),
    # 1 GiB, 110 pods: min(2250, 256) -> 256Mi
    (1, 1, None, "256Mi"),
    # 7.25 GiB = 7424 MiB: 25% = 1856; min(2250, 1856) -> 1856Mi
    (2, "7.25", None, "1856Mi"),
    # 1536 GiB, 250 pods: min(5050, 393216) -> 5050Mi
    (192, 1536, 250, "5050Mi"),
]


@pytest.mark.parametrize(("cpus", "gib", "pods", "memory"), AKS_MEMORY)
def test_aks_memory(cpus: int, gib: int | str, pods: int | None, memory: str) -> None:
    result = compute("aks", shape(cpus, gib, max_pods=pods))
    assert result.kube_reserved["memory"] == memory
    assert result.system_reserved == {}
    assert result.eviction_hard == {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}


def test_aks_quarter_of_memory_is_truncated_to_whole_mib() -> None:
    # 7654 MiB: 25% = 1913.5 -> truncated 1913; min(2250, 1913) -> 1913Mi
    assert compute("aks", MachineShape(Decimal(2), 7654 * MIB)).kube_reserved["memory"] == "1913Mi"


def test_aks_default_max_pods_is_reported() -> None:
    assert any("assumed 110" in n for n in compute("aks", shape(4, 16)).notes)
    assert not any("assumed" in n for n in compute("aks", shape(4, 16, max_pods=30)).notes)


AKS_LEGACY_MEMORY = [
    # GiB, memory  (tiers in GiB, x1024, truncated to whole MiB)
    # 1 GiB: 0.25 GiB = 256Mi (no 255Mi minimum, unlike GKE)
    (1, "256Mi"),
    # 0.5 GiB: 0.125 GiB = 128Mi
    ("0.5", "128Mi"),
    # 4 GiB: 1 GiB = 1024Mi
    (4, "1024Mi"),
    # 7 GiB: 1 + 0.2*3 = 1.6 GiB = 1638.4 -> 1638Mi
    (7, "1638Mi"),
    # 8 GiB: 1.8 GiB = 1843.2 -> 1843Mi
    (8, "1843Mi"),
    # 16 GiB: 2.6 GiB = 2662.4 -> 2662Mi
    (16, "2662Mi"),
    # 32 GiB: 2.6 + 0.06*16 = 3.56 GiB = 3645.44 -> 3645Mi
    (32, "3645Mi"),
    # 64 GiB: 2.6 + 0.06*48 = 5.48 GiB = 5611.52 -> 5611Mi
    (64, "5611Mi"),
    # 128 GiB: 2.6 + 6.72 = 9.32 GiB = 9543.68 -> 9543Mi
    (128, "9543Mi"),
    # 256 GiB: 9.32 + 0.02*128 = 11.88 GiB = 12165.12 -> 12165Mi
    (256, "12165Mi"),
    # 384 GiB: 9.32 + 0.02*256 = 14.44 GiB = 14786.56 -> 14786Mi
    (384, "14786Mi"),
    # 1536 GiB: 9.32 + 0.02*1408 = 37.48 GiB = 38379.52 -> 38379Mi
    (1536, "38379Mi"),
]


@pytest.mark.parametrize(("gib", "memory"), AKS_LEGACY_MEMORY)
def test_aks_legacy_memory(gib: int | str, memory: str) -> None:
    result = compute("aks-legacy", shape(4, gib))
    assert result.kube_reserved["memory"] == memory
    assert result.eviction_hard == {"memory.available": "750Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}


def test_aks_legacy_ignores_max_pods() -> None:
    assert compute("aks-legacy", shape(4, 16, max_pods=30)).kube_reserved["memory"] == "2662Mi"
    assert compute("aks-legacy", shape(4, 16, max_pods=250)).kube_reserved["memory"] == "2662Mi"


# ---------------------------------------------------------------------------------------------------------
# EKS

EKS = [
    # cpus, GiB, maxPods, cpu, memory
    # 1 vCPU: 1000*600/10000 = 60m.  maxPods unknown -> 110: 11*110 + 255 = 1465Mi
    (1, 1, None, "60m", "1465Mi"),
    # t3.medium: 2 vCPU, 17 pods: 60 + 10 = 70m; 11*17 + 255 = 442Mi
    (2, 4, 17, "70m", "442Mi"),
    # m5.xlarge: 4 vCPU, 58 pods: 60 + 10 + 2000*50/10000 = 80m; 11*58 + 255 = 893Mi
    (4, 16, 58, "80m", "893Mi"),
    # m5.2xlarge: 8 vCPU, 58 pods: 80 + 4000*25/10000 = 90m; 893Mi
    (8, 32, 58, "90m", "893Mi"),
    # m5.4xlarge: 16 vCPU, 234 pods: 80 + 12000*25/10000 = 110m; 11*234 + 255 = 2829Mi
    (16, 64, 234, "110m", "2829Mi"),
    # 32 vCPU, 234 pods: 80 + 28000*25/10000 = 150m
    (32, 128, 234, "150m", "2829Mi"),
    # 64 vCPU, 737 pods: 80 + 60000*25/10000 = 230m; 11*737 + 255 = 8362Mi
    (64, 256, 737, "230m", "8362Mi"),
    # m5.24xlarge: 96 vCPU, 737 pods: 80 + 92000*25/10000 = 310m; 8362Mi
    (96, 384, 737, "310m", "8362Mi"),
    # 192 vCPU, 737 pods: 80 + 188000*25/10000 = 550m
    (192, 1536, 737, "550m", "8362Mi"),
    # 5 vCPU: 80 + 1000*25/10000 = 80 + 2 (2.5 truncated) = 82m
    (5, 16, 110, "82m", "1465Mi"),
    # 7 vCPU: 80 + 3000*25/10000 = 80 + 7 (7.5 truncated) = 87m
    (7, 16, 110, "87m", "1465Mi"),
]


@pytest.mark.parametrize(("cpus", "gib", "pods", "cpu", "memory"), EKS)
def test_eks_table(cpus: int, gib: int, pods: int | None, cpu: str, memory: str) -> None:
    result = compute("eks", shape(cpus, gib, max_pods=pods))
    assert result.kube_reserved == {"cpu": cpu, "ephemeral-storage": "1Gi", "memory": memory}
    assert result.system_reserved == {}


def test_eks_memory_does_not_depend_on_machine_memory() -> None:
    small = compute("eks", shape(2, 1, max_pods=29)).kube_reserved
    large = compute("eks", shape(2, 1536, max_pods=29)).kube_reserved
    assert small == large


def test_eks_fractional_cpus_counted_as_whole_cpus() -> None:
    # 4.9 -> 4 CPUs -> 80m (5 whole CPUs would give 82m)
    result = compute("eks", shape("4.9", 16))
    assert result.kube_reserved["cpu"] == "80m"
    assert any("4.9 CPUs taken as 4" in n for n in result.notes)


# ---------------------------------------------------------------------------------------------------------
# errors


def test_unknown_formula_lists_the_valid_ones() -> None:
    with pytest.raises(FormulaError) as info:
        compute("openshift-4.19", shape(8, 32))
    message = str(info.value)
    assert "openshift-4.19" in message
    for name in FORMULA_NAMES:
        assert name in message
    assert "\n" not in message


@pytest.mark.parametrize("cpus", [Decimal(0), Decimal(-1), Decimal("-0.5"), Decimal("NaN"), Decimal("Infinity")])
def test_impossible_cpus_rejected(cpus: Decimal) -> None:
    with pytest.raises(FormulaError, match="cpus"):
        compute("gke", MachineShape(cpus, 8 * GIB))


@pytest.mark.parametrize("memory", [0, -1, -8 * GIB])
def test_impossible_memory_rejected(memory: int) -> None:
    with pytest.raises(FormulaError, match="memory_bytes"):
        compute("openshift", MachineShape(Decimal(8), memory))


@pytest.mark.parametrize("pods", [0, -5])
def test_impossible_max_pods_rejected(pods: int) -> None:
    with pytest.raises(FormulaError, match="max_pods"):
        compute("eks", MachineShape(Decimal(2), 8 * GIB, pods))


def test_float_cpus_rejected() -> None:
    with pytest.raises(FormulaError, match="Decimal"):
        compute("gke", MachineShape(3.5, 8 * GIB))  # type: ignore[arg-type]


def test_integer_cpus_accepted() -> None:
    assert compute("gke", MachineShape(2, 8 * GIB)).kube_reserved["cpu"] == "70m"  # type: ignore[arg-type]


def test_absurd_precision_is_a_formula_error_not_a_decimal_trap() -> None:
    cpus = Decimal("1." + "1" * 150)
    with pytest.raises(FormulaError, match="too large or too precise"):
        compute("gke", MachineShape(cpus, 8 * GIB))


def test_formula_error_is_a_value_error() -> None:
    assert issubclass(FormulaError, ValueError)


# ---------------------------------------------------------------------------------------------------------
# registry and result shape


def test_registry_matches_names() -> None:
    # every formula the tool had before platforms became modules is still there, under the same name
    assert {"openshift", "openshift-4.20", "gke", "aks", "aks-legacy", "eks"} <= set(FORMULA_NAMES)
    assert tuple(FORMULAS) == FORMULA_NAMES
    for name, info in FORMULAS.items():
        assert info.name == name
        assert info.summary and "\n" not in info.summary
        assert info.doc.count("\n") >= 3
        result = compute(name, shape(8, 32))
        assert result.formula == name
        assert result.fills == info.fills
        assert result.eviction_hard == info.eviction_hard


def test_fills() -> None:
    fills = {n: FORMULAS[n].fills for n in FORMULA_NAMES}
    assert {n: fills[n] for n in ("openshift", "openshift-4.20", "gke", "aks", "aks-legacy", "eks")} == {
        "openshift": "systemReserved",
        "openshift-4.20": "systemReserved",
        "gke": "kubeReserved",
        "aks": "kubeReserved",
        "aks-legacy": "kubeReserved",
        "eks": "kubeReserved",
    }
    assert all(f.startswith("systemReserved") for n, f in fills.items() if n.startswith("openshift"))


def test_openshift_eviction_is_the_kubelet_default() -> None:
    assert compute("openshift", shape(8, 32)).eviction_hard == {
        "memory.available": "100Mi",
        "nodefs.available": "10%",
        "nodefs.inodesFree": "5%",
        "imagefs.available": "15%",
    }


def test_results_do_not_share_mutable_state() -> None:
    first = compute("eks", shape(2, 8))
    first.eviction_hard["memory.available"] = "1Gi"
    first.kube_reserved["cpu"] = "9m"
    again = compute("eks", shape(2, 8))
    assert again.eviction_hard["memory.available"] == "100Mi"
    assert again.kube_reserved["cpu"] == "70m"
    assert FORMULAS["eks"].eviction_hard["memory.available"] == "100Mi"


def test_docs_state_the_choices() -> None:
    assert "1000 MiB" in FORMULAS["gke"].doc
    assert "interpolates linearly" in FORMULAS["aks"].doc
    assert "10m per core" in FORMULAS["aks-legacy"].doc
    assert "MiB" in FORMULAS["aks"].doc
    assert "version 2" in FORMULAS["openshift-4.20"].doc
    assert "120 GiB" in FORMULAS["openshift"].doc


# ---------------------------------------------------------------------------------------------------------
# properties

cpus_strategy = st.decimals(min_value=Decimal("0.001"), max_value=Decimal(512), places=3)
memory_strategy = st.integers(min_value=1, max_value=8 * 1024 * GIB)
pods_strategy = st.one_of(st.none(), st.integers(min_value=1, max_value=1000))


@given(cpus=cpus_strategy, memory=memory_strategy, pods=pods_strategy)
def test_every_value_is_a_kubernetes_quantity(cpus: Decimal, memory: int, pods: int | None) -> None:
    for name in SIZED:
        result = compute(name, MachineShape(cpus, memory, pods))
        values = reserved(result)
        assert set(values) >= {"cpu", "memory"}
        for value in [*values.values(), *result.eviction_hard.values()]:
            assert QUANTITY.match(value) or re.fullmatch(r"\d+%", value), (name, value)
        assert result.notes


@given(cpus=st.integers(min_value=1, max_value=511), memory=memory_strategy)
def test_cpu_reservations_never_decrease_with_more_cpus(cpus: int, memory: int) -> None:
    for name in SIZED:
        lower = reserved(compute(name, MachineShape(Decimal(cpus), memory)))["cpu"]
        higher = reserved(compute(name, MachineShape(Decimal(cpus + 1), memory)))["cpu"]
        assert _cores(lower) <= _cores(higher), name


@given(gib=st.integers(min_value=1, max_value=4096))
def test_openshift_cpu_is_at_least_half_a_core(gib: int) -> None:
    for name in ("openshift", "openshift-4.20"):
        assert Decimal(compute(name, shape(gib % 300 + 1, gib)).system_reserved["cpu"]) >= Decimal("0.5")


def _cores(value: str) -> Decimal:
    return Decimal(value[:-1]) / 1000 if value.endswith("m") else Decimal(value)
