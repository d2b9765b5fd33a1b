"""RKE2: k3s's kubelet defaults on Linux (rancher/rke2@6ce1a801 staticpod.go), none on Windows (pebinary.go)."""

from __future__ import annotations

from platform_support import Q, default, model, node


def test_linux_and_windows() -> None:
    linux = node(kubeletVersion="v1.30.4+rke2r1")
    assert linux.platform == "rke2" and default(linux).name == "rke2"  # type: ignore[union-attr]
    assert model(linux).eviction_hard == {"imagefs.available": "5%", "nodefs.available": "5%"}
    windows = node(labels={"kubernetes.io/os": "windows"}, kubeletVersion="v1.30.4+rke2r1", operatingSystem="windows")
    pc = model(windows)
    assert pc.platform_default is not None and pc.platform_default.name == "rke2-windows"
    assert pc.eviction_hard == {} and pc.allocatable["memory"] == Q("16Gi")
