"""Shape of the corpus of published real Nodes (tests/real-nodes/).

Every ``<platform>/<short-name>.yaml`` is one v1 Node transcribed from a public source; its header comment names
the source (URL), the platform, the instance type, what is known of the kubelet configuration and whether labels
were elided. These tests keep the corpus honest: each file parses, is a Node with capacity and allocatable whose
quantities parse, carries the header, and is listed in README.md. They say nothing about whether the model
reproduces the numbers; that is ``allocatable verify``'s job.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml

from renderer.quantity import Quantity

CORPUS = Path(__file__).resolve().parent
REPO_ROOT = CORPUS.parent.parent
NOT_PLATFORMS = {"policies", "__pycache__"}
NODE_FILES = sorted(p for p in CORPUS.glob("*/*.yaml") if p.parent.name not in NOT_PLATFORMS)
POLICY_FILES = sorted((CORPUS / "policies").glob("*.yaml"))
INVENTORY = CORPUS / "inventory-candidate.yaml"
REQUIRED_KEYS = ("source", "platform", "instance-type", "kubelet-config", "labels")
_KEY_RE = re.compile(r"^# ([a-z-]+): (.*)$")
_SOURCE_RE = re.compile(r"^# source: https://\S+$")


def header(path: Path) -> dict[str, str]:
    """The leading comment block as key -> first line of its value (continuation lines start with '#   ')."""
    keys: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        m = _KEY_RE.match(line)
        if m is not None and not line.startswith("#   "):
            keys[m[1]] = m[2]
    return keys


def load(path: Path) -> Any:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def rel(path: Path) -> str:
    return path.relative_to(CORPUS).as_posix()


def test_corpus_size_and_platforms() -> None:
    platforms = {p.parent.name for p in NODE_FILES}
    assert len(NODE_FILES) >= 60, f"only {len(NODE_FILES)} real nodes"
    assert len(platforms) >= 12, platforms
    assert {"eks", "gke", "aks", "openshift", "k3s", "kind", "minikube"} <= platforms, platforms


@pytest.mark.parametrize("path", NODE_FILES, ids=rel)
def test_node_file_is_a_sourced_v1_node(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").splitlines()
    assert _SOURCE_RE.match(lines[0]), f"{rel(path)}: the first line must be '# source: https://...'"
    keys = header(path)
    missing = [k for k in REQUIRED_KEYS if k not in keys]
    assert not missing, f"{rel(path)}: header lacks {missing}"
    assert keys["platform"].startswith(path.parent.name + ":"), f"{rel(path)}: platform is not {path.parent.name}"

    node = load(path)
    assert node["apiVersion"] == "v1"
    assert node["kind"] == "Node"
    assert isinstance(node["metadata"]["name"], str) and node["metadata"]["name"]
    labels = node["metadata"].get("labels") or {}
    assert all(isinstance(v, str) for v in labels.values()), "label values must stay strings"
    status = node["status"]
    capacity, allocatable = status["capacity"], status["allocatable"]
    assert capacity and allocatable
    for resource in ("cpu", "memory"):
        assert resource in capacity and resource in allocatable, f"{rel(path)}: {resource} missing"
    assert set(allocatable) <= set(capacity), f"{rel(path)}: allocatable names a resource capacity lacks"
    for section in (capacity, allocatable):
        for name, value in section.items():
            assert isinstance(value, str), f"{rel(path)}: {name} must be a quoted string as published"
            Quantity.parse(value)


def test_node_names_are_unique_within_a_source() -> None:
    # A name repeats only across clusters (minikube names its first node "minikube"): never within one source.
    seen: dict[str, set[str]] = {}
    for p in NODE_FILES:
        source = header(p)["source"]
        name = load(p)["metadata"]["name"]
        assert source not in seen.setdefault(name, set()), f"{rel(p)}: {name} twice from {source}"
        seen[name].add(source)


def test_readme_lists_every_file_and_states_the_rule() -> None:
    readme = (CORPUS / "README.md").read_text(encoding="utf-8")
    listed = set(re.findall(r"\]\(([a-z0-9-]+/[a-z0-9.-]+\.yaml)\)", readme))
    on_disk = {rel(p) for p in NODE_FILES} | {rel(p) for p in POLICY_FILES}
    assert listed == on_disk
    assert "No value in this corpus is computed by this project" in readme


def test_quoted_values_of_issue_11_are_in_the_corpus() -> None:
    """The numbers the issue builds on must stay backed by real published nodes."""
    nodes = [load(p) for p in NODE_FILES]

    def has(capacity: dict[str, str], allocatable: dict[str, str]) -> bool:
        return any(
            all(n["status"]["capacity"].get(k) == v for k, v in capacity.items())
            and all(n["status"]["allocatable"].get(k) == v for k, v in allocatable.items())
            for n in nodes
        )

    # AKS, nodefs.available<10% held as float32: 129886128Ki of disk -> 119703055367.
    assert has({"ephemeral-storage": "129886128Ki"}, {"ephemeral-storage": "119703055367"})
    # GKE n2-highmem-4: capacity minus allocatable is 3606Mi kube-reserved plus 100Mi hard eviction.
    assert has({"memory": "32880872Ki"}, {"memory": "29085928Ki"})


@pytest.mark.parametrize("path", POLICY_FILES, ids=rel)
def test_policy_fixture_is_valid_and_targets_a_corpus_node(path: Path) -> None:
    assert any(_SOURCE_RE.match(line) for line in path.read_text(encoding="utf-8").splitlines()[:6])
    policy = load(path)
    schema = json.loads((REPO_ROOT / "schemas" / "reservationpolicy.json").read_text(encoding="utf-8"))
    jsonschema.validate(policy, schema)
    hostnames = {
        (load(p)["metadata"].get("labels") or {}).get("kubernetes.io/hostname", load(p)["metadata"]["name"])
        for p in NODE_FILES
    }
    targeted = {
        value
        for term in policy["spec"]["selector"]
        for expr in term.get("matchExpressions", [])
        if expr["key"] == "kubernetes.io/hostname"
        for value in expr["values"]
    }
    assert targeted and targeted <= hostnames


def test_inventory_candidate_repeats_corpus_nodes_verbatim() -> None:
    text = INVENTORY.read_text(encoding="utf-8")
    inventory = yaml.safe_load(text)
    assert inventory["apiVersion"] == "v1" and inventory["kind"] == "List"
    by_name = {load(p)["metadata"]["name"]: load(p) for p in NODE_FILES}
    items = inventory["items"]
    assert len(items) >= 3
    for item in items:
        name = item["metadata"]["name"]
        assert name in by_name, f"{name} is not in the corpus"
        corpus_node = by_name[name]
        assert item["metadata"].get("labels") == corpus_node["metadata"].get("labels")
        assert item["status"]["capacity"] == corpus_node["status"]["capacity"]
        assert item["status"]["allocatable"] == corpus_node["status"]["allocatable"]
        # every item's source is named in the header comment
        assert re.search(rf"^#   {re.escape(name)} .*\n#     source: https://\S+$", text, re.MULTILINE), name
