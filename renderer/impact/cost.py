"""The simulation's fleet change, priced: per pool, the nodes the autoscaler would add or could remove after the change
(beyond what it would anyway), and what one of them costs (``renderer.cost.price_pool``).

Which node a pool's price is looked up for: the repo's NodePool when it carries its own ``spec.price``; otherwise the
first node of the pool in the snapshot (its real instance type and region labels), else the NodePool.

Cost: O(nodes) to find each pool's first node, one price lookup per pool that moved.
"""

from __future__ import annotations

from collections.abc import Sequence

from renderer.capacity.cost import FleetChange
from renderer.cost.prices import Unknown
from renderer.cost.resolve import Pricing, price_pool
from renderer.impact.nodes import SimNode
from renderer.impact.report import ImpactReport
from renderer.models.inventory import Pool


def fleet_changes(
    report: ImpactReport,
    nodes: Sequence[SimNode],
    node_pools: Sequence[Pool],
    repo_pools: Sequence[Pool],
    pricing: Pricing,
) -> list[FleetChange]:
    """``nodes``: the snapshot's nodes (with their pool); ``node_pools``: each node as a pool of one (the snapshot's
    ``pools``); ``repo_pools``: the head's pools."""
    moved = [p for p in report.result.pools if p.nodes_to_add or p.nodes_freed]
    if not moved:
        return []
    pool_of = {n.name: n.pool for n in nodes}
    first: dict[str, Pool] = {}
    for node in node_pools:
        first.setdefault(pool_of.get(node.name, ""), node)
    declared = {d.name: d for d in repo_pools if d.origin == "NodePool"}
    out = []
    for p in moved:
        repo, sample = declared.get(p.pool), first.get(p.pool)
        subject = repo if repo is not None and (repo.price is not None or sample is None) else sample
        price = (
            Unknown(None, "", f"no node of {p.pool} in the snapshot to price")
            if subject is None
            else price_pool(subject, pricing)
        )
        out.append(FleetChange(p.pool, report.shape(p.pool), p.nodes_to_add, p.nodes_freed, price))
    return out
