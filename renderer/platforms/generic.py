"""Generic Kubernetes: a node whose platform nothing identifies, or a NodePool that names none.

Nothing is reserved; the kubelet's own evictionHard applies (memory.available 100Mi, nodefs.available 10%,
nodefs.inodesFree 5%, imagefs.available 15%: kubernetes/kubernetes ``pkg/kubelet/eviction/defaults_linux.go``). k0s
(its own module) sets the same. ``platformDefaults.generic: <platform>`` in .allocatable.yaml gives such pools another
platform's defaults (for a dump whose nodes carry no platform labels).
"""

from __future__ import annotations

from renderer.platforms._base import Platform, Release, register


@register
class Generic(Platform):
    title = "Generic Kubernetes"
    summary = "no platform identified: no reservation, the kubelet's default hard eviction"
    order = 1000
    fallback = True
    history = (
        Release(
            "every release",
            "",
            "",
            "kubernetes/kubernetes pkg/kubelet/eviction/defaults_linux.go (DefaultEvictionHard)",
            "no kube-reserved or system-reserved; evictionHard memory.available 100Mi, nodefs.available 10%, "
            "nodefs.inodesFree 5%, imagefs.available 15%",
        ),
    )
    render_notes = (
        "kubelet/<pool>.yaml is a KubeletConfiguration for the node bootstrap (kubeadm --config, a "
        "/etc/kubernetes/kubelet.conf.d drop-in)",
    )
    #: self-managed pools: kubeadm through Cluster API, or Bottlerocket's vmware-k8s / metal-k8s variants
    deliveries = frozenset({"bottlerocket", "clusterAPI"})
    #: self-managed clusters on AWS (kops, kubeadm) run their nodes in Auto Scaling groups
    asg_tags = True
