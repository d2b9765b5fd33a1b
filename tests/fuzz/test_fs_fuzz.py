"""File-system fuzzer (issue 12, classes 2-4): random policy trees of regular files, symlinks that stay in the repo
or leave it, FIFOs, sockets and unreadable directories, validated by the CLI in a subprocess.

For every tree: the run ends (a FIFO never blocks it), exits 0 or 2 without a traceback, reports every FIFO,
socket, link leaving the repo and unreadable directory it meets as one AL006 line at that entry, never prints a byte
of the files outside the repo, and changes nothing on disk. Unreadable directories need an unprivileged reader: as
root, the CLI runs with every capability dropped (see tests/support/privileges.py). Examples per run: 60 (each is one
subprocess).
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples
from support.factory import Document, node_pool, write_file
from support.privileges import drop_privileges

pytestmark = pytest.mark.slow

SECRET = "s3cr3t-fs-fuzz-never-printed"


def _pool(name: str) -> Document:
    return node_pool(name, tier=None, labels={"tier": "web"}, count=1)


KINDS = ("file", "broken-yaml", "link-in", "link-out", "link-dir-out", "fifo", "socket", "unreadable-dir", "dir")


@dataclass(frozen=True)
class Entry:
    kind: str
    name: str
    under: bool  # inside the subdirectory "sub" rather than at the root


ENTRIES = st.lists(
    st.builds(Entry, st.sampled_from(KINDS), st.sampled_from(["a", "b", "c", "d", "e"]), st.booleans()),
    min_size=1,
    max_size=8,
    unique_by=lambda e: (e.name, e.under),
)


def _build(top: Path, entries: list[Entry]) -> tuple[Path, dict[str, str], list[socket.socket]]:
    """The repo under ``top``; the AL006 entries the run must report (display path → message fragment)."""
    repo, outside = top / "repo", top / "outside"
    (repo / "sub").mkdir(parents=True)
    outside.mkdir()
    write_file(outside / "secret.yaml", _pool(SECRET))
    expected: dict[str, str] = {}
    sockets: list[socket.socket] = []
    unreadable_sub = any(e.kind == "unreadable-dir" and e.under for e in entries)
    for i, e in enumerate(entries):
        parent = repo / "sub" if e.under else repo
        shown = f"repo/sub/{e.name}" if e.under else f"repo/{e.name}"
        seen = not (e.under and unreadable_sub)
        if e.kind == "file":
            write_file(parent / f"{e.name}.yaml", _pool(f"p{i}-{e.name}"))
        elif e.kind == "broken-yaml":
            (parent / f"{e.name}.yaml").write_text("a: [\n")
        elif e.kind == "link-in":
            write_file(repo / f"target-{i}.txt", _pool(f"t{i}"))
            (parent / f"{e.name}.yaml").symlink_to(repo / f"target-{i}.txt")
        elif e.kind == "link-out":
            (parent / f"{e.name}.yaml").symlink_to(outside / "secret.yaml")
            if seen:
                expected[f"{shown}.yaml"] = "symlink points outside the policy repo"
        elif e.kind == "link-dir-out":
            (parent / e.name).symlink_to(outside)
            if seen:
                expected[shown] = "symlinked directory points outside the policy repo"
        elif e.kind == "fifo":
            os.mkfifo(parent / f"{e.name}.yaml")
            if seen:
                expected[f"{shown}.yaml"] = "is a FIFO (named pipe)"
        elif e.kind == "socket":
            s = socket.socket(socket.AF_UNIX)
            s.bind(str(parent / f"{e.name}.yaml"))
            sockets.append(s)
            if seen:
                expected[f"{shown}.yaml"] = "is a socket"
        elif e.kind == "dir":
            (parent / e.name).mkdir()
            write_file(parent / e.name / "inner.yaml", _pool(f"inner{i}"))
    for e in entries:  # permissions last, or the files above could not be written
        if e.kind == "unreadable-dir":
            d = repo / "sub" if e.under else repo / e.name
            d.mkdir(exist_ok=True)
            write_file(d / f"hidden-{e.name}.yaml", _pool(f"hidden-{e.name}"))
            d.chmod(0)
            expected["repo/sub" if e.under else f"repo/{e.name}"] = "cannot read directory: Permission denied"
    return repo, expected, sockets


def _snapshot(root: Path) -> dict[str, tuple[str, int, float]]:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for n in [*dirnames, *filenames]:
            st_ = (Path(dirpath) / n).lstat()
            out[str(Path(dirpath, n).relative_to(root))] = (oct(st_.st_mode), st_.st_size, st_.st_mtime)
    return out


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ENTRIES)
def test_random_trees_are_reported_never_followed_never_blocking(entries: list[Entry]) -> None:
    top = Path(tempfile.mkdtemp(prefix="allocatable-fsfuzz-"))
    sockets: list[socket.socket] = []
    try:
        top.chmod(0o755)
        _, expected, sockets = _build(top, entries)
        before = _snapshot(top)
        proc = subprocess.run(
            [*drop_privileges(), sys.executable, "-m", "renderer", "validate", "repo"],
            cwd=top,
            env={**os.environ, "NO_COLOR": "1", "PYTHONDONTWRITEBYTECODE": "1"},
            capture_output=True,
            text=True,
            timeout=60,  # a blocked open would end here, as a failure
            check=False,
        )
        out = proc.stdout + proc.stderr
        assert "Traceback" not in out and "internal error" not in out, out
        assert SECRET not in out
        assert proc.returncode in (0, 2), out
        al006 = {m[0]: m[1] for m in re.findall(r"^(\S+?):1:1: error: (.*) \[AL006\]$", proc.stdout, re.MULTILINE)}
        for path, fragment in expected.items():
            assert path in al006 and fragment in al006[path], f"{path}: {fragment}\n{out}"
        if proc.returncode == 0:
            assert not expected, out
        assert _snapshot(top) == before, "validate changed the tree"
    finally:
        for s in sockets:
            s.close()
        for dirpath, dirnames, _ in os.walk(top):
            for d in dirnames:
                p = Path(dirpath) / d
                if not p.is_symlink():
                    p.chmod(stat.S_IRWXU)
        shutil.rmtree(top, ignore_errors=True)
