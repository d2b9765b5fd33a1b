"""OVHcloud: cpu 15% of one core + 0.5% of all cores (the guide's own examples: b2-7, 2 vCores -> 160m; b3-256,
64 vCores -> 470m); memory 1024 MB + 5% (the guide's table disagrees, documented in the module)."""

from __future__ import annotations

import pytest
from platform_support import Q, model, node, settings


@pytest.mark.parametrize(("cpus", "cpu"), [("2", "160m"), ("64", "470m")])
def test_cpu_matches_the_guide(cpus: str, cpu: str) -> None:
    pc = model(
        node(capacity={"cpu": cpus, "memory": "7Gi", "pods": "110"}), settings(platformDefaults={"generic": "ovh"})
    )
    assert pc.platform_default is not None and pc.platform_default.name == "ovh"
    assert pc.kube_reserved["cpu"].quantity == Q(cpu)
    assert "ephemeral-storage" not in pc.kube_reserved  # log10 of the disk: no tier schedule expresses it
