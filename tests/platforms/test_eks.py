"""EKS: AL2 bootstrap.sh vs AL2023 nodeadm vs Bottlerocket vs eksctl, and the ENI maxPods the AMIs reserve for.

Upstream vectors: awslabs/amazon-eks-ami nodeadm e2e case custom-max-pods-expression/scenarios/kubelet-config-max-pods
(60 ENI pods -> kubeReserved memory 915Mi while the kubelet's maxPods is 1); Bottlerocket's kube_cpu_helper
(bottlerocket-core-kit sources/api/schnauzer/src/helpers/mod.rs l.133-137: 1 -> 60m, 2 -> 70m, 3 -> 75m, 4 -> 80m,
5 -> 82m); AL2 bootstrap.sh v20191119-v20200416 (d4eca995): 255Mi for at most 1024 MiB of `free -m`.
"""

from __future__ import annotations

from typing import Any

import pytest
from platform_support import Q, default, model, node, reserved, settings

from renderer import platforms
from renderer.capacity.formulas import MIB, MachineShape, compute

EKS = {"eks.amazonaws.com/nodegroup": "ng", "node.kubernetes.io/instance-type": "m5.large"}
CAP = {"cpu": "2", "memory": "7934456Ki", "ephemeral-storage": "83873772Ki", "pods": "29"}


@pytest.mark.parametrize(
    ("os_image", "name"),
    [
        ("Amazon Linux 2", "eks-al2"),
        ("Amazon Linux 2023.6.20250107", "eks"),
        ("Bottlerocket OS 1.20.3 (aws-k8s-1.29)", "bottlerocket"),
        ("Bottlerocket OS 1.0.7 (aws-k8s-1.19)", "bottlerocket-1.0.7"),
        ("", "eks"),
    ],
)
def test_the_os_image_decides(os_image: str, name: str) -> None:
    d = default(node(labels=EKS, capacity=CAP, osImage=os_image))
    assert d is not None and d.name == name


def test_a_maxpods_override_does_not_change_the_amis_reservation() -> None:
    # nodeadm e2e kubelet-config-max-pods: the ENI expression gives 60, kubeReserved memory 11 x 60 + 255 = 915Mi,
    # while the kubelet's maxPods (the node's pods capacity) is 1.
    cap = {**CAP, "pods": "1"}
    labels = {**EKS, "node.kubernetes.io/instance-type": "x9.test"}
    s = settings(machineTypes={"x9.test": {"eniMaxPods": 60}})
    pool = node(labels=labels, capacity=cap, osImage="Amazon Linux 2023.6.20250107")
    pc = model(pool, s)
    assert pc.kube_reserved["memory"].quantity == Q("915Mi")
    assert pc.max_pods == 1
    # Bottlerocket reads the final max-pods setting: 11 x 1 + 255
    bottlerocket = model(node(labels=labels, capacity=cap, osImage="Bottlerocket OS 1.20.3 (aws-k8s-1.29)"), s)
    assert bottlerocket.kube_reserved["memory"].quantity == Q("266Mi")


@pytest.mark.parametrize(("os_image", "who"), [("Amazon Linux 2", "bootstrap.sh"), ("Amazon Linux 2023.6", "nodeadm")])
def test_verify_names_the_component_that_reserved_for_the_eni_limit(os_image: str, who: str) -> None:
    from renderer.verify.causes import Situation, explain

    labels = {**EKS, "node.kubernetes.io/instance-type": "m5.large"}
    # an m5.large (ENI limit 29) whose kubelet runs maxPods 110: reported memory reserves 11 x 29 + 255 = 574Mi
    cap = {**CAP, "pods": "110"}
    pool = node(labels=labels, capacity=cap, osImage=os_image)
    pc = model(pool)
    reported = pc.capacity["memory"] - Q("574Mi") - Q("100Mi")
    text = explain(Situation(pc, "memory", pc.allocatable["memory"], reported, settings(), True))
    assert f"{who} computes it from the instance's ENI limit" in text
    assert "maxPods 29" in text and "eniMaxPods: 29" in text


@pytest.mark.parametrize(("cpus", "cpu"), [(1, "60m"), (2, "70m"), (3, "75m"), (4, "80m"), (5, "82m"), (96, "310m")])
def test_bottlerocket_cpu(cpus: int, cpu: str) -> None:
    d = platforms.get("eks").default_named("bottlerocket")
    assert d.formula is not None
    got = compute(d.formula, MachineShape(cpus=cpus, memory_bytes=8192 * MIB, max_pods=29))  # type: ignore[arg-type]
    assert got.kube_reserved["cpu"] == cpu
    assert d.eviction_hard is None  # only when settings.kubernetes.eviction-hard is set: the kubelet's defaults


def test_al2_before_april_2020_used_the_memory_tiers_of_free_m() -> None:
    d = platforms.get("eks").default_named("eks-al2-2019")
    assert d.formula is not None
    # 1024 MiB or less: 255Mi; 8 GiB (free -m 7680): 25% of 4096 + 20% of 3584 = 1024 + 716.8 -> 1740Mi
    small = compute(d.formula, MachineShape(cpus=1, memory_bytes=1000 * MIB))  # type: ignore[arg-type]
    assert small.kube_reserved["memory"] == "255Mi"
    big = compute(d.formula, MachineShape(cpus=2, memory_bytes=7680 * MIB))  # type: ignore[arg-type]
    assert big.kube_reserved["memory"] == "1740Mi"


def test_old_eksctl_groups_reserved_nothing() -> None:
    s = settings(platformDefaults={"eks": "eksctl-0.16"})
    pc = model(node(labels=EKS, capacity=CAP), s)
    assert reserved(pc) == {} and pc.eviction_source == "kubelet default"


def test_detection() -> None:
    assert node(kubeletVersion="v1.30.4-eks-a737599").platform == "eks"
    assert node(osImage="Bottlerocket OS 1.20.3 (aws-k8s-1.29)").platform == "eks"
    assert node(labels={"karpenter.k8s.aws/instance-family": "m5"}).platform == "eks"


#: EKS Auto Mode's osImage as `kubectl get node -o wide` printed it in AWS's own guide
#: (awsdocs/amazon-eks-user-guide@fa53b399fa7e740627268ced4283186437890899:latest/ug/automode/auto-migrate-fargate.adoc).
EKS_AUTO_IMAGE = "Bottlerocket (EKS Auto) 2025.3.14 (aws-k8s-1.30)"


def test_eks_auto_mode_is_named_instead_of_no_known_cause() -> None:
    # AWS publishes no reservation for Auto Mode instances. A 2-vCPU node predicted with nodeadm's values (60m + 10m
    # = 70m reserved: 1930m allocatable) that reports 240m less cpu (1690m; a hand-made difference, no published
    # Auto Mode node with capacity and allocatable being known here) and everything else as predicted: verify says
    # "unpublished", never "no known cause", and the prediction says why it uses nodeadm's values.
    from renderer.verify.causes import Situation, explain

    def pool_reporting(labels: dict[str, str], image: str) -> tuple[Any, Any]:
        predicted = model(node(labels=labels, capacity=CAP, osImage=image))
        allocatable = {k: str(v) for k, v in predicted.allocatable.items()}
        allocatable.update(cpu="1690m", pods=CAP["pods"])
        return node(labels=labels, capacity=CAP, allocatable=allocatable, osImage=image), predicted

    pool, predicted = pool_reporting({"eks.amazonaws.com/compute-type": "auto"}, EKS_AUTO_IMAGE)
    d = default(pool)
    assert d is not None and d.name == "eks" and "EKS Auto Mode" in d.reason
    assert predicted.allocatable["cpu"] == Q("1930m")
    pc = model(pool)
    text = explain(Situation(pc, "cpu", pc.allocatable["cpu"], Q("1690m"), settings(), True))
    assert "EKS Auto Mode: unpublished reservation" in text and "no known cause" not in text, text
    # an AL2023 node with the same difference keeps the general answer
    pool, _ = pool_reporting(EKS, "Amazon Linux 2023.6.20250107")
    pc = model(pool)
    text = explain(Situation(pc, "cpu", pc.allocatable["cpu"], Q("1690m"), settings(), True))
    assert "EKS Auto Mode" not in text and "no known cause" in text, text


def test_al2_amis_before_v20191119_reserved_nothing() -> None:
    # awslabs/amazon-eks-ami had no kubeReserved before d4eca995 (v20191119): an AL2 m5.large (2 vCPUs, 7934456Ki,
    # 29 pods) then advertised its capacity less the kubelet's default hard eviction only. By hand: cpu 2 cores;
    # memory 7934456Ki - 100Mi (102400Ki) = 7832056Ki. Predicted with today's bootstrap.sh values (70m, 574Mi), the
    # node's numbers are the older profile's, which verify names.
    from renderer.verify.causes import Situation, explain

    allocatable = {**CAP, "cpu": "2", "memory": "7832056Ki"}
    pool = node(labels=EKS, capacity=CAP, allocatable=allocatable, osImage="Amazon Linux 2")
    pc = model(pool)
    assert pc.platform_default is not None and pc.platform_default.name == "eks-al2"
    old = model(pool, default=platforms.get("eks").default_named("eks-al2-2018"))
    assert old.allocatable["cpu"] == Q("2") and old.allocatable["memory"] == Q("7832056Ki")
    text = explain(Situation(pc, "memory", pc.allocatable["memory"], Q("7832056Ki"), settings(), True))
    assert "eks-al2-2018" in text, text


# EKS Windows: the published node of aws/containers-roadmap#481 (tests/real-nodes/eks/windows-t2-large-2019.yaml):
# t2.large, capacity = allocatable (cpu 2, memory 8388208Ki, pods 110): nothing reserved and no hard eviction.
WINDOWS_CAP = {"cpu": "2", "memory": "8388208Ki", "ephemeral-storage": "0", "pods": "110"}


@pytest.mark.parametrize(
    ("labels", "info"),
    [
        ({"beta.kubernetes.io/os": "windows"}, {}),  # the published node: only the beta label
        ({"kubernetes.io/os": "windows"}, {}),
        ({}, {"operatingSystem": "windows"}),
        ({}, {"osImage": "Windows Server 2022 Datacenter"}),
    ],
)
def test_a_windows_node_gets_the_windows_default(labels: dict[str, str], info: dict[str, str]) -> None:
    pool = node(labels={**EKS, **labels}, capacity=WINDOWS_CAP, **info)
    d = default(pool)
    assert d is not None and d.name == "eks-windows" and d.formula is None and d.eviction == {}
    pc = model(pool)
    assert reserved(pc) == {}
    assert pc.allocatable["memory"] == Q("8388208Ki")  # as published: nothing reserved, nothing evicted
    # a Windows node's only alternative is the Windows default; a Linux node never gets it
    eks = platforms.get("eks")
    assert [a.name for a in eks.alternatives(pool, settings())] == ["eks-windows"]
    linux = node(labels=EKS, capacity=CAP, osImage="Amazon Linux 2023.6.20250107")
    assert "eks-windows" not in [a.name for a in eks.alternatives(linux, settings())]


def test_vpc_resources_detect_eks() -> None:
    # the VPC resource controller advertises vpc.amazonaws.com/* on EKS nodes (Windows IPs, pod ENIs)
    pool = node(capacity={**WINDOWS_CAP, "vpc.amazonaws.com/PrivateIPv4Address": "11"}, provider_id="aws:///a/i-0")
    assert pool.platform == "eks" and "vpc.amazonaws.com/" in pool.evidence
    assert node(capacity=WINDOWS_CAP, provider_id="aws:///a/i-0").platform == "generic"  # aws:// alone is a hint


def test_a_windows_node_that_differs_says_the_reservation_is_unpublished() -> None:
    pool = node(labels={**EKS, "kubernetes.io/os": "windows"}, capacity=WINDOWS_CAP)
    text = platforms.get("eks").unexplained(pool)
    assert text is not None and text.startswith("EKS Windows: unpublished reservation")
