"""Measured usage placed into the repo's pools, and advised per pool (``renderer.recommend.advice``).

A node of the usage is placed by name: a Node of the repo's inventory is its own pool; a node of ``--nodes`` (a
``kubectl get nodes`` dump) goes to the NodePool whose ``spec.labels`` its labels all carry (the one naming the most
labels; ties by name). A node neither places is counted and named, never guessed into a pool.

Cost: O(nodes × days) plus the advice's.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from renderer.impact.report import PoolIndex
from renderer.measured import Measured, NodeDay
from renderer.recommend.advice import Options, PoolAdvice, advise
from renderer.recommend.documents import documents
from renderer.recommend.nodes import node_days
from renderer.recommend.queries import Query
from renderer.recommend.result import Recommendation
from renderer.recommend.usage import Usage

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel, PoolCapacity
    from renderer.models.inventory import Pool

__all__ = ["recommend_pools"]


def _current(pc: PoolCapacity) -> dict[tuple[str, str], float | None]:
    out: dict[tuple[str, str], float | None] = {}
    for resource in ("memory", "cpu"):
        values = []
        for slice_, reserved in (("kube", pc.kube_reserved), ("system", pc.system_reserved)):
            r = reserved.get(resource)
            value = float(r.quantity.value) if r is not None else 0.0
            out[(slice_, resource)] = value
            values.append(value)
        if resource == "cpu" and pc.cpu_override is not None:
            out[("kube", "cpu")] = out[("system", "cpu")] = None  # reservedSystemCPUs replaces both maps
            out[("total", "cpu")] = float(pc.cpu_override.value)
        else:
            out[("total", resource)] = sum(values)
    return out


def _place(model: CapacityModel, nodes: list[str], dump: Sequence[Pool]) -> tuple[dict[str, list[str]], list[str]]:
    """Pool name → its nodes with usage; the nodes in no pool, each with why."""
    inventory = {pc.pool.name for pc in model.pools if pc.pool.origin == "Node"}
    nodepools = PoolIndex([(pc.pool.name, pc.pool.labels) for pc in model.pools if pc.pool.origin == "NodePool"])
    labels = {p.name: p.labels for p in dump}
    placed: dict[str, list[str]] = {}
    unplaced: list[str] = []
    for node in sorted(nodes):
        pool = node if node in inventory else nodepools.best(labels[node]) if node in labels else None
        if pool is None:
            why = (
                "its labels match no NodePool's spec.labels"
                if node in labels
                else "not in the inventory nor in the node dump"
            )
            unplaced.append(f"{node} ({why})")
            continue
        placed.setdefault(pool, []).append(node)
    return placed, unplaced


def measured_pools(model: CapacityModel, usage: Usage, dump: Sequence[Pool]) -> Measured:
    """Per pool, every node-day's peak of the reserved slices (kube + system), for the lint stage (AL216)."""
    per_node = node_days(usage)
    placed, unplaced = _place(model, list(per_node), dump)
    out = Measured()
    if unplaced:
        more = f" and {len(unplaced) - 20} more" if len(unplaced) > 20 else ""
        hint = "" if dump else "; --nodes FILE (kubectl get nodes -o json) places nodes into NodePools by their labels"
        out.notes.append(
            f"{len(unplaced)} node(s) with usage are in no pool, not checked: {', '.join(unplaced[:20])}{more}{hint}"
        )
    out.notes.extend(usage.issues())
    out.notes.extend(f"{source}: the server warned: {text}" for source, text in usage.warnings)
    for pool, names in placed.items():
        by_resource: dict[str, list[NodeDay]] = {}
        for name in names:
            for resource, days in per_node[name].total.items():
                by_resource.setdefault(resource, []).extend(NodeDay(name, d, v) for d, v in sorted(days.items()))
        out.pools[pool] = by_resource
    return out


def recommend_pools(
    model: CapacityModel,
    usage: Usage,
    dump: Sequence[Pool],
    only: Sequence[str] | None,
    opts: Options,
    review: str,
    queries: tuple[Query, ...] = (),
) -> Recommendation:
    """The advice for every pool with usage (or those of ``only``), and the documents it writes; ``queries``: those
    asked, a note naming the metrics of each that answered with no series at all."""
    per_node = node_days(usage)
    by_name = {pc.pool.name: pc for pc in model.pools}
    placed, unplaced = _place(model, list(per_node), dump)
    missing = [name for name in only or [] if name not in by_name]
    if missing:
        raise KeyError(missing[0])
    wanted = list(only) if only else sorted(placed)
    pools: list[PoolAdvice] = []
    for name in wanted:
        pc = by_name[name]
        count = pc.pool.count if pc.pool.origin == "NodePool" else 1
        pools.append(
            advise(
                name,
                [per_node[n] for n in placed.get(name, [])],
                max(count, len(placed.get(name, []))),
                pc.max_pods,
                _current(pc),
                dict(pc.percent),
                opts,
            )
        )
    all_days = {d for nd in per_node.values() for series in nd.total.values() for d in series}
    rec = Recommendation(
        pools,
        opts,
        (min(all_days), max(all_days)) if all_days else None,
        sources=list(usage.sources),
        unplaced=unplaced[:20],
        unplaced_count=len(unplaced),
    )
    for q in queries:
        name = f"{q.name} (optional evidence)" if q.optional else q.name
        if q.name not in usage.days:
            rec.notes.append(f"{name}: no export read (--usage {q.name}.json; --print-queries prints its query)")
        elif not usage.days[q.name]:
            rec.notes.append(
                f"{name}: no series at all; check that the series it reads ({', '.join(q.metrics)}) are scraped "
                "with a node label (recommend.selectors in .allocatable.yaml for other setups)"
            )
    rec.notes.extend(usage.issues())
    rec.notes.extend(f"{source}: the server warned: {text}" for source, text in usage.warnings)
    docs, replaces, notes = documents(model, pools)
    rec.documents, rec.replaces = docs, replaces
    rec.notes.extend(notes)
    rec.review = review if docs else ""
    return rec
