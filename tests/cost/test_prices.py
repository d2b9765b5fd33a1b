"""Node prices: the builtin snapshot, OpenCost files and spec.price, each expected figure a published price with the
arithmetic beside it; units (hourly ↔ monthly) both ways; bad input as one located error."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from renderer.cost import NodePrice, Unknown, load_pricing, price_pool
from renderer.cost.errors import PricingError
from renderer.cost.money import fmt, per_hour, per_month
from renderer.cost.resolve import DEFAULT_WEIGHT
from renderer.findings import SourceRef
from renderer.models.inventory import Pool
from renderer.models.nodepool import PoolPrice
from renderer.models.schema.settings import PricingSettings
from renderer.quantity import Quantity

# Published prices used below (per hour, USD, Linux on-demand):
# - c6i.2xlarge us-east-1 $0.34, m5.xlarge $0.192, t3.medium $0.0416 — Karpenter's zz_generated.pricing_aws.go,
#   "generated at 2026-01-19T13:23:24Z for us-east-1" (AWS Pricing API);
# - Standard_D8ds_v5 eastus $0.452 — Karpenter for Azure's zz_generated.pricing.go, generated 2026-06-18 (Azure Retail
#   Prices API);
# - n2 us-central1: $0.031611 per vCPU-hour, $0.004237 per GiB-hour — OpenCost configs/default.json ("Default prices
#   based on GCP us-central1").


def pool(
    kind: str | None,
    cpu: str = "8",
    memory: str = "16Gi",
    *,
    name: str = "p",
    price: PoolPrice | None = None,
    labels: dict[str, str] | None = None,
    origin: str = "NodePool",
) -> Pool:
    all_labels = dict(labels or {})
    if kind:
        all_labels["node.kubernetes.io/instance-type"] = kind
    return Pool(
        name=name,
        origin=origin,
        labels=all_labels,
        capacity={"cpu": Quantity.parse(cpu), "memory": Quantity.parse(memory)},
        count=2,
        platform="eks",
        machine_config_pool=None,
        max_pods=None,
        source=SourceRef("pools.yaml", line=3, column=5),
        price=price,
    )


def pricing(tmp_path: Path | None = None, **settings: Any):
    return load_pricing(PricingSettings(**settings), tmp_path or Path("."), ".allocatable.yaml")


def priced(p: Pool, **settings: Any) -> NodePrice:
    got = price_pool(p, pricing(**settings))
    assert isinstance(got, NodePrice), got
    return got


def test_c6i_2xlarge_in_us_east_1_costs_0_34_an_hour_and_248_20_a_month() -> None:
    got = priced(pool("c6i.2xlarge"), region="us-east-1")
    assert got.hourly == Decimal("0.34")
    assert got.monthly() == Decimal("248.20")  # 0.34 × 730 = 248.2
    assert fmt(got.monthly(), "USD") == "$248.20"
    assert got.as_of == "2026-01-19" and got.source.startswith("builtin aws us-east-1 on-demand")


def test_hourly_and_monthly_both_ways() -> None:
    # 730 hours: 0.34/h ↔ 248.20/month; 744 hours (a 31-day month): 0.34 × 744 = 252.96
    assert per_month(Decimal("0.34")) == Decimal("248.20")
    assert per_hour(Decimal("248.20")) == Decimal("0.34")
    assert per_month(Decimal("0.34"), Decimal(744)) == Decimal("252.96")
    monthly = priced(
        pool("c6i.2xlarge", price=PoolPrice(hourly=None, monthly="248.20", currency=None)), region="us-east-1"
    )
    assert monthly.hourly == Decimal("0.34") and monthly.monthly() == Decimal("248.20")
    hourly = priced(
        pool("c6i.2xlarge", price=PoolPrice(hourly="0.34", monthly=None, currency=None)),
        region="us-east-1",
        hoursPerMonth=744,
    )
    assert hourly.monthly(Decimal(744)) == Decimal("252.96")


def test_azure_and_compute_engine_types() -> None:
    assert priced(pool("Standard_D8ds_v5", "8", "32Gi"), region="eastus").hourly == Decimal("0.452")
    n2 = priced(pool("n2-standard-8", "8", "32Gi"), regions={"gce": "us-central1"})
    # 8 vCPU × 0.031611 + 32 GiB × 0.004237 = 0.252888 + 0.135584 = 0.388472 an hour; × 730 = 283.58456
    assert n2.hourly == Decimal("0.388472")
    assert fmt(n2.monthly(), "USD") == "$283.58"
    assert (n2.units.cpu, n2.units.memory, n2.units.method) == (Decimal("0.031611"), Decimal("0.004237"), "sku")


def test_a_region_label_wins_over_the_setting() -> None:
    p = pool("Standard_D8ds_v5", labels={"topology.kubernetes.io/region": "westeurope"})
    assert priced(p, region="eastus").hourly == Decimal("0.544")  # westeurope, the same table of 2026-06-18


def test_discount_is_taken_off_builtin_prices_but_not_off_spec_price() -> None:
    assert priced(pool("c6i.2xlarge"), region="us-east-1", discountPercent=10).hourly == Decimal("0.306")  # 0.34 × 0.9
    own = pool("c6i.2xlarge", price=PoolPrice(hourly="0.25", monthly=None, currency="USD"))
    got = priced(own, region="us-east-1", discountPercent=10)
    assert got.hourly == Decimal("0.25")
    assert got.source == "NodePool/p spec.price"
    assert got.overridden == ("builtin aws us-east-1 on-demand, as of 2026-01-19: $0.3060/h",)


def test_split_by_opencosts_ratio_adds_up_to_the_node_price() -> None:
    got = priced(pool("c6i.2xlarge", "8", "16Gi"), region="us-east-1")
    # weight w = 0.031611 / 0.004237 = 7.4607...; memory = 0.34 / (8w + 16) = 0.34 / 75.6856 = 0.00449227 per GiB-hour;
    # cpu = memory × w = 0.03351547 per core-hour; 8 × 0.03351547 + 16 × 0.00449227 = 0.34
    assert Decimal("0.031611") / Decimal("0.004237") == DEFAULT_WEIGHT
    assert round(got.units.memory, 7) == Decimal("0.0044923")
    assert round(got.units.cpu, 7) == Decimal("0.0335155")
    assert round(8 * got.units.cpu + 16 * got.units.memory, 12) == Decimal("0.34")
    heavier = priced(pool("c6i.2xlarge", "8", "16Gi"), region="us-east-1", cpuToMemoryWeight=16)
    # w = 16: memory = 0.34 / (128 + 16) = 0.00236111, cpu = 0.0377778
    assert round(heavier.units.cpu, 7) == Decimal("0.0377778")


@pytest.mark.parametrize(
    ("p", "settings", "words"),
    [
        (pool("c9z.huge"), {"region": "us-east-1"}, "c9z.huge is not in the builtin aws us-east-1 on-demand table"),
        (pool(None), {"region": "us-east-1"}, "no node.kubernetes.io/instance-type label"),
        (pool("dell-r750"), {"region": "us-east-1"}, "dell-r750 is not an AWS, Azure or Compute Engine type"),
        (pool("c6i.2xlarge"), {}, "no region"),
        (pool("c6i.2xlarge"), {"region": "eu-west-9"}, "no aws on-demand prices for eu-west-9 (it has: us-east-1)"),
        (pool("c6i.2xlarge"), {"region": "us-east-1", "purchaseOption": "spot"}, "no aws spot prices"),
    ],
)
def test_what_no_source_prices_is_unknown_and_says_why(p: Pool, settings: dict[str, Any], words: str) -> None:
    got = price_pool(p, pricing(**settings))
    assert isinstance(got, Unknown)
    assert words in got.reason


def test_a_spec_price_in_another_currency_is_a_located_error() -> None:
    p = pool("c6i.2xlarge", price=PoolPrice(hourly="0.30", monthly=None, currency="EUR"))
    with pytest.raises(PricingError) as err:
        price_pool(p, pricing(region="us-east-1"))
    assert str(err.value).startswith("pools.yaml:3:5: NodePool/p: spec.price is in EUR, pricing.currency is USD")


def test_a_monthly_figure_written_as_hourly_is_an_error() -> None:
    p = pool("c6i.2xlarge", price=PoolPrice(hourly="248.20", monthly=None, currency=None))
    with pytest.raises(PricingError, match=r"^pools.yaml:3:5: NodePool/p spec.price: 248.20 an hour for 8 cores"):
        price_pool(p, pricing(region="us-east-1"))


def test_builtin_prices_in_another_currency_are_refused() -> None:
    with pytest.raises(PricingError, match=r"^\.allocatable\.yaml: pricing.currency is EUR, but the builtin"):
        pricing(currency="EUR")


def test_old_builtin_tables_are_an_info_note_once() -> None:
    p = load_pricing(PricingSettings(region="us-east-1"), Path("."), ".allocatable.yaml", today="2026-12-06")
    price_pool(pool("c6i.2xlarge"), p)
    price_pool(pool("m5.xlarge"), p)
    # 2026-01-19 → 2026-12-06 is 321 days, past the default 180
    assert p.notes == [
        "the builtin aws us-east-1 on-demand prices are as of 2026-01-19, older than pricing.staleAfterDays (180 "
        "days): a newer allocatable ships newer ones, or give your own (source: file, or NodePool spec.price)"
    ]
    fresh = load_pricing(PricingSettings(region="us-east-1", staleAfterDays=365), Path("."), "s", today="2026-12-06")
    price_pool(pool("c6i.2xlarge"), fresh)
    assert fresh.notes == []


# --- OpenCost files -------------------------------------------------------------------------------------------------

#: OpenCost configs/default.json as published (opencost/opencost), read unchanged.
DEFAULT_JSON = """{
    "provider": "custom",
    "description": "Default prices based on GCP us-central1",
    "CPU": "0.031611",
    "spotCPU": "0.006655",
    "RAM": "0.004237",
    "spotRAM": "0.000892",
    "GPU": "0.95",
    "storage": "0.00005479452",
    "zoneNetworkEgress": "0.01",
    "regionNetworkEgress": "0.01",
    "internetNetworkEgress": "0.12"
}"""


def file_pricing(tmp_path: Path, name: str, text: str, **settings: Any):
    (tmp_path / name).write_text(text)
    return pricing(tmp_path, source="file", file=name, **settings)


def test_opencost_default_json_prices_cores_and_gib(tmp_path: Path) -> None:
    p = file_pricing(tmp_path, "default.json", DEFAULT_JSON)
    got = price_pool(pool("anything", "8", "32Gi"), p)
    assert isinstance(got, NodePrice)
    assert got.hourly == Decimal("0.388472")  # 8 × 0.031611 + 32 × 0.004237
    spot = price_pool(
        pool("anything", "8", "32Gi"), file_pricing(tmp_path, "d.json", DEFAULT_JSON, purchaseOption="spot")
    )
    assert isinstance(spot, NodePrice)
    assert spot.hourly == Decimal("0.081784")  # 8 × 0.006655 + 32 × 0.000892 = 0.05324 + 0.028544


#: OpenCost's configs/opencost-pricing-730x.json: "Compute resources (CPU/GPU/RAM) multiplied by 730".
PRICING_730X = '{"provider": "custom", "CPU": "23.075030", "spotCPU": "4.858150", "RAM": "3.093010", "GPU": "693.5"}'


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"CPU": "0.031611"}', "default.json: missing RAM"),
        (PRICING_730X, "CPU ($ per vCPU-hour) is 23.075030 an hour, more than 5 — an hourly price is expected"),
        ('{"CPU": "-0.03", "RAM": "0.004"}', "negative"),
        ('{"CPU": "0.03", "RAM": "cheap"}', "RAM ($ per GiB-hour) is 'cheap', not a number"),
        ('{"CPU": 0.03, "RAM": true}', "must be a number written as a string"),
        ('{"CPU": "0.03", "RAM": "0.004", "currencyCode": "EUR"}', "its currencyCode is EUR, pricing.currency is USD"),
        ("[1, 2]", "one object"),
        ("{", "not JSON"),
    ],
)
def test_a_bad_default_json_is_one_located_error(tmp_path: Path, text: str, words: str) -> None:
    with pytest.raises(PricingError) as err:
        file_pricing(tmp_path, "default.json", text)
    assert str(err.value).startswith("default.json")
    assert words in str(err.value)


#: OpenCost's price sheet columns (configs/pricing_schema.csv); the t3 rows as OpenCost's own CSV test writes them
#: ($0.0416 and $0.0832: the us-east-1 on-demand prices of t3.medium and t3.large), a node row as its docs do.
SHEET = """EndTimestamp,InstanceID,Region,AssetClass,InstanceIDField,InstanceType,MarketPriceHourly,Version
2026-01-01T00:00:00Z,i-12345,us-east-1,node,node.kubernetes.io/instance-type,t3.medium,0.0416,v1
2026-01-01T00:00:00Z,i-67890,us-east-1,node,node.kubernetes.io/instance-type,t3.large,0.0832,v1
,worker-a,,node,metadata.name,,0.24,
,Quadro_RTX_4000,,gpu,nvidia.com/gpu_type,,0.75,
"""


def test_price_sheet_rows_by_instance_type_and_by_node_name(tmp_path: Path) -> None:
    p = file_pricing(tmp_path, "prices.csv", SHEET, region="us-east-1")
    t3 = price_pool(pool("t3.medium", "2", "4Gi"), p)
    assert isinstance(t3, NodePrice) and t3.hourly == Decimal("0.0416") and t3.source == "prices.csv:2"
    assert t3.as_of == "2026-01-01"
    node = price_pool(pool(None, "4", "16Gi", name="worker-a", origin="Node"), p)
    assert isinstance(node, NodePrice) and node.hourly == Decimal("0.24")
    missing = price_pool(pool("t3.small", "2", "2Gi"), p)
    assert isinstance(missing, Unknown) and missing.reason == "t3.small has no row in prices.csv"


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("InstanceID,Region\n", "prices.csv:1", "the header lacks AssetClass"),
        (SHEET + ",,us-east-1,node,,t3.medium,0.05,\n", "prices.csv:6", "instance type t3.medium is priced 0.05 here"),
        (SHEET + ",,,node,,,0.05,\n", "prices.csv:6", "the row names no node"),
        (SHEET + ",,,node,,m5.xlarge,-1,\n", "prices.csv:6", "negative"),
        (SHEET + ",,,node,,m5.xlarge,,\n", "prices.csv:6", "'' , not a number".replace(" ,", ",")),
        ("", "prices.csv", "empty"),
    ],
)
def test_a_bad_price_sheet_is_one_located_error(tmp_path: Path, text: str, where: str, words: str) -> None:
    with pytest.raises(PricingError) as err:
        file_pricing(tmp_path, "prices.csv", text)
    assert str(err.value).startswith(where + ":")
    assert words in str(err.value)


def test_a_sheet_price_per_month_is_caught_by_its_price_per_core(tmp_path: Path) -> None:
    p = file_pricing(tmp_path, "prices.csv", SHEET.replace("0.0416", "30.37"), region="us-east-1")  # 0.0416 × 730
    with pytest.raises(
        PricingError, match=r"^prices.csv:2: MarketPriceHourly of NodePool/p: 30.37 an hour for 2 cores"
    ):
        price_pool(pool("t3.medium", "2", "4Gi"), p)


def test_a_missing_price_file_is_a_located_error(tmp_path: Path) -> None:
    with pytest.raises(PricingError, match=r"^missing\.json: pricing\.file cannot be read"):
        pricing(tmp_path, source="file", file="missing.json")


@pytest.mark.parametrize("path", ["../prices.csv", "/etc/prices.csv", "a/../../b.json"])
def test_the_price_file_must_stay_in_the_repository(path: str) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="leaves the repository"):
        PricingSettings(source="file", file=path)


def test_a_price_file_that_leads_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    import os

    outside = tmp_path / "outside.json"
    outside.write_text(DEFAULT_JSON)
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".git").mkdir()
    os.symlink(outside, repo / "default.json")
    with pytest.raises(PricingError, match=r"^default\.json: pricing\.file cannot be read"):
        load_pricing(PricingSettings(source="file", file="default.json"), repo, ".allocatable.yaml")
    (repo / "dir.json").mkdir()
    with pytest.raises(PricingError, match=r"^dir\.json: pricing\.file cannot be read"):
        load_pricing(PricingSettings(source="file", file="dir.json"), repo, ".allocatable.yaml")


def test_a_file_in_another_currency_prices_in_it(tmp_path: Path) -> None:
    text = DEFAULT_JSON.replace('"provider": "custom",', '"provider": "custom", "currencyCode": "EUR",')
    p = file_pricing(tmp_path, "default.json", text, currency="EUR")
    got = price_pool(pool("anything", "8", "32Gi"), p)
    assert isinstance(got, NodePrice) and got.currency == "EUR"
    # 0.388472 an hour × 730 = 283.58456
    assert fmt(got.monthly(), "EUR") == "€283.58"
    assert fmt(Decimal("1234.5"), "CHF") == "CHF 1,234.50"
    assert fmt(Decimal("-0.001"), "USD") == "$0.00"  # never "-$0.00"
