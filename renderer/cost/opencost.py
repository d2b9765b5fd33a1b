"""OpenCost / Kubecost custom pricing files, read unchanged.

- ``default.json`` (OpenCost ``configs/default.json`` and its per-provider siblings): flat unit prices as strings,
  ``CPU`` $ per vCPU-hour, ``RAM`` $ per GiB-hour, ``GPU`` $ per GPU-hour, ``storage`` $ per GiB-hour, with spot
  variants ``spotCPU`` / ``spotRAM``; other keys (network egress, load balancers) are not capacity and are ignored.
  A node is priced cores × CPU + GiB × RAM, as OpenCost prices a node of the ``custom`` provider.
- the CSV price sheet (OpenCost ``configs/pricing_schema.csv``): columns ``EndTimestamp, InstanceID, Region,
  AssetClass, InstanceIDField, InstanceType, MarketPriceHourly, Version``; a ``node`` row prices the nodes whose field
  ``InstanceIDField`` (``metadata.name``, ``spec.providerID``, a label key, or ``metadata.labels.<key>``) equals
  ``InstanceID``, or — with ``InstanceType`` set — every node of that instance type (in ``Region`` when given),
  ``MarketPriceHourly`` per hour. Rows of other asset classes (``pv``, ``gpu``) are kept out of node prices.

Cost: one pass over the file.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from decimal import Decimal

from renderer.cost.amounts import MAX_CORE_HOURLY, MAX_GIB_HOURLY, MAX_GPU_HOURLY, MAX_NODE_HOURLY, amount
from renderer.cost.errors import PricingError

SHEET_COLUMNS = (
    "EndTimestamp",
    "InstanceID",
    "Region",
    "AssetClass",
    "InstanceIDField",
    "InstanceType",
    "MarketPriceHourly",
    "Version",
)
_LABEL_PREFIX = "metadata.labels."


@dataclass(frozen=True)
class FlatPrices:
    """default.json: unit prices per hour (spot ones None when the file has none)."""

    cpu: Decimal
    memory: Decimal
    gpu: Decimal
    spot_cpu: Decimal | None
    spot_memory: Decimal | None
    description: str


@dataclass(frozen=True)
class SheetRow:
    line: int
    field: str  # InstanceIDField ("" with InstanceType set)
    key: str  # InstanceID
    region: str
    instance_type: str
    hourly: Decimal
    end: str


@dataclass
class PriceSheet:
    """The node rows of a price sheet, indexed: by (field, value) and by (instance type, region)."""

    by_id: dict[tuple[str, str], SheetRow] = field(default_factory=dict)
    by_type: dict[tuple[str, str], SheetRow] = field(default_factory=dict)
    latest: str = ""  # the latest EndTimestamp (the sheet's "prices as of")

    def lookup(self, node_fields: dict[str, str], instance_type: str | None, region: str) -> SheetRow | None:
        """The row for a node: its own id first (name, providerID, a label), then its instance type in its region,
        then its instance type in any region (a row without Region)."""
        for (name, key), row in self.by_id.items():
            if node_fields.get(name) == key:
                return row
        if instance_type:
            return self.by_type.get((instance_type, region)) or self.by_type.get((instance_type, ""))
        return None


def read_default_json(data: bytes, where: str) -> FlatPrices:
    try:
        doc = json.loads(data)
    except (ValueError, UnicodeDecodeError) as exc:
        raise PricingError(where, f"not JSON ({exc}); an OpenCost default.json is one object of prices") from None
    if not isinstance(doc, dict):
        raise PricingError(where, "an OpenCost default.json is one object with keys CPU, RAM, GPU, storage")
    missing = [k for k in ("CPU", "RAM") if k not in doc]
    if missing:
        raise PricingError(
            where,
            f"missing {' and '.join(missing)}: OpenCost's default.json gives CPU ($ per vCPU-hour) and RAM ($ per "
            'GiB-hour) as strings, e.g. "CPU": "0.031611", "RAM": "0.004237"',
        )

    def optional(key: str, ceiling: Decimal) -> Decimal | None:
        return None if doc.get(key) in (None, "") else amount(doc[key], where, key, ceiling)

    return FlatPrices(
        cpu=amount(doc["CPU"], where, "CPU ($ per vCPU-hour)", MAX_CORE_HOURLY),
        memory=amount(doc["RAM"], where, "RAM ($ per GiB-hour)", MAX_GIB_HOURLY),
        gpu=optional("GPU", MAX_GPU_HOURLY) or Decimal(0),
        spot_cpu=optional("spotCPU", MAX_CORE_HOURLY),
        spot_memory=optional("spotRAM", MAX_GIB_HOURLY),
        description=str(doc.get("description") or ""),
    )


def read_sheet(data: bytes, where: str) -> PriceSheet:
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PricingError(where, f"not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    reader = csv.reader(io.StringIO(text, newline=""))
    header = next(reader, None)
    if header is None:
        raise PricingError(where, f"empty; a price sheet starts with the header {','.join(SHEET_COLUMNS)}")
    header = [h.strip() for h in header]
    missing = [
        c
        for c in ("InstanceID", "AssetClass", "InstanceIDField", "InstanceType", "MarketPriceHourly")
        if c not in header
    ]
    if missing:
        raise PricingError(
            f"{where}:1",
            f"the header lacks {', '.join(missing)}; OpenCost's price sheet has the columns {','.join(SHEET_COLUMNS)}",
        )
    col = {name: header.index(name) for name in header}
    sheet = PriceSheet()
    for number, cells in enumerate(reader, start=2):
        if not any(c.strip() for c in cells):
            continue
        if len(cells) < len(header):
            raise PricingError(f"{where}:{number}", f"{len(cells)} cells, the header has {len(header)}")

        def cell(name: str, cells: list[str] = cells) -> str:
            return cells[col[name]].strip() if name in col else ""

        if (cell("AssetClass") or "node").lower() != "node":
            continue
        hourly = amount(cell("MarketPriceHourly"), f"{where}:{number}", "MarketPriceHourly", MAX_NODE_HOURLY)
        row = SheetRow(
            number,
            cell("InstanceIDField"),
            cell("InstanceID"),
            cell("Region"),
            cell("InstanceType"),
            hourly,
            cell("EndTimestamp"),
        )
        sheet.latest = max(sheet.latest, row.end)
        if row.instance_type and (
            not row.key
            or row.field in ("", "node.kubernetes.io/instance-type", "metadata.labels.node.kubernetes.io/instance-type")
        ):
            key = (row.instance_type, row.region)
            _no_duplicate(sheet.by_type.get(key), row, where, f"instance type {row.instance_type}")
            sheet.by_type[key] = row
        elif row.key and row.field:
            name = row.field.removeprefix(_LABEL_PREFIX)
            _no_duplicate(sheet.by_id.get((name, row.key)), row, where, f"{row.field}={row.key}")
            sheet.by_id[(name, row.key)] = row
        else:
            raise PricingError(
                f"{where}:{number}",
                "the row names no node: set InstanceType, or InstanceID with InstanceIDField (metadata.name, "
                "spec.providerID or a label)",
            )
    return sheet


def _no_duplicate(earlier: SheetRow | None, row: SheetRow, where: str, what: str) -> None:
    if earlier is not None and earlier.hourly != row.hourly:
        raise PricingError(
            f"{where}:{row.line}",
            f"{what} is priced {row.hourly} here and {earlier.hourly} on line {earlier.line}; keep one row",
        )
