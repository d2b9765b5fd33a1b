"""Loading the upstream test vectors in fixtures/ and turning their compact pods into Pod objects.

The fixtures are data transcribed from upstream test tables (each case names its upstream test and file); this module
only reshapes them: a vector container ``{requests: {...}}`` becomes ``{resources: {requests: {...}}}``.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import yaml

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@cache
def load(name: str) -> Any:
    path = FIXTURES / name
    text = path.read_text(encoding="utf-8")
    if name.endswith(".json"):
        return json.loads(text)
    return yaml.load(text, Loader=yaml.CSafeLoader)


def container(c: dict[str, Any], index: int) -> dict[str, Any]:
    out: dict[str, Any] = {"name": c.get("name", f"c{index}")}
    if "requests" in c:
        out["resources"] = {"requests": dict(c["requests"])}
    if "restartPolicy" in c:
        out["restartPolicy"] = c["restartPolicy"]
    return out


def pod_object(vector: dict[str, Any] | None, name: str = "pod", node: str | None = None) -> dict[str, Any]:
    """A v1 Pod from a vector's compact pod."""
    vector = vector or {}
    spec: dict[str, Any] = {}
    for key in ("containers", "initContainers"):
        if key in vector:
            spec[key] = [container(c, i) for i, c in enumerate(vector[key])]
    if "requests" in vector:  # the estimator vectors: one container
        spec["containers"] = [{"name": "c0", "resources": {"requests": dict(vector["requests"])}}]
    for key in ("overhead", "resources", "nodeSelector", "affinity", "tolerations", "topologySpreadConstraints"):
        if key in vector:
            spec[key] = vector[key]
    if "hostPort" in vector:
        spec.setdefault("containers", [{"name": "c0"}])
        spec["containers"][0]["ports"] = [{"containerPort": vector["hostPort"], "hostPort": vector["hostPort"]}]
    if node is not None:
        spec["nodeName"] = node
    meta: dict[str, Any] = {"name": name, "namespace": vector.get("namespace", "default")}
    if "labels" in vector:
        meta["labels"] = vector["labels"]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec, "status": {"phase": "Running"}}


def case_id(case: dict[str, Any]) -> str:
    return f"{case.get('test', 'derived')}: {case['name']}"
