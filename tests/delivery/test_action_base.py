"""The Action's ``base`` step (``.github/action/run.sh base``): it fetches the base and, in the shallow clone
actions/checkout makes, deepens both sides step by step (bounded) until the merge-base of the base and HEAD is there,
so that ``lint --base``, ``diff --base`` and ``verify --base`` compare with the merge-base (issue 23); when it cannot,
the step fails with one clear error.

The upstream repos are the scaffold of ``allocatable init``: one pool ``general`` of 8 cores, 3 nodes, its
ReservationPolicy reserving 100m + 100m of cpu (7.8 allocatable cores per node), CommitClass general-burst at 150%
(7.8 × 1.5 = 11.7 committed cores per node)."""

from __future__ import annotations

from pathlib import Path

import pytest
from delivery_support import REPO_ROOT, commit_all, git, init_repo
from test_action import run_action

from conftest import run_cli
from support.factory import write_repo


def _scaffold(path: str) -> str:
    return (REPO_ROOT / "renderer/scaffold" / path).read_text().replace("@@REPO@@", "o/r").replace("@@VERSION@@", "0")


def _upstream(tmp_path: Path, *, main_commits: int = 3, feature_commits: int = 1) -> tuple[Path, dict[str, str]]:
    """B: the scaffold. feature, from B: general-burst 150% → 200% (then empty commits). main, after B: the pool
    grows from 3 to 9 nodes (then empty commits), so its tip differs from the merge-base in what the diff shows."""
    upstream = init_repo(tmp_path / "upstream")
    assert run_cli("init", str(upstream)).exit_code == 0
    b = commit_all(upstream, "policies")
    git(upstream, "checkout", "-q", "-b", "feature")
    write_repo(
        upstream, {"policies/commitclasses/general-burst.yaml": _scaffold("commitclass.yaml").replace("150", "200")}
    )
    assert run_cli("render", "policies", cwd=upstream).exit_code == 0
    f = commit_all(upstream, "raise general-burst to 200%")
    for n in range(feature_commits - 1):
        commit_all(upstream, f"feature {n}")
    git(upstream, "checkout", "-q", "main")
    write_repo(upstream, {"policies/pools/general.yaml": _scaffold("nodepool.yaml").replace("count: 3", "count: 9")})
    m = commit_all(upstream, "main: general grows to 9 nodes")
    for n in range(main_commits - 1):
        m = commit_all(upstream, f"main {n}")
    return upstream, {"B": b, "F": f, "M": m}


def _pull_request(tmp_path: Path, upstream: Path) -> Path:
    ws = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", "--depth=1", "--branch", "feature", f"file://{upstream}", str(ws))
    assert git(ws, "rev-parse", "--is-shallow-repository").strip() == "true"
    return ws


def test_the_base_step_deepens_to_the_merge_base(tmp_path: Path) -> None:
    upstream, c = _upstream(tmp_path)
    ws = _pull_request(tmp_path, upstream)
    run = run_action(ws, tmp_path / "run", {}, {"base_ref": "main", "event_name": "pull_request"})
    assert run.status["base"] == "success", run.logs["base"]
    assert run.step_outputs["base"]["base"] == "origin/main"
    b, m = c["B"][:12], c["M"][:12]
    assert (
        f"allocatable: comparing with origin/main at its merge-base with HEAD, {b} (origin/main is at {m})"
        in (run.logs["base"])
    )
    # The job summary's diff: the pull request's change only. Against main's tip it would say 9 → 3 nodes.
    assert f"Compared with origin/main at its merge-base with HEAD, {b} (origin/main is at {m})." in run.summary
    assert "| `general` | 3 | 11.7 → 15.6 (+33.3%) |" in run.summary  # 7.8 × 150% → 7.8 × 200%
    assert "9 → 3" not in run.summary
    assert run.status["Result"] == "success", run.logs


def test_unrelated_histories_fail_the_step(tmp_path: Path) -> None:
    upstream, _ = _upstream(tmp_path)
    git(upstream, "checkout", "-q", "--orphan", "feature2")
    commit_all(upstream, "a history of its own")
    git(upstream, "branch", "-q", "-D", "feature")
    git(upstream, "branch", "-q", "-m", "feature")
    ws = _pull_request(tmp_path, upstream)
    _fails(
        ws,
        tmp_path / "run",
        "the two histories are unrelated; check out with actions/checkout fetch-depth: 0, or give a base-ref on this branch's history",
    )


def _fails(ws: Path, tmp: Path, why: str) -> None:
    """The base step fails with one error line saying why, and the job with it."""
    run = run_action(ws, tmp, {}, {"base_ref": "main", "event_name": "pull_request"})
    assert run.status["base"] == "failure" and run.status["Result"] == "failure"
    assert f"::error title=allocatable::no merge-base of origin/main and HEAD: {why}" in run.logs["base"]


def test_the_deepening_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The branch point is 6 commits below main's tip and 4 below the pull request's; two steps of one commit each
    do not reach it, and the step says so instead of comparing with something else."""
    upstream, _ = _upstream(tmp_path, main_commits=6, feature_commits=4)
    ws = _pull_request(tmp_path, upstream)
    monkeypatch.setenv("ALLOCATABLE_DEEPEN_STEPS", "1 1")
    _fails(ws, tmp_path / "run", "not within 2 more commits of history on each side (git fetch --deepen); check out")
    # With the default steps the same clone finds it.
    monkeypatch.delenv("ALLOCATABLE_DEEPEN_STEPS")
    again = run_action(ws, tmp_path / "again", {}, {"base_ref": "main", "event_name": "pull_request"})
    assert again.status["base"] == "success", again.logs["base"]


def test_a_full_clone_needs_no_fetch(tmp_path: Path) -> None:
    upstream, c = _upstream(tmp_path)
    ws = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", "--branch", "feature", f"file://{upstream}", str(ws))
    run = run_action(ws, tmp_path / "run", {}, {"base_ref": "main", "event_name": "pull_request"})
    assert run.status["base"] == "success"
    assert f"at its merge-base with HEAD, {c['B'][:12]}" in run.logs["base"]
