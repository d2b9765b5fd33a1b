"""AKS: the cpu table, the memory rules before and from 1.29, Windows pools, and the VM size's memory.

Vectors: Azure/AgentBaker@06836ee2 e2e/node_config.go fixtures (l.78-91: a 7 GiB, 2-vCPU size -> --kube-reserved
cpu=100m,memory=1638Mi and --eviction-hard memory.available<750Mi; l.1043-1058, Windows: cpu=100m, memory=3891Mi and
no --eviction-hard); the Azure VM-size table of kubernetes/autoscaler@55c37cd5 and its corrections.
"""

from __future__ import annotations

import pytest
from platform_support import Q, default, model, node

from renderer.platforms import azure_vm_memory_mib

AKS = {"kubernetes.azure.com/agentpool": "nodepool1"}


def test_agentbaker_legacy_fixture() -> None:
    # Standard_DS2_v2: 2 vCPUs, 7 GiB (7168 MiB in the table); AKS 1.28
    labels = {**AKS, "node.kubernetes.io/instance-type": "Standard_DS2_v2"}
    cap = {"cpu": "2", "memory": "7110000Ki", "ephemeral-storage": "129886128Ki", "pods": "110"}
    pc = model(node(labels=labels, capacity=cap, kubeletVersion="v1.28.9"))
    assert pc.platform_default is not None and pc.platform_default.name == "aks-legacy"
    assert pc.kube_reserved["cpu"].quantity == Q("100m")
    assert pc.kube_reserved["memory"].quantity == Q("1638Mi")
    assert pc.eviction_hard["memory.available"] == "750Mi"


def test_agentbaker_windows_fixture() -> None:
    # 8 GiB (Standard_D2s_v3, 2 vCPUs): tiers 1843Mi + 2048Mi = 3891Mi, cpu 100m, no hard eviction
    labels = {**AKS, "kubernetes.io/os": "windows", "node.kubernetes.io/instance-type": "Standard_D2s_v3"}
    cap = {"cpu": "2", "memory": "8388148Ki", "ephemeral-storage": "133703676Ki", "pods": "30"}
    pc = model(node(labels=labels, capacity=cap, kubeletVersion="v1.30.3", operatingSystem="windows"))
    assert pc.platform_default is not None and pc.platform_default.name == "aks-windows"
    assert pc.kube_reserved["memory"].quantity == Q("3891Mi")
    assert pc.kube_reserved["cpu"].quantity == Q("100m")
    assert pc.eviction_hard == {} and pc.eviction_reserved == {}


@pytest.mark.parametrize(
    ("size", "mib"),
    [
        ("Standard_D2s_v3", 8192),
        ("Standard_DS2_v2", 7168),
        ("Standard_NC6s_v3", 114688),
        # truncated by the autoscaler's generator (int(MemoryGB) x 1024), corrected from Azure's size pages
        ("Standard_DS1_v2", 3584),
        ("Standard_B1ls", 512),
        ("Standard_M8ms", 224000),
        ("Standard_Nope_v9", None),
    ],
)
def test_azure_vm_sizes(size: str, mib: int | None) -> None:
    got = azure_vm_memory_mib(size)
    assert (got[0] if got else None) == mib


def test_the_sku_memory_label_wins_over_the_table() -> None:
    labels = {**AKS, "node.kubernetes.io/instance-type": "Standard_D2s_v3", "kubernetes.azure.com/sku-memory": "4096"}
    pc = model(node(labels=labels, kubeletVersion="v1.28.9"))
    assert pc.kube_reserved["memory"].quantity == Q("1024Mi")  # 25% of 4096


def test_release_and_detection() -> None:
    assert default(node(labels=AKS, kubeletVersion="v1.29.0")).name == "aks"  # type: ignore[union-attr]
    assert default(node(labels=AKS, kubeletVersion="v1.28.9")).name == "aks-legacy"  # type: ignore[union-attr]
    assert node("aks-nodepool1-31093287-vmss000000").platform == "aks"  # the VMSS naming convention
