"""``render --check`` on a rendered tree checked out with CRLF line endings (Windows, ``core.autocrlf=true``), and
the ``.gitattributes`` ``init`` writes so it does not happen (issue 34, item 4).

Before, the check printed a whole-file diff whose lines looked identical. What git does with ``core.autocrlf=true``
and ``text eol=lf`` is git's documented behaviour (https://git-scm.com/docs/gitattributes, "eol"); the test that
needs git runs the real one.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from render_support import CASES

from conftest import run_cli


def _crlf(path: Path) -> None:
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))


def test_a_crlf_checkout_differs_only_in_line_endings(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("render", str(CASES / "openshift"), "-o", str(out)).exit_code == 0
    for path in sorted(out.rglob("*.yaml"))[:2]:
        _crlf(path)
    res = run_cli("render", str(CASES / "openshift"), "--check", "-o", str(out))
    assert res.exit_code == 1
    changed = [line for line in res.stdout.splitlines() if not line.startswith("    ")]
    assert len(changed) == 2 and all(line.endswith(": differs only in line endings") for line in changed), res.stdout
    assert "@@" not in res.stdout, "no diff of identical-looking lines"
    assert "CRLF on disk" in res.stdout and "text eol=lf" in res.stdout


def test_a_real_change_in_a_crlf_file_shows_the_change_only(tmp_path: Path) -> None:
    out = tmp_path / "out"
    assert run_cli("render", str(CASES / "openshift"), "-o", str(out)).exit_code == 0
    target = out / "openshift/worker/kubeletconfig.yaml"
    target.write_text(target.read_text().replace("maxPods: 250", "maxPods: 500"))
    _crlf(target)
    res = run_cli("render", str(CASES / "openshift"), "--check", "-o", str(out))
    assert res.exit_code == 1
    assert f"{target.as_posix()}: changed (and CRLF line endings on disk)" in res.stdout
    diff = [line.strip() for line in res.stdout.splitlines() if line.startswith("    ")]
    assert [line for line in diff if line[:1] in "+-" and not line.startswith(("+++", "---"))] == [
        "-    maxPods: 500",
        "+    maxPods: 250",
    ]


def test_init_writes_gitattributes_that_keep_the_rendered_tree_lf(tmp_path: Path) -> None:
    git = shutil.which("git")
    if git is None:  # pragma: no cover - git is everywhere the suite runs
        pytest.skip("git is not installed")
    res = run_cli("init", str(tmp_path / "repo"))
    assert res.exit_code == 0, res.stderr
    repo = tmp_path / "repo"
    assert (repo / ".gitattributes").read_text(encoding="utf-8").splitlines()[-1] == "rendered/** text eol=lf"
    # Commit it, then check the tree out again as a Windows user with core.autocrlf=true would: the rendered files
    # stay LF (the policies, without the attribute, get CRLF), so render --check passes.
    env = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null", "HOME": str(tmp_path)}
    ident = ["-c", "user.name=t", "-c", "user.email=t@example.com"]

    def run(*args: str, cwd: Path = repo) -> None:
        subprocess.run([git, *ident, *args], cwd=cwd, env=env, check=True, capture_output=True)

    run("init", "-q")
    run("add", "-A")
    run("commit", "-q", "-m", "init")
    clone = tmp_path / "clone"
    run("-c", "core.autocrlf=true", "clone", "-q", str(repo), str(clone), cwd=tmp_path)
    rendered = sorted(p for p in (clone / "rendered").rglob("*") if p.is_file())
    assert rendered and all(b"\r\n" not in p.read_bytes() for p in rendered)
    assert b"\r\n" in (clone / "policies" / "pools" / "general.yaml").read_bytes(), "autocrlf did apply elsewhere"
    assert run_cli("render", "--check", str(clone / "policies"), "-o", str(clone / "rendered")).exit_code == 0


def test_init_keeps_a_repos_own_gitattributes_and_says_what_to_add(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".gitattributes").write_text("*.png binary\n", encoding="utf-8")
    res = run_cli("init", str(repo))
    assert res.exit_code == 0, res.stderr
    assert (repo / ".gitattributes").read_text(encoding="utf-8") == "*.png binary\n"
    assert "add `rendered/** text eol=lf` to" in res.stderr
    # with the line already there, nothing more is said
    repo2 = tmp_path / "repo2"
    repo2.mkdir()
    (repo2 / ".gitattributes").write_text("rendered/** text eol=lf\n", encoding="utf-8")
    res = run_cli("init", str(repo2))
    assert res.exit_code == 0 and "text eol=lf" not in res.stderr
