"""``allocatable init``: a new policy repo that validates, lints clean and renders from the first commit."""

from __future__ import annotations

import fnmatch
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from delivery_support import REPO_ROOT, clean_env

from conftest import run_cli
from renderer import __version__
from renderer.integrations.scaffold import DEFAULT_REPO, FILES, LOCAL_HOOKS_TEMPLATE, files, is_released

EXPECTED = [
    ".gitattributes",
    ".github/workflows/allocatable.yml",
    ".pre-commit-config.yaml",
    "policies/.allocatable.yaml",
    "policies/.schemas/commitclass.json",
    "policies/.schemas/kubeletconfiguration.json",
    "policies/.schemas/nodepool.json",
    "policies/.schemas/reservationpolicy.json",
    "policies/.schemas/runtimeclass.json",
    "policies/.schemas/settings.json",
    "policies/commitclasses/general-burst.yaml",
    "policies/pools/general.yaml",
    "policies/reservations/general.yaml",
    "policies/runtimeclasses/gvisor.yaml",
]


def _tree(root: Path, exclude: str = "rendered") -> list[str]:
    return sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.is_file() and not p.relative_to(root).as_posix().startswith(exclude)
    )


def test_init_validates_lints_clean_and_renders(tmp_path: Path) -> None:
    r = run_cli("init", "new-repo", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    root = tmp_path / "new-repo"
    assert _tree(root) == EXPECTED
    for name in EXPECTED:
        assert f"created new-repo/{name}\n" in r.stderr
    assert "Next steps:" in r.stderr
    for name in EXPECTED:
        text = (root / name).read_text()
        assert "@@" not in text, name
        assert list(yaml.safe_load_all(text)), name
    validate = run_cli("validate", "policies", cwd=root)
    assert validate.exit_code == 0, validate.stdout
    assert "validate: 4 objects in 4 files: no problems found" in validate.stderr
    lint = run_cli("lint", "policies", "--strict", cwd=root)
    assert (lint.exit_code, lint.stdout, lint.stderr.strip()) == (
        0,
        "",
        "lint: 4 objects in 4 files: no problems found",
    )
    # init rendered once, so the render-check hook and the action pass from the first commit.
    assert (root / "rendered").is_dir() and any((root / "rendered").rglob("*.yaml"))
    check = run_cli("render", "policies", "--check", cwd=root)
    assert check.exit_code == 0, check.stdout + check.stderr
    explain = run_cli("explain", "policies", "-o", "json", cwd=root)
    assert explain.exit_code == 0
    # 8 cores − 200m reserved = 7.8 allocatable, × 150% = 11.7 committed per node.
    assert '"committedAllocatable": {\n        "cpu": "11700m"' in explain.stdout


def _validate_config(root: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", ".pre-commit-config.yaml"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


HOOK_IDS = ["allocatable-validate", "allocatable-lint", "allocatable-render-check"]


def test_unreleased_version_runs_the_installed_tool_and_follows_main(tmp_path: Path) -> None:
    """No release of this version is published (a pinned `rev: v0.1.0` would fail `pre-commit install`)."""
    assert not is_released(__version__)
    assert run_cli("init", "--no-render", cwd=tmp_path).exit_code == 0
    text = (tmp_path / ".pre-commit-config.yaml").read_text()
    (repo,) = yaml.safe_load(text)["repos"]
    assert repo["repo"] == "local" and "rev" not in repo
    assert [h["id"] for h in repo["hooks"]] == HOOK_IDS
    manifest = {h["id"]: h for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    for hook in repo["hooks"]:  # the same commands and file patterns as the published hooks
        assert hook["language"] == "system"
        assert (hook["entry"], hook["files"]) == (manifest[hook["id"]]["entry"], manifest[hook["id"]]["files"])
    assert f"repo: https://github.com/{DEFAULT_REPO}" in text and "rev: vX.Y.Z" in text  # how to pin later
    workflow_text = (tmp_path / ".github/workflows/allocatable.yml").read_text()
    steps = yaml.safe_load(workflow_text)["jobs"]["policies"]["steps"]
    action = next(s for s in steps if s.get("id") == "allocatable")
    assert action["uses"] == f"{DEFAULT_REPO}@main" and action["with"]["path"] == "policies"
    assert "Pin a release tag (@vX.Y.Z)" in workflow_text
    assert not (tmp_path / "rendered").exists()
    _validate_config(tmp_path)


def test_a_published_release_is_pinned(tmp_path: Path) -> None:
    planned = {f.path: f.text for f in files(released=True, version="1.2.3", repo="me/fork")}
    (repo,) = yaml.safe_load(planned[".pre-commit-config.yaml"])["repos"]
    assert (repo["repo"], repo["rev"]) == ("https://github.com/me/fork", "v1.2.3")
    assert [h["id"] for h in repo["hooks"]] == HOOK_IDS
    published = {h["id"] for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert set(HOOK_IDS) <= published
    steps = yaml.safe_load(planned[".github/workflows/allocatable.yml"])["jobs"]["policies"]["steps"]
    assert next(s for s in steps if s.get("id") == "allocatable")["uses"] == "me/fork@v1.2.3"
    (tmp_path / ".pre-commit-config.yaml").write_text(planned[".pre-commit-config.yaml"])
    _validate_config(tmp_path)


def test_pre_commit_runs_in_the_new_repo_from_the_first_commit(tmp_path: Path) -> None:
    """`pre-commit run --all-files` in a freshly scaffolded, git-initialised repo: offline, with the installed tool."""
    root = tmp_path / "fresh"
    assert run_cli("init", str(root)).exit_code == 0
    for args in (["init", "-q", "-b", "main"], ["add", "-A"]):
        subprocess.run(["git", *args], cwd=root, check=True, env=clean_env())
    env = clean_env(
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        PRE_COMMIT_HOME=str(tmp_path / "pre-commit-home"),
        HOME=str(tmp_path),
        PIP_NO_INDEX="1",  # nothing may be downloaded
    )

    def run() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", "--all-files", "--color=never"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )

    proc = run()
    assert proc.returncode == 0, proc.stdout + proc.stderr
    for name in ("allocatable validate", "allocatable lint", "allocatable render --check"):
        assert re.search(rf"^{re.escape(name)}\.+Passed$", proc.stdout, re.MULTILINE), proc.stdout
    # and the hooks really check: an over-committed memory class fails lint
    cc = root / "policies/commitclasses/general-burst.yaml"
    cc.write_text(cc.read_text().replace("name: cpu", "name: memory", 1))
    subprocess.run(["git", "add", "-A"], cwd=root, check=True, env=clean_env())
    proc = run()
    assert proc.returncode == 1 and "[AL201]" in proc.stdout, proc.stdout


def test_refuses_to_overwrite_unless_forced(tmp_path: Path) -> None:
    (tmp_path / "policies" / "pools").mkdir(parents=True)
    mine = tmp_path / "policies" / "pools" / "general.yaml"
    mine.write_text("# mine\n")
    (tmp_path / ".pre-commit-config.yaml").write_text("repos: []\n")
    r = run_cli("init", str(tmp_path), "--no-render")
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr.strip() == (
        f"allocatable: error: refusing to overwrite existing files in {tmp_path.as_posix()}: "
        "policies/pools/general.yaml, .pre-commit-config.yaml; use --force to overwrite them"
    )
    assert mine.read_text() == "# mine\n"
    assert not (tmp_path / "policies" / ".allocatable.yaml").exists()  # nothing written at all
    r = run_cli("init", str(tmp_path), "--no-render", "--force")
    assert r.exit_code == 0
    assert "overwrote" in r.stderr and "kind: NodePool" in mine.read_text()


def test_policy_dir_and_repo_options(tmp_path: Path) -> None:
    r = run_cli("init", "--policy-dir", "capacity/policies", "--repo", "acme/allocatable-fork", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr
    assert (tmp_path / "capacity/policies/.allocatable.yaml").is_file()
    workflow = (tmp_path / ".github/workflows/allocatable.yml").read_text()
    assert "uses: acme/allocatable-fork@main" in workflow and "path: capacity/policies" in workflow
    assert "https://github.com/acme/allocatable-fork" in (tmp_path / ".pre-commit-config.yaml").read_text()
    assert run_cli("lint", "capacity/policies", cwd=tmp_path).exit_code == 0


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--repo", "not a repo"], '"not a repo" is not a GitHub repository in the form owner/name'),
        (["--policy-dir", "../outside"], '"../outside" is not a relative directory name'),
        (["--policy-dir", "/abs"], '"/abs" is not a relative directory name'),
    ],
)
def test_bad_options(tmp_path: Path, args: list[str], message: str) -> None:
    r = run_cli("init", *args, cwd=tmp_path)
    assert r.exit_code == 2 and message in r.stderr and len(r.stderr.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_dir_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("x")
    r = run_cli("init", "f", cwd=tmp_path)
    assert r.exit_code == 2 and r.stderr == "allocatable: error: f exists and is not a directory; choose a directory\n"


def test_templates_are_package_data() -> None:
    """Every template must be matched by pyproject's package-data globs, or a wheel install would lack it."""
    text = (REPO_ROOT / "pyproject.toml").read_text()
    match = re.search(r"^\[tool\.setuptools\.package-data\]\s*\nrenderer = \[(.*?)\]", text, re.MULTILINE | re.DOTALL)
    assert match, "package-data for renderer not found"
    globs = re.findall(r'"([^"]+)"', match.group(1))
    scaffold = REPO_ROOT / "renderer" / "scaffold"
    shipped = sorted(p.name for p in scaffold.iterdir() if p.is_file())
    assert shipped == sorted([*FILES.values(), LOCAL_HOOKS_TEMPLATE])
    for name in shipped:
        rel = f"scaffold/{name}"
        assert any(fnmatch.fnmatch(rel, g) for g in globs), f"{rel} is not package data ({globs})"


@pytest.mark.parametrize("policy_dir", ["policies", "capacity/eu"])
def test_editor_schema_lines_point_at_schemas_in_the_repo(tmp_path: Path, policy_dir: str) -> None:
    """Each file's `yaml-language-server` line names a schema init wrote, relative to the file (no URL to a release
    that may not exist), and the file validates against it, as an editor would check it."""
    import json

    import jsonschema

    root = tmp_path / "new"
    assert run_cli("init", str(root), "--no-render", "--policy-dir", policy_dir).exit_code == 0
    checked = 0
    for path in sorted((root / policy_dir).rglob("*.yaml")):
        first = path.read_text().splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema="), path
        target = (path.parent / first.split("=", 1)[1]).resolve()
        assert "://" not in first and target.is_file() and target.parent == (root / policy_dir / ".schemas").resolve()
        schema = json.loads(target.read_text())
        for doc in yaml.safe_load_all(path.read_text()):
            if doc is not None:
                jsonschema.validate(doc, schema)
                checked += 1
    assert checked == 5
    assert run_cli("schema", "-o", str(root / policy_dir / ".schemas"), "--check").exit_code == 0
