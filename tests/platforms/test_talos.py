"""Talos: system-reserved cpu 50m, ephemeral-storage 256Mi, pid 100 and memory by release and role
(siderolabs/talos ed7fb9db v0.14 128Mi, 61461de6 v1.0 192Mi, 6b15ca19 v1.9 512Mi control plane / 384Mi workers)."""

from __future__ import annotations

import pytest
from platform_support import Q, default, model, node


@pytest.mark.parametrize(
    ("os_image", "control_plane", "name", "memory"),
    [
        ("Talos (v0.13.4)", False, "talos-0.13", None),
        ("Talos (v0.14.3)", False, "talos-0.14", "128Mi"),
        ("Talos (v1.8.4)", True, "talos-1.8", "192Mi"),
        ("Talos (v1.9.2)", False, "talos", "384Mi"),
        ("Talos (v1.9.2)", True, "talos-control-plane", "512Mi"),
    ],
)
def test_release_and_role(os_image: str, control_plane: bool, name: str, memory: str | None) -> None:
    labels = {"node-role.kubernetes.io/control-plane": ""} if control_plane else {}
    pool = node(labels=labels, osImage=os_image)
    assert pool.platform == "talos"
    assert default(pool).name == name  # type: ignore[union-attr]
    pc = model(pool)
    if memory is None:
        assert pc.system_reserved == {}
        return
    assert pc.system_reserved["memory"].quantity == Q(memory)
    assert pc.system_reserved["cpu"].quantity == Q("50m")
    assert pc.system_reserved["ephemeral-storage"].quantity == Q("256Mi")
    assert pc.system_reserved["pid"].quantity == Q("100")
    assert pc.kube_reserved == {} and pc.eviction_source == "kubelet default"
