"""``allocatable verify`` on every published real node of tests/real-nodes/ must match exactly.

Each file there is a Node (or a List of Nodes) transcribed from a public source named in its header, with its
status.capacity and status.allocatable as published. Nodes whose kubelet settings were published alongside come with
a ReservationPolicy in tests/real-nodes/policies/ that selects them by hostname; every other node is predicted from
its platform's defaults alone. Published facts the nodes do not carry themselves (VM sizes' memory) are in
tests/verify/real-nodes-settings.yaml; a node whose published labels were trimmed gets its platform from its
directory (``--platform``). A node the model cannot reproduce is a failure of the model, never a skip; a node of a
platform that publishes no reservation (``published = False`` in its module) must either match the kubelet's defaults
or be reported as having no published formula, never explained by a guess.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from conftest import REPO_ROOT, run_cli
from renderer import platforms

CORPUS = REPO_ROOT / "tests" / "real-nodes"
PLATFORMS = set(platforms.module_names())
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


def _verify(tmp_path: Path, *dumps: Path, hint: bool = True) -> dict[str, object]:
    tmp_path.mkdir(parents=True, exist_ok=True)
    repo = _repo(tmp_path)
    if len(dumps) == 1:
        nodes = dumps[0]
    else:
        nodes = tmp_path / "all.yaml"
        nodes.write_text("\n---\n".join(p.read_text(encoding="utf-8") for p in dumps), encoding="utf-8")
    dirs = {p.parent.name for p in dumps}
    given = ["--platform", next(iter(dirs))] if hint and len(dirs) == 1 and dirs <= PLATFORMS else []
    res = run_cli("verify", str(repo), "--nodes", str(nodes), "-o", "json", *given)
    assert res.exit_code in (0, 1), res.stderr
    return json.loads(res.stdout)  # type: ignore[no-any-return]


#: Platforms whose default kubelet reservation is not published, so there is nothing to model (each module says
#: what was checked): their nodes are predicted from the kubelet's own defaults, and verify must say plainly that it
#: cannot explain the rest. OKE: Oracle's documentation only recommends setting --kube-reserved/--system-reserved; the
#: published node reserves 217m cpu and 3272Mi memory (eviction included) on 16 vCPUs / 32 GB with maxPods 31. DOKS:
#: every published node's memory allocatable is a whole MiB value no documented formula gives. LKE's one node matches
#: the kubelet's defaults.
UNMODELLED = {p for p in PLATFORMS if not platforms.get(p).published}
MODELLED_FILES = [p for p in NODE_FILES if p.parent.name not in UNMODELLED]
UNMODELLED_FILES = [p for p in NODE_FILES if p.parent.name in UNMODELLED]


def _id(p: Path) -> str:
    return f"{p.parent.name}/{p.stem}"


@pytest.mark.parametrize("path", MODELLED_FILES, ids=_id)
def test_real_node_matches_exactly(path: Path, tmp_path: Path) -> None:
    out = _verify(tmp_path, path)
    nodes = out["nodes"]
    assert isinstance(nodes, list) and nodes
    for node in nodes:
        assert node["match"], json.dumps(node["differences"], indent=2)
        assert node["predicted"] == node["reported"]


def _dumps(files: list[Path]) -> list[list[Path]]:
    """The files as few dumps as possible with every node name once (a dump lists each node once)."""
    dumps: list[tuple[set[str], list[Path]]] = []
    for path in files:
        names = set(re.findall(r'^  name: "?([^"\n]+)"?$', path.read_text(encoding="utf-8"), re.M))
        for seen, group in dumps:
            if not seen & names:
                seen |= names
                group.append(path)
                break
        else:
            dumps.append((set(names), [path]))
    return [group for _, group in dumps]


@pytest.mark.parametrize("platform", sorted({p.parent.name for p in MODELLED_FILES}))
def test_each_platform_in_one_dump(platform: str, tmp_path: Path) -> None:
    # All nodes of a platform as multi-document dumps, as `kubectl get nodes -o yaml` of several clusters.
    files = [p for p in MODELLED_FILES if p.parent.name == platform]
    for i, group in enumerate(_dumps(files)):
        out = _verify(tmp_path / str(i), *group)
        nodes = out["nodes"]
        assert isinstance(nodes, list) and len(nodes) >= len(group)
        assert [n["name"] for n in nodes if not n["match"]] == []


#: What each unmodelled node's published numbers differ in (from its file; the rest matches the kubelet's defaults).
UNEXPLAINED = {
    "oke/vm-standard-e5-flex-1-31": ["cpu", "memory"],
    "doks/g-8vcpu-32gb-1-19": ["memory"],
    "doks/s-1vcpu-2gb-1-19": ["memory"],
    "doks/s-2vcpu-4gb-1-19-a": ["memory"],
    "doks/s-2vcpu-4gb-1-19-b": ["memory"],
    "doks/s-8vcpu-16gb-1-31": ["cpu", "memory"],
    "lke/g6-standard-1-1-31": [],
}


@pytest.mark.parametrize("path", UNMODELLED_FILES, ids=_id)
def test_unmodelled_platform_drift_is_reported_without_a_guess(path: Path, tmp_path: Path) -> None:
    # The kubelet's own defaults (no reservation, evictionHard nodefs.available 10% in float32, maxPods from
    # capacity) hold for what the platform leaves alone; the rest carries the platform's unpublished reservation,
    # which verify must report as unexplained, saying that the platform publishes none, rather than guess a cause.
    (node,) = _verify(tmp_path, path)["nodes"]  # type: ignore[misc]
    differing = {d["resource"]: d for d in node["differences"]}
    assert sorted(differing) == UNEXPLAINED[_id(path)]
    assert node["match"] is (not differing)
    for diff in differing.values():
        assert "no known cause" in diff["explanation"], diff
        assert "publishes no reservation formula" in diff["explanation"], diff


def test_every_unmodelled_node_is_listed() -> None:
    assert sorted(UNEXPLAINED) == sorted(_id(p) for p in UNMODELLED_FILES)


@pytest.mark.parametrize("platform", ["kind", "minikube"])
def test_a_node_whose_labels_name_no_platform_is_matched_to_the_platform_that_reproduces_it(
    platform: str, tmp_path: Path
) -> None:
    # kind nodes carry no platform label (only spec.providerID, which the published dumps leave out); minikube's
    # labels are stripped here. Without --platform, verify must find the defaults that reproduce every number.
    source = next(p for p in MODELLED_FILES if p.parent.name == platform)
    text = re.sub(r"^    minikube\.k8s\.io/.*\n", "", source.read_text(encoding="utf-8"), flags=re.M)
    bare = tmp_path / "bare.yaml"
    bare.write_text(text, encoding="utf-8")
    (node,) = _verify(tmp_path, bare, hint=False)["nodes"]  # type: ignore[misc]
    assert node["platform"] == "generic" and node["match"] is False
    for diff in node["differences"]:
        assert "platform-default:kind" in diff["explanation"] and "platform-default:minikube" in diff["explanation"]
        assert "set platformDefaults.generic:" in diff["explanation"], diff


def test_platform_defaults_in_settings_reach_the_nodes_of_a_dump(tmp_path: Path) -> None:
    # the same label-stripped kind node, with platformDefaults.generic: kind in .allocatable.yaml, matches
    source = next(p for p in MODELLED_FILES if p.parent.name == "kind")
    repo = _repo(tmp_path)
    settings = repo / ".allocatable.yaml"
    settings.write_text(settings.read_text(encoding="utf-8") + "platformDefaults: {generic: kind}\n", encoding="utf-8")
    res = run_cli("verify", str(repo), "--nodes", str(source), "-o", "json")
    assert res.exit_code == 0, res.stdout
    (node,) = json.loads(res.stdout)["nodes"]
    assert node["match"] is True


def test_the_corpus_is_there() -> None:
    assert len(MODELLED_FILES) >= 50, "tests/real-nodes/ holds fewer than 50 modelled nodes"
    assert len({p.parent.name for p in MODELLED_FILES}) >= 9
    # every directory is a platform module (or the policy fixtures)
    assert {p.parent.name for p in NODE_FILES} <= PLATFORMS
