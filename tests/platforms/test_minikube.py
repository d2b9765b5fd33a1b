"""minikube: kind's values since v0.34.0 (kubernetes/minikube@caafc66a), its nodes labelled minikube.k8s.io/*."""

from __future__ import annotations

from platform_support import model, node


def test_labels_name_minikube_and_nothing_is_reserved() -> None:
    pool = node("minikube", labels={"minikube.k8s.io/name": "minikube", "minikube.k8s.io/version": "v1.37.0"})
    assert pool.platform == "minikube"
    pc = model(pool)
    assert pc.eviction_hard == {"nodefs.available": "0%", "nodefs.inodesFree": "0%", "imagefs.available": "0%"}
    assert all(pc.allocatable[r] == pc.capacity[r] for r in ("cpu", "memory", "ephemeral-storage"))
