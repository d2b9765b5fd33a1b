"""Small builders for hand-worked scenarios: nodes and pods as the simulation reads them from a dump."""

from __future__ import annotations

from typing import Any

from renderer.impact.nodes import SimNode, node_from_object
from renderer.impact.pods import SimPod, pod_from_object

GI = 2**30


def node(
    name: str,
    pool: str,
    cpu: str = "4",
    memory: str = "16Gi",
    pods: str = "110",
    labels: dict[str, str] | None = None,
    taints: list[dict[str, str]] | None = None,
    unschedulable: bool = False,
) -> SimNode:
    obj: dict[str, Any] = {
        "metadata": {"name": name, "labels": {"pool": pool, **(labels or {})}},
        "spec": {"taints": taints or [], "unschedulable": unschedulable},
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods}},
    }
    return node_from_object(obj, pool_labels=("pool",))


def pod(
    name: str,
    cpu: str,
    memory: str,
    node: str | None = None,
    created: str = "2025-01-01T00:00:00Z",
    owner: tuple[str, str] | None = ("ReplicaSet", "app"),
    namespace: str = "default",
    **spec: Any,
) -> SimPod:
    meta: dict[str, Any] = {"name": name, "namespace": namespace, "creationTimestamp": created}
    if owner is not None:
        meta["ownerReferences"] = [{"kind": owner[0], "name": owner[1], "controller": True}]
    body: dict[str, Any] = {
        "containers": [{"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
        **spec,
    }
    if node is not None:
        body["nodeName"] = node
    return pod_from_object({"metadata": meta, "spec": body, "status": {"phase": "Running" if node else "Pending"}})


def pin(node_name: str) -> dict[str, Any]:
    """The node affinity the DaemonSet controller writes into a daemon pod."""
    return {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}
                ]
            }
        }
    }
