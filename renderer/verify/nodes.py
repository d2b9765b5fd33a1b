"""``kubectl get nodes`` and ``kubectl get pods`` dumps → pools of one and pod records, or one located error.

Nodes are kept as the policy loader keeps inventory Nodes (``NODE_FIELDS``), checked by the same model with the same
messages (``model_findings``); Pods are kept by ``POD_KEEP``. A problem is located at the field it is about, by
reading that one object's text again (``snapshot.locate``).

Cost: O(size of the dump); only the kept fields of each object are built.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

from pydantic_core import ValidationError

from renderer.findings import FieldPath, SourceRef
from renderer.loading.documents import Source
from renderer.loading.prune import NODE_FIELDS
from renderer.models.inventory import Pool, pool_from_node, with_platform
from renderer.models.node import Node
from renderer.validation.validate import model_findings, validated
from renderer.verify.pods import POD_KEEP, NodeTotals, PodError, PodRecord, pod_problem, pod_record
from renderer.verify.snapshot import Item, SnapshotError, error_line, locate, position, read_dump

if TYPE_CHECKING:
    from renderer.platforms import Assignment

__all__ = ["NODE_KIND", "POD_KIND", "at_field", "expect_kind", "node_pool", "read_nodes", "read_pods"]

NODE_KIND = ("v1", "Node")
POD_KIND = ("v1", "Pod")


def _where(text: str, display: str, item: Item) -> str:
    line, column = position(text, item)
    return f"{display}:{line}:{column}"


def _expect_kind(text: str, display: str, item: Item, kind: str, option: str, command: str) -> None:
    got = item.data.get("kind")
    if got == "List" and item.data.get("apiVersion") == "v1" and not isinstance(item.data.get("items"), list):
        # A List whose items are missing or null (an empty cluster dumps "items": []): say what is missing.
        raise SnapshotError(
            f"{_where(text, display, item)}: the List has no items (items is missing or null); {option} takes the "
            f"output of `{command}`, whose List holds the {kind}s under items"
        )
    if got != kind or item.data.get("apiVersion") != "v1":
        what = f"a {got}" if isinstance(got, str) else "not a Kubernetes object"
        raise SnapshotError(
            f"{_where(text, display, item)}: item {item.index + 1} is {what}, not a v1 {kind}; {option} takes the "
            f"output of `{command}`"
        )


def _at_field(
    text: str, display: str, item: Item, field_path: FieldPath, message: str, hint: str | None = None
) -> SnapshotError:
    line, column = locate(text, display, item, field_path)
    return SnapshotError(error_line(display, line, column, message, hint))


def read_nodes(
    path: str | Source, assignments: list[Assignment] | None = None, max_bytes: int | None = None, mixed: bool = False
) -> list[Pool]:
    """Every Node of a dump (``-``: standard input; or kubectl's output, ``renderer.verify.kubectl``) as a pool of
    one; ``assignments`` (``--platform``) give nodes another platform or profile: by label selector, or those whose
    labels name none. ``max_bytes``: the file-size bound (default: the policy files'). ``mixed``: the dump also holds
    the Pods (``kubectl get nodes,pods -A -o json``), which are passed over. Raises ``SnapshotError``."""
    dump = read_dump(path, NODE_FIELDS, NODE_KIND, max_bytes=max_bytes)
    pools: list[Pool] = []
    seen: dict[str, int] = {}  # name -> line (not the item: a dump read in chunks would keep every window)
    for item in dump.items:
        if mixed and (item.data.get("apiVersion"), item.data.get("kind")) == POD_KIND:
            continue  # a `kubectl get nodes,pods -A -o json` List given to --nodes and --pods
        _expect_kind(item.text, dump.display, item, "Node", "--nodes", "kubectl get nodes -o json")
        pools.append(node_pool(item, dump.display, seen, assignments))
    return pools


def node_pool(item: Item, display: str, seen: dict[str, int], assignments: list[Assignment] | None = None) -> Pool:
    """One Node item of a dump as a pool of one, checked as the policy loader checks inventory Nodes; ``seen`` (name
    → line) refuses a name twice. Raises ``SnapshotError``."""
    text = item.text
    source = SourceRef(path=display, doc=0, item=item.index, line=item.line, column=item.column)
    try:
        node = cast(Node, validated("Node", item.data))
    except ValidationError as exc:
        meta = item.data.get("metadata")
        name = meta.get("name") if isinstance(meta, dict) else None
        ref = f"Node/{name}" if isinstance(name, str) else f"Node item {item.index + 1}"
        from renderer.models.schema import kinds

        first = model_findings(kinds()["Node"], exc, source, ref)[0]
        line, column = locate(text, display, item, first.field_path or (), first.at_key)
        raise SnapshotError(error_line(display, line, column, f"{ref}: {first.message}", first.hint)) from None
    missing = [k for k in ("cpu", "memory") if k not in node.status.capacity]
    if missing:
        raise SnapshotError(
            f"{_where(text, display, item)}: Node {node.metadata.name} has no status.capacity "
            f"{' or '.join(missing)}; export the nodes with `kubectl get nodes -o json` so the status is included"
        )
    if node.metadata.name in seen:
        raise _at_field(
            text,
            display,
            item,
            ("metadata", "name"),
            f"Node {node.metadata.name} appears twice (first at line {seen[node.metadata.name]})",
            "a dump lists each node once: pass one kubectl get nodes output",
        )
    seen[node.metadata.name] = position(text, item)[0]
    pool = pool_from_node(node, source)
    if assignments:
        from renderer import platforms

        chosen = platforms.assign(pool.labels, pool.platform, assignments)
        if chosen is not None:
            pool = with_platform(pool, chosen[0], chosen[1])
    return pool


def read_pods(path: str, max_bytes: int | None = None, mixed: bool = False) -> list[PodRecord]:
    """Every Pod of a dump (``-``: standard input); ``mixed``: the dump also holds the Nodes, which are passed over.
    Raises ``SnapshotError``."""
    dump = read_dump(path, POD_KEEP, POD_KIND, positions=False, max_bytes=max_bytes)
    display = dump.display
    pods: list[PodRecord] = []
    totals = NodeTotals()
    # Pods have no position in verify's output: lines are counted only for a Pod with a problem.
    for item in dump.items:
        text = item.text
        if mixed and (item.data.get("apiVersion"), item.data.get("kind")) == NODE_KIND:
            continue  # a `kubectl get nodes,pods -A -o json` List given to --nodes and --pods
        _expect_kind(text, display, item, "Pod", "--pods", "kubectl get pods -A -o json")
        try:
            pods.append(pod_record(item.data, totals))
        except PodError as exc:
            raise _at_field(text, display, item, exc.field_path, pod_problem(item.data, item.index, exc)) from None
    return pods


#: For the impact reader (``renderer.impact.snapshot``), which reads nodes and pods as verify does.
expect_kind = _expect_kind
at_field = _at_field
