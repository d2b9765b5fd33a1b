"""Policy repos and cluster snapshots for tests: documents built as Python data, written with the project's own YAML
writer (``renderer.render.yamlout``, what ``render`` writes with), and one function that writes a repo's files.

A test says what differs from the common case (``node_pool("batch", cpu="16")``) instead of carrying a YAML template
of its own; ``write_repo`` takes text (dedented, for the snippets tests write inline), bytes (written exactly, for
inputs whose bytes are the test) and documents (a dict, or a list of dicts for a multi-document file).

Tests whose expected ``path:line:col`` points into a file keep that file's text in the test: a location is only
meaningful against text the reader can see.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from renderer.render.yamlout import writer

POLICY_API = "policy.allocatable.dev/v1alpha1"
COMMIT_API = "node.k8s.io/v1alpha1"
TIER = "example.com/tier"

Document = dict[str, Any]
Content = str | bytes | Document | Sequence[Document]


# --- writing ------------------------------------------------------------------------------------------------------


def yaml_text(*documents: Document) -> str:
    """``documents`` as one YAML stream, as the project writes YAML (each document starts with ``---``)."""
    return writer().dump(documents)


def write_file(path: Path, content: Content, *, dedent: bool = True) -> Path:
    """One file: text (dedented and without leading blank lines unless ``dedent=False``), bytes as they are, or
    documents as YAML (as JSON in a ``.json`` file). Parent directories are made."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(textwrap.dedent(content).lstrip("\n") if dedent else content, encoding="utf-8")
    elif path.suffix == ".json":  # one document, as ``kubectl get -o json`` prints it
        assert isinstance(content, Mapping), f"{path.name}: a JSON file holds one document"
        path.write_text(json.dumps(content, indent=4) + "\n", encoding="utf-8")
    elif isinstance(content, Mapping):
        path.write_text(yaml_text(dict(content)), encoding="utf-8")
    else:
        path.write_text(yaml_text(*content), encoding="utf-8")
    return path


def write_repo(root: Path, files: Mapping[str, Content], *, dedent: bool = True) -> Path:
    """Each of ``files`` (a path relative to ``root``) written with ``write_file``; ``root``."""
    for name, content in files.items():
        write_file(root / name, content, dedent=dedent)
    return root


# --- policy documents ---------------------------------------------------------------------------------------------


def node_selector(
    key: str = TIER, values: Sequence[str] | None = None, operator: str | None = None
) -> list[dict[str, Any]]:
    """A node selector of one term, one expression: ``key In values`` (``Exists`` without values)."""
    expression: dict[str, Any] = {"key": key, "operator": operator or ("In" if values else "Exists")}
    if values:
        expression["values"] = list(values)
    return [{"matchExpressions": [expression]}]


def settings(**fields: Any) -> Document:
    """``.allocatable.yaml``: ``settings(render={"koordinator": True})``."""
    return {"apiVersion": POLICY_API, "kind": "Settings", **fields}


def node_pool(
    name: str = "web",
    *,
    tier: str | None = "general",
    cpu: str = "8",
    memory: str = "32Gi",
    count: int = 3,
    labels: Mapping[str, str] | None = None,
    capacity: Mapping[str, str] | None = None,
    **spec: Any,
) -> Document:
    """A NodePool of ``count`` nodes labelled ``example.com/tier: tier`` (unless None) and ``labels``, with ``cpu`` and
    ``memory`` (and any other ``capacity``); further ``spec`` fields as given (``platform="eks"``)."""
    return {
        "apiVersion": POLICY_API,
        "kind": "NodePool",
        "metadata": {"name": name},
        "spec": {
            "labels": {**({TIER: tier} if tier is not None else {}), **(labels or {})},
            "capacity": {"cpu": cpu, "memory": memory, **(capacity or {})},
            "count": count,
            **spec,
        },
    }


def commit_class(
    name: str = "burst",
    *,
    tier: str | None = "general",
    percents: Mapping[str, int] | None = None,
    selector: list[dict[str, Any]] | None = None,
    **spec: Any,
) -> Document:
    """A CommitClass over-committing each resource of ``percents`` (default cpu 150 %) on the nodes of ``tier``."""
    return {
        "apiVersion": COMMIT_API,
        "kind": "CommitClass",
        "metadata": {"name": name},
        "spec": {
            "selector": selector if selector is not None else node_selector(TIER, [tier] if tier else None),
            "resources": [{"name": r, "percent": p} for r, p in (percents or {"cpu": 150}).items()],
            **spec,
        },
    }


#: Small static reservations, for tests about something else: ``reservation_policy("static", **STATIC_RESERVATIONS)``.
STATIC_RESERVATIONS: dict[str, Any] = {
    "systemReserved": {"cpu": "100m", "memory": "100Mi"},
    "kubeReserved": {"cpu": "100m", "memory": "500Mi"},
    "evictionHard": {"memory.available": "100Mi", "nodefs.available": "10%"},
}


def reservation_policy(name: str = "static", *, selector: list[dict[str, Any]] | None = None, **spec: Any) -> Document:
    """A ReservationPolicy for the nodes of ``selector`` (default: every node with an ``example.com/tier`` label) with
    the ``spec`` fields as the API spells them (``kubeReserved={"cpu": "100m"}``)."""
    body = {"selector": selector if selector is not None else node_selector(), **spec}
    return {"apiVersion": POLICY_API, "kind": "ReservationPolicy", "metadata": {"name": name}, "spec": body}


# --- cluster snapshots (kubectl get ... -o yaml|json) ----------------------------------------------------------------


def node(
    name: str,
    *,
    labels: Mapping[str, str] | None = None,
    capacity: Mapping[str, str] | None = None,
    allocatable: Mapping[str, str] | None = None,
) -> Document:
    """A v1 Node with the fields the tool reads; ``allocatable`` defaults to ``capacity``."""
    cap = dict(capacity or {"cpu": "8", "memory": "32Gi", "pods": "110"})
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": dict(labels or {TIER: "general"})},
        "status": {"capacity": cap, "allocatable": dict(allocatable) if allocatable is not None else dict(cap)},
    }


def pod(
    name: str,
    *,
    node_name: str | None = None,
    namespace: str = "default",
    requests: Mapping[str, str] | None = None,
    phase: str | None = None,
) -> Document:
    """A v1 Pod of one container requesting ``requests``, Running on ``node_name`` (Pending without one)."""
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": dict(requests or {})}}]}
    if node_name is not None:
        spec = {"nodeName": node_name, **spec}
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
        "status": {"phase": phase or ("Running" if node_name is not None else "Pending")},
    }


def item_list(*items: Document) -> Document:
    """A v1 List, as ``kubectl get nodes -o yaml`` (or pods) prints several objects."""
    return {"apiVersion": "v1", "kind": "List", "items": list(items)}
