"""``-`` (and ``/dev/stdin``) as a PATH reads policies from standard input; findings are located as <stdin>:line:col.

Run as subprocesses with a real pipe on stdin, as a shell pipeline would."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
CLASS = (REPO_ROOT / "policies" / "commitclasses" / "high-cpu-density.yaml").read_text()
OVER = CLASS.replace("percent: 100\n", "percent: 120\n")  # memory 120%: AL201 on the memory percent


def run(
    *args: str, stdin: str | bytes, cwd: Path = REPO_ROOT, tmpdir: Path | None = None
) -> subprocess.CompletedProcess[str]:
    data = stdin.encode() if isinstance(stdin, str) else stdin
    env = dict(os.environ, TMPDIR=str(tmpdir)) if tmpdir is not None else None
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", *args],
        input=data,
        capture_output=True,
        cwd=cwd,
        check=False,
        timeout=120,
        env=env,
    )
    return subprocess.CompletedProcess(proc.args, proc.returncode, proc.stdout.decode(), proc.stderr.decode())


def _leftovers(tmpdir: Path) -> set[str]:
    return {p.name for p in tmpdir.glob("allocatable-stdin-*")}


def test_fixture_really_over_commits_memory() -> None:
    assert OVER != CLASS and "percent: 120" in OVER


@pytest.mark.parametrize("name", ["-", "/dev/stdin"])
def test_lint_reads_stdin_with_the_repo_as_inventory(name: str, tmp_path: Path) -> None:
    # A private TMPDIR: the copy of stdin must be gone at exit, whatever else runs on the machine.
    res = run("lint", "policies/pools", name, stdin=OVER, tmpdir=tmp_path)
    assert res.returncode == 1, res.stderr
    line = next(ln for ln in res.stdout.splitlines() if "[AL201]" in ln)
    assert line.startswith("<stdin>:45:16: error: memory over-committed at 120%")
    assert res.stderr.startswith("lint: ") and "Traceback" not in res.stderr
    assert _leftovers(tmp_path) == set(), "the copy of stdin is removed at exit"


def test_validate_stdin_alone_and_positions_of_syntax_errors() -> None:
    res = run("validate", "-", stdin=CLASS)
    assert (res.returncode, res.stdout, res.stderr) == (0, "", "validate: 1 object in 1 file: no problems found\n")
    bad = run("validate", "-", stdin="kind: CommitClass\nspec: [\n")
    assert bad.returncode == 2
    assert bad.stdout.startswith("<stdin>:3:1: error: invalid YAML") and "[AL001]" in bad.stdout


def test_empty_stdin_is_a_finding_not_a_hang() -> None:
    res = run("validate", "-", stdin=b"")
    assert res.returncode == 2 and res.stdout.startswith("<stdin>:1:1: error: file holds no policy documents")


def test_stdin_obeys_the_file_size_limit() -> None:
    res = run("validate", "--max-file-size", "100", "-", stdin=CLASS * 3)
    assert res.returncode == 2
    assert res.stdout.startswith("<stdin>:1:1: error: file is larger than the 100 byte limit")


def test_kubectl_nodes_on_stdin_explained(tmp_path: Path) -> None:
    nodes = (REPO_ROOT / "policies" / "inventory" / "nodes.yaml").read_text()  # a kubectl get nodes -o yaml List
    res = run("explain", "-", stdin=nodes, cwd=tmp_path)
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stdout.count("  source:              <stdin>\n") == 3


def test_render_stdout_from_stdin(tmp_path: Path) -> None:
    pool = (REPO_ROOT / "policies" / "pools" / "eks.yaml").read_text()
    res = run("render", "-", "--stdout", stdin=pool, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert not any(tmp_path.iterdir()), "--stdout writes nothing"


def test_diff_refuses_stdin() -> None:
    res = run("diff", "--base", "HEAD", "-", stdin="")
    assert res.returncode == 2 and res.stdout == ""
    assert res.stderr.startswith(
        "allocatable: error: diff reads the policy repo from git revisions; stdin (-) has none"
    )
