"""The price of one node and its split into unit prices (pure data)."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

from renderer.cost.money import HOURS_PER_MONTH, per_month


@dataclass(frozen=True)
class UnitPrices:
    """Per hour: one core, one GiB of memory, one GPU; ``method`` says how they were found (docs/cost.md)."""

    cpu: Decimal
    memory: Decimal
    gpu: Decimal
    method: str  # "sku" (GCE core and RAM SKUs), "ratio:<cpu:GiB weight>", "file" (default.json unit prices)

    def hourly_of(self, cores: Decimal, gib: Decimal) -> Decimal:
        """What ``cores`` cores and ``gib`` GiB (either may be negative: a change) cost per hour at these prices."""
        return cores * self.cpu + gib * self.memory


@dataclass(frozen=True)
class NodePrice:
    """What one node of a pool costs per hour, after the discount, with where the number comes from."""

    instance_type: str
    region: str
    purchase_option: str  # "on-demand" or "spot"
    hourly: Decimal
    currency: str
    source: str  # "builtin aws/us-east-1 (Karpenter ..., as of 2026-01-19)", "NodePool.spec.price", a file, ...
    as_of: str | None  # ISO date of the prices, when the source says
    units: UnitPrices
    #: Other sources that priced the same node differently (shown: which one won is documented in docs/cost.md).
    overridden: tuple[str, ...] = ()

    def monthly(self, hours: Decimal = HOURS_PER_MONTH) -> Decimal:
        return per_month(self.hourly, hours)


@dataclass(frozen=True)
class Unknown:
    """A node no source prices: reported by name, never counted as $0."""

    instance_type: str | None
    region: str
    reason: str
