"""The model's figures as the simulation takes them, and a whole run from two policy revisions (worked by hand)."""

from __future__ import annotations

from pathlib import Path

from impact_builders import GI, node, pod

from renderer.capacity.model import CapacityModel
from renderer.capacity.pools import build
from renderer.impact.capacity_view import advertised, changes
from renderer.impact.repack import simulate
from renderer.pipeline import load
from support.factory import Content, Document, node_pool, node_selector, reservation_policy, write_repo

MIB = 2**20


def _pool(name: str) -> Document:
    """8 cpu, 32Gi, 100Gi of ephemeral storage, two nodes labelled tier=<name>."""
    return node_pool(name, tier=None, labels={"tier": name}, count=2, capacity={"ephemeral-storage": "100Gi"})


def _policy(kube: str) -> Document:
    """Pool a's memory reservations: ``kube`` kube-reserved, 1Gi system-reserved, 100Mi hard eviction."""
    return reservation_policy(
        "rp",
        selector=node_selector("tier", ["a"]),
        kubeReserved={"memory": kube},
        systemReserved={"memory": "1Gi"},
        evictionHard={"memory.available": "100Mi"},
    )


def _model(root: Path, files: dict[str, Content]) -> CapacityModel:
    root.mkdir()
    write_repo(root, files)
    result = load([root])
    assert result.ok, [f.message for f in result.findings]
    return build(result.policies)


def test_a_reservation_raise_moves_memory_only_and_displaces_a_pod(tmp_path: Path) -> None:
    base = _model(tmp_path / "base", {"a.yaml": _pool("a"), "rp.yaml": _policy("2Gi")})
    head = _model(
        tmp_path / "head",
        {"a.yaml": _pool("a"), "b.yaml": _pool("b"), "rp.yaml": _policy("3Gi")},
    )
    (a_base,) = base.pools
    # 32Gi - 2Gi - 1Gi - 100Mi = 29596Mi; 8 cpu, 100Gi and 110 pods with nothing reserved.
    assert advertised(a_base) == {"cpu": 8000, "memory": 29596 * MIB, "ephemeral-storage": 100 * GI, "pods": 110}
    moved = changes(base, head)
    # a: kube-reserved +1Gi -> 28572Mi; b is new, so all its figures count as changed.
    assert moved["a"] == {"memory": 28572 * MIB}
    assert set(moved["b"]) == {"cpu", "memory", "ephemeral-storage", "pods"}

    # Two nodes of pool a report the base figures; each runs 28Gi (28672Mi) of pods in two pods.
    nodes = [node(f"a{i}", "a", cpu="8", memory=f"{29596}Mi") for i in (1, 2)]
    pods = [pod(f"{n}-{k}", "1", "14Gi", n, created=f"2025-01-0{k}T00:00:00Z") for n in ("a1", "a2") for k in (1, 2)]
    result = simulate(nodes, pods, {"a": moved["a"]})
    # 28672Mi > 28572Mi: each node keeps its older pod and rejects the younger. Neither node has 14Gi left
    # (28572 - 14336 = 14236Mi), so both wait. A new node of a (28572Mi, no DaemonSets) holds one 14Gi pod only
    # (2 x 14336 = 28672 > 28572): the autoscaler adds 2; lower bound ceil(28672 / 28572) = 2.
    assert sorted(d.pod for d in result.displaced) == ["default/a1-2", "default/a2-2"]
    (pool_a,) = [p for p in result.pools if p.pool == "a"]
    assert (pool_a.after.pending, pool_a.after.scale_up.nodes, pool_a.after.scale_up.lower_bound) == (2, 2, 2)
