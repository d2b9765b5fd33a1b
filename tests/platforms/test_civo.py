"""Civo: the published table (civo.com/docs/kubernetes/managing-node-pools): 1 GiB -> kube-reserved 256Mi,
system-reserved 100Mi, eviction 75Mi; 2 GiB -> 512 / 100 / 100Mi; larger -> 25/20/10/6/2% tiers + 200Mi system +
100Mi eviction; cpu 6/1/0.5/0.25% tiers."""

from __future__ import annotations

import pytest
from platform_support import Q, model, node, settings

S = settings(
    machineTypes={
        "g4s.kube.xsmall": {"memory": "1Gi"},
        "g4s.kube.small": {"memory": "2Gi"},
        "g4s.kube.medium": {"memory": "4Gi"},
    }
)


@pytest.mark.parametrize(
    ("itype", "kube", "system", "eviction"),
    [
        ("g4s.kube.xsmall", "256Mi", "100Mi", "75Mi"),
        ("g4s.kube.small", "512Mi", "100Mi", "100Mi"),
        # 4 GiB: 25% of 4 GiB = 1024Mi
        ("g4s.kube.medium", "1024Mi", "200Mi", "100Mi"),
    ],
)
def test_published_table(itype: str, kube: str, system: str, eviction: str) -> None:
    pool = node(labels={"node.kubernetes.io/instance-type": itype}, provider_id="civo://abc")
    assert pool.platform == "civo"
    pc = model(pool, S)
    assert pc.kube_reserved["memory"].quantity == Q(kube)
    assert pc.system_reserved["memory"].quantity == Q(system)
    assert pc.eviction_hard == {"memory.available": eviction}
    assert pc.kube_reserved["cpu"].quantity == Q("80m")  # 4 cores: 60 + 10 + 10
