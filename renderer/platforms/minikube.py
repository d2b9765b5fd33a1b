"""minikube (kubernetes/minikube): the same as kind, nothing reserved and hard eviction off.

minikube's kubeadm templates set ``evictionHard`` ``nodefs.available: "0%"``, ``nodefs.inodesFree: "0%"``,
``imagefs.available: "0%"`` and ``imageGCHighThresholdPercent: 100`` since caafc66a616caf379e6dda33677daf42bc2950e0
(2019-02-13, "Disable kubelet disk eviction by default", v0.34.0): kubernetes/minikube@eb25dbc7
``pkg/minikube/bootstrapper/bsutil/ktmpl/v1beta1.go`` l.85-89 (v1beta2 l.88-92, v1beta3 l.86-90, v1beta4 l.90-94).
Nodes carry ``minikube.k8s.io/*`` labels (``pkg/minikube/bootstrapper/kubeadm/kubeadm.go`` l.1053-1063).
"""

from __future__ import annotations

from renderer.platforms._base import Default, Platform, Release, Signal, register

EVICTION = {"nodefs.available": "0%", "nodefs.inodesFree": "0%", "imagefs.available": "0%"}
_SOURCE = "kubernetes/minikube@eb25dbc703701fa38c3f65c89a1896baa375e5ed:pkg/minikube/bootstrapper/bsutil/ktmpl"


@register
class Minikube(Platform):
    title = "minikube"
    summary = "minikube: nothing reserved; evictionHard nodefs/inodes/imagefs 0% (off), no memory threshold"
    default_reason = "minikube's kubeadm template"
    order = 65
    signals = (Signal("label-prefix", "minikube.k8s.io/", "minikube labels its nodes (name, version, commit)"),)
    defaults = (
        Default(
            "minikube",
            "no reservation; evictionHard nodefs.available, nodefs.inodesFree, imagefs.available 0%",
            None,
            EVICTION,
            (_SOURCE,),
        ),
    )
    history = (
        Release("before v0.34.0", "", "", "kubernetes/minikube (no evictionHard)", "the kubelet's default eviction"),
        Release(
            "v0.34.0 and later",
            "2019-02-13",
            "minikube",
            "kubernetes/minikube@caafc66a616caf379e6dda33677daf42bc2950e0",
        ),
    )
    render_notes = ("minikube: pass kubelet fields with --extra-config=kubelet.<field>=<value>",)
