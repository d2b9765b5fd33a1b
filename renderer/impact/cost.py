"""The simulation's fleet change, priced: per pool, the nodes the autoscaler would add or could remove after the change
(beyond what it would anyway), and what one of them costs (``renderer.cost.price_pool``).

Which node a pool's price is looked up for: the repo's NodePool when it carries its own ``spec.price``; otherwise the
first node of the pool in the snapshot (its real instance type and region labels), else the NodePool.

A pool Karpenter provisions (``ImpactReport.karpenter_plans``) is priced by Karpenter's own plan instead: each
NodeClaim it creates launches the cheapest instance type it may still be, priced as the pool's first node of that type
(or the NodePool's ``spec.price``); one fleet change per type launched, each carrying the nodes the pods need beside
it. What is priced is the change's effect, as for the cluster autoscaler (its nodes after minus before): Karpenter's
plan for the pool's pods Pending after the change against its plan for those Pending before it, per type launched
(``ImpactReport.karpenter_before``); a repo diffed against itself prices nothing. A NodeClaim with a type no source
prices is unknown (the cheapest could be that one), never $0.

Cost: O(nodes) to find each pool's first node (of each type), one price lookup per pool that moved and per instance
type of a Karpenter plan, O(NodeClaims × types) to choose what they launch.
"""

from __future__ import annotations

from collections.abc import Sequence
from decimal import Decimal

from renderer.capacity.cost import FleetChange
from renderer.cost.prices import NodePrice, Unknown
from renderer.cost.resolve import Pricing, price_pool
from renderer.impact.nodes import SimNode
from renderer.impact.provisioners.karpenter_plan import KarpenterPlan
from renderer.impact.report import INSTANCE_TYPE, ImpactReport
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
    plans = {k.pool: k for k in report.karpenter_plans if k.nodes}
    was = {k.pool: k for k in report.karpenter_before if k.nodes}
    moved = [p for p in report.result.pools if p.nodes_to_add or p.nodes_freed or p.pool in plans or p.pool in was]
    if not moved:
        return []
    node_of = {n.name: n for n in nodes}
    first: dict[str, Pool] = {}
    of_type: dict[tuple[str, str], Pool] = {}
    for node in node_pools:
        sim = node_of.get(node.name)
        pool = sim.pool if sim is not None else ""
        first.setdefault(pool, node)
        if sim is not None and (pool in plans or pool in was):
            of_type.setdefault((pool, sim.labels.get(INSTANCE_TYPE, "")), node)
    declared = {d.name: d for d in repo_pools if d.origin == "NodePool"}
    out = []
    for p in moved:
        repo = declared.get(p.pool)
        if p.pool in plans or p.pool in was:
            own = repo if repo is not None and repo.price is not None else None
            changes = _karpenter(p.pool, plans.get(p.pool), was.get(p.pool), p.nodes_freed, own, of_type, pricing)
            out += changes
            if changes or not p.nodes_freed:
                continue
        sample = first.get(p.pool)
        subject = repo if repo is not None and (repo.price is not None or sample is None) else sample
        price = (
            Unknown(None, "", f"no node of {p.pool} in the snapshot to price")
            if subject is None
            else price_pool(subject, pricing)
        )
        out.append(FleetChange(p.pool, report.shape(p.pool), p.nodes_to_add, p.nodes_freed, price))
    return out


def _karpenter(
    pool: str,
    plan: KarpenterPlan | None,
    was: KarpenterPlan | None,
    freed: int,
    own: Pool | None,
    of_type: dict[tuple[str, str], Pool],
    pricing: Pricing,
) -> list[FleetChange]:
    """Karpenter's plan for one pool after the change against its plan before it, priced per type it launches:
    nodes it launches in addition (``added``) or no longer launches (``freed``), with both plans' counts beside them;
    the nodes scale-down could free go on the first entry. Types whose count does not move are left out; nothing
    when no count moves."""
    prices: dict[str, NodePrice | Unknown] = {}
    for name in sorted({*(plan.instance_types if plan else ()), *(was.instance_types if was else ())}):
        subject = own or of_type.get((pool, name))
        prices[name] = (
            price_pool(subject, pricing)
            if subject is not None
            else Unknown(name, "", f"no node of {pool} of type {name} in the snapshot to price")
        )
    after, before = _launched(plan, prices), _launched(was, prices)
    kinds = sorted(k for k in {*after, *before} if after.get(k, (0,))[0] != before.get(k, (0,))[0])
    out = []
    for i, kind in enumerate(kinds):
        now, price = after.get(kind) or before[kind]
        then = before.get(kind, (0, price))[0]
        delta = now - then
        out.append(
            FleetChange(
                pool,
                kind,
                max(delta, 0),
                max(-delta, 0) + (freed if i == 0 else 0),
                price,
                "karpenter",
                plan.nodes_needed if plan else None,
                launched=now,
                was=then,
            )
        )
    return out


def _launched(
    plan: KarpenterPlan | None, prices: dict[str, NodePrice | Unknown]
) -> dict[str, tuple[int, NodePrice | Unknown]]:
    """Per NodeClaim of ``plan`` the cheapest type it may be (unknown when any of them is unpriced), counted by
    what it launches."""
    launched: dict[str, tuple[int, NodePrice | Unknown]] = {}
    for claim in plan.claims if plan else ():
        unpriced = [t for t in claim if isinstance(prices[t], Unknown)]
        if unpriced:
            kind = " or ".join(claim)
            price: NodePrice | Unknown = Unknown(
                kind, "", f"karpenter launches the cheapest of {', '.join(claim)}; {', '.join(unpriced)} not priced"
            )
        else:
            kind = min(claim, key=lambda t: (_hourly(prices[t]), t))
            price = prices[kind]
        launched[kind] = (launched.get(kind, (0, price))[0] + 1, price)
    return launched


def _hourly(price: NodePrice | Unknown) -> Decimal:
    return price.hourly if isinstance(price, NodePrice) else Decimal(0)
