"""verify computes the capacity model once per node shape (renderer/verify/shapes.py): the nodes of one node group
share it, and nothing a node does not share with its twins leaks into their figures.

Expected values are published ones: every node here is a published node of tests/real-nodes/ (its header names the
source), renamed; its status.allocatable is what the real kubelet reported, and verify must reproduce it exactly
for every copy, as it does for the original (tests/verify/test_real_nodes.py).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import yaml

from conftest import REPO_ROOT, run_cli
from renderer.findings import SourceRef
from renderer.models.inventory import Pool
from renderer.quantity import Quantity
from renderer.verify.shapes import shape_key
from support.factory import item_list, node_selector, reservation_policy, write_file, write_repo

CORPUS = REPO_ROOT / "tests" / "real-nodes"
AGENT = CORPUS / "aks-engine" / "d2-v3-agent-1-18.yaml"  # selected by hostname in policies/aks-engine-d2-v3-1-18.yaml
EKS = sorted((CORPUS / "eks").glob("*.yaml"))


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "policies"
    repo.mkdir()
    for policy in sorted((CORPUS / "policies").glob("*.yaml")):
        shutil.copy(policy, repo / policy.name)
    shutil.copy(REPO_ROOT / "tests" / "verify" / "real-nodes-settings.yaml", repo / ".allocatable.yaml")
    return repo


def _renamed(path: Path, name: str) -> dict[str, Any]:
    """The published node under another name, hostname, providerID and machine ids (what differs in a node group)."""
    node: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    node["metadata"]["name"] = name
    node["metadata"]["labels"]["kubernetes.io/hostname"] = name
    if node.get("spec", {}).get("providerID"):
        node["spec"]["providerID"] += "-" + name
    info = node.get("status", {}).get("nodeInfo", {})
    for key in ("machineID", "systemUUID", "bootID"):
        if key in info:
            info[key] = name
    return node


def _verify(tmp_path: Path, nodes: list[dict[str, Any]], *args: str, repo: Path | None = None) -> dict[str, Any]:
    dump = write_file(tmp_path / "nodes.json", item_list(*nodes))
    res = run_cli("verify", str(repo or _repo(tmp_path)), "--nodes", str(dump), "-o", "json", *args)
    assert res.exit_code in (0, 1), res.stderr
    return json.loads(res.stdout)  # type: ignore[no-any-return]


def test_copies_of_published_nodes_each_match_their_published_allocatable(tmp_path: Path) -> None:
    originals = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in EKS]
    copies = [_renamed(p, f"copy-{i}-{j}") for j in range(3) for i, p in enumerate(EKS)]
    report = _verify(tmp_path, originals + copies, "--platform", "eks")
    by_name = {n["name"]: n for n in report["nodes"]}
    assert len(by_name) == len(EKS) * 4
    for i, original in enumerate(originals):
        want = by_name[original["metadata"]["name"]]
        assert want["match"], want
        for j in range(3):
            copy = by_name[f"copy-{i}-{j}"]
            assert copy["match"], copy
            assert copy["predicted"] == want["predicted"] == want["reported"]


_POLICY = reservation_policy(
    "agent-only",
    selector=node_selector("kubernetes.io/hostname", ["k8s-agentpool1-24731180-vmss000000"]),
    evictionHard={"memory.available": "1Gi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"},
    enforceNodeAllocatable=["pods"],
    maxPods=30,
)


def test_a_twin_the_policy_does_not_select_gets_its_own_figures(tmp_path: Path) -> None:
    """A policy selects the published AKS Engine agent by hostname and raises its hard eviction from AKS Engine's
    750Mi to 1Gi: 274Mi (280576Ki) less allocatable memory, so it is predicted 7376516Ki - 280576Ki = 7095940Ki and
    drifts by +280576Ki from what it reported. Its twin under another hostname is not selected: AKS Engine's
    defaults (the policy of tests/real-nodes/policies/aks-engine-d2-v3-1-18.yaml transcribes them) reproduce its
    published 7376516Ki. Whichever of the two comes first in the dump."""
    agent = yaml.safe_load(AGENT.read_text(encoding="utf-8"))
    twin = _renamed(AGENT, "k8s-agentpool1-24731180-vmss000009")
    for first, order in (("agent", [agent, twin]), ("twin", [twin, agent])):
        repo = write_repo(tmp_path / first / "policies", {"policy.yaml": _POLICY})
        report = _verify(tmp_path / first, order, "--platform", "aks-engine", repo=repo)
        by_name = {n["name"]: n for n in report["nodes"]}
        selected, other = by_name[agent["metadata"]["name"]], by_name[twin["metadata"]["name"]]
        assert other["match"], other
        assert other["predicted"]["memory"] == "7376516Ki"  # the published status.allocatable
        assert not selected["match"]
        assert selected["predicted"]["memory"] == "7095940Ki"
        assert [d["resource"] for d in selected["differences"]] == ["memory"]


def _pool(name: str, labels: dict[str, str], info: dict[str, str]) -> Pool:
    return Pool(
        name=name,
        origin="Node",
        labels=labels,
        capacity={"cpu": Quantity.parse("2"), "memory": Quantity.parse("8Gi")},
        count=1,
        platform="eks",
        machine_config_pool=None,
        max_pods=29,
        source=SourceRef(name, 0, 0),
        node_info=info,
    )


def test_the_shape_leaves_out_only_per_machine_facts() -> None:
    base = _pool("a", {"kubernetes.io/hostname": "a", "pool": "x"}, {"machineID": "1", "kubeletVersion": "v1.31.0"})
    twin = _pool("b", {"kubernetes.io/hostname": "b", "pool": "x"}, {"machineID": "2", "kubeletVersion": "v1.31.0"})
    assert shape_key(base) == shape_key(twin)
    other_label = _pool("c", {"kubernetes.io/hostname": "c", "pool": "y"}, {"kubeletVersion": "v1.31.0"})
    other_version = _pool("d", {"kubernetes.io/hostname": "d", "pool": "x"}, {"kubeletVersion": "v1.32.0"})
    assert shape_key(other_label) != shape_key(base)
    assert shape_key(other_version) != shape_key(base)
