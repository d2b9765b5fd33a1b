"""Commands behave the same from any directory of a repository (issue 18, friction 1), as ruff and pre-commit do.

Without a PATH, the policy repo is the nearest directory at or above the working directory that holds
``.allocatable.yaml`` or is named ``policies``, or has a ``policies/`` directory (no higher than the directory holding
``.git``); ``render.outputDir`` is relative to the repository root (the directory holding ``.git``; outside git, the
directory holding the policy repo), never to the working directory. Each case runs the real CLI in-process from a
repository built in a temporary directory.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import POLICIES, run_cli
from renderer.loading.repository import default_policy_dir, repository_root


def _repo(tmp_path: Path, *, git: bool = True, policy_dir: str = "policies") -> Path:
    top = tmp_path / "repo"
    shutil.copytree(POLICIES, top / policy_dir)
    (top / "docs" / "deep").mkdir(parents=True)
    if git:
        subprocess.run(["git", "init", "-q", str(top)], check=True)
    return top


def _summary(stderr: str) -> str:
    return stderr.strip().splitlines()[-1]


def _counts(stderr: str) -> tuple[int, int]:
    """(objects, files) of lint's summary line, ``lint: N objects in M files: ...``."""
    words = _summary(stderr).split()
    assert words[0] == "lint:" and words[2:4] == ["objects", "in"], stderr
    return int(words[1]), int(words[4])


def _files(root: Path) -> int:
    """The policy files under ``root`` (what lint reads: YAML and JSON, hidden entries skipped)."""
    return sum(
        1
        for p in root.rglob("*")
        if p.suffix in (".yaml", ".yml", ".json")
        and not any(part.startswith(".") for part in p.relative_to(root).parts)
    )


def _objects(root: Path) -> int:
    """The documents of those files (each ``kind:`` at the start of a line opens one; a List counts its items)."""
    import yaml

    count = 0
    for p in root.rglob("*"):
        if p.suffix not in (".yaml", ".yml", ".json") or any(x.startswith(".") for x in p.relative_to(root).parts):
            continue
        for doc in yaml.safe_load_all(p.read_text()):
            if isinstance(doc, dict):
                count += len(doc.get("items") or []) if doc.get("kind", "").endswith("List") else 1
    return count


@pytest.mark.parametrize("where", [".", "policies", "policies/pools", "docs", "docs/deep"])
def test_lint_finds_the_policy_repo_from_anywhere_in_the_repository(tmp_path: Path, where: str) -> None:
    top = _repo(tmp_path)
    at_top = run_cli("lint", cwd=top)
    res = run_cli("lint", cwd=top / where)
    assert res.exit_code == at_top.exit_code == 0, res.stderr
    assert _summary(res.stderr) == _summary(at_top.stderr)
    assert _counts(at_top.stderr) == (_objects(top / "policies"), _files(top / "policies"))
    # Paths in findings are shown relative to where the command runs, as a user would type them.
    first = res.stdout.splitlines()[0].split(":")[0]
    assert (top / where / first).resolve().is_file(), first


@pytest.mark.parametrize("where", [".", "policies", "policies/commitclasses", "docs/deep"])
def test_render_writes_the_repository_s_output_dir_from_anywhere(tmp_path: Path, where: str) -> None:
    top = _repo(tmp_path)
    res = run_cli("render", cwd=top / where)
    assert res.exit_code == 0, res.stdout + res.stderr
    assert (top / "rendered" / "kustomization.yaml").is_file()
    strays = [p for p in top.rglob("rendered") if p != top / "rendered"]
    assert strays == [], "no second rendered/ below the working directory"
    check = run_cli("render", "--check", cwd=top / where)
    assert check.exit_code == 0 and "is up to date (" in check.stderr, check.stderr


def test_output_dir_setting_is_relative_to_the_repository_root(tmp_path: Path) -> None:
    top = _repo(tmp_path)
    settings = top / "policies" / ".allocatable.yaml"
    settings.write_text(settings.read_text().replace("render:\n", "render:\n  outputDir: deploy/node-config\n", 1))
    for where in ("policies", "docs"):
        res = run_cli("render", cwd=top / where)
        assert res.exit_code == 0, res.stdout + res.stderr
        assert (top / "deploy" / "node-config" / "kustomization.yaml").is_file()
        assert not (top / where / "deploy").exists()


def test_a_repository_of_several_policy_repos_takes_the_nearest(tmp_path: Path) -> None:
    top = tmp_path / "fleet"
    for cluster in ("prod", "staging"):
        shutil.copytree(POLICIES, top / "clusters" / cluster)
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    (top / "clusters" / "staging" / "commitclasses" / "high-cpu-density.yaml").unlink()
    prod = run_cli("lint", cwd=top / "clusters" / "prod" / "pools")
    staging = run_cli("lint", cwd=top / "clusters" / "staging")
    objects, files = _objects(POLICIES), _files(POLICIES)
    assert _counts(prod.stderr) == (objects, files)
    assert _counts(staging.stderr) == (objects - 1, files - 1)  # one file of one object less
    # Above both, nothing says which one is meant.
    res = run_cli("lint", cwd=top / "clusters")
    assert res.exit_code == 2 and "no policy repo here" in res.stderr


def test_outside_git_the_repository_is_the_directory_holding_the_policy_repo(tmp_path: Path) -> None:
    top = _repo(tmp_path, git=False)
    assert repository_root(top / "policies") == top
    res = run_cli("render", cwd=top / "policies" / "pools")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert (top / "rendered" / "kustomization.yaml").is_file()


def test_the_walk_stops_at_the_repository_top(tmp_path: Path) -> None:
    # A policies/ beside the repository (outside it) is not this repository's.
    (tmp_path / "policies").mkdir()
    inner = tmp_path / "project"
    (inner / "src").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(inner)], check=True)
    assert default_policy_dir(inner / "src") is None
    res = run_cli("validate", cwd=inner / "src")
    assert res.exit_code == 2
    assert res.stderr.startswith("allocatable: error: no policy repo here") and "Traceback" not in res.stderr


def test_a_discovered_symlink_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    shutil.copytree(POLICIES, outside)
    top = tmp_path / "repo"
    (top / "docs").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(top)], check=True)
    (top / "policies").symlink_to(outside, target_is_directory=True)
    res = run_cli("lint", cwd=top / "docs")
    assert res.exit_code == 2, res.stdout + res.stderr
    assert "outside" not in res.stdout and str(outside) not in res.stderr


def test_default_policy_dir_is_shown_as_a_user_types_it(tmp_path: Path) -> None:
    top = _repo(tmp_path)
    assert default_policy_dir(top) == Path("policies")
    assert default_policy_dir(top / "policies") == Path(".")
    assert default_policy_dir(top / "policies" / "pools") == Path("..")
    assert default_policy_dir(top / "docs" / "deep") == Path("../../policies")
