"""A repository's prices: the ``pricing:`` settings with their file read (:func:`load_pricing`), and the price of one
node of a pool (:func:`price_pool`).

Which source prices a node — the first that has a price for it wins, and a report shows the ones it overrode:

1. the pool's own ``NodePool.spec.price`` (on-prem, negotiated, reserved: the price paid, no discount taken);
2. ``source: file``: the price sheet's row for the node (its name, providerID or a label), then for its instance type
   in its region; a ``default.json`` prices every node by cores × CPU + GiB × RAM;
3. ``source: builtin``: the snapshot's table for the node's cloud, region and purchase option.

A node none of them prices is :class:`~renderer.cost.prices.Unknown`, named in the report, never $0.

Cost: loading reads the price file once; :func:`price_pool` is a few dictionary lookups.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING

import renderer.cost.builtin as builtin
from renderer.cost.amounts import per_core
from renderer.cost.errors import PricingError
from renderer.cost.money import fmt, per_hour
from renderer.cost.opencost import FlatPrices, PriceSheet, read_default_json, read_sheet
from renderer.cost.prices import NodePrice, UnitPrices, Unknown

if TYPE_CHECKING:
    from renderer.models.inventory import Pool
    from renderer.models.settings import PricingSettings

#: OpenCost's default unit prices (configs/default.json, "Default prices based on GCP us-central1"): CPU $0.031611 per
#: vCPU-hour, RAM $0.004237 per GiB-hour. OpenCost splits a node price it knows only as a whole with their ratio
#: (costmodel: ramPrice = nodePrice / (cpu × cpuToRAMRatio + ramGiB), cpuPrice = ramPrice × cpuToRAMRatio).
OPENCOST_CPU = Decimal("0.031611")
OPENCOST_RAM = Decimal("0.004237")
DEFAULT_WEIGHT = OPENCOST_CPU / OPENCOST_RAM
REGION_LABELS = ("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region")
GIB = Decimal(1 << 30)
_GCE_VCPUS = re.compile(r"-([0-9]+)(?:-lssd)?$")
_MONEY_PLACES = Decimal("0.0001")


@dataclass
class Pricing:
    """The prices of one repository (``load_pricing``); ``notes`` are the info findings a priced report shows."""

    settings: PricingSettings
    flat: FlatPrices | None = None
    sheet: PriceSheet | None = None
    file: str | None = None  # the price file as the reports name it
    notes: list[str] = field(default_factory=list)
    today: str | None = None  # ISO date the staleness of builtin tables is measured at (None: not measured)
    #: Builtin and default.json prices by what they depend on (type, region labels, capacity): pools of one shape
    #: are priced once. Price sheets match on names and labels and are looked up every time.
    _memo: dict[tuple[object, ...], NodePrice | Unknown] = field(default_factory=dict, repr=False)

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)

    @property
    def currency(self) -> str:
        return self.settings.currency

    @property
    def hours(self) -> Decimal:
        return Decimal(self.settings.hoursPerMonth)

    @property
    def discount(self) -> Decimal:
        return Decimal(str(self.settings.discountPercent))

    @property
    def weight(self) -> Decimal:
        w = self.settings.cpuToMemoryWeight
        return DEFAULT_WEIGHT if w is None else Decimal(str(w))


def load_pricing(settings: PricingSettings, root: Path, where: str, *, today: str | None = None) -> Pricing:
    """``settings`` (the ``pricing:`` block of ``where``, the settings file as shown) with its price file read from
    ``root`` (the repository root); ``today`` (ISO date) turns on the staleness note of the builtin snapshot.
    Raises :class:`PricingError` for a file that cannot be used or a currency mismatch."""
    pricing = Pricing(settings, today=today)
    if settings.source == "builtin":
        if settings.currency != "USD":
            raise PricingError(
                where,
                f"pricing.currency is {settings.currency}, but the builtin snapshot is in USD (prices are never "
                "converted): set currency: USD, or give your own prices in that currency (source: file, or "
                "NodePool spec.price)",
            )
        return pricing
    assert settings.file is not None  # the schema requires it with source: file
    from renderer import safepath
    from renderer.loading.files import read_regular
    from renderer.loading.repository import repository_root

    path = root / settings.file
    folder = posixpath.dirname(where)
    shown = posixpath.join(folder, settings.file) if folder else settings.file
    pricing.file = shown
    # Settings travel with the policies: the file must stay in the repository, symlinks on the way included.
    problem = safepath.source_problem(path, what="the price file", top=repository_root(root))
    if problem is not None:
        raise PricingError(shown, f"pricing.file cannot be read: {problem}")
    try:
        data = read_regular(path, 64 << 20)
    except safepath.FileProblem as exc:
        raise PricingError(shown, f"pricing.file cannot be read: {exc}") from None
    if settings.file.lower().endswith(".csv"):
        pricing.sheet = read_sheet(data, shown)
    else:
        pricing.flat = read_default_json(data, shown)
        code = _currency_of(data)
        if code is not None and code != settings.currency:
            raise PricingError(
                shown,
                f"its currencyCode is {code}, pricing.currency is {settings.currency}; prices are never converted: "
                "make them one currency",
            )
    return pricing


def _currency_of(data: bytes) -> str | None:
    import json

    doc = json.loads(data)
    code = doc.get("currencyCode") if isinstance(doc, dict) else None
    return code if isinstance(code, str) and code else None


def _days(earlier: str, later: str) -> int:
    from datetime import date

    return (date.fromisoformat(later) - date.fromisoformat(earlier)).days


def region_of(pool: Pool, provider: str | None, settings: PricingSettings) -> str:
    for label in REGION_LABELS:
        if pool.labels.get(label):
            return pool.labels[label]
    if provider is not None and provider in settings.regions:
        return settings.regions[provider]
    return settings.region or ""


def price_pool(pool: Pool, pricing: Pricing) -> NodePrice | Unknown:
    """The price of one node of ``pool`` (a ``renderer.models.inventory.Pool``: a NodePool, or a Node as a pool of
    one) under ``pricing``: a :class:`NodePrice` per hour with its unit prices and source, or :class:`Unknown`
    saying why not. Raises :class:`PricingError` for a ``spec.price`` in another currency than ``pricing``'s."""
    if pricing.sheet is None:
        key = (
            pool.instance_type,
            *(pool.labels.get(label) for label in REGION_LABELS),
            pool.capacity.get("cpu"),
            pool.capacity.get("memory"),
        )
        configured = pricing._memo.get(key)
        if configured is None:
            configured = pricing._memo[key] = _configured(pool, pricing)
    else:
        configured = _configured(pool, pricing)
    own = pool.price
    if own is None:
        return configured
    currency = own.currency or pricing.currency
    if currency != pricing.currency:
        src = pool.source
        raise PricingError(
            f"{src.path}:{src.line}:{src.column}",
            f"{pool.ref}: spec.price is in {currency}, pricing.currency is {pricing.currency}; prices are never "
            "converted: write it in " + pricing.currency,
        )
    hourly = Decimal(own.hourly) if own.hourly is not None else per_hour(Decimal(own.monthly or "0"), pricing.hours)
    src = pool.source
    per_core(hourly, _shape(pool)[0], f"{src.path}:{src.line}:{src.column}", f"{pool.ref} spec.price")
    overridden: tuple[str, ...] = ()
    if isinstance(configured, NodePrice) and configured.hourly != hourly:
        overridden = (f"{configured.source}: {fmt(configured.hourly, pricing.currency, places=_MONEY_PLACES)}/h",)
    kind = pool.instance_type or "(no instance type)"
    region = configured.region
    return NodePrice(
        instance_type=kind,
        region=region,
        purchase_option=pricing.settings.purchaseOption,
        hourly=hourly,
        currency=pricing.currency,
        source=f"{pool.ref} spec.price",
        as_of=None,
        units=_split(pool, hourly, pricing),
        overridden=overridden,
    )


def _configured(pool: Pool, pricing: Pricing) -> NodePrice | Unknown:
    kind = pool.instance_type
    provider = builtin.provider_of(kind) if kind else None
    region = region_of(pool, provider, pricing.settings)
    option = pricing.settings.purchaseOption
    if pricing.sheet is not None:
        return _from_sheet(pool, pricing, pricing.sheet, kind, region)
    if pricing.flat is not None:
        return _from_flat(pool, pricing, pricing.flat, kind, region)
    if not kind:
        return Unknown(None, region, "the pool has no node.kubernetes.io/instance-type label to look a price up by")
    if provider is None:
        return Unknown(kind, region, f"{kind} is not an AWS, Azure or Compute Engine type: give spec.price")
    if not region:
        return Unknown(
            kind,
            region,
            f"no region: set pricing.region (or regions.{provider}) or label topology.kubernetes.io/region",
        )
    table = builtin.table(provider, region, option)
    if table is None:
        have = ", ".join(builtin.regions(provider, option)) or "none"
        return Unknown(
            kind, region, f"the builtin snapshot has no {provider} {option} prices for {region} (it has: {have})"
        )
    source = f"builtin {provider} {region} {option}, as of {table.as_of}"
    if pricing.today is not None and _days(table.as_of, pricing.today) > pricing.settings.staleAfterDays:
        pricing.note(
            f"the builtin {provider} {region} {option} prices are as of {table.as_of}, older than "
            f"pricing.staleAfterDays ({pricing.settings.staleAfterDays} days): a newer allocatable ships newer ones, "
            "or give your own (source: file, or NodePool spec.price)"
        )
    if provider == "gce":
        return _gce(pool, pricing, table, kind, region, source)
    listed = table.prices.get(kind)
    if listed is None:
        return Unknown(
            kind, region, f"{kind} is not in the builtin {provider} {region} {option} table (as of {table.as_of})"
        )
    hourly = _discounted(listed, pricing)
    return NodePrice(kind, region, option, hourly, pricing.currency, source, table.as_of, _split(pool, hourly, pricing))


def _gce(
    pool: Pool, pricing: Pricing, table: builtin.Table, kind: str, region: str, source: str
) -> NodePrice | Unknown:
    from renderer.platforms import gce_machine_memory_mib

    family = builtin.gce_family(kind)
    skus = table.families.get(family or "")
    m = _GCE_VCPUS.search(kind)
    mib = gce_machine_memory_mib(kind)
    if skus is None or m is None or mib is None:
        return Unknown(kind, region, f"{kind}: no core and RAM SKU of its family in the builtin gce {region} table")
    vcpus, gib = Decimal(m.group(1)), Decimal(mib) / 1024
    core, ram = _discounted(skus[0], pricing), _discounted(skus[1], pricing)
    hourly = vcpus * core + gib * ram
    units = UnitPrices(core, ram, Decimal(0), "sku")
    return NodePrice(kind, region, table.purchase_option, hourly, pricing.currency, source, table.as_of, units)


def _from_sheet(pool: Pool, pricing: Pricing, sheet: PriceSheet, kind: str | None, region: str) -> NodePrice | Unknown:
    fields = dict(pool.labels)
    if pool.origin == "Node":
        fields["metadata.name"] = pool.name
        if pool.provider_id:
            fields["spec.providerID"] = pool.provider_id
    row = sheet.lookup(fields, kind, region)
    if row is None:
        what = kind or pool.ref
        return Unknown(kind, region, f"{what} has no row in {pricing.file}")
    per_core(row.hourly, _shape(pool)[0], f"{pricing.file}:{row.line}", f"MarketPriceHourly of {pool.ref}")
    hourly = _discounted(row.hourly, pricing)
    source = f"{pricing.file}:{row.line}"
    as_of = row.end[:10] or None
    option = pricing.settings.purchaseOption
    return NodePrice(
        kind or pool.ref, region, option, hourly, pricing.currency, source, as_of, _split(pool, hourly, pricing)
    )


def _from_flat(pool: Pool, pricing: Pricing, flat: FlatPrices, kind: str | None, region: str) -> NodePrice | Unknown:
    spot = pricing.settings.purchaseOption == "spot"
    cpu, ram = (flat.spot_cpu, flat.spot_memory) if spot else (flat.cpu, flat.memory)
    if cpu is None or ram is None:
        return Unknown(kind, region, f"{pricing.file} has no spotCPU and spotRAM for purchaseOption: spot")
    cores, gib = _shape(pool)
    core, gib_price = _discounted(cpu, pricing), _discounted(ram, pricing)
    hourly = cores * core + gib * gib_price
    units = UnitPrices(core, gib_price, _discounted(flat.gpu, pricing), "file")
    option = pricing.settings.purchaseOption
    return NodePrice(kind or pool.ref, region, option, hourly, pricing.currency, str(pricing.file), None, units)


def _discounted(price: Decimal, pricing: Pricing) -> Decimal:
    return price * (100 - pricing.discount) / 100 if pricing.discount else price


def _shape(pool: Pool) -> tuple[Decimal, Decimal]:
    cpu, memory = pool.capacity.get("cpu"), pool.capacity.get("memory")
    return (cpu.value if cpu is not None else Decimal(0)), (memory.value / GIB if memory is not None else Decimal(0))


def _split(pool: Pool, hourly: Decimal, pricing: Pricing) -> UnitPrices:
    """A whole node's hourly price as unit prices, by the cpu:memory weight (OpenCost's arithmetic): memory per
    GiB-hour = price / (cores × weight + GiB), cpu per core-hour = that × weight."""
    cores, gib = _shape(pool)
    weight = pricing.weight
    denominator = cores * weight + gib
    if denominator == 0:
        return UnitPrices(Decimal(0), Decimal(0), Decimal(0), f"ratio {weight:.4f}")
    ram = hourly / denominator
    return UnitPrices(ram * weight, ram, Decimal(0), f"ratio {weight:.4f}")
