"""The all-or-nothing write of a set of files below a ``Tree`` (``commit_files``: render, ``init``, ``schema -o``).

Every write is **all or nothing** (``commit_files``, also used by ``init`` and ``schema -o``):

1. *stage*: every new file is written under a short temporary name next to its target
   (``.allocatable-new-XXXXXXXX-N``, same directory, so the renames below never cross a file system, and short,
   so a target name at the file system's limit still has a staged name), flushed to disk;
2. *commit*: each target is replaced by its staged file with one ``rename``, after a hard link has kept the
   previous version (``.allocatable-old-XXXXXXXX-N``); stale files are moved aside the same way; the manifest is
   replaced last;
3. *clean up*: the kept previous versions are deleted, and directories emptied by stale removal.

Every name is checked against the file system's limit (``safepath.name_problem``) and every destination against
``.git/`` and ``.github/`` (``safepath.destination_problem``) before the first byte is written. Any failure in steps
1-2 (a full disk, a permission, an interrupt: SIGINT, SIGTERM or SIGHUP, see ``signals.install_signal_handlers``)
undoes what was done: staged files are deleted, replaced files get their previous version back, created directories
are removed; the previous output is byte for byte what it was, and the error names the path that failed. The undo
and step 3 run with signals deferred (``signals.deferred_signals``), so a second signal cannot cut them short: a
render finishes or rolls back. A render killed outright (SIGKILL) may leave staged or kept files behind: the next
render deletes them, and ``render --check`` reports them.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from renderer import safepath, signals
from renderer.render.dirtree import STAGED_RE, OutputError, Tree, split, why

#: Temporary names of renders before 0.2 (``tempfile.mkstemp(prefix=".NAME.", suffix=".tmp")``): ours only when
#: NAME is one of our files in that directory.
_LEGACY_RE = re.compile(r"^\.(?P<name>.+)\.[A-Za-z0-9_]{8}\.tmp$")


def _write_new(fd: int, name: str, data: bytes, shown: str) -> None:
    """Create ``name`` in directory ``fd`` (never an existing file, never through a link), write, flush to disk."""
    try:
        out = os.open(name, safepath.CREATE_FLAGS, 0o666, dir_fd=fd)  # the umask applies, as for any new file
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: {why(exc)}") from None
    try:
        view = memoryview(data)
        while view:
            n = os.write(out, view)
            view = view[n:]
        os.fsync(out)
    except OSError as exc:
        raise OutputError(f"cannot write {shown}: {why(exc)}") from None
    finally:
        os.close(out)


def _exists(fd: int, name: str) -> bool:
    try:
        os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


@dataclass
class _Step:
    kind: str  # "write" or "remove"
    fd: int  # the directory of ``name``
    rel: str
    name: str
    kept: str | None  # the previous version, kept under this name until the end ...
    kept_fd: int  # ... in this directory (removed files are kept in the root, which is always looked at)


def commit_files(
    tree: Tree,
    writes: list[tuple[str, bytes]],
    removals: Iterable[str] = (),
    final: tuple[str, bytes] | None = None,
) -> list[str]:
    """Write every (relative path, bytes) of ``writes``, remove ``removals``, then write ``final`` (the manifest:
    the commit point), all or nothing.

    Returns the kept previous versions that could not be deleted after the commit (left for the next render);
    raises OutputError naming the failing path after undoing everything (``BaseException``s, such as an interrupt,
    are undone too and propagate). See the module docstring.
    """
    token = secrets.token_hex(4)
    staged: list[tuple[int, str, str, str]] = []  # (dir fd, rel, name, staged name)
    done: list[_Step] = []
    serial = iter(range(1 << 62))
    try:
        # Staging: the long part (every byte is written here), interruptible; an interrupt undoes it.
        for rel, data in [*writes, *([final] if final is not None else [])]:
            d, name = split(rel)
            fd = tree.dir(d, create=True)
            assert fd is not None
            tmp = f".allocatable-new-{token}-{next(serial)}"
            staged.append((fd, rel, name, tmp))  # (short: its removal on rollback cannot fail on its length)
            _write_new(fd, tmp, data, tree.shown(rel))
        root_fd = tree.dir("", create=True)
        assert root_fd is not None
    except BaseException as exc:
        raise _rolled_back(tree, staged, done, exc) from None
    # Committing: renames only (fast), with signals deferred, so a render finishes or rolls back, never stops
    # half-way; a failure undoes every step. A signal that arrived meanwhile ends the run once this is done.
    with signals.deferred_signals():
        try:
            for fd, rel, name, tmp in staged[: len(writes)]:
                done.append(_replace(tree, fd, rel, name, tmp, f"{token}-{next(serial)}"))
            for rel in removals:
                d, name = split(rel)
                fd = tree.dir(d, create=False)
                if fd is None:
                    continue
                kept = f".allocatable-old-{token}-{next(serial)}"
                try:
                    os.replace(name, kept, src_dir_fd=fd, dst_dir_fd=root_fd)
                except FileNotFoundError:
                    continue
                except OSError as exc:
                    raise OutputError(f"cannot remove {tree.shown(rel)}: {why(exc)}") from None
                done.append(_Step("remove", fd, rel, name, kept, root_fd))
            if final is not None:
                fd, rel, name, tmp = staged[-1]
                done.append(_replace(tree, fd, rel, name, tmp, f"{token}-{next(serial)}"))
        except BaseException as exc:
            raise _rolled_back(tree, staged, done, exc) from None
        return _tidy(tree, done)


def _rolled_back(
    tree: Tree, staged: list[tuple[int, str, str, str]], done: list[_Step], exc: BaseException
) -> BaseException:
    """Undo everything (signals deferred: a second signal cannot cut the rollback short) and say what happened."""
    with signals.deferred_signals():
        problem = _undo(tree, staged, done)
    if isinstance(exc, OutputError):
        if problem is not None:
            return OutputError(f"{exc}; restoring the previous files failed too: {problem}")
        return OutputError(f"{exc} (nothing was changed in {tree.shown('')})")
    return exc


def _tidy(tree: Tree, done: list[_Step]) -> list[str]:
    """After the commit point: the renames reach the disk, kept previous versions are deleted, emptied directories
    removed. A failure here leaves kept files that the next write deletes (returned, to be named)."""
    for fd in {step.fd for step in done}:
        with contextlib.suppress(OSError):
            os.fsync(fd)  # the renames themselves reach the disk (best effort: not every file system allows it)
    leftovers = []
    for step in done:
        if step.kept is not None:
            try:
                os.unlink(step.kept, dir_fd=step.kept_fd)
            except OSError:
                where = split(step.rel)[0] if step.kept_fd == step.fd else ""
                leftovers.append(tree.shown(f"{where}/{step.kept}" if where else step.kept))
    _remove_emptied(tree, [s.rel for s in done if s.kind == "remove"])
    return leftovers


def _replace(tree: Tree, fd: int, rel: str, name: str, tmp: str, token: str) -> _Step:
    """Put the staged ``tmp`` in place of ``name``, keeping the previous version as a hard link."""
    kept = None
    try:
        if _exists(fd, name):
            kept = f".allocatable-old-{token}"
            os.link(name, kept, src_dir_fd=fd, dst_dir_fd=fd, follow_symlinks=False)
        os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    except BaseException as exc:
        if kept is not None:  # the previous version is still in place: drop its extra name
            with contextlib.suppress(OSError):
                os.unlink(kept, dir_fd=fd)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot replace {tree.shown(rel)}: {why(exc)}") from None
        raise
    return _Step("write", fd, rel, name, kept, fd)


def _undo(tree: Tree, staged: list[tuple[int, str, str, str]], done: list[_Step]) -> str | None:
    """Put everything back as it was before ``commit_files``; the first path that could not be restored, or None."""
    problem: str | None = None
    for step in reversed(done):
        try:
            if step.kept is not None:
                os.replace(step.kept, step.name, src_dir_fd=step.kept_fd, dst_dir_fd=step.fd)
            else:
                os.unlink(step.name, dir_fd=step.fd)
        except OSError as exc:
            problem = problem or f"{tree.shown(step.rel)}: {why(exc)}"
    committed = {(s.fd, s.name) for s in done if s.kind == "write"}
    for fd, rel, name, tmp in staged:
        if (fd, name) in committed:
            continue
        try:
            os.unlink(tmp, dir_fd=fd)
        except FileNotFoundError:
            pass
        except OSError as exc:
            problem = problem or f"{tree.shown(rel)}: {why(exc)}"
    tree.remove_created()
    return problem


def _remove_emptied(tree: Tree, removed: list[str]) -> None:
    """Remove directories that removing ``removed`` files left empty (never the root)."""
    dirs = sorted({str(PurePosixPath(rel).parent) for rel in removed} - {"."}, key=lambda d: -d.count("/"))
    for d in dirs:
        cur = d
        while cur and cur != ".":
            parent, name = split(cur)
            if tree.listdir(cur):
                break
            parent_fd = tree.dir(parent, create=False)
            if parent_fd is None:
                break
            try:
                os.rmdir(name, dir_fd=parent_fd)
            except OSError:
                break
            cur = parent


# ---------------------------------------------------------------------------------------- leftovers of killed runs


def leftovers(tree: Tree, dirs: Iterable[str], ours: set[str]) -> list[str]:
    """Staged or kept files of an earlier, killed write in ``dirs`` (relative paths)."""
    out = []
    for d in sorted(set(dirs)):
        for name in tree.listdir(d):
            rel = f"{d}/{name}" if d else name
            legacy = _LEGACY_RE.match(name)
            if STAGED_RE.match(name) or (
                legacy is not None and (f"{d}/{legacy['name']}" if d else legacy["name"]) in ours
            ):
                mode = tree.kind(rel)
                if mode is not None and stat.S_ISREG(mode):
                    out.append(rel)
    return out


def delete(tree: Tree, rels: list[str]) -> None:
    for rel in rels:
        d, name = split(rel)
        fd = tree.dir(d, create=False)
        if fd is None:
            continue
        try:
            os.unlink(name, dir_fd=fd)
        except FileNotFoundError:
            continue
        except OSError as exc:
            raise OutputError(f"cannot remove the leftover {tree.shown(rel)}: {why(exc)}") from None


def dirs_of(paths: Iterable[str]) -> set[str]:
    out = {""}
    for rel in paths:
        d, _ = split(rel)
        out.add(d)
    return out
