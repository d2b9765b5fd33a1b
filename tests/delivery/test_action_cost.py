"""The Action with prices (docs/cost.md): the job summary leads with the money, ``monthly-cost-change`` outputs it, and
more than ``impact.maxMonthlyCostIncrease`` fails the job.

The repo and snapshot are the docs' worked example (test_action_impact.py's docstring works the simulation out): the
autoscaler adds 1 × c6i.2xlarge to eks-batch, $0.34 an hour in us-east-1 on-demand (Karpenter's
zz_generated.pricing_aws.go, "generated at 2026-01-19T13:23:24Z for us-east-1") × 730 hours = $248.20 a month.
"""

from __future__ import annotations

from pathlib import Path

from test_action import run_action
from test_action_impact import SNAPSHOT, _pull_request

from support.factory import Document, settings


def _priced(**impact: int) -> Document:
    """Prices for us-east-1 (the builtin snapshot's, never stale here), the 2 new Pending pods the example makes allowed,
    and the ``impact`` limits given."""
    return settings(pricing={"region": "us-east-1", "staleAfterDays": 3650}, impact={"maxNewPendingPods": 2, **impact})


def test_the_money_leads_the_summary_and_is_an_output(tmp_path: Path) -> None:
    ws = _pull_request(tmp_path, _priced())
    run = run_action(ws, tmp_path / "run", {**SNAPSHOT, "capacity-report": ""}, {"base_ref": "main"})
    assert run.outputs["monthly-cost-change"] == "248.20", run.logs["diff"]
    assert "💰 this change adds \\$248.20/month (1 × c6i.2xlarge on eks-batch)" in run.summary
    assert run.summary.index("💰") < run.summary.index("### Capacity diff")
    assert run.status["Result"] == "success", run.logs


def test_more_than_the_limit_fails_the_job(tmp_path: Path) -> None:
    ws = _pull_request(tmp_path, _priced(maxMonthlyCostIncrease=200))
    run = run_action(ws, tmp_path / "run", {**SNAPSHOT, "capacity-report": ""}, {"base_ref": "main"})
    assert run.step_outputs["diff"]["cost-exit"] == "1", run.logs["diff"]
    assert run.status["Result"] == "failure"
    assert "more to the monthly bill than impact.maxMonthlyCostIncrease" in run.logs["Result"]


def test_without_prices_nothing_says_a_currency(tmp_path: Path) -> None:
    ws = _pull_request(tmp_path)
    run = run_action(ws, tmp_path / "run", {**SNAPSHOT, "capacity-report": ""}, {"base_ref": "main"})
    assert run.outputs["monthly-cost-change"] == "" and "💰" not in run.summary
