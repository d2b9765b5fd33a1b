"""k3s (k3s-io/k3s): no kube- or system-reserved, ever; hard eviction on disk only.

k3s starts the kubelet with ``eviction-hard=imagefs.available<5%,nodefs.available<5%`` and
``eviction-minimum-reclaim=imagefs.available=10%,nodefs.available=10%`` (rancher/k3s initial commit
9bb7c27c62c9a0a04ffa99cf9bc78a0985cea1a8 ``pkg/daemons/agent/agent.go``, tag v0.1.0; still in
rancher/k3s@aef8a6aafd131c93e834be74c1cf0655827c3e54 ``pkg/daemons/agent/agent_linux.go`` l.67-68 and
``agent_windows.go`` l.55-56). Since about v1.32.1 the same map is a KubeletConfiguration drop-in
``00-k3s-defaults.conf`` (``pkg/daemons/agent/agent.go`` ``defaultKubeletConfig``; k3s-io/k3s#2116). An evictionHard
map replaces the kubelet's defaults, so there is no memory.available threshold: memory allocatable = capacity
(kubernetes/website ``content/en/docs/tasks/administer-cluster/kubelet-config-file.md``). maxPods: the kubelet's 110.
"""

from __future__ import annotations

from renderer.platforms._base import Default, KubeletFiles, Platform, Release, Signal, register

EVICTION = {"imagefs.available": "5%", "nodefs.available": "5%"}
_SOURCE = "rancher/k3s@9bb7c27c62c9a0a04ffa99cf9bc78a0985cea1a8:pkg/daemons/agent/agent.go"


@register
class K3s(Platform):
    title = "k3s"
    summary = "k3s: nothing reserved; evictionHard imagefs.available 5%, nodefs.available 5% (no memory threshold)"
    default_reason = "k3s kubelet defaults"
    order = 60
    signals = (
        Signal("kubeletVersion", r"\+k3s[0-9]", "k3s release tags vX.Y.Z+k3sN"),
        Signal("providerID", "k3s://", "k3s's embedded cloud provider (pkg/cloudprovider, ProviderName = k3s)"),
        Signal("label", "node.kubernetes.io/instance-type=k3s", "k3s's embedded cloud provider (InstanceType)"),
    )
    defaults = (
        Default(
            "k3s", "no reservation; evictionHard imagefs.available 5%, nodefs.available 5%", None, EVICTION, (_SOURCE,)
        ),
    )
    history = (
        Release("v0.1.0 to v1.32.0 (a kubelet flag)", "2019-02-08", "k3s", _SOURCE),
        Release(
            "v1.32.1 and later (drop-in 00-k3s-defaults.conf)",
            "2025-01-21",
            "k3s",
            "k3s-io/k3s pkg/daemons/agent/agent.go defaultKubeletConfig; k3s-io/k3s#2116",
        ),
    )
    # v1.32.1+: the kubelet runs with --config-dir only; k3s writes 00-k3s-defaults.conf there on every start and
    # copies a --kubelet-arg=config=<file> to 10-cli-config.conf (k3s-io/k3s pkg/daemons/agent/agent.go
    # extractConfigArgs; docs.k3s.io "Kubelet configuration files"): kubelet/<pool>.yaml merges over k3s's map.
    kubelet_files = KubeletFiles(
        base=None,
        directory="/var/lib/rancher/k3s/agent/etc/kubelet.conf.d",
        platform_file="/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/00-k3s-defaults.conf",
        ours="/var/lib/rancher/k3s/agent/etc/kubelet.conf.d/10-cli-config.conf",
        writer="k3s",
        source="k3s-io/k3s pkg/daemons/agent/agent.go",
    )
    render_notes = (
        "k3s: pass kubelet/<pool>.yaml with --kubelet-arg=config=<file>, or as a drop-in in the kubelet's "
        "config directory after 00-k3s-defaults.conf (v1.32.1+); k3s's evictionHard stays unless the file sets one",
    )
