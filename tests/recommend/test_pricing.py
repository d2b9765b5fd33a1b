"""``recommend`` priced (``pricing:`` in .allocatable.yaml): each recommended reservation change's monthly cost and the
recommended commit percent's monthly savings, from the builtin snapshot's published prices with the arithmetic beside
each figure; an unknown price said as unknown, never $0; no ``pricing:``, no cost anywhere.

Published price used (USD, Linux on-demand, us-east-1): m5.xlarge $0.192 an hour — Karpenter's
zz_generated.pricing_aws.go, "generated at 2026-01-19T13:23:24Z for us-east-1" (the builtin snapshot's source;
tests/cost/test_prices.py cites it too). Its split into unit prices is OpenCost's (docs/cost.md): weight w =
0.031611 / 0.004237 = 7.460703 (OpenCost configs/default.json's cpu and RAM prices); an m5.xlarge pool of the example
has 4 cores and 15896Mi = 15.5234375 GiB, so memory = 0.192 / (4 × 7.460703 + 15.5234375) = 0.192 / 45.366251 =
$0.00423222 per GiB-hour and cpu = 0.00423222 × 7.460703 = $0.0315753 per core-hour.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import run_cli
from support.factory import Document, settings, write_file

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recommend"
USAGE = sorted(str(p) for p in (EXAMPLE / "usage").glob("*.json"))
SNAPSHOT = ["--snapshot", str(EXAMPLE / "snapshot.json")]
NODES = ["--nodes", str(EXAMPLE / "nodes.json")]


def _general(out: str) -> dict:
    doc = json.loads(out)
    return next(p for p in doc["pools"] if p["name"] == "general")


def test_each_reservation_change_and_the_commit_savings_priced_from_published_prices() -> None:
    done = run_cli(
        "recommend", str(EXAMPLE / "policies"), "--pool", "general", "--usage", *USAGE, *SNAPSHOT, "-o", "json"
    )
    assert done.exit_code == 0, done.stderr
    doc = json.loads(done.stdout)
    pool = _general(done.stdout)
    monthly = {(r["slice"], r["resource"]): (r["change"], r["monthly"]) for r in pool["reservations"]}
    # Δ × unit price × 3 nodes × 730 hours (the pool declares count 3; all three measured):
    assert monthly[("kube", "memory")] == ("+219Mi", "1.98")  # 219/1024 GiB × 0.00423222 × 2190 = 1.9822
    assert monthly[("system", "memory")] == ("+360Mi", "3.26")  # 360/1024 × 0.00423222 × 2190 = 3.2585
    assert monthly[("total", "memory")] == ("+579Mi", "5.24")  # 579/1024 × 0.00423222 × 2190 = 5.2407
    assert monthly[("kube", "cpu")] == ("+140m", "9.68")  # 0.140 × 0.0315753 × 2190 = 9.6810
    assert monthly[("system", "cpu")] == ("+180m", "12.45")  # 0.180 × 0.0315753 × 2190 = 12.4470
    assert monthly[("total", "cpu")] == ("+320m", "22.13")  # 0.320 × 0.0315753 × 2190 = 22.1280
    cost = pool["cost"]
    assert cost["nodes"] == 3
    assert cost["price"]["hourly"] == "0.1920" and cost["price"]["asOf"] == "2026-01-19"
    assert cost["reservationsMonthly"] == "27.37"  # the total rows: 5.2407 + 22.1280 = 27.3687
    # The re-pack (docs/recommend.md "What it buys": one node freed, none added): 1 × 0.192 × 730 = 140.16
    assert cost["commit"] == {"nodesFreed": 1, "nodesToAdd": 0, "monthlySavings": "140.16"}
    assert doc["cost"]["currency"] == "USD" and doc["cost"]["hoursPerMonth"] == 730
    assert doc["cost"]["commitMonthlySavings"] == "140.16" and doc["cost"]["unknown"] == []


def test_text_and_markdown_say_the_same_figures() -> None:
    args = ["recommend", str(EXAMPLE / "policies"), "--pool", "general", "--usage", *USAGE, *SNAPSHOT]
    text = run_cli(*args).stdout
    assert "+$22.13" in text and "+$5.24" in text
    assert "the reservations as recommended +$27.37/month" in text
    assert "saves $140.16/month (1 × $0.1920 × 730)" in text
    markdown = run_cli(*args, "-o", "markdown").stdout
    assert "| +320m | +\\$22.13 |" in markdown  # "$" escaped as the cost sections escape it (no TeX on GitHub)
    assert "saves \\$140.16/month" in markdown


def test_without_the_snapshot_there_is_no_commit_figure() -> None:
    done = run_cli("recommend", str(EXAMPLE / "policies"), "--pool", "general", "--usage", *USAGE, *NODES, "-o", "json")
    cost = _general(done.stdout)["cost"]
    assert cost["commit"] is None and cost["reservationsMonthly"] == "27.37"
    assert json.loads(done.stdout)["cost"]["commitMonthlySavings"] == "0.00"


def _copy(tmp_path: Path, settings: Document | None) -> Path:
    policies = tmp_path / "policies"
    shutil.copytree(EXAMPLE / "policies", policies)
    (policies / ".allocatable.yaml").unlink()
    if settings is not None:
        write_file(policies / ".allocatable.yaml", settings)
    return policies


def _priced(region: str) -> Document:
    return settings(pricing={"region": region, "staleAfterDays": 3650})


def test_an_unknown_price_is_said_never_zero(tmp_path: Path) -> None:
    policies = _copy(tmp_path, _priced("mars-east-1"))  # a region the builtin snapshot has no table for
    args = ["recommend", str(policies), "--pool", "general", "--usage", *USAGE, *SNAPSHOT]
    done = run_cli(*args, "-o", "json")
    assert done.exit_code == 0, done.stderr
    doc = json.loads(done.stdout)
    cost = _general(done.stdout)["cost"]
    assert cost["price"]["known"] is False and "mars-east-1" in cost["price"]["reason"]
    assert cost["reservationsMonthly"] is None and cost["commit"]["monthlySavings"] is None
    assert all(r["monthly"] is None for r in _general(done.stdout)["reservations"])
    assert doc["cost"]["unknown"] == ["general"]
    text = run_cli(*args).stdout
    assert "price unknown" in text and "never as $0" in text and "$0.00" not in text


def test_a_shrinking_reservation_is_a_negative_cost(tmp_path: Path) -> None:
    """A hand scenario: the current system-reserved cpu set above the recommendation, so the change gives capacity
    back to the pods."""
    policies = _copy(tmp_path, _priced("us-east-1"))
    reservations = policies / "reservations.yaml"
    text = reservations.read_text("utf-8")
    assert "cpu: 50m" in text
    # text: the docs example's own file, changed in the one value the scenario is about
    reservations.write_text(text.replace("cpu: 50m", "cpu: 1000m"), "utf-8")
    done = run_cli("recommend", str(policies), "--pool", "general", "--usage", *USAGE, *NODES, "-o", "json")
    rows = {(r["slice"], r["resource"]): r for r in _general(done.stdout)["reservations"]}
    system_cpu = rows[("system", "cpu")]
    # recommended 230m, current 1000m: −770m × 0.0315753 × 2190 = −53.2452
    assert system_cpu["change"] == "-770m" and system_cpu["monthly"] == "-53.25"
    # total: 60m + 1000m = 1060m → 430m: −630m × 0.0315753 × 2190 = −43.5643
    assert rows[("total", "cpu")]["monthly"] == "-43.56"


def test_no_pricing_no_cost(tmp_path: Path) -> None:
    policies = _copy(tmp_path, None)
    done = run_cli("recommend", str(policies), "--pool", "general", "--usage", *USAGE, *SNAPSHOT, "-o", "json")
    doc = json.loads(done.stdout)
    assert "cost" not in doc and "cost" not in _general(done.stdout)
    assert all("monthly" not in r for r in _general(done.stdout)["reservations"])
    assert "$" not in run_cli("recommend", str(policies), "--usage", *USAGE, *SNAPSHOT).stdout
