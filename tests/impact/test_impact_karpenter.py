"""Karpenter's prediction against its own unit tests (fixtures/karpenter_cases.yaml, transcribed from
aws/karpenter-provider-aws v1.14.1 pkg/providers/instancetype/suite_test.go) and against all 1,336 rows of its
generated instance-type table (fixtures/karpenter_instance_types_v1.14.1.json, website/.../instance-types.md at
v1.14.1: AL2023, no kubelet overrides, vmMemoryOverheadPercent 0.075)."""

from __future__ import annotations

from typing import Any

import pytest
from impact_vectors import case_id, load

from renderer.impact.provisioners.karpenter import (
    BlockDevice,
    InstanceType,
    KarpenterOptions,
    NodeClass,
    eni_limited_pods,
    kube_reserved_cpu,
    predict,
    vm_overhead_mib,
)
from renderer.impact.resources import units
from renderer.quantity import Quantity

CASES = load("karpenter_cases.yaml")
TABLE = load("karpenter_instance_types_v1.14.1.json")["rows"]
AMI = {
    "al2023@latest": "AL2023",
    "al2@latest": "AL2",
    "bottlerocket@latest": "Bottlerocket",
    "windows2019@latest": "Windows2019",
    "windows2022@latest": "Windows2022",
    "windows2025@latest": "Windows2025",
    "<ami id>": "Custom",
    "AL2": "AL2",
    "AL2023": "AL2023",
    "Bottlerocket": "Bottlerocket",
    "Custom": "Custom",
}
# Stand-ins for the test suite's "every fake instance type": the two real types the cases describe.
FAKE_TYPES = [
    InstanceType("t3.large", 2, 8192, max_network_interfaces=3, ipv4_per_interface=12),
    InstanceType("m6idn.32xlarge", 128, 524288, max_network_interfaces=8, ipv4_per_interface=50),
]


def _ints(raw: dict[str, Any] | None) -> dict[str, int]:
    return {k: units(k, Quantity.parse(str(v))) for k, v in (raw or {}).items()}


def _instance(raw: dict[str, Any], case: dict[str, Any]) -> InstanceType:
    efa = 1 if case["name"] == "should calculate max pods according to EFA-only interfaces used" else 0
    return InstanceType(
        raw["name"],
        raw["vcpu"],
        raw["memory_mib"],
        raw.get("arch", "amd64"),
        max_network_interfaces=raw.get("max_network_interfaces", raw.get("max_network_interfaces_card0")),
        ipv4_per_interface=raw["ipv4_per_interface"],
        efa_only_interfaces=efa,
    )


def _node_class(case: dict[str, Any]) -> NodeClass:
    kubelet = case.get("kubelet") or {}
    devices: tuple[BlockDevice, ...] = ()
    if case["context"] == "Ephemeral Storage":
        # The suite's mappings carry a snapshot but no volumeSize, on the family's device.
        device = {"Bottlerocket": "/dev/xvdb"}.get(AMI[case["ami"]], "/dev/xvda")
        devices = (BlockDevice(device),)
    return NodeClass(
        ami_family=AMI[case["ami"]],
        max_pods=kubelet.get("maxPods"),
        pods_per_core=kubelet.get("podsPerCore"),
        kube_reserved=_ints(kubelet.get("kubeReserved")),
        system_reserved=_ints(kubelet.get("systemReserved")),
        eviction_hard=kubelet.get("evictionHard") or {},
        eviction_soft=kubelet.get("evictionSoft") or {},
        block_devices=devices,
    )


def _check(case: dict[str, Any], it: InstanceType) -> None:
    opts = case["options"]
    got = predict(it, _node_class(case), KarpenterOptions(opts["vmMemoryOverheadPercent"], opts["reservedENIs"]))
    for key, want in case["expect"].items():
        if key == "overhead.systemReserved":
            assert {k: got.system_reserved.get(k, 0) for k in want} == _ints(want)
        elif key == "overhead.kubeReserved":
            assert {k: got.kube_reserved[k] for k in want} == _ints(want)
        elif key == "overhead.kubeReserved.memory":
            assert got.kube_reserved["memory"] == _ints({"memory": want})["memory"]
        elif key == "overhead.evictionThreshold.memory":
            assert got.eviction["memory"] == _ints({"memory": want})["memory"]
        elif key == "overhead.evictionThreshold.memory_approx":
            assert got.eviction["memory"] == case["expect"]["derived_exact_bytes"]
        elif key == "overhead.evictionThreshold":
            assert got.eviction["memory"] == _ints({"memory": want["memory"]})["memory"]
            assert got.eviction["ephemeral-storage"] == 2 * 2**30  # 10 % of the 20Gi default root volume
        elif key == "capacity.pods":
            kubelet = case.get("kubelet") or {}
            if want == "= vCPUs":
                want = it.vcpus
            elif want == "min(20, 4*vCPUs)":
                want = min(20, 4 * it.vcpus)
            elif want == "ENI-limited pods (reservedENIs=0)":
                want = eni_limited_pods(it)
            assert kubelet or isinstance(want, int)
            assert got.capacity["pods"] == want
        elif key == "node.capacity.ephemeral-storage":
            assert got.capacity["ephemeral-storage"] == _ints({"ephemeral-storage": want})["ephemeral-storage"]
        elif key == "derived_exact_bytes":
            continue
        else:  # pragma: no cover - a new kind of expectation in the fixture
            raise AssertionError(f"unknown expectation {key}")


@pytest.mark.parametrize("case", CASES["cases"], ids=case_id)
def test_prediction_matches_karpenters_unit_tests(case: dict[str, Any]) -> None:
    raw = case["instance_type"]
    if "vcpu" in raw:
        _check(case, _instance(raw, case))
    else:  # "every fake instance type" / "any"
        for it in FAKE_TYPES:
            _check(case, it)


def test_every_row_of_the_generated_instance_type_table() -> None:
    mismatches = []
    for row in TABLE:
        want = row["expected_allocatable"]
        it = InstanceType(
            row["instance_type"], row["vcpu"], row["ec2_memory_mib"], row["arch"], eni_pods=int(want["pods"])
        )
        got = predict(it).allocatable
        for resource in ("cpu", "memory", "ephemeral-storage", "pods"):
            if got[resource] != units(resource, Quantity.parse(want[resource])):
                mismatches.append((row["instance_type"], resource, got[resource], want[resource]))
    assert len(TABLE) == 1336
    assert mismatches == []


def test_tiers_and_rounding_by_hand() -> None:
    # cpu tiers: 1 vCPU 60m; 2 -> 60 + 10 = 70m; 4 -> 70 + 2 x 5 = 80m; 48 -> 80 + 44 x 2.5 = 190m.
    assert [kube_reserved_cpu(n) for n in (1, 2, 4, 48, 64, 96, 192)] == [60, 70, 80, 190, 230, 310, 550]
    # r5.12xlarge 393216 MiB x 0.075 = 29491.2 -> 29492 MiB (ceil): capacity 363724Mi (aws/karpenter-provider-aws#1306).
    assert vm_overhead_mib(393216, 0.075) == 29492
    # ENI limits: t3.large 3 x 11 + 2 = 35, one reserved ENI 24; m5.xlarge 4 x 14 + 2 = 58; none left: 0, not 2.
    t3 = InstanceType("t3.large", 2, 8192, max_network_interfaces=3, ipv4_per_interface=12)
    assert (eni_limited_pods(t3), eni_limited_pods(t3, 1), eni_limited_pods(t3, 3)) == (35, 24, 0)


def test_versions_change_kube_reserved_pods_and_eviction_soft() -> None:
    t3 = InstanceType("t3.large", 2, 8192, max_network_interfaces=3, ipv4_per_interface=12)
    # Before v1.6.0, AL2023 sized kube-reserved memory from the ENI limit *with* reservedENIs: 11 x 24 + 255.
    old = predict(t3, NodeClass(), KarpenterOptions(reserved_enis=1, version=(1, 5, 0)))
    new = predict(t3, NodeClass(), KarpenterOptions(reserved_enis=1))
    assert (old.kube_reserved["memory"], new.kube_reserved["memory"]) == (519 * 2**20, 640 * 2**20)
    # Before v1.9.0 the larger of evictionHard and evictionSoft counted (AL2023 supports soft eviction).
    soft = NodeClass(eviction_hard={"memory.available": "1Gi"}, eviction_soft={"memory.available": "3Gi"})
    assert predict(t3, soft, KarpenterOptions(version=(1, 8, 0))).eviction["memory"] == 3 * 2**30
    assert predict(t3, soft).eviction["memory"] == 2**30


def test_discovered_capacity_replaces_the_estimate() -> None:
    # i4i.32xlarge: 7.5 % predicts 961470Mi allocatable (the docs' row, #6611); once a node reported its capacity,
    # Karpenter uses that memory instead of the estimate.
    row = next(r for r in TABLE if r["instance_type"] == "i4i.32xlarge")
    it = InstanceType(
        "i4i.32xlarge",
        row["vcpu"],
        row["ec2_memory_mib"],
        row["arch"],
        eni_pods=int(row["expected_allocatable"]["pods"]),
    )
    assert predict(it).allocatable["memory"] == 961470 * 2**20
    real = 1_055_000 * 2**20
    assert predict(it, discovered_memory=real).capacity["memory"] == real
