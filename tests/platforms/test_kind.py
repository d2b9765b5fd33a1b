"""kind: evictionHard nodefs.available, nodefs.inodesFree, imagefs.available "0%" and no memory threshold
(kubernetes-sigs/kind@fed26882 pkg/cluster/internal/kubeadm/config.go): allocatable = capacity."""

from __future__ import annotations

from platform_support import model, node, settings


def test_providerid_names_kind_and_nothing_is_reserved() -> None:
    pool = node("kind-worker", provider_id="kind://docker/kind/kind-worker")
    assert pool.platform == "kind"
    pc = model(pool)
    for resource in ("cpu", "memory", "ephemeral-storage"):
        assert pc.allocatable[resource] == pc.capacity[resource], resource


def test_without_providerid_it_is_chosen_by_settings() -> None:
    pool = node("kind-worker")
    assert pool.platform == "generic"
    pc = model(pool, settings(platformDefaults={"generic": "kind"}))
    assert pc.platform_default is not None and pc.platform_default.name == "kind"
    assert pc.allocatable["memory"] == pc.capacity["memory"]
