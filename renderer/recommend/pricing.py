"""What ``allocatable recommend``'s advice costs or saves, per pool, when the repo sets ``pricing:`` (docs/cost.md).

Every figure is cost's own arithmetic (:mod:`renderer.cost`, :mod:`renderer.capacity.cost`); this module only says
which quantities of the advice it prices:

- a recommended reservation change (one row of the table: a slice's or the total's memory or cpu) costs
  Δ reserved (cores, GiB) × the pool's unit prices (cost's split of the node price) × the pool's nodes × hours per
  month: positive when the reservation grows (capacity the pods lose, what buying it back would cost), negative when
  it shrinks. The pool's figure is the ``total`` rows' (the slices are parts of them). The Δ is the one the report
  shows: memory in whole bytes, cpu in millicores;
- the commit percent's savings, with a snapshot: the nodes the re-pack frees less the nodes it adds × the node price
  × hours (:class:`renderer.capacity.cost.FleetChange`, what ``diff`` prices an autoscaler's change with).

A pool no source prices is :class:`~renderer.cost.prices.Unknown`: said with the reason, never $0.

Cost: one price lookup per advised pool, O(reservation rows) arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from renderer.capacity.cost import FleetChange, price_json
from renderer.cost.money import text
from renderer.cost.prices import NodePrice, Unknown
from renderer.cost.resolve import GIB, Pricing, price_pool

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel
    from renderer.models.inventory import Pool
    from renderer.recommend.advice import PoolAdvice, Reservation

__all__ = ["AdviceCost", "RecommendCost", "cost_json", "price_recommendation"]


@dataclass
class AdviceCost:
    """One pool's priced advice: ``reservations`` per row of ``PoolAdvice.reservations`` (None: nothing to price,
    the current value being unknown or the pool unpriced); ``commit`` with a snapshot's re-pack."""

    pool: str
    price: NodePrice | Unknown
    nodes: int
    reservations: list[Decimal | None] = field(default_factory=list)
    reservations_monthly: Decimal | None = None
    commit: FleetChange | None = None

    def commit_savings(self, hours: Decimal) -> Decimal | None:
        """Per month, what the re-pack saves (the fleet change, negated); None without a re-pack or a price."""
        monthly = None if self.commit is None else self.commit.monthly(hours)
        return None if monthly is None else -monthly


@dataclass
class RecommendCost:
    currency: str
    hours: Decimal
    pools: dict[str, AdviceCost]
    notes: list[str]


def _quantity(resource: str, value: float) -> Decimal:
    """A reservation as the report shows it: memory in whole bytes → GiB, cpu in whole millicores → cores."""
    if resource == "memory":
        return Decimal(round(value)) / GIB
    return Decimal(round(value * 1000)) / 1000


def _row(r: Reservation, units: Any, nodes: int, hours: Decimal) -> Decimal | None:
    if r.current is None:
        return None
    delta = _quantity(r.resource, r.recommended) - _quantity(r.resource, r.current)
    cores, gib = (delta, Decimal(0)) if r.resource == "cpu" else (Decimal(0), delta)
    monthly: Decimal = units.hourly_of(cores, gib) * nodes * hours
    return monthly


def _pool(p: PoolAdvice, pool: Pool, pricing: Pricing) -> AdviceCost:
    price = price_pool(pool, pricing)
    nodes = p.coverage.pool_nodes
    out = AdviceCost(p.pool, price, nodes)
    if p.repack is not None:
        _, freed, _, added = p.repack
        out.commit = FleetChange(p.pool, price.instance_type or "", added, freed, price)
    if isinstance(price, Unknown):
        out.reservations = [None] * len(p.reservations)
        return out
    out.reservations = [_row(r, price.units, nodes, pricing.hours) for r in p.reservations]
    totals = [m for r, m in zip(p.reservations, out.reservations, strict=True) if r.slice == "total"]
    if totals and all(m is not None for m in totals):
        out.reservations_monthly = sum((m for m in totals if m is not None), Decimal(0))
    return out


def price_recommendation(advice: list[PoolAdvice], model: CapacityModel, pricing: Pricing) -> RecommendCost:
    """The advised pools of ``advice`` (those with a reservation or a commit percent), priced under ``pricing``."""
    by_name = {pc.pool.name: pc.pool for pc in model.pools}
    pools = {p.pool: _pool(p, by_name[p.pool], pricing) for p in advice if p.reservations or p.commits}
    return RecommendCost(pricing.currency, pricing.hours, pools, list(pricing.notes))


def _money(amount: Decimal | None) -> str | None:
    return None if amount is None else text(amount)


def cost_json(cost: AdviceCost, hours: Decimal) -> dict[str, Any]:
    """One pool's ``cost`` in ``recommend -o json`` (amounts as strings of fixed places, per month)."""
    commit = None
    if cost.commit is not None:
        commit = {
            "nodesFreed": cost.commit.freed,
            "nodesToAdd": cost.commit.added,
            "monthlySavings": _money(cost.commit_savings(hours)),
        }
    return {
        "price": price_json(cost.price),
        "nodes": cost.nodes,
        "reservationsMonthly": _money(cost.reservations_monthly),
        "commit": commit,
    }
