"""Maintainer command: write the builtin price snapshot (``renderer/cost/data/<provider>.json``) from public price data.

    python -m renderer.cost.snapshot aws   OFFER.json ...   # AWS bulk offer file(s) of AmazonEC2, one per region
    python -m renderer.cost.snapshot azure RETAIL.json ...  # Azure Retail Prices API pages ({"Items": [...]})
    python -m renderer.cost.snapshot gce   SKUS.json ...    # Cloud Billing Catalog SKUs of Compute Engine ({"skus": [...]})
    python -m renderer.cost.snapshot sheet aws PRICES.csv   # a transcribed table: "# source:", "# provenance:" and
                                                            # "# as-of:" lines,
                                                            # then instanceType,region,purchaseOption,hourly
                                                            # (gce: family,region,purchaseOption,core,ram)

Options: ``--region R`` (repeatable) keeps those regions only; ``--out DIR`` writes there instead of the package.
A table of the same provider, region and purchase option is replaced; every table is stamped with its source and the
date its prices are as of (the offer file's publicationDate, the latest effectiveStartDate / effectiveTime). Prices
are written as decimal strings, keys sorted: the same input gives the same bytes.

What is kept, per source: AWS — product family "Compute Instance", Linux, shared tenancy, no pre-installed software,
capacity status "Used", market option OnDemand, unit "Hrs" (Capacity Block and reservation rows are not on-demand
prices); Azure — "Virtual Machines", type Consumption, unit "1 Hour", not Windows, not Low Priority ("… Spot" meters
are the spot prices); GCP — "<FAMILY> Instance Core|Ram running in <place>" SKUs, usage type OnDemand (Preemptible:
spot), units "h" and "GiBy.h" (custom, sole-tenancy, reserved and commitment SKUs are not predefined prices).

Cost: one pass over each input.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import sys
from collections.abc import Iterable, Sequence
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

from renderer.cost.amounts import MAX_CORE_HOURLY, MAX_GIB_HOURLY, MAX_NODE_HOURLY, amount, per_core
from renderer.cost.errors import PricingError

#: (provider, region, purchase option) -> table: {"source", "asOf", "prices" | "families"}
Tables = dict[tuple[str, str, str], dict[str, Any]]
_GCP_SKU = re.compile(r"^(Spot Preemptible |Preemptible )?(.+?) Instance (Core|Ram) running in .+$")
_GCP_EXCLUDED = ("Custom", "Sole Tenancy", "Reserved", "Commitment", "Extended", "Premium")
_GCP_FAMILY_WORDS = {"Compute optimized": "c2", "Memory-optimized": "m1"}


def _load_json(path: str) -> Any:
    try:
        return json.loads(Path(path).read_bytes())
    except OSError as exc:
        raise PricingError(path, f"cannot be read ({exc.strerror})") from None
    except ValueError as exc:
        raise PricingError(path, f"not JSON ({exc})") from None


def _price_text(value: Decimal) -> str:
    text = format(value.normalize(), "f")
    return text if "." not in text else text.rstrip("0").rstrip(".") or "0"


def _table(tables: Tables, key: tuple[str, str, str], source: str, as_of: str) -> dict[str, Any]:
    t = tables.setdefault(key, {"source": source, "asOf": as_of})
    t["asOf"] = max(t["asOf"], as_of)
    return t


def aws_offer(doc: Any, where: str, tables: Tables) -> None:
    """An AmazonEC2 offer file (the bulk price list, one region): on-demand Linux shared-tenancy instance prices."""
    if not isinstance(doc, dict) or doc.get("offerCode") != "AmazonEC2" or "products" not in doc:
        raise PricingError(where, 'not an AmazonEC2 offer file (expected "offerCode": "AmazonEC2" and "products")')
    as_of = str(doc.get("publicationDate", ""))[:10]
    source = f"AWS price list, AmazonEC2 offer file version {doc.get('version', '?')}"
    terms = doc.get("terms", {}).get("OnDemand", {})
    for sku, product in doc["products"].items():
        a = product.get("attributes", {})
        if (
            product.get("productFamily") != "Compute Instance"
            or a.get("operatingSystem") != "Linux"
            or a.get("tenancy") != "Shared"
            or a.get("preInstalledSw") != "NA"
            or a.get("capacitystatus") != "Used"
            or a.get("marketoption", "OnDemand") != "OnDemand"
            or a.get("licenseModel", "No License required") != "No License required"
        ):
            continue
        for term in terms.get(sku, {}).values():
            for dim in term.get("priceDimensions", {}).values():
                what = f"{a.get('instanceType')} in {a.get('regionCode')}"
                if dim.get("unit") != "Hrs":
                    raise PricingError(where, f"{what}: unit {dim.get('unit')!r}, expected Hrs (an hourly price)")
                price = amount(dim.get("pricePerUnit", {}).get("USD"), where, f"{what} USD", MAX_NODE_HOURLY)
                vcpus = str(a.get("vcpu", ""))
                if vcpus.isdigit() and int(vcpus) > 0:
                    per_core(price, int(vcpus), where, what)
                t = _table(tables, ("aws", a["regionCode"], "on-demand"), source, as_of)
                t["provenance"] = f"{source}, publicationDate {doc.get('publicationDate', '?')}"
                t.setdefault("prices", {})[a["instanceType"]] = _price_text(price)


def azure_retail(doc: Any, where: str, tables: Tables) -> None:
    """Azure Retail Prices API pages: pay-as-you-go Linux VM prices, and the spot meters."""
    if not isinstance(doc, dict) or not isinstance(doc.get("Items"), list):
        raise PricingError(where, 'not an Azure Retail Prices API page (expected "Items": [...])')
    for item in doc["Items"]:
        if item.get("serviceName") != "Virtual Machines" or item.get("type") != "Consumption":
            continue
        sku_name, product = str(item.get("skuName", "")), str(item.get("productName", ""))
        if "Windows" in product or sku_name.endswith("Low Priority"):
            continue
        what = f"{item.get('armSkuName')} in {item.get('armRegionName')}"
        if item.get("unitOfMeasure") != "1 Hour":
            raise PricingError(where, f"{what}: unitOfMeasure {item.get('unitOfMeasure')!r}, expected '1 Hour'")
        if item.get("currencyCode", "USD") != "USD":
            raise PricingError(where, f"{what}: currencyCode {item.get('currencyCode')}; the snapshot is USD")
        option = "spot" if sku_name.endswith(" Spot") else "on-demand"
        price = amount(item.get("retailPrice"), where, f"{what} retailPrice", MAX_NODE_HOURLY)
        as_of = str(item.get("effectiveStartDate", ""))[:10]
        t = _table(tables, ("azure", item["armRegionName"], option), "Azure Retail Prices API", as_of)
        t.setdefault("prices", {})[item["armSkuName"]] = _price_text(price)


def _gcp_family(words: str) -> str | None:
    if words in _GCP_FAMILY_WORDS:
        return _GCP_FAMILY_WORDS[words]
    first = words.split()[0]
    return first.lower() if re.fullmatch(r"[A-Z][A-Z0-9]*", first) else None


def gcp_skus(doc: Any, where: str, tables: Tables) -> None:
    """Cloud Billing Catalog SKUs of Compute Engine: per family and region, the core and RAM price."""
    if not isinstance(doc, dict) or not isinstance(doc.get("skus"), list):
        raise PricingError(where, 'not a Cloud Billing Catalog SKU list (expected "skus": [...])')
    for sku in doc["skus"]:
        desc = str(sku.get("description", ""))
        m = _GCP_SKU.match(desc)
        usage = sku.get("category", {}).get("usageType")
        if m is None or any(word in desc for word in _GCP_EXCLUDED) or usage not in ("OnDemand", "Preemptible"):
            continue
        family = _gcp_family(m.group(2))
        if family is None:
            continue
        info = sku.get("pricingInfo", [{}])[0]
        expression = info.get("pricingExpression", {})
        part = "core" if m.group(3) == "Core" else "ram"
        unit = expression.get("usageUnit")
        if unit != ("h" if part == "core" else "GiBy.h"):
            raise PricingError(where, f"{desc}: usage unit {unit!r}, expected {'h' if part == 'core' else 'GiBy.h'}")
        rates = expression.get("tieredRates") or [{}]
        price = rates[-1].get("unitPrice", {})
        if price.get("currencyCode", "USD") != "USD":
            raise PricingError(where, f"{desc}: currency {price.get('currencyCode')}; the snapshot is USD")
        try:
            value = Decimal(str(price.get("units", "0"))) + Decimal(int(price.get("nanos", 0))) / 10**9
        except (InvalidOperation, ValueError, TypeError):
            raise PricingError(where, f"{desc}: unitPrice {price!r} is not units and nanos") from None
        ceiling = MAX_CORE_HOURLY if part == "core" else MAX_GIB_HOURLY
        value = amount(_price_text(value), where, desc, ceiling)
        option = "spot" if usage == "Preemptible" else "on-demand"
        as_of = str(info.get("effectiveTime", ""))[:10]
        for region in sku.get("serviceRegions", []):
            t = _table(tables, ("gce", region, option), "Cloud Billing Catalog, Compute Engine SKUs", as_of)
            t.setdefault("families", {}).setdefault(family, {})[part] = _price_text(value)


def sheet(text: str, where: str, provider: str, tables: Tables) -> None:
    """A transcribed table (module docstring): its ``# source:`` (short, shown in reports), ``# provenance:`` (where
    each figure was read, kept in the snapshot) and ``# as-of:`` lines stamp every table it fills."""
    meta = {}
    body = []
    for line in text.splitlines():
        if line.startswith("#"):
            key, _, value = line[1:].strip().partition(":")
            meta[key.strip()] = value.strip()
        elif line.strip():
            body.append(line)
    if not meta.get("source") or not re.fullmatch(r"\d{4}-\d{2}-\d{2}", meta.get("as-of", "")):
        raise PricingError(where, 'a sheet needs "# source: ..." and "# as-of: YYYY-MM-DD" lines')
    reader = csv.DictReader(io.StringIO("\n".join(body)))
    wanted = (
        ("family", "region", "purchaseOption", "core", "ram")
        if provider == "gce"
        else ("instanceType", "region", "purchaseOption", "hourly")
    )
    missing = [c for c in wanted if c not in (reader.fieldnames or [])]
    if missing:
        raise PricingError(where, f"the header lacks {', '.join(missing)}: a {provider} sheet has {','.join(wanted)}")
    for number, row in enumerate(reader, start=1):
        table_key = (provider, row["region"], row["purchaseOption"])
        t = _table(tables, table_key, meta["source"], meta["as-of"])
        if meta.get("provenance"):
            t["provenance"] = meta["provenance"]
        if provider == "gce":
            core = amount(row["core"], f"{where} row {number}", "core", MAX_CORE_HOURLY)
            ram = amount(row["ram"], f"{where} row {number}", "ram", MAX_GIB_HOURLY)
            t.setdefault("families", {})[row["family"]] = {"core": _price_text(core), "ram": _price_text(ram)}
        else:
            hourly = amount(row["hourly"], f"{where} row {number}", "hourly", MAX_NODE_HOURLY)
            t.setdefault("prices", {})[row["instanceType"]] = _price_text(hourly)


def merge(out: Path, tables: Tables, regions: Sequence[str] = ()) -> list[Path]:
    """Write ``tables`` into ``out/<provider>.json``, replacing tables of the same region and purchase option."""
    written = []
    for provider in sorted({k[0] for k in tables}):
        path = out / f"{provider}.json"
        doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {"provider": provider}
        doc["currency"] = "USD"
        kept = {(t["region"], t["purchaseOption"]): t for t in doc.get("tables", [])}
        for (p, region, option), t in tables.items():
            if p != provider or (regions and region not in regions):
                continue
            if provider == "gce":
                incomplete = sorted(f for f, v in t.get("families", {}).items() if set(v) != {"core", "ram"})
                for f in incomplete:
                    del t["families"][f]
            kept[(region, option)] = {"region": region, "purchaseOption": option, **t}
        doc["tables"] = [kept[k] for k in sorted(kept)]
        path.write_text(json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
        written.append(path)
    return written


def main(argv: Iterable[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m renderer.cost.snapshot", description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=["aws", "azure", "gce", "sheet"])
    parser.add_argument("inputs", nargs="+", help="price files (sheet: the provider first, then the files)")
    parser.add_argument("--region", action="append", default=[], help="keep only this region (repeatable)")
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "data")
    args = parser.parse_args(list(argv) if argv is not None else None)
    tables: Tables = {}
    inputs = list(args.inputs)
    try:
        if args.kind == "sheet":
            provider = inputs.pop(0)
            if provider not in ("aws", "azure", "gce") or not inputs:
                raise PricingError("sheet", "give the provider (aws, azure or gce) and then the sheet files")
            for name in inputs:
                try:
                    text = Path(name).read_text(encoding="utf-8")
                except OSError as exc:
                    raise PricingError(name, f"cannot be read ({exc.strerror})") from None
                sheet(text, name, provider, tables)
        else:
            reader = {"aws": aws_offer, "azure": azure_retail, "gce": gcp_skus}[args.kind]
            for name in inputs:
                reader(_load_json(name), name, tables)
        if not tables:
            raise PricingError(", ".join(inputs), "no price of the kind kept here (see --help)")
        for path in merge(args.out, tables, args.region):
            print(path)
    except PricingError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
