"""k0s: no reservation and no eviction of its own (k0sproject/k0s@dff90cee workerconfig/reconciler.go)."""

from __future__ import annotations

from platform_support import model, node


def test_kubelet_defaults() -> None:
    pool = node(kubeletVersion="v1.31.2+k0s")
    assert pool.platform == "k0s"
    pc = model(pool)
    assert pc.system_reserved == {} and pc.kube_reserved == {}
    assert pc.eviction_source == "kubelet default" and pc.eviction_hard["memory.available"] == "100Mi"
