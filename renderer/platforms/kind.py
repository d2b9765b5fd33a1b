"""kind (kubernetes-sigs/kind): nothing reserved, hard eviction effectively off.

kind's kubeadm template gives the kubelet ``evictionHard`` with only ``nodefs.available: "0%"``,
``nodefs.inodesFree: "0%"`` and ``imagefs.available: "0%"`` and ``imageGCHighThresholdPercent: 100``
(kubernetes-sigs/kind@fed268827e21ca48a74c38215c316dd343364ef5 ``pkg/cluster/internal/kubeadm/config.go``
l.285-292; since ffb0a9fca51ecb1feb62b5e4c5af58edeb3a7778, 2019-02-11, "disable hard eviction by default", v0.2.0).
``0%`` disables a threshold, and memory.available is left out, which drops the kubelet's default for it: allocatable
= capacity for cpu, memory and ephemeral-storage. The node is a container: its capacity is the host's.
``spec.providerID`` is ``kind://<provider>/<cluster>/<node>`` since v0.9.0 (21d1cec0, 2020-08-24); nodes without it
(older releases, or a dump that drops spec) carry nothing that names kind: pass ``--platform kind`` or set
``platformDefaults.generic: kind``.
"""

from __future__ import annotations

from renderer.platforms._base import Default, Platform, Release, Signal, register

EVICTION = {"nodefs.available": "0%", "nodefs.inodesFree": "0%", "imagefs.available": "0%"}
_SOURCE = "kubernetes-sigs/kind@fed268827e21ca48a74c38215c316dd343364ef5:pkg/cluster/internal/kubeadm/config.go"


@register
class Kind(Platform):
    title = "kind"
    summary = "kind: nothing reserved; evictionHard nodefs/inodes/imagefs 0% (off), no memory threshold"
    default_reason = "kind's kubeadm template"
    order = 64
    signals = (Signal("providerID", "kind://", "kind sets providerID kind://<provider>/<cluster>/<node> (v0.9.0+)"),)
    defaults = (
        Default(
            "kind",
            "no reservation; evictionHard nodefs.available, nodefs.inodesFree, imagefs.available 0%",
            None,
            EVICTION,
            (_SOURCE,),
        ),
    )
    history = (
        Release("before v0.2.0", "", "", "kubernetes-sigs/kind (no evictionHard)", "the kubelet's default eviction"),
        Release(
            "v0.2.0 and later", "2019-02-11", "kind", "kubernetes-sigs/kind@ffb0a9fca51ecb1feb62b5e4c5af58edeb3a7778"
        ),
    )
    render_notes = (
        "kind: put kubelet/<pool>.yaml's fields into a kubeadmConfigPatches KubeletConfiguration of the "
        "kind cluster config",
    )
