"""``allocatable init``: a new policy repo that validates, lints clean and renders from the first commit."""

from __future__ import annotations

import fnmatch
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from delivery_support import REPO_ROOT

from conftest import run_cli
from renderer import __version__
from renderer.delivery.scaffold import DEFAULT_REPO, FILES

EXPECTED = [
    ".github/workflows/allocatable.yml",
    ".pre-commit-config.yaml",
    "policies/.allocatable.yaml",
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


def test_pins_this_release_of_hooks_and_action(tmp_path: Path) -> None:
    assert run_cli("init", "--no-render", cwd=tmp_path).exit_code == 0
    config = yaml.safe_load((tmp_path / ".pre-commit-config.yaml").read_text())
    (repo,) = config["repos"]
    assert repo["repo"] == f"https://github.com/{DEFAULT_REPO}"
    assert repo["rev"] == f"v{__version__}"
    assert [h["id"] for h in repo["hooks"]] == ["allocatable-validate", "allocatable-lint", "allocatable-render-check"]
    published = {h["id"] for h in yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())}
    assert {h["id"] for h in repo["hooks"]} <= published
    workflow = yaml.safe_load((tmp_path / ".github/workflows/allocatable.yml").read_text())
    steps = workflow["jobs"]["policies"]["steps"]
    action = next(s for s in steps if s.get("id") == "allocatable")
    assert action["uses"] == f"{DEFAULT_REPO}@v{__version__}"
    assert action["with"]["path"] == "policies"
    assert not (tmp_path / "rendered").exists()
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "validate-config", ".pre-commit-config.yaml"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


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
    assert f"uses: acme/allocatable-fork@v{__version__}" in workflow and "path: capacity/policies" in workflow
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
    assert shipped == sorted(FILES.values())
    for name in shipped:
        rel = f"scaffold/{name}"
        assert any(fnmatch.fnmatch(rel, g) for g in globs), f"{rel} is not package data ({globs})"
