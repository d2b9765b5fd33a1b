"""vultr: no reservation published (the module says what was checked): the kubelet's defaults are assumed, and verify
says so instead of guessing a cause."""

from __future__ import annotations

from platform_support import Q, model, node, settings

from renderer import platforms
from renderer.verify.causes import Situation, explain


def test_detection_and_no_formula() -> None:
    cap = {"cpu": "4", "memory": "16Gi", "pods": "110"}
    # a node that reserves 1Gi more memory than the kubelet's defaults (100Mi): 16Gi - 100Mi - 1Gi
    pool = node(capacity=cap, allocatable={**cap, "memory": "15260Mi"}, provider_id="vultr://abc")
    assert pool.platform == "vultr" and node(provider_id="vultr://def").platform == "vultr"
    plat = platforms.get("vultr")
    assert not plat.published and not plat.defaults and not plat.formulas and plat.unpublished
    pc = model(pool)
    assert pc.platform_default is None and pc.eviction_source == "kubelet default"
    reported = Q("15260Mi")  # unexplained, and the platform named
    text = explain(Situation(pc, "memory", pc.allocatable["memory"], reported, settings(), True))
    assert "no known cause" in text and "publishes no reservation formula" in text
