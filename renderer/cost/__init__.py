"""What capacity costs: node prices (a dated builtin snapshot, OpenCost/Kubecost custom pricing files, a NodePool's own
``spec.price``), their split into cpu, memory and GPU unit prices, and the arithmetic reports price their figures with.

Pure data and arithmetic, below the capacity model so that capacity-level reports, the impact report and
``allocatable recommend`` can all price with it; nothing here is imported unless a report prices (``pricing:`` in
``.allocatable.yaml``): a lint never loads it. The public API:

- :func:`renderer.cost.resolve.load_pricing` — the ``pricing:`` settings of a repository, its files read and checked
  (bad input: :class:`renderer.cost.errors.PricingError`, one located line, exit 2);
- :func:`renderer.cost.resolve.price_pool` — ``price_pool(pool, pricing) -> NodePrice | Unknown``: one node of a pool;
- :mod:`renderer.cost.money` — hours per month, currency formatting, hourly ↔ monthly;
- ``python -m renderer.cost.snapshot`` — the maintainer command that writes the builtin snapshot (docs/cost.md).

Cost: loading reads each price table once (a few hundred rows); pricing a pool is a dictionary lookup.
"""

from __future__ import annotations

from renderer.cost.prices import NodePrice, UnitPrices, Unknown
from renderer.cost.resolve import Pricing, load_pricing, price_pool

__all__ = ["NodePrice", "Pricing", "UnitPrices", "Unknown", "load_pricing", "price_pool"]
