"""Issue 23's second hole, as a new user met it: a one-letter typo in a ReservationPolicy's selector key
(``example.com/teir``) made the policy select nothing; lint exited 0 with a warning (AL104), ``render`` deleted the
pool's kubelet configuration ("1 stale removed"), and a pull request with ``fail-on: error`` passed. Now every one
of them stops it: lint (AL104, an error with "did you mean"), lint --base and diff (AL215, naming the reservation the
pool loses), render (refuses at lint; AL814 where lint cannot tell), and the Action.

The repo is ``allocatable init``'s scaffold: pool ``general`` (8 cores, 32Gi, 100Gi ephemeral storage, platform
generic) and ReservationPolicy ``general``: systemReserved cpu 100m, memory 512Mi, ephemeral-storage 1Gi;
kubeReserved cpu 100m, memory 1Gi, ephemeral-storage 1Gi; evictionHard memory.available 100Mi, nodefs.available
10%. Reserved per node with it: cpu 0.2; memory 512Mi + 1Gi + 100Mi = 1636Mi; ephemeral-storage 1Gi + 1Gi + 10% of
100Gi. Without it (platform generic: no platform default), the kubelet's own default evictionHard only: cpu 0,
memory 100Mi, ephemeral-storage 10% of 100Gi — the 2Gi of the two reservations are what is lost there.
"""

from __future__ import annotations

import json
from pathlib import Path

from delivery_support import commit_all, git, init_repo
from test_action import run_action

from conftest import run_cli

RP = "policies/reservations/general.yaml"


def _repo(tmp_path: Path) -> Path:
    repo = init_repo(tmp_path / "repo")
    assert run_cli("init", str(repo)).exit_code == 0
    commit_all(repo, "policies")
    return repo


def _typo(repo: Path, key: str = "example.com/teir") -> None:
    path = repo / RP
    path.write_text(path.read_text().replace("key: example.com/tier", f"key: {key}"))


def _findings(res_stdout: str) -> list[dict[str, str]]:
    data: list[dict[str, str]] = json.loads(res_stdout)["findings"]
    return data


def test_the_issue_example_in_lint_diff_and_render(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    _typo(repo)
    lint = run_cli("lint", "policies", "-o", "json", cwd=repo)
    assert lint.exit_code == 1
    (al104,) = [f for f in _findings(lint.stdout) if f["code"] == "AL104"]
    assert al104["severity"] == "error" and al104["message"].endswith("did you mean example.com/tier?")
    based = run_cli("lint", "policies", "--base", "main", "-o", "json", cwd=repo)
    assert based.exit_code == 1
    (al215,) = [f for f in _findings(based.stdout) if f["code"] == "AL215"]
    assert al215["severity"] == "error" and al215["object"] == "ReservationPolicy/general"
    assert al215["message"].startswith(
        "NodePool/general loses the reservation ReservationPolicy general gave at main: the selector of "
        "ReservationPolicy general changed since main and no longer matches it; no ReservationPolicy applies to it now"
    )
    # cpu 0.2 → 0; memory 1636Mi → 100Mi; ephemeral-storage loses the two 1Gi reservations (the 10% stays)
    assert "(reserved per node: cpu 0.2 → 0, memory 1.60Gi → 0.10Gi, ephemeral-storage " in (al215["message"])
    diff = json.loads(run_cli("diff", "--base", "main", "-o", "json", cwd=repo).stdout)
    assert sorted(f["code"] for f in diff["findings"]["new"] if f["severity"] == "error") == ["AL104", "AL215"]
    assert diff["summary"]["newErrors"] == 2
    md = run_cli("diff", "--base", "main", "-o", "markdown", cwd=repo).stdout
    assert "<details open>\n<summary>New findings" in md and "`AL215`" in md
    render = run_cli("render", "policies", cwd=repo)
    assert render.exit_code == 1 and "nothing was written" in render.stderr
    assert (repo / "rendered/kubelet/general.yaml").is_file()


def test_a_typo_lint_cannot_call_one_is_still_caught(tmp_path: Path) -> None:
    """``tier`` for ``example.com/tier`` is 12 edits away from every key: AL104 stays a warning (a policy may be
    written ahead of its node group). With a base AL215 still fails the change; render refuses to drop the file."""
    repo = _repo(tmp_path)
    _typo(repo, key="tier")
    lint = run_cli("lint", "policies", "-o", "json", cwd=repo)
    assert lint.exit_code == 0
    assert [f["severity"] for f in _findings(lint.stdout) if f["code"] == "AL104"] == ["warning"]
    based = run_cli("lint", "policies", "--base", "main", "-o", "json", cwd=repo)
    assert based.exit_code == 1
    assert [f["code"] for f in _findings(based.stdout) if f["severity"] == "error"] == ["AL215"]
    render = run_cli("render", "policies", cwd=repo)
    assert render.exit_code == 1
    assert (
        "render would remove rendered/kubelet/general.yaml, the kubelet settings of NodePool/general" in render.stdout
    )
    assert "[AL814]" in render.stdout and (repo / "rendered/kubelet/general.yaml").is_file()


def test_the_pull_request_fails_with_fail_on_error(tmp_path: Path) -> None:
    """The Action, as the issue ran it: the typo committed on a branch, checked out shallow, fail-on: error."""
    upstream = _repo(tmp_path)
    git(upstream, "checkout", "-q", "-b", "feature")
    _typo(upstream)
    commit_all(upstream, "typo")
    ws = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", "--depth=1", "--branch", "feature", f"file://{upstream}", str(ws))
    run = run_action(ws, tmp_path / "run", {"fail-on": "error"}, {"base_ref": "main", "event_name": "pull_request"})
    assert run.status["Result"] == "failure"
    assert "lint failed (exit 1; fail-on: error)" in run.logs["Result"]
    assert "title=AL104::" in run.logs["lint"] and "title=AL215::" in run.logs["lint"]
    assert int(run.outputs["errors"]) == 2


def test_diff_when_the_policy_no_longer_validates(tmp_path: Path) -> None:
    """diff still compares a side with validation errors (it says what it left out); a policy missing there may be
    one that no longer validates, and AL215 says so instead of "deleted"."""
    repo = _repo(tmp_path)
    path = repo / RP
    path.write_text(path.read_text().replace("  maxPods: 110", "  maxPods: 110\n  maxPodz: 110"))
    diff = json.loads(run_cli("diff", "--base", "main", "-o", "json", cwd=repo).stdout)
    assert diff["summary"]["validationErrors"] == {"before": 0, "after": 1}
    (al215,) = [f for f in diff["findings"]["new"] if f["code"] == "AL215"]
    assert "ReservationPolicy general is gone (deleted, or left out: a file does not validate)" in al215["message"]
