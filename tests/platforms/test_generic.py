"""Generic: the platform of pools that name none; nothing reserved, the kubelet's default eviction; and
platformDefaults.generic giving them another platform's defaults."""

from __future__ import annotations

from platform_support import model, node, settings

from renderer import platforms


def test_fallback() -> None:
    pool = node()
    assert pool.platform == platforms.fallback_name() == "generic" and pool.evidence == ""
    pc = model(pool)
    assert pc.platform_default is None and pc.system_reserved == {} and pc.kube_reserved == {}
    assert pc.eviction_hard["memory.available"] == "100Mi"


def test_settings_give_unlabelled_pools_another_platform() -> None:
    pc = model(node(), settings(platformDefaults={"generic": "k3s"}))
    assert pc.platform_default is not None and pc.platform_default.name == "k3s"
