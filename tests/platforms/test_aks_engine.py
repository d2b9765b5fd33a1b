"""AKS Engine: no reservation, --eviction-hard memory.available<750Mi,nodefs.available<10%,nodefs.inodesFree<5%
(Azure/aks-engine@f634f52f pkg/api/defaults-kubelet.go); its nodes lack AKS's agent-pool labels."""

from __future__ import annotations

from platform_support import model, node


def test_detection_and_defaults() -> None:
    engine = node(labels={"kubernetes.azure.com/cluster": "rg", "kubernetes.azure.com/role": "agent"})
    assert engine.platform == "aks-engine"
    pc = model(engine)
    assert pc.system_reserved == {} and pc.kube_reserved == {}
    assert pc.eviction_hard == {"memory.available": "750Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
    aks = node(labels={"kubernetes.azure.com/cluster": "rg", "kubernetes.azure.com/agentpool": "p"})
    assert aks.platform == "aks"
