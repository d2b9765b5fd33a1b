"""The policy repo as it is at a git revision, read from git objects (never the work tree or the index).

``load_revision(paths, ref)`` answers "what did these paths hold at ``ref``?" for ``lint --base`` and ``diff
--base``. The blobs under each path are written, by ``git ls-tree`` and ``git cat-file --batch``, into a private
temporary directory that mirrors the absolute location of the work tree, and loaded from there by
``renderer.pipeline.load`` with the working directory mirrored too. Display paths therefore come out exactly as
a work-tree load prints them (``policies/pools/eks.yaml``), so findings and diffs of the two line up, and the
position resolver reads the files it needs from the mirror. File-system paths in the result (``files[].abspath``,
``policies.root``, ``settings_path``) point into the mirror, consistently with each other. The directory lives as long as the result (or its
resolver) does and is removed afterwards.

A path that does not exist at ``ref`` loads as an empty policy set (everything in the work tree is then "added").
A ref git cannot resolve, a path outside any git repository, or a missing ``git`` is a ``UsageError``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from renderer.loading.files import POLICY_SUFFIXES, SETTINGS_FILE, UsageError, policy_root

__all__ = ["MirroredRevision", "Revision", "mirror_revision", "resolve_revision"]


@dataclass(frozen=True)
class Revision:
    """A resolved revision: what the user typed, the commit it names, and the repository's top directory."""

    ref: str
    commit: str
    top: Path

    @property
    def short(self) -> str:
        return self.commit[:12]


class _Checkout:
    """Owner of the temporary mirror; the directory is removed when the last holder lets go of it."""

    def __init__(self) -> None:
        self.path = Path(tempfile.mkdtemp(prefix="allocatable-rev-"))
        self._finalizer = weakref.finalize(self, shutil.rmtree, str(self.path), True)

    def cleanup(self) -> None:
        self._finalizer()


def _git(top: Path | None, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    cmd = ["git", "--literal-pathspecs", "--no-pager"]
    if top is not None:
        cmd += ["-C", str(top)]
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    try:
        return subprocess.run(
            [*cmd, *args], cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, env=env, check=False
        )
    except FileNotFoundError:
        raise UsageError("git is not installed or not on PATH; --base needs it") from None


def _first_line(raw: bytes) -> str:
    for line in raw.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line:
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return "unknown git error"


def _existing_ancestor(p: Path) -> Path:
    cur = p
    while not cur.exists():
        if cur.parent == cur:
            break
        cur = cur.parent
    return cur


def _real(p: Path) -> Path:
    """``p`` made absolute with symlinks resolved, also when its tail does not exist (any more)."""
    p = p.absolute()
    anchor = _existing_ancestor(p)
    return anchor.resolve() / p.relative_to(anchor)


def resolve_revision(path: Path, ref: str) -> Revision:
    """The git repository containing ``path`` and the commit ``ref`` names there, or a UsageError."""
    if not ref or ref.startswith("-") or any(c in ref for c in "\n\r\0"):
        raise UsageError(f'"{ref}" is not a git revision')
    start = _existing_ancestor(path.absolute())
    if start.is_file():
        start = start.parent
    top_proc = _git(start, "rev-parse", "--show-toplevel")
    if top_proc.returncode != 0:
        msg = _first_line(top_proc.stderr)
        if "not a git repository" in msg:
            raise UsageError(f"{path.as_posix()} is not inside a git repository; --base needs the policy repo in git")
        raise UsageError(f"git: {msg}")
    top = Path(top_proc.stdout.decode("utf-8", "surrogateescape").strip())
    rev = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if rev.returncode != 0:
        shallow = _git(top, "rev-parse", "--is-shallow-repository").stdout.strip() == b"true"
        hint = (
            "; this clone is shallow: fetch the base first (git fetch --depth=1 origin <branch>, "
            "or actions/checkout with fetch-depth: 0)"
            if shallow
            else "; is it fetched? (git fetch origin <branch>)"
        )
        raise UsageError(f'unknown git revision "{ref}": not a commit, branch or tag in {top.as_posix()}{hint}')
    return Revision(ref=ref, commit=rev.stdout.decode().strip(), top=top)


@dataclass(frozen=True)
class _Entry:
    mode: str
    sha: str
    dest: Path


def _tree_entries(rev: Revision, rel: str, dest_base: Path) -> list[_Entry]:
    """Blobs (files and symlinks) at or under ``rel`` (POSIX, relative to the top; "" for the whole repo)."""
    args = ["ls-tree", "-r", "-z", "--full-tree", rev.commit]
    if rel:
        args += ["--", rel]
    proc = _git(rev.top, *args)
    if proc.returncode != 0:
        raise UsageError(f"git ls-tree {rev.ref}: {_first_line(proc.stderr)}")
    prefix = rel + "/" if rel else ""
    entries: list[_Entry] = []
    for record in proc.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, name_b = record.partition(b"\t")
        mode, kind, sha = meta.decode().split(" ")
        if kind != "blob":  # submodules (commits) are not part of the policy repo
            continue
        name = name_b.decode("utf-8", "surrogateescape")
        if name == rel:
            sub = ""
        elif name.startswith(prefix):
            sub = name[len(prefix) :]
        else:  # pragma: no cover - ls-tree returns only matches of the pathspec
            continue
        parts = [p for p in sub.split("/") if p]
        if any(p in (".", "..") for p in parts):  # never write outside the mirror
            continue
        entries.append(_Entry(mode, sha, dest_base.joinpath(*parts)))
    return entries


def _write_blobs(rev: Revision, entries: list[_Entry]) -> None:
    if not entries:
        return
    with tempfile.TemporaryFile() as requests:
        requests.write("".join(f"{e.sha}\n" for e in entries).encode())
        requests.seek(0)
        env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
        with subprocess.Popen(
            ["git", "-C", str(rev.top), "cat-file", "--batch"],
            stdin=requests,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        ) as proc:
            assert proc.stdout is not None
            for entry in entries:
                header = proc.stdout.readline().split()
                if len(header) != 3 or header[1] != b"blob":
                    proc.kill()
                    raise UsageError(f"git cat-file: cannot read object {entry.sha} of {rev.ref}")
                size = int(header[2])
                entry.dest.parent.mkdir(parents=True, exist_ok=True)
                if entry.mode == "120000":
                    target = proc.stdout.read(size).decode("utf-8", "surrogateescape")
                    if entry.dest.is_symlink() or entry.dest.exists():
                        entry.dest.unlink()
                    os.symlink(target, entry.dest)
                else:
                    with open(entry.dest, "wb") as fh:
                        _copy(proc.stdout, fh, size)
                proc.stdout.read(1)  # the LF after each object
        if proc.returncode not in (0, None):
            raise UsageError(f"git cat-file failed reading {rev.ref}")


def _copy(src: IO[bytes], dst: IO[bytes], size: int) -> None:
    left = size
    while left:
        chunk = src.read(min(left, 1 << 20))
        if not chunk:
            raise UsageError("git cat-file: unexpected end of output")
        dst.write(chunk)
        left -= len(chunk)


def _mirror(checkout: Path, p: Path) -> Path:
    """Where the absolute path ``p`` lives inside the mirror."""
    p = p.absolute()
    return checkout.joinpath(*p.parts[1:]) if p.anchor else checkout / p


def _looks_like_file(p: Path) -> bool:
    return p.is_file() or (not p.exists() and p.name.endswith(POLICY_SUFFIXES))


@dataclass
class MirroredRevision:
    """``paths`` as they are at a revision, written into a private mirror of the work tree.

    ``load_paths`` are the mirrored paths to load, ``cwd`` the mirrored working directory to load them from (so
    display paths come out as a work-tree load prints them), ``checkout`` owns the directory."""

    revision: Revision
    checkout: _Checkout
    load_paths: list[Path]
    cwd: Path

    @contextmanager
    def working_directory(self) -> Iterator[None]:
        old = os.getcwd()
        os.chdir(self.cwd)
        try:
            yield
        finally:
            os.chdir(old)


def mirror_revision(paths: list[Path], ref: str) -> MirroredRevision:
    """Write ``paths`` (default ``policies/``) and the root's settings file as they are at ``ref`` into a mirror."""
    paths = list(paths) or [Path("policies")]
    rev = resolve_revision(paths[0], ref)
    cwd = Path.cwd()
    checkout = _Checkout()
    try:
        root = (
            policy_root(paths) if paths[0].exists() else (paths[0].parent if _looks_like_file(paths[0]) else paths[0])
        )
        wanted: list[tuple[Path, Path]] = []  # (work-tree path as given, its place in the mirror)
        for arg in [*paths, root / SETTINGS_FILE]:
            real = _real(arg)
            try:
                rel = real.relative_to(rev.top).as_posix()
            except ValueError:
                raise UsageError(
                    f"{arg.as_posix()} is outside the git repository {rev.top.as_posix()}; "
                    "--base compares paths of one repository"
                ) from None
            wanted.append((arg, _mirror(checkout.path, arg)))
            _write_blobs(rev, _tree_entries(rev, "" if rel == "." else rel, wanted[-1][1]))
        wanted.pop()  # the settings file is read by load() from the root
        mirrored_root = _mirror(checkout.path, root)
        mirrored_root.mkdir(parents=True, exist_ok=True)
        load_paths: list[Path] = []
        for i, (arg, mirrored) in enumerate(wanted):
            if mirrored.exists() or mirrored.is_symlink():
                load_paths.append(mirrored)
            elif i == 0:
                # The first path names the root; keep that root even though the path is absent at this revision.
                if _looks_like_file(arg):
                    load_paths.append(mirrored_root)
                else:
                    mirrored.mkdir(parents=True, exist_ok=True)
                    load_paths.append(mirrored)
        if not load_paths:
            load_paths = [mirrored_root]
        # A path that is a symlink at the revision is followed only while it stays in the repository's mirror:
        # a link to /etc (or ../../..) in a commit must not make --base read this machine's files.
        mirror_top = os.path.realpath(_mirror(checkout.path, rev.top))
        for arg, mirrored in [(a, m) for a, m in wanted if m in load_paths]:
            resolved = os.path.realpath(mirrored)
            if resolved != mirror_top and not resolved.startswith(mirror_top + os.sep):
                raise UsageError(
                    f"{arg.as_posix()} is a symlink at {ref} that leads outside the git repository; refusing to read it"
                )
        mirrored_cwd = _mirror(checkout.path, cwd)
        mirrored_cwd.mkdir(parents=True, exist_ok=True)
    except BaseException:
        checkout.cleanup()
        raise
    return MirroredRevision(rev, checkout, load_paths, mirrored_cwd)
