"""``allocatable diff --FORMAT-output PATH``: several formats from one run (the GitHub Action's markdown comment, its
JSON outputs and its HTML page used to take three runs of the simulation). Each file must be byte for byte what a
run of its own writes with ``-o FORMAT``, stdout stays ``-o``'s, the exit code and stderr are the run's.

The change is docs/examples/impact's (docs/impact.md works it by hand): two report pods go newly Pending, so every
run exits 1 (impact.maxNewPendingPods 0).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from delivery_support import commit_all, init_repo

from conftest import REPO_ROOT, run_cli

EXAMPLE = REPO_ROOT / "docs" / "examples" / "impact"


def _pr(tmp_path: Path) -> Path:
    """main: the batch kube-reserved cpu at 500m; the work tree: 1500m (the example as committed)."""
    repo = init_repo(tmp_path / "repo")
    shutil.copytree(EXAMPLE / "policies", repo / "policies")
    reservations = repo / "policies" / "reservations.yaml"
    changed = reservations.read_text(encoding="utf-8")
    reservations.write_text(changed.replace("cpu: 1500m", "cpu: 500m"), encoding="utf-8")
    commit_all(repo, "base")
    reservations.write_text(changed, encoding="utf-8")
    shutil.copy(EXAMPLE / "snapshot.json", repo / "snapshot.json")
    return repo


def _diff(repo: Path, *args: str) -> tuple[int, str, str]:
    res = run_cli("diff", "policies", "--base", "main", "--snapshot", "snapshot.json", *args, cwd=repo)
    return res.exit_code, res.stdout, res.stderr


def test_one_run_writes_what_separate_runs_write(tmp_path: Path) -> None:
    repo = _pr(tmp_path)
    alone = {fmt: _diff(repo, "-o", fmt) for fmt in ("markdown", "json", "html", "text", "yaml")}
    code, stdout, stderr = _diff(
        repo,
        "-o",
        "markdown",
        "--json-output",
        "out/diff.json",
        "--html-output",
        str(tmp_path / "diff.html"),
        "--text-output",
        "out/diff.txt",
        "--yaml-output",
        "out/diff.yaml",
    )
    assert (code, stdout, stderr) == alone["markdown"]
    assert code == 1  # two pods newly Pending
    written = {
        "json": repo / "out/diff.json",
        "html": tmp_path / "diff.html",
        "text": repo / "out/diff.txt",
        "yaml": repo / "out/diff.yaml",
    }
    for fmt, path in written.items():
        assert path.read_bytes() == alone[fmt][1].encode("utf-8"), fmt
    assert not [p for p in (repo / "out").iterdir() if p.name.startswith(".")]  # no staged file left behind


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--json-output", "-"], "--json-output needs a file; standard output is -o's (-o json)"),
        (
            ["--json-output", "same", "--html-output", "./same"],
            "--html-output and --json-output name the same file same; give each its own",
        ),
    ],
)
def test_usage_errors_come_before_the_run(tmp_path: Path, args: list[str], message: str) -> None:
    repo = _pr(tmp_path)
    code, stdout, stderr = _diff(repo, *args)
    assert (code, stdout) == (2, "")
    assert stderr == f"allocatable: error: {message}\n"


def test_a_file_that_cannot_be_written_is_one_line_and_nothing_on_stdout(tmp_path: Path) -> None:
    repo = _pr(tmp_path)
    (repo / "elsewhere").mkdir()
    os.symlink(repo / "elsewhere", repo / "out")  # a symlink on the way inside the repository is never followed
    code, stdout, stderr = _diff(repo, "--json-output", "out/diff.json")
    assert (code, stdout) == (2, "")
    assert stderr.startswith("allocatable: error: refusing to write out/diff.json: ") and stderr.count("\n") == 1
    assert not list((repo / "elsewhere").iterdir())
    (repo / "dir.json").mkdir()
    code, stdout, stderr = _diff(repo, "--json-output", "dir.json")
    assert (code, stdout) == (2, "")
    assert stderr.startswith("allocatable: error: refusing to write dir.json: it is a directory")
