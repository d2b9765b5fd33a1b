"""``allocatable verify`` on every published real node of tests/real-nodes/ must match exactly.

Each file there is a Node (or a List of Nodes) transcribed from a public source named in its header, with its
status.capacity and status.allocatable as published. Nodes whose kubelet settings were published alongside come with
a ReservationPolicy in tests/real-nodes/policies/ that selects them by hostname; every other node is predicted from
its platform's defaults alone. Published facts the nodes do not carry themselves (VM sizes' memory) are in
tests/verify/real-nodes-settings.yaml; a node whose published labels were trimmed gets its platform from its
directory (``--platform``). A node the model cannot reproduce is a failure of the model, never a skip.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_cli

CORPUS = REPO_ROOT / "tests" / "real-nodes"
PLATFORMS = {"eks", "gke", "aks", "aks-engine", "openshift"}
NODE_FILES = (
    sorted(
        p for p in CORPUS.glob("*/*.yaml") if p.parent.name != "policies" and not p.name.startswith(("inventory", "."))
    )
    if CORPUS.is_dir()
    else []
)


def _repo(tmp_path: Path) -> Path:
    repo = tmp_path / "policies"
    repo.mkdir()
    for policy in sorted((CORPUS / "policies").glob("*.yaml")) if (CORPUS / "policies").is_dir() else []:
        shutil.copy(policy, repo / policy.name)
    shutil.copy(Path(__file__).parent / "real-nodes-settings.yaml", repo / ".allocatable.yaml")
    return repo


def _verify(tmp_path: Path, *dumps: Path) -> dict[str, object]:
    repo = _repo(tmp_path)
    if len(dumps) == 1:
        nodes = dumps[0]
    else:
        nodes = tmp_path / "all.yaml"
        nodes.write_text("\n---\n".join(p.read_text(encoding="utf-8") for p in dumps), encoding="utf-8")
    platforms = {p.parent.name for p in dumps}
    hint = ["--platform", next(iter(platforms))] if len(platforms) == 1 and platforms <= PLATFORMS else []
    res = run_cli("verify", str(repo), "--nodes", str(nodes), "-o", "json", *hint)
    assert res.exit_code in (0, 1), res.stderr
    return json.loads(res.stdout)  # type: ignore[no-any-return]


#: Nodes the model does not reproduce, and why. Each one is a failure of the model, listed so that it stays
#: visible: the mark is strict, so the day the model reproduces the node the entry must go.
UNEXPLAINED = {
    "oke/vm-standard-e5-flex-1-31": (
        "OKE's default kubelet reservation is not published (Oracle's documentation only recommends setting "
        "--kube-reserved/--system-reserved; the node reserves 217m cpu and 3272Mi memory including eviction on 16 "
        "vCPUs / 32 GB with maxPods 31, which no documented formula gives), so there is no platform default to model"
    ),
}


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.stem}"


def _param(p: Path) -> object:
    reason = UNEXPLAINED.get(_id(p))
    marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
    return pytest.param(p, marks=marks, id=_id(p))


@pytest.mark.parametrize("path", [_param(p) for p in NODE_FILES])
def test_real_node_matches_exactly(path: Path, tmp_path: Path) -> None:
    out = _verify(tmp_path, path)
    nodes = out["nodes"]
    assert isinstance(nodes, list) and nodes
    for node in nodes:
        assert node["match"], json.dumps(node["differences"], indent=2)
        assert node["predicted"] == node["reported"]


@pytest.mark.parametrize("platform", sorted({p.parent.name for p in NODE_FILES}))
def test_each_platform_in_one_dump(platform: str, tmp_path: Path) -> None:
    # All nodes of a platform as one multi-document dump, as `kubectl get nodes -o yaml` of several clusters.
    files = [p for p in NODE_FILES if p.parent.name == platform and _id(p) not in UNEXPLAINED]
    if not files:
        pytest.xfail(f"every {platform} node is in UNEXPLAINED")
    out = _verify(tmp_path, *files)
    nodes = out["nodes"]
    assert isinstance(nodes, list) and len(nodes) >= len(files)
    assert [n["name"] for n in nodes if not n["match"]] == []


def test_the_corpus_is_there() -> None:
    assert NODE_FILES, "tests/real-nodes/ holds no nodes"
