"""MicroK8s (canonical/microk8s): nothing reserved; its own hard eviction thresholds.

The kubelet's default arguments (``microk8s-resources/default-args/kubelet``, canonical/microk8s@d099c907) pass
``--eviction-hard="memory.available<100Mi,nodefs.available<1Gi,imagefs.available<1Gi"`` since
8f405924d61c61171385e72988caac8772d82fa7 (2018-05-28, "Lower eviction limits for kubelet (#32)"), and no
``--kube-reserved``, ``--system-reserved`` or ``--max-pods``. The same file labels nodes ``microk8s.io/cluster=true``.
"""

from __future__ import annotations

from renderer.platforms._base import Default, Platform, Release, Signal, register

_SOURCE = "canonical/microk8s@d099c907d3646a2dae3d3e33f07aef5a5bc8a090:microk8s-resources/default-args/kubelet"


@register
class Microk8s(Platform):
    title = "MicroK8s"
    summary = "MicroK8s: nothing reserved; evictionHard memory.available 100Mi, nodefs.available 1Gi, imagefs 1Gi"
    default_reason = "MicroK8s kubelet default args"
    order = 66
    signals = (
        Signal("label", "microk8s.io/cluster", "the kubelet's default args label nodes microk8s.io/cluster=true"),
        Signal("label", "node.kubernetes.io/microk8s-controlplane", "MicroK8s control-plane nodes"),
    )
    defaults = (
        Default(
            "microk8s",
            "no reservation; evictionHard memory.available 100Mi, nodefs.available 1Gi, imagefs.available 1Gi",
            None,
            {"memory.available": "100Mi", "nodefs.available": "1Gi", "imagefs.available": "1Gi"},
            (_SOURCE,),
        ),
    )
    history = (
        Release(
            "2018-05-28 and later",
            "2018-05-28",
            "microk8s",
            "canonical/microk8s@8f405924d61c61171385e72988caac8772d82fa7",
        ),
    )
    render_notes = ("MicroK8s: add the fields as flags to /var/snap/microk8s/current/args/kubelet",)
