"""``kubectl get nodes`` and ``kubectl get pods`` dumps → pools of one and pod records, or one located error.

Cost: O(size of the dump); only the fields listed in ``NODE_KEEP`` / ``POD_KEEP`` are kept per item.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, cast

from pydantic_core import ValidationError

from renderer.findings import SourceRef
from renderer.models.inventory import Pool, pool_from_node
from renderer.models.node import KEPT_ANNOTATIONS, Node, node_machine_config_pool
from renderer.validation.validate import validated
from renderer.verify.pods import POD_KEEP, PodError, PodRecord, pod_record
from renderer.verify.snapshot import Item, SnapshotError, read_items, read_text

__all__ = ["NODE_KEEP", "read_nodes", "read_pods"]

NODE_KEEP: dict[str, Any] = {
    "apiVersion": True,
    "kind": True,
    "metadata": {"name": True, "labels": True, "annotations": dict.fromkeys(KEPT_ANNOTATIONS, True)},
    "status": {"capacity": True, "allocatable": True, "nodeInfo": True},
}


def _where(display: str, item: Item) -> str:
    return f"{display}:{item.line}:{item.column}"


def _expect_kind(display: str, item: Item, kind: str, option: str, command: str) -> None:
    got = item.data.get("kind")
    if got != kind or item.data.get("apiVersion") != "v1":
        what = f"a {got}" if isinstance(got, str) else "not a Kubernetes object"
        raise SnapshotError(
            f"{_where(display, item)}: item {item.index + 1} is {what}, not a v1 {kind}; {option} takes the output of "
            f"`{command}`"
        )


def read_nodes(path: str, platform: str | None = None) -> list[Pool]:
    """Every Node of a dump (``-``: standard input) as a pool of one; ``platform`` for the nodes whose labels name
    none (a dump trimmed of its labels). Raises ``SnapshotError``."""
    text, display = read_text(path)
    pools: list[Pool] = []
    seen: dict[str, Item] = {}
    for item in read_items(text, display, NODE_KEEP):
        _expect_kind(display, item, "Node", "--nodes", "kubectl get nodes -o json")
        try:
            node = cast(Node, validated("Node", item.data))
        except ValidationError as exc:
            err = exc.errors(include_url=False)[0]
            loc = ".".join(str(p) for p in err["loc"])
            raise SnapshotError(f"{_where(display, item)}: Node item {item.index + 1}: {loc}: {err['msg']}") from None
        missing = [k for k in ("cpu", "memory") if k not in node.status.capacity]
        if missing:
            raise SnapshotError(
                f"{_where(display, item)}: Node {node.metadata.name} has no status.capacity "
                f"{' or '.join(missing)}; export the nodes with `kubectl get nodes -o json` so the status is included"
            )
        if node.metadata.name in seen:
            first = seen[node.metadata.name]
            raise SnapshotError(
                f"{_where(display, item)}: Node {node.metadata.name} appears twice (first at line {first.line})"
            )
        seen[node.metadata.name] = item
        source = SourceRef(path=display, doc=0, item=item.index, line=item.line, column=item.column)
        pool = pool_from_node(node, source)
        if platform is not None and pool.platform == "generic":
            pool = replace(pool, platform=platform, machine_config_pool=node_machine_config_pool(pool.labels))
        pools.append(pool)
    return pools


def read_pods(path: str) -> list[PodRecord]:
    """Every Pod of a dump (``-``: standard input). Raises ``SnapshotError``."""
    text, display = read_text(path)
    pods: list[PodRecord] = []
    for item in read_items(text, display, POD_KEEP):
        _expect_kind(display, item, "Pod", "--pods", "kubectl get pods -A -o json")
        try:
            pods.append(pod_record(item.data))
        except PodError as exc:
            raise SnapshotError(f"{_where(display, item)}: Pod item {item.index + 1}: {exc}") from None
    return pods
