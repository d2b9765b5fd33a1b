"""MicroK8s: --eviction-hard memory.available<100Mi, nodefs.available<1Gi, imagefs.available<1Gi
(canonical/microk8s@8f405924); checked against tests/real-nodes/microk8s/gcp-8cpu-1-16.yaml."""

from __future__ import annotations

from platform_support import Q, model, node


def test_published_node() -> None:
    cap = {"cpu": "8", "memory": "30873004Ki", "ephemeral-storage": "1016067204Ki", "pods": "110"}
    pc = model(node("repldev-marc", labels={"microk8s.io/cluster": "true"}, capacity=cap))
    assert pc.allocatable["memory"] == Q("30770604Ki")
    assert pc.allocatable["ephemeral-storage"] == Q("1015018628Ki")
    assert pc.allocatable["cpu"] == Q("8")
