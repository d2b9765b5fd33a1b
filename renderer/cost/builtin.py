"""The builtin price snapshot: ``renderer/cost/data/<provider>.json``, written by ``python -m renderer.cost.snapshot``
(never fetched at run time: CI stays offline and byte-stable) and read on first use.

A file holds one provider's tables, each stamped with its source and the date its prices are as of::

    {"provider": "aws", "currency": "USD", "tables": [
      {"region": "us-east-1", "purchaseOption": "on-demand", "source": "...", "asOf": "2026-01-19",
       "prices": {"c6i.2xlarge": "0.34", ...}}]}

Compute Engine tables price families by their core and RAM SKUs (``"families": {"n2": {"core": "0.031611",
"ram": "0.004237"}}``): a predefined machine type costs vCPUs × core + GiB × RAM, as Google's price list composes it.

Cost: a provider's file is parsed once, on its first lookup.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from decimal import Decimal
from functools import cache
from importlib.resources import files

_AWS = re.compile(r"^[a-z][a-z0-9-]*\.[a-z0-9-]+$")
_GCE = re.compile(r"^([a-z][a-z0-9]*)-(?:standard|highmem|highcpu|highgpu|megagpu|ultragpu|custom)-?")


@dataclass(frozen=True)
class Table:
    provider: str
    region: str
    purchase_option: str
    source: str
    as_of: str
    currency: str
    prices: dict[str, Decimal]  # instance type -> $/hour
    families: dict[str, tuple[Decimal, Decimal]]  # GCE family -> ($/core-hour, $/GiB-hour)


def provider_of(instance_type: str) -> str | None:
    """Which cloud names its instance types this way: ``Standard_D4s_v5`` Azure, ``n2-standard-8`` Compute Engine,
    ``c6i.2xlarge`` EC2; None for anything else (an on-prem name)."""
    if instance_type.startswith(("Standard_", "Basic_")):
        return "azure"
    if _GCE.match(instance_type) or instance_type.startswith(("e2-micro", "e2-small", "e2-medium", "f1-", "g1-")):
        return "gce"
    if _AWS.match(instance_type):
        return "aws"
    return None


def gce_family(machine_type: str) -> str | None:
    m = _GCE.match(machine_type)
    if m is not None:
        return m.group(1)
    return machine_type.split("-", 1)[0] if provider_of(machine_type) == "gce" else None


@cache
def tables(provider: str) -> tuple[Table, ...]:
    """Every table of ``provider`` in the snapshot (empty when the wheel ships none for it)."""
    resource = files("renderer.cost").joinpath(f"data/{provider}.json")
    if not resource.is_file():
        return ()
    doc = json.loads(resource.read_text(encoding="utf-8"))
    out = []
    for t in doc["tables"]:
        out.append(
            Table(
                provider=provider,
                region=t["region"],
                purchase_option=t["purchaseOption"],
                source=t["source"],
                as_of=t["asOf"],
                currency=doc["currency"],
                prices={k: Decimal(v) for k, v in t.get("prices", {}).items()},
                families={k: (Decimal(v["core"]), Decimal(v["ram"])) for k, v in t.get("families", {}).items()},
            )
        )
    return tuple(out)


def table(provider: str, region: str, purchase_option: str) -> Table | None:
    for t in tables(provider):
        if t.region == region and t.purchase_option == purchase_option:
            return t
    return None


def regions(provider: str, purchase_option: str) -> list[str]:
    return sorted(t.region for t in tables(provider) if t.purchase_option == purchase_option)
