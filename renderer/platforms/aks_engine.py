"""AKS Engine: self-managed Kubernetes on Azure VMs built by the (retired) open-source aks-engine.

Its Linux kubelet defaults set no ``--kube-reserved`` or ``--system-reserved`` and
``--eviction-hard=memory.available<750Mi,nodefs.available<10%,nodefs.inodesFree<5%``
(Azure/aks-engine@f634f52ff4f6295876b2d5391fc3af1f5bb3ad3e:pkg/api/defaults-kubelet.go l.86-118,
``DefaultKubernetesHardEvictionThreshold`` in pkg/api/const.go l.392), maxPods 110 (30 with Azure CNI). Its nodes
carry ``kubernetes.azure.com/cluster`` and ``kubernetes.azure.com/role`` but not AKS's agent-pool labels.
"""

from __future__ import annotations

from renderer.platforms._base import Default, Platform, Release, Signal, register

_SOURCE = "Azure/aks-engine@f634f52ff4f6295876b2d5391fc3af1f5bb3ad3e:pkg/api/defaults-kubelet.go"
_EVICTION = {"memory.available": "750Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}


@register
class AksEngine(Platform):
    title = "AKS Engine"
    summary = "self-managed clusters built by aks-engine: no reservation, evictionHard 750Mi / 10% / 5%"
    default_reason = "AKS Engine kubelet defaults"
    order = 45
    signals = (
        Signal("label", "kubernetes.azure.com/cluster", "aks-engine's node labels (AKS nodes match AKS first)"),
        Signal("label", "kubernetes.azure.com/role", "aks-engine's node labels"),
    )
    hints = (
        Signal("providerID", "azure://", "the Azure cloud provider (also AKS and self-managed clusters)"),
        Signal(
            "resource", "attachable-volumes-azure-disk", "the in-tree Azure Disk volume limit of nodes on Azure VMs"
        ),
        Signal("name", r"^k8s-[a-z0-9]+-[0-9]+-", "aks-engine names its nodes k8s-<pool>-<digits>-; a convention"),
    )
    defaults = (
        Default(
            "aks-engine",
            "AKS Engine kubelet defaults: no reservation; evictionHard 750Mi / 10% / 5%",
            None,
            _EVICTION,
            (_SOURCE,),
        ),
    )
    history = (Release("every aks-engine release in the source", "", "aks-engine", f"{_SOURCE} l.86-118"),)
