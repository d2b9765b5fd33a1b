"""k3s: no reservation, evictionHard imagefs.available 5%, nodefs.available 5% (rancher/k3s@9bb7c27c
pkg/daemons/agent/agent.go); checked against the published nodes of tests/real-nodes/k3s."""

from __future__ import annotations

from platform_support import Q, model, node

K3S = {"node.kubernetes.io/instance-type": "k3s"}


def test_detection() -> None:
    assert node(labels=K3S).platform == "k3s"
    assert node(kubeletVersion="v1.33.4+k3s1").platform == "k3s"
    assert node(provider_id="k3s://node-1").platform == "k3s"


def test_no_memory_threshold_and_5_percent_of_nodefs() -> None:
    # k3s/k3s-v1-25-server-2cpu.yaml: capacity 51506508Ki of disk -> 5% in float32 = 2637133248 bytes reserved,
    # memory allocatable = capacity (3912Mi)
    cap = {"cpu": "2", "memory": "3912Mi", "ephemeral-storage": "51506508Ki", "pods": "110"}
    pc = model(node(labels=K3S, capacity=cap))
    assert pc.allocatable["memory"] == Q("3912Mi")
    assert pc.allocatable["ephemeral-storage"] == Q("50105530944")
    assert pc.allocatable["cpu"] == Q("2")
