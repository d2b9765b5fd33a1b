"""What the capacity figures cost (docs/cost.md): per pool the node price, the reserved slices, the price of an
allocatable core and GiB before and after commit (``explain``); per changed pool the capacity-equivalent change and
the node-count change, with the autoscaler's fleet change from a snapshot (``diff``). Pure data for the reporters;
the prices come from :mod:`renderer.cost`.

Arithmetic (Decimal; hours per month from ``pricing.hoursPerMonth``, 730 unless set):

- a slice (kube-reserved, system-reserved, hard eviction) per node per month = (cores × cpu unit price + GiB ×
  memory unit price) × hours; per pool × nodes. ``reservedSystemCPUs`` counts as system-reserved cpu;
- a core of allocatable per month = the node's cpu share (capacity cores × cpu unit price × hours) / allocatable
  cores; after commit / committed cores (GiB alike) — what one schedulable core really costs;
- capacity-equivalent change of a pool = −(Δ committed cores per node × cpu unit price + Δ GiB × memory unit price)
  × nodes × hours: positive when the change takes capacity away (what buying it back would cost);
- node-count change = Δ count × node price × hours; fleet change = (nodes the autoscaler adds − nodes it frees) ×
  node price × hours.

Cost: O(pools) lookups and arithmetic.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from renderer.cost.money import HOURLY_PLACES, text
from renderer.cost.prices import NodePrice, Unknown
from renderer.cost.resolve import GIB, Pricing, price_pool

if TYPE_CHECKING:
    from renderer.capacity.diff import DiffResult
    from renderer.capacity.model import CapacityModel, PoolCapacity


def _cores(q: Any) -> Decimal:
    return q.value if q is not None else Decimal(0)


def _gib(q: Any) -> Decimal:
    return q.value / GIB if q is not None else Decimal(0)


@dataclass
class SliceCost:
    cores: Decimal
    gib: Decimal
    node_monthly: Decimal
    pool_monthly: Decimal


@dataclass
class PoolCost:
    ref: str
    name: str
    count: int
    price: NodePrice | Unknown
    node_monthly: Decimal = Decimal(0)
    pool_monthly: Decimal = Decimal(0)
    slices: dict[str, SliceCost] = field(default_factory=dict)
    reserved_node_monthly: Decimal = Decimal(0)
    reserved_pool_monthly: Decimal = Decimal(0)
    #: $ per month of one core / one GiB: of allocatable, of committed allocatable (None: none of it)
    core: tuple[Decimal | None, Decimal | None] = (None, None)
    gib: tuple[Decimal | None, Decimal | None] = (None, None)


@dataclass
class ExplainCost:
    currency: str
    hours: Decimal
    pools: list[PoolCost]
    notes: list[str]

    @property
    def unknown(self) -> list[PoolCost]:
        return [p for p in self.pools if isinstance(p.price, Unknown)]

    @property
    def fleet_monthly(self) -> Decimal:
        return sum((p.pool_monthly for p in self.pools), Decimal(0))

    @property
    def reserved_monthly(self) -> Decimal:
        return sum((p.reserved_pool_monthly for p in self.pools), Decimal(0))


def _slice_quantities(pc: PoolCapacity) -> dict[str, tuple[Decimal, Decimal]]:
    kube = {r: v.quantity for r, v in pc.kube_reserved.items()}
    system = {r: v.quantity for r, v in pc.system_reserved.items()}
    if pc.cpu_override is not None:  # reservedSystemCPUs replaces both maps' cpu
        kube.pop("cpu", None)
        system["cpu"] = pc.cpu_override
    eviction = pc.eviction_reserved
    return {
        "kube-reserved": (_cores(kube.get("cpu")), _gib(kube.get("memory"))),
        "system-reserved": (_cores(system.get("cpu")), _gib(system.get("memory"))),
        "eviction-hard": (_cores(eviction.get("cpu")), _gib(eviction.get("memory"))),
    }


def _per(amount: Decimal, units: Decimal) -> Decimal | None:
    return amount / units if units > 0 else None


def pool_cost(pc: PoolCapacity, pricing: Pricing) -> PoolCost:
    pool = pc.pool
    price = price_pool(pool, pricing)
    out = PoolCost(pool.ref, pool.name, pool.count, price)
    if isinstance(price, Unknown):
        return out
    hours = pricing.hours
    out.node_monthly = price.hourly * hours
    out.pool_monthly = out.node_monthly * pool.count
    unit = price.units
    for name, (cores, gib) in _slice_quantities(pc).items():
        monthly = unit.hourly_of(cores, gib) * hours
        out.slices[name] = SliceCost(cores, gib, monthly, monthly * pool.count)
    out.reserved_node_monthly = sum((s.node_monthly for s in out.slices.values()), Decimal(0))
    out.reserved_pool_monthly = out.reserved_node_monthly * pool.count
    cpu_share = _cores(pc.capacity.get("cpu")) * unit.cpu * hours
    memory_share = _gib(pc.capacity.get("memory")) * unit.memory * hours
    out.core = (_per(cpu_share, _cores(pc.allocatable.get("cpu"))), _per(cpu_share, _cores(pc.committed.get("cpu"))))
    out.gib = (
        _per(memory_share, _gib(pc.allocatable.get("memory"))),
        _per(memory_share, _gib(pc.committed.get("memory"))),
    )
    return out


def explain_cost(pools: list[PoolCapacity], pricing: Pricing) -> ExplainCost:
    costs = [pool_cost(pc, pricing) for pc in pools]
    return ExplainCost(pricing.currency, pricing.hours, costs, list(pricing.notes))


# --- diff -----------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FleetChange:
    """Nodes a provisioner adds or frees in one pool of a snapshot, and what one of them costs."""

    pool: str
    instance_type: str
    added: int
    freed: int
    price: NodePrice | Unknown
    #: "karpenter" when ``added`` is Karpenter's own plan for the pool's Pending pods (its nodes of this type), with
    #: the nodes the pods need on what the nodes will advertise beside it; "" for the cluster autoscaler's estimate.
    provisioner: str = ""
    needed: int | None = None
    #: Karpenter's plan: the nodes of this type it launches after the change and before it (``added``/``freed`` are
    #: their difference, plus what scale-down frees).
    launched: int = 0
    was: int = 0

    def monthly(self, hours: Decimal) -> Decimal | None:
        if isinstance(self.price, Unknown):
            return None
        return (self.added - self.freed) * self.price.hourly * hours


@dataclass
class PoolChangeCost:
    ref: str
    name: str
    price: NodePrice | Unknown
    count: tuple[int | None, int | None]
    capacity_monthly: Decimal | None  # capacity-equivalent; None when the pool is unpriced
    nodes_monthly: Decimal | None  # the declared node count's change, priced


@dataclass
class ChangeCost:
    currency: str
    hours: Decimal
    pools: list[PoolChangeCost]
    fleet: list[FleetChange]
    notes: list[str]
    limit: Decimal | None = None  # impact.maxMonthlyCostIncrease
    subject: str = "this change"  # verify: "rolling the policy repo out"

    @property
    def bill_monthly(self) -> Decimal:
        """What the change adds to the monthly bill: node counts changed in the repo, and the autoscaler's change."""
        declared = sum((p.nodes_monthly or Decimal(0) for p in self.pools), Decimal(0))
        fleet = sum((f.monthly(self.hours) or Decimal(0) for f in self.fleet), Decimal(0))
        return declared + fleet

    @property
    def capacity_monthly(self) -> Decimal:
        return sum((p.capacity_monthly or Decimal(0) for p in self.pools), Decimal(0))

    @property
    def unknown(self) -> list[str]:
        """What moved and could not be priced: pools whose node count or capacity changed, fleet changes."""
        out = [
            f"{p.ref} ({p.price.instance_type or 'no instance type'})"
            for p in self.pools
            if isinstance(p.price, Unknown)
        ]
        out += [f"{f.pool} ({f.instance_type})" for f in self.fleet if isinstance(f.price, Unknown)]
        return out

    @property
    def moved(self) -> bool:
        """Whether anything priced or unpriced moved (the PR comment says nothing about cost otherwise)."""
        return bool(self.unknown) or self.bill_monthly != 0 or self.capacity_monthly != 0

    @property
    def failed(self) -> bool:
        """Past ``impact.maxMonthlyCostIncrease``: the bill grows more than the limit, or a change in it cannot be
        priced (an unknown never passes a gate as $0)."""
        if self.limit is None:
            return False
        unpriced = any(isinstance(f.price, Unknown) and f.added > f.freed for f in self.fleet) or any(
            isinstance(p.price, Unknown) and (p.count[1] or 0) > (p.count[0] or 0) for p in self.pools
        )
        return unpriced or self.bill_monthly > self.limit


def change_cost(
    result: DiffResult,
    base: CapacityModel,
    head: CapacityModel,
    pricing: Pricing,
    fleet: list[FleetChange],
    limit: float | None = None,
) -> ChangeCost:
    """The priced change of ``result`` (the diff of ``base`` → ``head``), with the snapshot's ``fleet`` changes."""
    by_ref = {pc.pool.ref: pc for pc in base.pools} | {pc.pool.ref: pc for pc in head.pools}
    hours = pricing.hours
    pools: list[PoolChangeCost] = []
    for diff in result.changed_pools:
        pc = by_ref[diff.ref]
        price = price_pool(pc.pool, pricing)
        capacity = nodes = None
        if isinstance(price, NodePrice):
            count = diff.count[1] if diff.count[1] is not None else 0
            per_node = Decimal(0)
            if diff.status == "changed":
                cpu, memory = diff.committed.get("cpu"), diff.committed.get("memory")
                per_node = price.units.hourly_of(
                    _cores(cpu.delta) if cpu else Decimal(0), _gib(memory.delta) if memory else Decimal(0)
                )
            capacity = -per_node * count * hours
            nodes = ((diff.count[1] or 0) - (diff.count[0] or 0)) * price.hourly * hours
        pools.append(PoolChangeCost(diff.ref, diff.name, price, diff.count, capacity, nodes))
    limit_value = None if limit is None else Decimal(str(limit))
    return ChangeCost(pricing.currency, hours, pools, fleet, list(pricing.notes), limit_value)


def fleet_cost(pricing: Pricing, fleet: list[FleetChange], subject: str) -> ChangeCost:
    """The fleet change alone, priced (``verify --pods``: what rolling the repo out does to the node count)."""
    return ChangeCost(pricing.currency, pricing.hours, [], fleet, list(pricing.notes), None, subject)


# --- JSON -----------------------------------------------------------------------------------------------------------


def _money(amount: Decimal | None) -> str | None:
    return None if amount is None else text(amount)


def price_json(price: NodePrice | Unknown) -> dict[str, Any]:
    if isinstance(price, Unknown):
        return {
            "known": False,
            "instanceType": price.instance_type,
            "region": price.region or None,
            "reason": price.reason,
        }
    return {
        "known": True,
        "instanceType": price.instance_type,
        "region": price.region or None,
        "purchaseOption": price.purchase_option,
        "hourly": text(price.hourly, HOURLY_PLACES),
        "source": price.source,
        "asOf": price.as_of,
        "unitPrices": {
            "cpuCoreHour": text(price.units.cpu, Decimal("0.000001")),
            "memoryGiBHour": text(price.units.memory, Decimal("0.000001")),
            "method": price.units.method,
        },
        "overridden": list(price.overridden),
    }


def explain_json(cost: ExplainCost) -> dict[str, Any]:
    pools = []
    for p in cost.pools:
        entry: dict[str, Any] = {"ref": p.ref, "nodes": p.count, "price": price_json(p.price)}
        if isinstance(p.price, NodePrice):
            entry.update(
                nodeMonthly=text(p.node_monthly),
                poolMonthly=text(p.pool_monthly),
                reserved={
                    name: {"nodeMonthly": text(s.node_monthly), "poolMonthly": text(s.pool_monthly)}
                    for name, s in p.slices.items()
                },
                reservedNodeMonthly=text(p.reserved_node_monthly),
                reservedPoolMonthly=text(p.reserved_pool_monthly),
                perCoreMonthly={"allocatable": _money(p.core[0]), "committed": _money(p.core[1])},
                perGiBMonthly={"allocatable": _money(p.gib[0]), "committed": _money(p.gib[1])},
            )
        pools.append(entry)
    return {
        "currency": cost.currency,
        "hoursPerMonth": int(cost.hours),
        "fleetMonthly": text(cost.fleet_monthly),
        "reservedMonthly": text(cost.reserved_monthly),
        "unknown": [p.ref for p in cost.unknown],
        "pools": pools,
        "notes": list(cost.notes),
    }


def change_json(cost: ChangeCost) -> dict[str, Any]:
    return {
        "currency": cost.currency,
        "hoursPerMonth": int(cost.hours),
        "monthlyChange": text(cost.bill_monthly),
        "capacityEquivalentMonthly": text(cost.capacity_monthly),
        "maxMonthlyCostIncrease": None if cost.limit is None else text(cost.limit),
        "failed": cost.failed,
        "unknown": cost.unknown,
        "pools": [
            {
                "ref": p.ref,
                "count": {"before": p.count[0], "after": p.count[1]},
                "price": price_json(p.price),
                "capacityEquivalentMonthly": _money(p.capacity_monthly),
                "nodeCountMonthly": _money(p.nodes_monthly),
            }
            for p in cost.pools
        ],
        "fleet": [
            {
                "pool": f.pool,
                "instanceType": f.instance_type,
                "nodesAdded": f.added,
                "nodesFreed": f.freed,
                "price": price_json(f.price),
                "monthly": _money(f.monthly(cost.hours)),
                **(
                    {
                        "provisioner": f.provisioner,
                        "nodesLaunched": f.launched,
                        "nodesLaunchedBefore": f.was,
                        "nodesNeeded": f.needed,
                    }
                    if f.provisioner
                    else {}
                ),
            }
            for f in cost.fleet
        ],
        "notes": list(cost.notes),
    }
