"""A cluster snapshot for the simulation: the Nodes and Pods of ``kubectl get nodes,pods -A -o json`` dumps, read as
``verify`` reads them (``renderer.verify.snapshot``: one bounded reader, JSON in chunks, each object pruned to the
fields used while it is read), kept as the simulation's small records.

A dump may hold Nodes, Pods or both (one ``kubectl get nodes,pods -A -o json`` List, or two files). What cannot be
used is counted and said, never guessed:

- objects of other kinds (``kubectl get all``) are skipped, counted per kind;
- a Node without ``status.capacity`` cpu and memory (exported without its status, or not registered yet) is skipped:
  nothing can be placed on it, and its pods count as on an unknown node;
- Pods that are Succeeded or Failed hold nothing, Pods without ``spec.nodeName`` are Pending, Pods bound to a node the
  snapshot does not have are left out: ``repack.simulate`` counts each (``InputSummary``);
- a value that cannot be read (a quantity ``lots``, a list where a mapping belongs) is one located error
  (``SnapshotError``, ``path:line:col``), as in ``verify``.

Cost: O(size of the dumps); memory O(nodes + pods) records, never the dumps.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from renderer.impact.nodes import IMPACT_NODE_KEEP, NodeError, SimNode, node_from_object
from renderer.impact.pods import IMPACT_POD_KEEP, PodError, SimPod, pod_from_object
from renderer.loading.prune import NODE_FIELDS, KeepSpec
from renderer.models.inventory import Pool
from renderer.verify.nodes import NODE_KIND, POD_KIND, at_field, expect_kind, node_pool
from renderer.verify.pods import NodeTotals, PodRecord, pod_problem, pod_record
from renderer.verify.snapshot import Item, SnapshotError, read_dump

if TYPE_CHECKING:
    from renderer.platforms import Assignment

__all__ = ["NODE_KEEP", "Snapshot", "read_snapshot", "read_verify_dumps"]


def _merge(a: KeepSpec, b: KeepSpec) -> KeepSpec:
    out: dict[str, Any] = dict(a)
    for key, sub in b.items():
        have = out.get(key)
        if have is True or sub is True:
            out[key] = True
        elif isinstance(have, dict) and isinstance(sub, dict):
            out[key] = _merge(have, sub)
        else:
            out[key] = sub
    return out


#: What is kept of a Node: what verify's model reads and what the simulation reads.
NODE_KEEP: KeepSpec = _merge(NODE_FIELDS, IMPACT_NODE_KEEP)
_LIST_KEEP: KeepSpec = {"apiVersion": True, "kind": True, "items": True}


@dataclass
class Snapshot:
    """Nodes (as pools of one for the capacity model, and as the simulation's nodes, in dump order) and pods."""

    pools: list[Pool] = field(default_factory=list)
    nodes: list[SimNode] = field(default_factory=list)
    pods: list[SimPod] = field(default_factory=list)
    #: What was skipped and why: reason -> count (``Node without status.capacity``, ``v1 Service``, ...).
    skipped: dict[str, int] = field(default_factory=dict)
    #: Pods read in a way worth saying, and how: note -> count (an in-place resize counted at its status, ...).
    counted: dict[str, int] = field(default_factory=dict)
    sources: list[str] = field(default_factory=list)

    def skip(self, reason: str) -> None:
        self.skipped[reason] = self.skipped.get(reason, 0) + 1

    def count(self, note: str) -> None:
        self.counted[note] = self.counted.get(note, 0) + 1


def _has_capacity(data: dict[str, Any]) -> bool:
    status = data.get("status")
    capacity = status.get("capacity") if isinstance(status, dict) else None
    return isinstance(capacity, dict) and "cpu" in capacity and "memory" in capacity


def _intern(value: Any) -> Any:
    return sys.intern(value) if value.__class__ is str else value


def _shared_labels(data: dict[str, Any]) -> None:
    """The node's labels with every key and value interned: 20,000 nodes of ~35 labels carry a few hundred distinct
    keys and values, not 1.4 million strings."""
    meta = data.get("metadata")
    labels = meta.get("labels") if isinstance(meta, dict) else None
    if isinstance(labels, dict):
        meta["labels"] = {_intern(k): _intern(v) for k, v in labels.items()}  # type: ignore[index]


def _read_node(snapshot: Snapshot, item: Item, display: str, seen: dict[str, int], assignments: Any) -> None:
    """One Node as verify checks it (``node_pool``) and as the simulation keeps it, sharing its labels."""
    _shared_labels(item.data)
    pool = node_pool(item, display, seen, assignments)
    try:
        node = node_from_object(item.data, labels=pool.labels)
    except NodeError as exc:
        raise at_field(item.text, display, item, exc.field_path, f"Node {pool.name}: {exc}") from None
    snapshot.pools.append(pool)
    snapshot.nodes.append(node)


def _node(snapshot: Snapshot, item: Item, display: str, seen: dict[str, int], assignments: Any) -> None:
    if not _has_capacity(item.data):
        snapshot.skip("Node without status.capacity cpu and memory (exported without its status?)")
        return
    _read_node(snapshot, item, display, seen, assignments)


def _pod(snapshot: Snapshot, item: Item, display: str, totals: NodeTotals) -> None:
    try:
        pod = pod_from_object(item.data, totals)
    except PodError as exc:
        raise at_field(item.text, display, item, exc.field_path, pod_problem(item.data, item.index, exc)) from None
    snapshot.pods.append(pod)
    for note in pod.notes:
        snapshot.count(note)


def read_snapshot(
    sources: Sequence[str], assignments: list[Assignment] | None = None, max_bytes: int | None = None
) -> Snapshot:
    """The Nodes and Pods of every dump in ``sources`` (paths, ``-`` for standard input; a path given twice is read
    once). Raises ``SnapshotError``."""
    snapshot = Snapshot()
    seen: dict[str, int] = {}
    totals = NodeTotals()
    prune = {NODE_KIND: NODE_KEEP, POD_KIND: IMPACT_POD_KEEP}
    for path in dict.fromkeys(sources):
        dump = read_dump(path, _LIST_KEEP, max_bytes=max_bytes, prune=prune)
        snapshot.sources.append(dump.display)
        for item in dump.items:
            key = (item.data.get("apiVersion"), item.data.get("kind"))
            if key == POD_KIND:
                _pod(snapshot, item, dump.display, totals)
            elif key == NODE_KIND:
                _node(snapshot, item, dump.display, seen, assignments)
            elif item.data.get("kind") == "List" or not all(isinstance(k, str) for k in key):
                expect_kind(item.text, dump.display, item, "Node", "--nodes", "kubectl get nodes,pods -A -o json")
            else:
                snapshot.skip(f"{key[0]} {key[1]} (not a Node or Pod)")
    if not snapshot.nodes:
        shown = " and ".join(snapshot.sources)
        raise SnapshotError(
            f"{shown}: no Node with its status: the simulation needs the nodes; pass `kubectl get nodes -o json` "
            "output with --nodes (or one `kubectl get nodes,pods -A -o json` List with --snapshot)"
        )
    return snapshot


def read_verify_dumps(
    nodes: str, pods: str, assignments: list[Assignment] | None = None, max_bytes: int | None = None
) -> tuple[Snapshot, list[PodRecord]]:
    """``verify --nodes NODES --pods PODS`` with the simulation: each dump read once (the same path given to both,
    a ``kubectl get nodes,pods -A -o json`` List, once), checked as ``renderer.verify.nodes`` checks it — an object
    of another kind, or a Node without its capacity, is the same located error — and kept both ways: the snapshot
    (its ``pools`` are verify's nodes, in dump order) and verify's pod records. Raises ``SnapshotError``."""
    snapshot = Snapshot()
    records: list[PodRecord] = []
    seen: dict[str, int] = {}
    totals = NodeTotals()
    prune = {NODE_KIND: NODE_KEEP, POD_KIND: IMPACT_POD_KEEP}
    mixed = nodes == pods
    for path, kind in ((nodes, "Node"), (pods, "Pod")) if not mixed else ((nodes, "Node"),):
        dump = read_dump(path, _LIST_KEEP, max_bytes=max_bytes, prune=prune, positions=kind == "Node")
        snapshot.sources.append(dump.display)
        for item in dump.items:
            key = (item.data.get("apiVersion"), item.data.get("kind"))
            if key == NODE_KIND and (kind == "Node" or mixed):
                _read_node(snapshot, item, dump.display, seen, assignments)  # verify's checks and messages
            elif key == POD_KIND and (kind == "Pod" or mixed):
                try:
                    records.append(pod_record(item.data))
                except PodError as exc:
                    raise at_field(
                        item.text, dump.display, item, exc.field_path, pod_problem(item.data, item.index, exc)
                    ) from None
                _pod(snapshot, item, dump.display, totals)
            elif kind == "Node":
                expect_kind(item.text, dump.display, item, "Node", "--nodes", "kubectl get nodes -o json")
            else:
                expect_kind(item.text, dump.display, item, "Pod", "--pods", "kubectl get pods -A -o json")
    return snapshot, records
