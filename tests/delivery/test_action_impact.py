"""The Action's capacity diff with a cluster snapshot (``nodes-file`` and ``pods-file``): the simulation of the change
on that cluster lands in the job summary, ``pods-pending`` counts the pods it leaves newly Pending, and more than
``impact.maxNewPendingPods`` (default 0) fails the job (issue 23).

The repo and snapshot are the docs' worked example: ``docs/examples/impact-pr`` (``base/`` on main: the batch pool's
kube-reserved cpu 500m, what the nodes run; ``head/`` on the pull request's branch: 1500m) and
``docs/examples/impact/snapshot.json`` (one ``kubectl get nodes,pods -A -o json`` List, given to both inputs). Worked
by hand in tests/impact/test_impact_cli.py's docstring: each batch node goes from 7500m to 6500m allocatable cpu,
its kubelet re-admits 100 + 2500 + 2500 = 5100m and then rejects the 2000m report pod (7100m > 6500m); neither report
pod fits the other batch node or a general one: 2 pods newly Pending, and one new batch node (6400m free after
node-exporter) takes both (4000m): the autoscaler adds 1 × c6i.2xlarge.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

from delivery_support import REPO_ROOT, commit_all, git, init_repo
from test_action import run_action

from support.factory import Content, write_repo

EXAMPLE = REPO_ROOT / "docs" / "examples"
HEADLINE = "this change leaves 2 more pods Pending on eks-batch; the autoscaler would add 1 × c6i.2xlarge"


def _pull_request(tmp_path: Path, settings: Content | None = None) -> Path:
    """Upstream: base/ as policies/ on main, with the snapshot; branch feature: head/ over it. The workspace is the
    shallow clone of the branch that actions/checkout makes."""
    upstream = init_repo(tmp_path / "upstream")
    shutil.copytree(EXAMPLE / "impact-pr" / "base", upstream / "policies")
    shutil.copy(EXAMPLE / "impact" / "snapshot.json", upstream / "snapshot.json")
    if settings is not None:
        write_repo(upstream, {"policies/.allocatable.yaml": settings})
    commit_all(upstream, "the cluster as it runs")
    git(upstream, "checkout", "-q", "-b", "feature")
    for f in (EXAMPLE / "impact-pr" / "head").iterdir():
        shutil.copy(f, upstream / "policies" / f.name)
    commit_all(upstream, "batch kube-reserved cpu 500m -> 1500m")
    ws = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", "--depth=1", "--branch", "feature", f"file://{upstream}", str(ws))
    return ws


SNAPSHOT = {"nodes-file": "snapshot.json", "pods-file": "snapshot.json"}


def test_the_simulation_is_in_the_summary_and_fails_the_job(tmp_path: Path) -> None:
    ws = _pull_request(tmp_path)
    run = run_action(ws, tmp_path / "run", {**SNAPSHOT, "capacity-report": ""}, {"base_ref": "main"})
    assert run.step_outputs["diff"]["impact-exit"] == "1", run.logs["diff"]
    assert run.outputs["pods-pending"] == "2"
    assert run.outputs["capacity-changed"] == "true"
    assert HEADLINE in run.summary
    assert run.status["Result"] == "failure"
    assert "more pods newly Pending than impact.maxNewPendingPods" in run.logs["Result"]


def test_the_attached_report_is_the_reviewers_page_with_the_impact(tmp_path: Path) -> None:
    ws = _pull_request(tmp_path)
    run = run_action(ws, tmp_path / "run", SNAPSHOT, {"base_ref": "main"})
    assert run.status["Result"] == "failure"  # the page is written all the same: the Result step decides
    page = Path(run.outputs["capacity-report"]).read_text(encoding="utf-8")
    assert "<title>Capacity diff: origin/main" in page and '<section id="impact"' in page
    assert HEADLINE in page
    # eks-batch: Pending 0 → 2, the autoscaler 0 → 1 node (worked by hand in the module docstring)
    assert "<td>0 → 2</td><td>0 → 1 (≥ 1)</td>" in page


def test_the_simulation_runs_once_for_the_comment_the_outputs_and_the_page(tmp_path: Path) -> None:
    """The diff step writes the markdown, the JSON and the reviewer's page from one run (``--json-output``,
    ``--html-output``); the report step attaches that page. Each run of the simulation says its one-line summary on
    stderr, so the logs hold it once; the page is byte for byte what ``diff -o html`` writes alone."""
    ws = _pull_request(tmp_path)
    run = run_action(ws, tmp_path / "run", SNAPSHOT, {"base_ref": "main"})
    said = "impact: 4 nodes, 15 pods: 2 displaced, 2 newly Pending"
    # (the verify step simulates another change, the repo against what the nodes report, and says so on its own)
    assert (run.logs["diff"].count(said), run.logs["report"].count(said)) == (1, 0), run.logs
    page = Path(run.outputs["capacity-report"])
    assert page == Path(run.step_outputs["diff"]["html-file"])
    base = run.step_outputs["base"]["base"]
    command = [
        sys.executable,
        "-m",
        "renderer",
        "diff",
        f"--base={base}",
        "--nodes=snapshot.json",
        "--pods=snapshot.json",
    ]
    separate = {
        fmt: subprocess.run(
            [*command, "-o", fmt, "--", "policies"], cwd=ws, capture_output=True, check=False, timeout=300
        )
        for fmt in ("html", "markdown")
    }
    assert separate["html"].returncode == 1, separate["html"].stderr
    assert page.read_bytes() == separate["html"].stdout
    assert Path(run.step_outputs["diff"]["diff-file"]).read_bytes() == separate["markdown"].stdout


def test_a_threshold_that_allows_them_passes(tmp_path: Path) -> None:
    settings = "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nimpact: {maxNewPendingPods: 2}\n"
    ws = _pull_request(tmp_path, settings)
    run = run_action(ws, tmp_path / "run", {**SNAPSHOT, "capacity-report": ""}, {"base_ref": "main"})
    assert run.step_outputs["diff"]["impact-exit"] == "0", run.logs["diff"]
    assert run.outputs["pods-pending"] == "2" and HEADLINE in run.summary
    assert run.status["Result"] == "success", run.logs


def test_without_a_snapshot_the_diff_simulates_nothing(tmp_path: Path) -> None:
    ws = _pull_request(tmp_path)
    run = run_action(ws, tmp_path / "run", {"capacity-report": ""}, {"base_ref": "main"})
    assert run.outputs["pods-pending"] == "" and "impact-exit" not in run.step_outputs["diff"]
    assert "Pending" not in run.summary and run.status["Result"] == "success", run.logs


def test_nodes_that_run_the_base_await_the_change_and_are_not_drift(tmp_path: Path) -> None:
    """The snapshot's batch nodes report 7500m, what main predicts (kube-reserved 500m of 8 cores); the pull request
    predicts 6500m. In the pull request they await the change: verify passes, nodes-drifted counts none, and the
    summary lists them. On a push (no base) the same nodes differ from the branch's prediction: drift."""
    ws = _pull_request(tmp_path)
    snapshot = json.loads((ws / "snapshot.json").read_text(encoding="utf-8"))
    only_nodes = {**snapshot, "items": [i for i in snapshot["items"] if i["kind"] == "Node"]}
    (ws / "nodes.json").write_text(json.dumps(only_nodes), encoding="utf-8")
    nodes = {"nodes-file": "nodes.json", "capacity-report": ""}
    run = run_action(ws, tmp_path / "run", nodes, {"base_ref": "main"})
    assert run.outputs["nodes-drifted"] == "0", run.logs["verify"]
    assert "2 await the change (they match the base)" in run.logs["verify"]
    assert run.status["Result"] == "success", run.logs
    push = run_action(ws, tmp_path / "push", nodes, {"event_name": "push"})
    assert push.outputs["nodes-drifted"] == "2", push.logs["verify"]
