"""Issue 21, class 1 (and what-to-build 2): a base revision's tree is the pull request's. Every command that reads
one (``lint --base``, ``diff --base``, ``verify --base``) materialises it without following anything: a tree entry
that appears twice, a file that is also a directory (a symlinked directory plus a second entry of the same path is
how the reported attack wrote ~/.bashrc), a name git refuses to check out, are each one located line and exit 2;
nothing is written outside the private mirror; the mirror is gone afterwards — also when SIGTERM, SIGHUP or SIGINT
ends the run while it is being written. Each case runs the CLI as a subprocess."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from support.hardening import REPO_ROOT, SECRET, assert_no_crash, cli, env, shown, signals_delivered
from support.round2 import blob, commit_with_policies, commit_with_root, git, init_repo, outside_dir, tree, tree_listing

NODE = (REPO_ROOT / "tests/real-nodes/eks/mng-al2-t3-medium-1-30.yaml").read_text()

COMMANDS: dict[str, list[str]] = {
    "lint": ["lint", "--base=hostile..", "policies"],
    "diff": ["diff", "--base=hostile..", "policies"],
    "verify": ["verify", "--base=hostile..", "--nodes=node.yaml", "--pods=pods.json", "policies"],
}


def _workspace(tmp_path: Path) -> tuple[Path, Path, Path]:
    repo = init_repo(tmp_path / "repo")
    (repo / "node.yaml").write_text(NODE)
    (repo / "pods.json").write_text('{"apiVersion": "v1", "kind": "List", "items": []}\n')
    outside = outside_dir(tmp_path)
    temp = tmp_path / "tmp"
    temp.mkdir()
    return repo, outside, temp


def _good(repo: Path) -> list[tuple[str, bytes, str]]:
    """The entries of the committed policies/ tree (pools/, commitclasses/, ...), to hide hostile ones among."""
    out = []
    for line in git(repo, "ls-tree", "HEAD:policies").splitlines():
        meta, name = line.split("\t")
        mode, _, sha = meta.split(" ")
        out.append((mode, name.encode(), sha))
    return out


def _symlinked_dir_and_second_entry(repo: Path, outside: Path) -> list[tuple[str, bytes, str]]:
    inner = tree(repo, [("100644", b".bashrc", blob(repo, b"echo pwned\n"))])
    return [("120000", b"x", blob(repo, str(outside).encode())), ("40000", b"x", inner)]


def _relative_symlink_and_second_entry(repo: Path, outside: Path) -> list[tuple[str, bytes, str]]:
    inner = tree(repo, [("100644", b"pool.yaml", blob(repo, b"pwned: true\n"))])
    return [("120000", b"up", blob(repo, b"../../../../../../../../../../..")), ("40000", b"up", inner)]


def _duplicate_file(repo: Path, outside: Path) -> list[tuple[str, bytes, str]]:
    return [("100644", b"pool.yaml", blob(repo, b"a: 1\n")), ("100644", b"pool.yaml", blob(repo, b"b: 2\n"))]


def _file_and_directory(repo: Path, outside: Path) -> list[tuple[str, bytes, str]]:
    inner = tree(repo, [("100644", b"pool.yaml", blob(repo, b"a: 1\n"))])
    return [("100644", b"x", blob(repo, b"a: 1\n")), ("40000", b"x", inner)]


def _dot_dot(repo: Path, outside: Path) -> list[tuple[str, bytes, str]]:
    return [("100644", b"..", blob(repo, b"a: 1\n"))]


def _dot_git(repo: Path, outside: Path) -> list[tuple[str, bytes, str]]:
    hooks = tree(repo, [("100755", b"post-checkout", blob(repo, b"#!/bin/sh\necho pwned\n"))])
    return [("40000", b".git", tree(repo, [("40000", b"hooks", hooks)]))]


def _dot_git_other_case(repo: Path, outside: Path) -> list[tuple[str, bytes, str]]:
    return [("100644", b".GIT", blob(repo, b"a: 1\n"))]


HOSTILE: dict[str, tuple[Callable[[Path, Path], list[tuple[str, bytes, str]]], str]] = {
    "symlinked-dir-and-second-entry": (_symlinked_dir_and_second_entry, "which is a symlink in the tree"),
    "relative-symlink-and-second-entry": (_relative_symlink_and_second_entry, "which is a symlink in the tree"),
    "duplicate-file": (_duplicate_file, "appears twice in the tree"),
    "file-and-directory": (_file_and_directory, "which is a file in the tree"),
    "dot-dot": (_dot_dot, "its path holds a path component '..'"),
    "dot-git": (_dot_git, "its path holds a component named .git"),
    "dot-git-other-case": (_dot_git_other_case, "its path holds a component named .git"),
}


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_crafted_base_tree_is_refused_and_nothing_is_written_outside(tmp_path: Path, case: str, command: str) -> None:
    repo, outside, temp = _workspace(tmp_path)
    make, fragment = HOSTILE[case]
    entries = sorted([*_good(repo), *make(repo, outside)], key=lambda e: e[1])
    commit_with_policies(repo, tree(repo, entries), "hostile")
    before = tree_listing(outside)
    res = cli(*COMMANDS[command], cwd=repo, extra_env={"TMPDIR": str(temp)})
    assert_no_crash(res)
    assert res.returncode == 2, shown(res)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("allocatable: error: hostile:policies/"), shown(res)
    assert fragment in lines[0] and "refused" in lines[0], shown(res)
    assert tree_listing(outside) == before  # nothing written through the symlink
    assert os.listdir(temp) == []  # the mirror is gone


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize(
    "target",
    ["nowhere", "policies-missing/x", "../../../../../../../../../../nowhere", "{outside}", "/proc/self/cwd"],
    ids=["dangling", "dangling-deeper", "dangling-up", "outside", "proc"],
)
def test_a_policy_directory_that_is_a_symlink_at_the_base(tmp_path: Path, command: str, target: str) -> None:
    """Ended in 'internal error: FileExistsError' (dangling) or read the target (outside): now a symlink that leads
    outside the repository is refused, and one that leads nowhere is the base's broken symlink (an AL006 in the base,
    or an empty base), never a crash."""
    repo, outside, temp = _workspace(tmp_path)
    link = target.format(outside=outside).encode()
    commit_with_root(repo, [("120000", b"policies", blob(repo, link))], "hostile")
    res = cli(*COMMANDS[command], cwd=repo, extra_env={"TMPDIR": str(temp)})
    assert_no_crash(res)
    assert SECRET not in res.stdout + res.stderr
    if target in ("{outside}", "/proc/self/cwd", "../../../../../../../../../../nowhere"):
        assert res.returncode == 2 and "leads outside the git repository" in res.stderr, shown(res)
    elif command == "verify":  # verify refuses an invalid base (a broken symlink there is an AL006 error)
        assert res.returncode == 2 and "the policy repo at the tip of hostile, " in res.stderr, shown(res)
    else:
        assert res.returncode in (0, 1), shown(res)
    assert os.listdir(temp) == []


# --- temporary state removed on every signal ----------------------------------------------------------------------

_SLOW_GIT = """\
#!{python}
import os, sys, time
real = {real!r}
if "cat-file" in sys.argv[1:]:
    open(os.path.join({marker!r}, "cat-file-started"), "w").close()
    time.sleep(120)
os.execv(real, [real, *sys.argv[1:]])
"""


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT], ids=lambda s: s.name)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_the_mirror_is_removed_when_a_signal_ends_the_run(tmp_path: Path, sig: signal.Signals, command: str) -> None:
    """git cat-file is held (a wrapper sleeps) while the mirror exists; the signal arrives then. The run ends with
    128 + the signal, the mirror and the held git are gone."""
    repo, _, temp = _workspace(tmp_path)
    git(repo, "branch", "hostile")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real = shutil.which("git")
    assert real is not None
    fake = bin_dir / "git"
    fake.write_text(_SLOW_GIT.format(python=sys.executable, real=real, marker=str(tmp_path)))
    fake.chmod(0o755)
    run_env = env(TMPDIR=str(temp), PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.Popen(
        [sys.executable, "-m", "renderer", *COMMANDS[command]],
        cwd=repo,
        env=run_env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=signals_delivered,  # the signal sent below reaches it, under nohup too
    )
    try:
        deadline = time.monotonic() + 60
        while not (tmp_path / "cat-file-started").exists():
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline, "git cat-file never started"
            time.sleep(0.05)
        assert any(p.startswith("allocatable-rev-") for p in os.listdir(temp))
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + sig, f"exit {proc.returncode}\n{out}\n{err}"
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert os.listdir(temp) == [], os.listdir(temp)
