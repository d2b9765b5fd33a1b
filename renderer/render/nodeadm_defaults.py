"""What nodeadm puts on an AL2023 EKS node by itself, and the warning when a policy leaves one of those keys unset.

nodeadm writes its own kubelet configuration file (``/etc/kubernetes/kubelet/config.json``) with kubeReserved
computed for the machine (cpu tiers, 11 MiB x its max pods + 255 MiB, 1Gi ephemeral-storage) and evictionHard
``memory.available<100Mi, nodefs.available<10%, nodefs.inodesFree<5%``, and puts the user's ``kubelet.config`` in a
drop-in (``config.json.d/40-nodeadm.conf``) (awslabs/amazon-eks-ami@81fec2e895854f599974fe4d3d72f61c0a9aaffa:
nodeadm/internal/kubelet/config.go). The kubelet merges drop-in maps key by key (kubernetes.io, "Kubelet
Configuration Directory Merging": individual map fields are overridden), so a key the policy leaves out keeps
nodeadm's value on the node — and Karpenter's scheduling model assumes the same defaults for an EC2NodeClass that
leaves them out. Such a key is reported (AL810): for a nodeadm pool the capacity model counts nodeadm's value (the
merge of config.json and the drop-in, ``renderer.capacity.kubelet_dropins``), for a Karpenter pool it does not.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderer.render.codes import PlatformDefaultKept
from renderer.render.target import RenderContext

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity

NODEADM_KUBE_RESERVED_KEYS = ("cpu", "memory", "ephemeral-storage")
NODEADM_EVICTION_HARD = {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"}
# Only these reduce allocatable (and so change what explain predicts).
_ALLOCATABLE_SIGNALS = ("memory.available", "nodefs.available")


def report_kept_defaults(
    ctx: RenderContext, pc: PoolCapacity, kubelet: dict[str, Any], subject: str, *, kube_reserved_default: bool = False
) -> None:
    """Warn for every kubeReserved key and allocatable-reducing eviction signal ``kubelet`` leaves to nodeadm;
    ``subject`` names what is rendered ("EC2NodeClass general", "the NodeConfig of NodePool/x")."""
    policy = pc.policy
    if policy is None:
        return
    spec = policy.model.spec
    # a nodeadm pool's model is the merge of config.json and the drop-in (capacity.kubelet_dropins): it counts them
    counted = (
        "which explain counts (config.json)" if pc.effective_kubelet is not None else "which explain does not count"
    )
    if not kube_reserved_default:
        kube = kubelet.get("kubeReserved") or {}
        missing = [k for k in NODEADM_KUBE_RESERVED_KEYS if k not in kube]
        if missing:
            keys = ", ".join(f"kubeReserved.{k}" for k in missing)
            ctx.report(
                PlatformDefaultKept,
                f"{keys} not set in {subject}: nodes keep nodeadm's value, {counted}",
                policy.source,
                policy.ref,
                ("spec", "kubeReserved")
                if spec.kubeReserved is not None
                else ("spec", "autoSizing")
                if spec.autoSizing is not None
                else ("spec",),
                hint="set every kubeReserved key, or use autoSizing.formula eks",
            )
    eviction = kubelet.get("evictionHard")
    if eviction is not None:
        kept = [s for s in _ALLOCATABLE_SIGNALS if s not in eviction]
        if kept:
            signals = ", ".join(f"{s}<{NODEADM_EVICTION_HARD[s]}" for s in kept)
            ctx.report(
                PlatformDefaultKept,
                f"evictionHard in {subject} leaves out {', '.join(kept)}: nodes keep nodeadm's {signals}, {counted}",
                policy.source,
                policy.ref,
                ("spec", "evictionHard") if spec.evictionHard is not None else ("spec", "autoSizing"),
                hint=f'list {", ".join(kept)} in evictionHard ("0%" turns a threshold off)',
            )
