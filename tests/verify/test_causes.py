"""Each cause is named only when it reproduces the reported number (behaviour on one published EKS node whose
reported values are altered as the cause would alter them: AhmadShaaban1/cloud-native-ecommerce@51cf73f,
tests/real-nodes/eks/mng-al2023-t3-small-1-31.yaml)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO_ROOT, run_cli
from support.factory import node_selector, reservation_policy, write_repo

NODE = REPO_ROOT / "tests/real-nodes/eks/mng-al2023-t3-small-1-31.yaml"


def _node(**changes: Any) -> dict[str, Any]:
    node = yaml.safe_load(NODE.read_text(encoding="utf-8"))
    node["metadata"]["labels"].update(changes.pop("labels", {}))
    node["status"]["allocatable"].update(changes)
    return node  # type: ignore[no-any-return]


def _verify(repo: Path, tmp_path: Path, node: dict[str, Any]) -> dict[str, Any]:
    path = tmp_path / "node.json"
    path.write_text(json.dumps(node), encoding="utf-8")
    res = run_cli("verify", str(repo), "--nodes", str(path), "-o", "json")
    assert res.exit_code in (0, 1), res.stderr
    (n,) = json.loads(res.stdout)["nodes"]
    return n  # type: ignore[no-any-return]


def eks(**spec: Any) -> dict[str, Any]:
    """A ReservationPolicy for every node of an EKS managed node group."""
    return reservation_policy("eks", selector=node_selector("eks.amazonaws.com/nodegroup"), **spec)


def test_the_unaltered_node_matches_its_platform_default(repo: Path, tmp_path: Path) -> None:
    assert _verify(repo, tmp_path, _node())["match"] is True


@pytest.mark.parametrize(
    ("spec", "changes", "cause"),
    [
        # the policy's explicit systemReserved memory (64Mi) is not on the node
        (
            {"autoSizing": {"formula": "eks"}, "systemReserved": {"memory": "64Mi"}},
            {},
            "the node does not reserve the 64Mi of systemReserved",
        ),
        # the node still runs nodeadm's defaults while the policy asks for much more
        (
            {"kubeReserved": {"cpu": "500m", "memory": "1Gi"}},
            {},
            "the node reports what it had without ReservationPolicy/eks (the platform-default:eks reservation)",
        ),
        # an eviction threshold the node does not have
        (
            {
                "autoSizing": {"formula": "eks"},
                "evictionHard": {"memory.available": "200Mi", "nodefs.available": "10%"},
            },
            {},
            "memory.available<100Mi",
        ),
        # Karpenter rounds the 376Mi of kube-reserved memory up to 384Mi
        (
            {"autoSizing": {"formula": "eks"}},
            {"memory": "1463648Ki", "labels": {"karpenter.sh/nodepool": "default"}},
            "rounded up as Karpenter rounds",
        ),
    ],
)
def test_causes(repo: Path, tmp_path: Path, spec: dict[str, Any], changes: dict[str, Any], cause: str) -> None:
    write_repo(repo, {"rp.yaml": eks(**spec)})
    n = _verify(repo, tmp_path, _node(**changes))
    assert n["match"] is False
    assert any(cause in d["explanation"] for d in n["differences"]), json.dumps(n["differences"], indent=1)


def test_no_cause_is_invented(repo: Path, tmp_path: Path) -> None:
    n = _verify(repo, tmp_path, _node(memory="1400000Ki"))
    (d,) = n["differences"]
    assert d["explanation"].endswith(
        "no known cause reproduces it: compare the node's kubelet configuration (kubeReserved, systemReserved, "
        "evictionHard, maxPods) with the repo"
    )
