"""Issue 30, class 8: standard input closed (``<&-``) or unreadable (a descriptor open for writing only) where a
command reads ``-``: one line, exit 2, nothing written — for every reader of ``-`` (policies, ``--nodes``,
``--pods``, ``--snapshot``, and the Action's helper steps). It printed ``internal error: AttributeError ... 'buffer'``.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.hardening import REPO_ROOT, env, snapshot

#: Every command line that reads "-" (the policies, the dumps, the snapshot).
READERS = [
    ("validate", "-"),
    ("lint", "-"),
    ("render", "-", "-o", "out"),
    ("explain", "-"),
    ("verify", "policies", "--nodes", "-"),
    ("verify", "policies", "--pods", "-", "--nodes", "nodes.yaml"),
    ("diff", "policies", "--base", "HEAD", "--nodes", "-", "--pods", "nodes.yaml"),
    ("diff", "policies", "--base", "HEAD", "--snapshot", "-"),
]

#: How standard input is taken away: closed, or open for writing only (read(2) fails with EBADF).
REDIRECTS = {"closed": "<&-", "write-only": "0>stdin.out"}


def _run(cwd: Path, argv: tuple[str, ...], redirect: str) -> subprocess.CompletedProcess[str]:
    script = f'exec "$0" -m renderer "$@" {redirect}'
    return subprocess.run(
        ["/bin/sh", "-c", script, sys.executable, *argv],
        cwd=cwd,
        env=env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("stdin")
    shutil.copytree(REPO_ROOT / "policies", root / "policies")
    shutil.copy(REPO_ROOT / "policies" / "inventory" / "nodes.yaml", root / "nodes.yaml")
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run(["git", "add", "-A"], cwd=root, check=True)
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "base"], cwd=root, check=True
    )
    return root


@pytest.mark.parametrize("how", sorted(REDIRECTS))
@pytest.mark.parametrize("argv", READERS, ids=[" ".join(a) for a in READERS])
def test_unreadable_stdin_is_one_line_and_exit_2(repo: Path, argv: tuple[str, ...], how: str) -> None:
    (repo / "stdin.out").unlink(missing_ok=True)
    before = snapshot(repo)
    res = _run(repo, argv, REDIRECTS[how])
    assert res.returncode == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("allocatable: error: "), res.stderr
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    assert "standard input" in lines[0], lines[0]
    (repo / "stdin.out").unlink(missing_ok=True)
    assert snapshot(repo) == before  # nothing written


def test_the_action_helpers_read_closed_stdin_as_no_input(tmp_path: Path) -> None:
    dest = tmp_path / "out.txt"
    put = subprocess.run(
        ["/bin/sh", "-c", 'exec "$0" -m renderer.safepath put "$1" <&-', sys.executable, str(dest)],
        cwd=tmp_path,
        env=env(),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert put.returncode == 2 and put.stderr.startswith("allocatable: error: ") and not dest.exists(), put.stderr
    summary = subprocess.run(
        ["/bin/sh", "-c", 'exec "$0" -m renderer.integrations.github summary T <&-', sys.executable],
        cwd=tmp_path,
        env={**env(), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert summary.returncode == 0 and summary.stdout == "" and summary.stderr == "", summary
