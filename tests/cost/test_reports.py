"""Prices in explain and diff, end to end through the CLI, on scenarios worked out by hand.

Prices: m5.xlarge $0.192 and c6i.2xlarge $0.34 an hour in us-east-1, on-demand Linux (Karpenter's
zz_generated.pricing_aws.go, "generated at 2026-01-19T13:23:24Z for us-east-1", from the AWS Pricing API).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from conftest import run_cli
from support import factory
from support.factory import (
    TIER,
    Document,
    commit_class,
    node_pool,
    node_selector,
    reservation_policy,
    write_file,
    write_repo,
)

PRICING = {"region": "us-east-1", "cpuToMemoryWeight": 8, "staleAfterDays": 3650}


def _settings(**fields: Any) -> Document:
    return factory.settings(pricing=PRICING, **fields)


def _pool(instance_type: str = "m5.xlarge", count: int = 3, **spec: Any) -> Document:
    """Pool general: ``count`` EKS nodes of 4 cpu, 16Gi, 80Gi and 58 pods, labelled with ``instance_type``."""
    return node_pool(
        "general",
        labels={"node.kubernetes.io/instance-type": instance_type},
        cpu="4",
        memory="16Gi",
        capacity={"ephemeral-storage": "80Gi", "pods": "58"},
        count=count,
        platform="eks",
        **spec,
    )


def _reservation(kube_cpu: str = "500m") -> Document:
    return reservation_policy(
        "general",
        selector=node_selector(TIER, ["general"]),
        kubeReserved={"cpu": kube_cpu, "memory": "1Gi"},
        systemReserved={"cpu": "100m", "memory": "512Mi"},
        evictionHard={"memory.available": "512Mi"},
    )


COMMIT = commit_class("double-cpu", percents={"cpu": 200, "memory": 100})


def test_explain_prices_the_pool_its_slices_and_a_core(tmp_path: Path) -> None:
    root = write_repo(
        tmp_path,
        {".allocatable.yaml": _settings(), "pools.yaml": _pool(), "res.yaml": _reservation(), "commit.yaml": COMMIT},
    )
    res = run_cli("explain", str(root), "-o", "json")
    assert res.exit_code == 0, res.stderr
    cost = json.loads(res.stdout)["cost"]
    (pool,) = cost["pools"]
    # m5.xlarge $0.192/h; weight 8: memory = 0.192 / (4 × 8 + 16) = 0.004 per GiB-hour, cpu = 0.032 per core-hour
    assert pool["price"]["unitPrices"] == {
        "cpuCoreHour": "0.032000",
        "memoryGiBHour": "0.004000",
        "method": "ratio 8.0000",
    }
    assert pool["nodeMonthly"] == "140.16"  # 0.192 × 730
    assert pool["poolMonthly"] == "420.48"  # × 3 nodes
    # kube-reserved 0.5 core × 0.032 + 1 GiB × 0.004 = 0.020/h → 14.60/month, × 3 = 43.80
    # system-reserved 0.1 × 0.032 + 0.5 × 0.004 = 0.0052/h → 3.796 → 3.80, × 3 = 11.388 → 11.39
    # eviction-hard memory.available 512Mi: 0.5 × 0.004 = 0.002/h → 1.46, × 3 = 4.38
    assert pool["reserved"] == {
        "kube-reserved": {"nodeMonthly": "14.60", "poolMonthly": "43.80"},
        "system-reserved": {"nodeMonthly": "3.80", "poolMonthly": "11.39"},
        "eviction-hard": {"nodeMonthly": "1.46", "poolMonthly": "4.38"},
    }
    assert pool["reservedNodeMonthly"] == "19.86"  # 0.0272/h × 730 = 19.856
    assert pool["reservedPoolMonthly"] == "59.57"  # × 3 = 59.568
    # cpu share 4 × 0.032 × 730 = 93.44/month over 3.4 allocatable cores = 27.48, over 6.8 committed (200%) = 13.74
    assert pool["perCoreMonthly"] == {"allocatable": "27.48", "committed": "13.74"}
    # memory share 16 × 0.004 × 730 = 46.72 over 16 − 1 − 0.5 − 0.5 = 14 GiB = 3.337 → 3.34, committed the same
    assert pool["perGiBMonthly"] == {"allocatable": "3.34", "committed": "3.34"}
    assert (cost["fleetMonthly"], cost["reservedMonthly"], cost["hoursPerMonth"]) == ("420.48", "59.57", 730)

    text = run_cli("explain", str(root)).stdout
    assert "cost (USD, 730 hours a month): 3 priced nodes $420.48/month, of which reservations $59.57/month" in text
    assert "  NodePool/general  m5.xlarge  $0.1920/node-hour  $140.16/node-month × 3 = $420.48/month" in text
    assert "one core-month: allocatable $27.48 → committed $13.74" in text
    for fmt in ("markdown", "html", "yaml"):
        out = run_cli("explain", str(root), "-o", fmt)
        assert out.exit_code == 0 and "420.48" in out.stdout, fmt


def test_an_unknown_type_is_named_and_not_counted(tmp_path: Path) -> None:
    root = write_repo(tmp_path, {".allocatable.yaml": _settings(), "pools.yaml": _pool("m99.mega")})
    cost = json.loads(run_cli("explain", str(root), "-o", "json").stdout)["cost"]
    assert cost["unknown"] == ["NodePool/general"]
    assert cost["fleetMonthly"] == "0.00"
    assert "m99.mega is not in the builtin aws us-east-1 on-demand table" in cost["pools"][0]["price"]["reason"]
    text = run_cli("explain", str(root)).stdout
    assert "NodePool/general: price unknown: m99.mega is not in the builtin" in text


def test_without_pricing_no_report_says_a_currency(tmp_path: Path) -> None:
    root = write_repo(tmp_path, {"pools.yaml": _pool()})
    for fmt in ("text", "json", "markdown"):
        out = run_cli("explain", str(root), "-o", fmt).stdout
        assert "$" not in out.replace("$schema", "") and "USD" not in out, fmt


def test_a_spec_price_wins_and_the_report_says_over_what(tmp_path: Path) -> None:
    root = write_repo(tmp_path, {".allocatable.yaml": _settings(), "pools.yaml": _pool(price={"monthly": "100.00"})})
    (p,) = json.loads(run_cli("explain", str(root), "-o", "json").stdout)["cost"]["pools"]
    assert p["nodeMonthly"] == "100.00" and p["price"]["hourly"] == "0.1370"  # 100 / 730 = 0.136986
    assert p["price"]["overridden"] == ["builtin aws us-east-1 on-demand, as of 2026-01-19: $0.1920/h"]


@pytest.mark.parametrize(
    ("pricing", "words"),
    [
        ({"currency": "EUR"}, "pricing.currency is EUR, but the builtin snapshot is in USD"),
        ({"source": "file", "file": "prices/none.json"}, "prices/none.json: pricing.file cannot be read"),
    ],
)
def test_bad_pricing_settings_are_one_line_and_exit_2(tmp_path: Path, pricing: dict[str, str], words: str) -> None:
    root = write_repo(tmp_path, {".allocatable.yaml": factory.settings(pricing=pricing), "pools.yaml": _pool()})
    res = run_cli("explain", str(root))
    assert res.exit_code == 2 and res.stdout == ""
    assert words in res.stderr and res.stderr.count("\n") == 1


def _git(root: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-C", str(root), *args],
        check=True,
        capture_output=True,
        env={
            "GIT_AUTHOR_NAME": "t",
            "GIT_AUTHOR_EMAIL": "t@t",
            "GIT_COMMITTER_NAME": "t",
            "GIT_COMMITTER_EMAIL": "t@t",
            "PATH": "/usr/bin:/bin",
            "HOME": str(root),
        },
    )


def _pr(tmp_path: Path, settings: Document, head_pool: Document) -> Path:
    root = write_repo(
        tmp_path / "repo", {".allocatable.yaml": settings, "pools.yaml": _pool(), "res.yaml": _reservation()}
    )
    _git(root, "init", "-q", "-b", "main")
    _git(root, "add", "-A")
    _git(root, "commit", "-qm", "base")
    write_file(root / "pools.yaml", head_pool)
    return root


def test_diff_prices_a_node_count_change_and_the_gate_fails_past_it(tmp_path: Path) -> None:
    root = _pr(tmp_path, _settings(impact={"maxMonthlyCostIncrease": 200}), _pool(count=5))
    res = run_cli("diff", str(root), "--base", "main", "-o", "json")
    cost = json.loads(res.stdout)["cost"]
    # 2 more m5.xlarge: 2 × 0.192 × 730 = 280.32 a month, more than the 200 allowed
    assert cost["monthlyChange"] == "280.32"
    assert cost["pools"][0]["nodeCountMonthly"] == "280.32"
    assert cost["capacityEquivalentMonthly"] == "0.00"  # per-node allocatable did not move
    assert cost["failed"] is True and res.exit_code == 1
    assert "cost: this change adds $280.32/month (2 × m5.xlarge added to general)" in res.stderr
    md = run_cli("diff", str(root), "--base", "main", "-o", "markdown").stdout
    lines = md.splitlines()
    assert lines[1] == (
        "#### 💰 this change adds \\$280.32/month (2 × m5.xlarge added to general); impact.maxMonthlyCostIncrease "
        "\\$200.00: fails"
    )
    assert "<details><summary>How this is priced</summary>" in md


def test_diff_prices_the_capacity_a_reservation_takes(tmp_path: Path) -> None:
    root = _pr(tmp_path, _settings(), _pool())
    write_file(root / "res.yaml", _reservation(kube_cpu="1500m"))
    res = run_cli("diff", str(root), "--base", "main", "-o", "json")
    cost = json.loads(res.stdout)["cost"]
    # 1 core less committed per node × 3 nodes × 0.032 per core-hour × 730 = 70.08 a month of capacity
    assert cost["capacityEquivalentMonthly"] == "70.08"
    assert cost["monthlyChange"] == "0.00" and res.exit_code == 0
    text = run_cli("diff", str(root), "--base", "main").stdout
    assert (
        "cost (USD, 730 hours a month): this change adds no nodes; it takes committed capacity worth $70.08/month"
        in text
    )


def test_the_comment_says_nothing_about_cost_when_nothing_moved(tmp_path: Path) -> None:
    root = _pr(tmp_path, _settings(), _pool())
    md = run_cli("diff", str(root), "--base", "main", "-o", "markdown").stdout
    assert "$" not in md and "💰" not in md


def test_the_gate_without_prices_is_a_usage_error(tmp_path: Path) -> None:
    root = _pr(tmp_path, factory.settings(impact={"maxMonthlyCostIncrease": 10}), _pool())
    res = run_cli("diff", str(root), "--base", "main")
    assert res.exit_code == 2 and "impact.maxMonthlyCostIncrease needs prices" in res.stderr


def test_verify_prices_what_rolling_the_repo_out_does_to_the_fleet(tmp_path: Path) -> None:
    """docs/examples/impact: the repo gives the batch nodes 1 core less than they run with; the autoscaler adds one
    c6i.2xlarge for the two report pods (docs/impact.md works it out): 1 × 0.34 × 730 = 248.20 a month."""
    import shutil

    examples = Path(__file__).resolve().parents[2] / "docs" / "examples" / "impact"
    root = tmp_path / "policies"
    shutil.copytree(examples / "policies", root)
    (root / ".allocatable.yaml").write_text(
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\npricing: {region: us-east-1, staleAfterDays: 3650}\n"
    )
    snapshot = str(examples / "snapshot.json")
    res = run_cli("verify", str(root), "--nodes", snapshot, "--pods", snapshot, "-o", "json")
    cost = json.loads(res.stdout)["impact"]["cost"]
    assert cost["monthlyChange"] == "248.20"
    assert [(f["pool"], f["nodesAdded"], f["monthly"]) for f in cost["fleet"]] == [("eks-batch", 1, "248.20")]
    text = run_cli("verify", str(root), "--nodes", snapshot, "--pods", snapshot).stdout
    assert (
        "cost (USD, 730 hours a month): rolling the policy repo out adds $248.20/month (1 × c6i.2xlarge on eks-batch)"
        in text
    )
