"""The maintainer command ``python -m renderer.cost.snapshot`` on recorded inputs (tests/cost/recorded/README.md says
where each figure was published), and the shipped snapshot against its transcribed sources (tests/cost/sources)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from renderer.cost import snapshot

HERE = Path(__file__).resolve().parent
RECORDED = HERE / "recorded"
SOURCES = HERE / "sources"
SHIPPED = HERE.parents[1] / "renderer" / "cost" / "data"


def _run(tmp_path: Path, *args: str) -> dict[str, dict]:
    assert snapshot.main([*args, "--out", str(tmp_path)]) == 0
    return {p.stem: json.loads(p.read_text()) for p in tmp_path.glob("*.json")}


def test_aws_offer_file_keeps_the_on_demand_linux_price_and_drops_the_capacity_block_row(tmp_path: Path) -> None:
    (table,) = _run(tmp_path, "aws", str(RECORDED / "aws-offer-us-east-1.json"))["aws"]["tables"]
    # p4d.24xlarge: "$32.7726 per On Demand Linux p4d.24xlarge Instance Hour"; its Capacity Block row ($0.00) is not
    # an on-demand price and must not replace it. c6i.2xlarge: $0.34 (AWS Pricing API, Karpenter's 2026-01-19 table).
    assert table["prices"] == {"c6i.2xlarge": "0.34", "p4d.24xlarge": "32.7726"}
    assert (table["region"], table["purchaseOption"], table["asOf"]) == ("us-east-1", "on-demand", "2024-05-28")
    assert "20240528203522" in table["source"]


def test_azure_retail_page_gives_on_demand_and_spot_and_skips_reservations(tmp_path: Path) -> None:
    tables = _run(tmp_path, "azure", str(RECORDED / "azure-retail.json"))["azure"]["tables"]
    by_option = {t["purchaseOption"]: t for t in tables}
    assert by_option["on-demand"]["prices"] == {"Standard_D4s_v5": "0.192"}  # pay-as-you-go, eastus
    assert by_option["spot"]["prices"] == {"Standard_D4s_v5": "0.0576"}  # the "D4s v5 Spot" meter
    assert {t["region"] for t in tables} == {"eastus"}
    assert by_option["spot"]["asOf"] == "2026-06-01"


def test_gcp_skus_give_core_and_ram_per_family_and_skip_the_reserved_sku(tmp_path: Path) -> None:
    tables = _run(tmp_path, "gce", str(RECORDED / "gcp-skus.json"))["gce"]["tables"]
    by_option = {t["purchaseOption"]: t for t in tables}
    # nanos / 1e9: 29110000 → 0.02911, 3310000 → 0.00331 (on-demand); 15530000 → 0.01553, 1767000 → 0.001767 (spot)
    assert by_option["on-demand"]["families"] == {"n4d": {"core": "0.02911", "ram": "0.00331"}}
    assert by_option["spot"]["families"] == {"n4d": {"core": "0.01553", "ram": "0.001767"}}
    assert by_option["on-demand"]["asOf"] == "2026-09-22"


def test_the_same_input_gives_the_same_bytes_and_replaces_its_own_table(tmp_path: Path) -> None:
    _run(tmp_path, "aws", str(RECORDED / "aws-offer-us-east-1.json"))
    first = (tmp_path / "aws.json").read_bytes()
    _run(tmp_path, "aws", str(RECORDED / "aws-offer-us-east-1.json"))
    assert (tmp_path / "aws.json").read_bytes() == first


def test_the_shipped_snapshot_is_what_the_generator_makes_of_its_sources(tmp_path: Path) -> None:
    for provider, name in (
        ("aws", "aws-us-east-1.csv"),
        ("azure", "azure-eastus-westeurope.csv"),
        ("gce", "gce-us-central1.csv"),
    ):
        assert snapshot.main(["sheet", provider, str(SOURCES / name), "--out", str(tmp_path)]) == 0
    for shipped in SHIPPED.glob("*.json"):
        assert (tmp_path / shipped.name).read_text() == shipped.read_text(), f"{shipped.name}: regenerate it"
    assert sorted(p.name for p in tmp_path.glob("*.json")) == sorted(p.name for p in SHIPPED.glob("*.json"))


@pytest.mark.parametrize(
    ("kind", "name", "edit", "words"),
    [
        ("aws", "aws-offer-us-east-1.json", ('"unit": "Hrs"', '"unit": "Mo"'), "expected Hrs"),
        ("aws", "aws-offer-us-east-1.json", ('"USD": "0.3400000000"', '"USD": "-0.34"'), "negative"),
        ("aws", "aws-offer-us-east-1.json", ('"USD": "0.3400000000"', '"USD": "248.2"'), "an hourly price"),
        ("aws", "aws-offer-us-east-1.json", ('"USD": "0.3400000000"', '"USD": "0,34"'), "not a number"),
        ("aws", "aws-offer-us-east-1.json", ('"offerCode": "AmazonEC2"', '"offerCode": "AmazonRDS"'), "AmazonEC2"),
        ("azure", "azure-retail.json", ('"unitOfMeasure": "1 Hour"', '"unitOfMeasure": "1/Month"'), "1 Hour"),
        ("azure", "azure-retail.json", ('"currencyCode": "USD"', '"currencyCode": "EUR"'), "EUR"),
        ("gce", "gcp-skus.json", ('"usageUnit": "GiBy.h"', '"usageUnit": "GiBy.mo"'), "GiBy.h"),
    ],
)
def test_bad_price_data_is_one_line_naming_the_file_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], kind: str, name: str, edit: tuple[str, str], words: str
) -> None:
    bad = tmp_path / name
    text = (RECORDED / name).read_text()
    assert edit[0] in text
    bad.write_text(text.replace(edit[0], edit[1], 1))
    out = tmp_path / "out"
    out.mkdir()
    assert snapshot.main([kind, str(bad), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"error: {bad}") and words in err
    assert not list(out.iterdir())  # nothing written


def test_a_sheet_without_its_source_and_date_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "prices.csv"
    shutil.copy(SOURCES / "aws-us-east-1.csv", bad)
    bad.write_text("\n".join(x for x in bad.read_text().splitlines() if not x.startswith("# as-of")))
    assert snapshot.main(["sheet", "aws", str(bad), "--out", str(tmp_path)]) == 2
    assert "as-of" in capsys.readouterr().err


def test_a_sheet_without_the_providers_columns_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # the AWS sheet given as Compute Engine's: family/core/ram columns missing
    assert snapshot.main(["sheet", "gce", str(SOURCES / "aws-us-east-1.csv"), "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the header lacks family, core, ram" in err
    assert not list(tmp_path.iterdir())
