"""The published pre-commit hooks, run for real by pre-commit against temporary policy repos.

``pre-commit try-repo`` builds a fresh store (and so a fresh hook environment: a pip install of this project) on
every call, whatever PRE_COMMIT_HOME says. So one test runs ``try-repo`` with every hook on a good repo, and the
per-hook pass/fail tests pin the same snapshot by ``rev`` in a ``.pre-commit-config.yaml``, as users do, with a
PRE_COMMIT_HOME shared by the session: the environment is installed once. These tests need pre-commit, which the
``test`` extra installs; they are never skipped.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from delivery_support import REPO_ROOT, clean_env, git, greedy_class, init_repo, snapshot_checkout

from conftest import run_cli
from renderer.integrations.hooks import all_roots, root_of, roots_for
from renderer.integrations.scaffold import files as scaffold_files
from support.factory import write_repo

pytestmark = pytest.mark.slow

HOOK_IDS = ["allocatable-validate", "allocatable-lint", "allocatable-render-check"]

MEMORY_OVER_COMMIT = greedy_class(tier="general", percent=130)


@pytest.fixture(scope="session")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="session")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return snapshot_checkout(tmp_path_factory.mktemp("hook-repo") / "allocatable")


def new_policy_repo(path: Path, hook_repo: Path | None = None) -> Path:
    """``allocatable init`` output, rendered and committed; with ``hook_repo``, its pre-commit config pins that
    repository at its HEAD instead of the published release."""
    init_repo(path)
    r = run_cli("init", str(path))
    assert r.exit_code == 0, r.stderr
    if hook_repo is not None:  # the config init writes for a published release, pointed at the snapshot
        (pinned,) = [f for f in scaffold_files(released=True) if f.path == ".pre-commit-config.yaml"]
        config = yaml.safe_load(pinned.text)
        config["repos"][0]["repo"] = str(hook_repo)
        config["repos"][0]["rev"] = git(hook_repo, "rev-parse", "HEAD").strip()
        (path / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config, sort_keys=False))
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "init")
    return path


def _pre_commit(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", *args, "--color=never"],
        cwd=repo,
        env=clean_env(PRE_COMMIT_HOME=str(home), PIP_DISABLE_PIP_VERSION_CHECK="1"),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def run_hook(repo: Path, home: Path, hook: str, *files: str) -> subprocess.CompletedProcess[str]:
    """``pre-commit run HOOK`` with the config's pinned snapshot (environment cached in ``home``)."""
    return _pre_commit(repo, home, "run", hook, *(["--files", *files] if files else ["--all-files"]))


def test_manifest_is_valid_and_matches_the_commands() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-manifest", str(REPO_ROOT / ".pre-commit-hooks.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    assert [h["id"] for h in hooks] == HOOK_IDS
    for h in hooks:
        assert h["language"] == "python"
        assert h["entry"] == f"allocatable hook {h['id'].removeprefix('allocatable-')}"
        assert h.get("pass_filenames", True) is True and h["require_serial"] is True


def test_try_repo_runs_every_hook_on_a_good_repo(tmp_path: Path, hook_repo: Path) -> None:
    repo = new_policy_repo(tmp_path / "good")
    proc = _pre_commit(repo, tmp_path / "home", "try-repo", str(hook_repo), "--all-files")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("allocatable validate", "allocatable lint", "allocatable render --check"):
        assert re.search(rf"^{re.escape(name)}\.+Passed$", proc.stdout, re.MULTILINE), proc.stdout


@pytest.mark.parametrize("hook", HOOK_IDS)
def test_hook_passes_on_a_good_repo(tmp_path: Path, hook_repo: Path, pre_commit_home: Path, hook: str) -> None:
    repo = new_policy_repo(tmp_path / "good", hook_repo)
    proc = run_hook(repo, pre_commit_home, hook)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Passed" in proc.stdout


def test_validate_hook_fails_with_the_finding(tmp_path: Path, hook_repo: Path, pre_commit_home: Path) -> None:
    repo = new_policy_repo(tmp_path / "bad", hook_repo)
    pool = repo / "policies/pools/general.yaml"
    pool.write_text(pool.read_text().replace("count: 3", "count: three"))
    git(repo, "add", "-A")
    proc = run_hook(repo, pre_commit_home, "allocatable-validate")
    assert proc.returncode == 1
    assert "Failed" in proc.stdout
    line = pool.read_text().splitlines().index("  count: three") + 1
    assert f'policies/pools/general.yaml:{line}:10: error: spec.count: expected an integer, got the string "three"' in (
        proc.stdout
    )


def test_lint_hook_checks_the_whole_repo_not_just_the_passed_files(
    tmp_path: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    repo = new_policy_repo(tmp_path / "bad", hook_repo)
    write_repo(repo, {"policies/commitclasses/greedy.yaml": MEMORY_OVER_COMMIT})
    git(repo, "add", "-A")
    # Only an unrelated file is "changed": the hook still lints the policy repo it belongs to, as a whole.
    proc = run_hook(repo, pre_commit_home, "allocatable-lint", "policies/pools/general.yaml")
    assert proc.returncode == 1, proc.stdout
    assert "policies/commitclasses/greedy.yaml:13:14: error: memory over-committed at 130%" in proc.stdout
    assert "[AL201] (CommitClass/greedy)" in proc.stdout
    # A YAML file outside every policy repo does not run anything.
    write_repo(repo, {"deploy/app.yaml": "kind: Deployment\n"})
    git(repo, "add", "-A")
    proc = run_hook(repo, pre_commit_home, "allocatable-lint", "deploy/app.yaml")
    assert proc.returncode == 0, proc.stdout


def test_render_check_hook_fails_on_drift(tmp_path: Path, hook_repo: Path, pre_commit_home: Path) -> None:
    repo = new_policy_repo(tmp_path / "drift", hook_repo)
    policy = repo / "policies/reservations/general.yaml"
    policy.write_text(policy.read_text().replace("maxPods: 110", "maxPods: 100"))  # changes kubelet/general.yaml
    git(repo, "add", "-A")
    proc = run_hook(repo, pre_commit_home, "allocatable-render-check", "policies/reservations/general.yaml")
    assert proc.returncode == 1, proc.stdout
    assert "rendered" in proc.stdout
    # Rendering again fixes it; a hand edit of a rendered file is caught too.
    assert run_cli("render", "policies", cwd=repo).exit_code == 0
    git(repo, "add", "-A")
    assert run_hook(repo, pre_commit_home, "allocatable-render-check").returncode == 0
    rendered = sorted((repo / "rendered").rglob("*.yaml"))[0]
    rendered.write_text(rendered.read_text() + "# edited by hand\n")
    git(repo, "add", "-A")
    proc = run_hook(repo, pre_commit_home, "allocatable-render-check", rendered.relative_to(repo).as_posix())
    assert proc.returncode == 1, proc.stdout


def test_findings_are_shown_once_not_again_by_render_check(
    tmp_path: Path, hook_repo: Path, pre_commit_home: Path
) -> None:
    """Issue 18, friction 3: with lint errors, render --check would only refuse; the lint hook shows the findings
    and the render-check hook says in one line that it compared nothing (never "run allocatable render")."""
    repo = new_policy_repo(tmp_path / "bad", hook_repo)
    write_repo(repo, {"policies/commitclasses/greedy.yaml": MEMORY_OVER_COMMIT})
    git(repo, "add", "-A")
    proc = _pre_commit(repo, pre_commit_home, "run", "--all-files")
    assert proc.returncode == 1, proc.stdout
    assert proc.stdout.count("[AL201] (CommitClass/greedy)") == 1, proc.stdout
    lint, render = proc.stdout.split("allocatable lint.", 1)[1].split("allocatable render --check.", 1)
    assert "policies/commitclasses/greedy.yaml:13:14: error: memory over-committed at 130%" in lint, lint
    assert re.search(r"^\.+Failed$", render, re.MULTILINE), render
    errors = sum(
        f["severity"] == "error" for f in json.loads(run_cli("lint", "-o", "json", cwd=repo).stdout)["findings"]
    )
    assert errors == 2  # the memory over-commit, and two classes on one pool
    assert (
        "render --check: not checked: lint reports 2 errors (see the lint hook or step, or run `allocatable lint "
        "policies`); nothing was compared" in render
    )
    assert "AL201" not in render and "run `allocatable render" not in render
    # Invalid policies: the validate and lint hooks report the finding, render-check again one line.
    pool = repo / "policies/pools/general.yaml"
    pool.write_text(pool.read_text().replace("count: 3", "count: three"))
    git(repo, "add", "-A")
    proc = _pre_commit(repo, pre_commit_home, "run", "--all-files")
    assert proc.stdout.count('spec.count: expected an integer, got the string "three"') == 2, (
        proc.stdout
    )  # validate, lint
    assert "render --check: not checked: the policies do not validate (1 error;" in proc.stdout


def test_roots_of_files(tmp_path: Path) -> None:
    top = init_repo(tmp_path / "mono")
    write_repo(
        top,
        {
            "team-a/capacity/.allocatable.yaml": "kind: Settings\n",
            "team-a/capacity/pools/p.yaml": "x: 1\n",
            "policies/pools/p.yaml": "x: 1\n",
            "deploy/app.yaml": "x: 1\n",
        },
    )
    assert root_of(top / "team-a/capacity/pools/p.yaml", top) == top / "team-a/capacity"
    assert root_of(top / "team-a/capacity/.allocatable.yaml", top) == top / "team-a/capacity"
    assert root_of(top / "policies/pools/p.yaml", top) == top / "policies"
    assert root_of(top / "deploy/app.yaml", top) is None
    assert root_of(tmp_path / "elsewhere.yaml", top) is None
    roots, stray = roots_for([Path("deploy/app.yaml"), top / "policies/pools/p.yaml"], top)
    assert roots == [top / "policies"] and stray == [Path("deploy/app.yaml")]
    git(top, "add", "-A")
    assert all_roots(top) == [top / "team-a/capacity"]
    roots, _ = roots_for([top / "deploy/app.yaml"], top, everything_on_stray=True)
    assert roots == [top / "team-a/capacity"]


def test_hook_command_on_several_policy_repos(tmp_path: Path) -> None:
    top = init_repo(tmp_path / "mono")
    assert run_cli("init", "--no-render", "--policy-dir", "team-a", cwd=top).exit_code == 0
    write_repo(top, {"team-b/.allocatable.yaml": "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\n"})
    write_repo(top, {"team-b/cc.yaml": MEMORY_OVER_COMMIT})
    r = run_cli("hook", "lint", "team-a/pools/general.yaml", "team-b/cc.yaml", "README.md", cwd=top)
    assert r.exit_code == 1
    assert r.stderr == (  # headings and summaries on stderr, findings on stdout
        "== team-a\nlint: 4 objects in 4 files: no problems found\n== team-b\nlint: 1 object in 1 file: 1 error, 2 warnings\n"
    )
    assert "team-b/cc.yaml:13:14: error: memory over-committed" in r.stdout
    r = run_cli("hook", "validate", "--arg=-o", "--arg=json", "team-a/pools/general.yaml", cwd=top)
    assert r.exit_code == 0 and r.stdout.lstrip().startswith("{")
    r = run_cli("hook", "lint", "README.md", cwd=top)
    assert (r.exit_code, r.stdout, r.stderr) == (0, "", "")
    r = run_cli("hook", "lint", "--arg=--strict", "team-a/pools/general.yaml", cwd=top)
    assert r.exit_code == 0, r.stdout
    r = run_cli("hook", "nope", cwd=top)
    assert r.exit_code == 2 and "invalid choice: 'nope'" in r.stderr
    git(top, "add", "-A")
    r = run_cli("hook", "validate", cwd=top)  # no files: every policy repo of the git repository
    assert "== team-a" in r.stderr and "== team-b" in r.stderr


def test_project_pre_commit_config() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", str(REPO_ROOT / ".pre-commit-config.yaml")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    config = yaml.safe_load((REPO_ROOT / ".pre-commit-config.yaml").read_text())
    repos = {r["repo"]: r for r in config["repos"]}
    assert [h["id"] for h in repos["https://github.com/astral-sh/ruff-pre-commit"]["hooks"]] == ["ruff"]
    hygiene = {h["id"]: h for h in repos["https://github.com/pre-commit/pre-commit-hooks"]["hooks"]}
    assert set(hygiene) == {
        "trailing-whitespace",
        "end-of-file-fixer",
        "check-yaml",
        "check-json",
        "check-merge-conflict",
    }
    assert hygiene["check-yaml"]["args"] == ["--allow-multiple-documents"]
    local = {h["id"]: h for h in repos["local"]["hooks"]}
    assert {h["entry"] for h in local.values()} == {
        "allocatable validate policies",
        "allocatable lint policies",
        "allocatable render --check policies",
        "allocatable schema --check",
    }
    for hook in local.values():
        assert hook["language"] == "system" and hook["pass_filenames"] is False
        assert re.match(hook["files"], "policies/pools/eks.yaml") or re.match(hook["files"], "schemas/x.json")
    assert re.match(local["allocatable-render-check"]["files"], "rendered/kustomization.yaml")
