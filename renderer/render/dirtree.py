"""Directory file descriptors below an output directory (``Tree``), the one way the writer reaches a file.

Nothing is ever written through a symlink: every create, replace and remove goes through directory file
descriptors, opened one path component at a time with ``O_NOFOLLOW`` (``os.open(..., dir_fd=)``, ``os.replace(...,
src_dir_fd=, dst_dir_fd=)``, ``os.unlink(..., dir_fd=)``), so a directory swapped for a symlink while a render runs
is refused, or written as the directory it was when opened -- never followed. Files are opened with
``O_NOFOLLOW`` and must be regular files. Cost: a constant number of system calls per file, no directory walk.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from renderer import safepath
from renderer.errors import UserError

#: Staged and kept names of a render (``.allocatable-new-XXXXXXXX-N`` / ``-old-``; before 0.3 ``.NAME.allocatable-new-
#: XXXXXXXX``): ours by their marker.
STAGED_RE = re.compile(r"^\.(?:.+\.)?allocatable-(?:new|old)-[0-9a-f]{8}(?:-[0-9]+)?$")

_DIR_FLAGS = safepath.DIR_FLAGS
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


class OutputError(UserError):
    """The output directory cannot be written safely, or a write failed (one line, exit 2)."""


def check_relative(path: str) -> None:
    p = PurePosixPath(path)
    if (
        p.is_absolute()
        or not p.parts
        or any(part in ("", ".", "..") for part in p.parts)
        or "\\" in path
        or "\0" in path
        or STAGED_RE.match(p.name)
    ):
        raise OutputError(f"refusing to write {path!r}: not a plain relative path")
    for part in p.parts:
        problem = safepath.name_problem(part)
        if problem is not None:
            raise OutputError(f"cannot write {path}: {problem}; shorten the name it comes from")


def check_destination(root: Path, rels: Iterable[str] = (), *, allowed: Iterable[str] = ()) -> None:
    """OutputError when ``root``, or the directory of one of ``rels`` below it (except the ``allowed`` ones), is in
    ``.git/`` or ``.github/`` (``safepath.destination_problem``), before anything is written."""
    problem = safepath.destination_problem(root)
    if problem is None:
        skip = set(allowed)
        for rel in sorted(set(rels) - skip):
            problem = safepath.destination_problem(root / PurePosixPath(rel))
            if problem is not None:
                break
    if problem is not None:
        raise OutputError(problem)


def split(rel: str) -> tuple[str, str]:
    """("a/b", "c.yaml") for "a/b/c.yaml"; ("", "x") for "x"."""
    head, _, name = rel.rpartition("/")
    return head, name


_ADVICE = {
    errno.EACCES: "fix the permissions or choose another directory",
    errno.EPERM: "fix the permissions or choose another directory",
    errno.EROFS: "the file system is read-only; choose another directory",
    errno.ENOSPC: "free some space and run again",
    errno.EDQUOT: "free some space (disk quota) and run again",
}


def why(exc: OSError) -> str:
    """The system's reason and what to do about it: "Permission denied; fix the permissions or ..."."""
    advice = _ADVICE.get(exc.errno or 0, "choose another directory")
    return f"{exc.strerror or exc}; {advice}"


# ------------------------------------------------------------------------------------------- directory descriptors


class Tree:
    """Directory file descriptors below ``root``, each opened from its parent's with ``O_NOFOLLOW``.

    ``root`` itself may not be a symlink (its parents are the caller's choice); it is created, with missing parents,
    only by ``dir(..., create=True)``. Directories created here are remembered so a failed write can remove them.
    """

    def __init__(self, root: Path) -> None:
        self.root = root
        self._fds: dict[str, int] = {}
        self.created: list[str] = []  # relative to root ("" for root itself), in creation order
        self._created_parents: list[Path] = []

    def shown(self, rel: str) -> str:
        return (self.root / rel).as_posix() if rel else self.root.as_posix()

    def __enter__(self) -> Tree:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        for fd in self._fds.values():
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds.clear()

    def _refuse(self, rel: str) -> OutputError:
        """The error for a path component that could not be opened as a directory without following a link."""
        path = self.root / rel if rel else self.root
        try:
            st = path.lstat()
        except OSError as exc:
            return OutputError(f"{path.as_posix()}: {why(exc)}")
        if stat.S_ISLNK(st.st_mode):
            if not rel:
                return OutputError(f"{path.as_posix()} is a symlink; give the real directory instead")
            return OutputError(f"{path.as_posix()} is a symlink; refusing to write through it")
        return OutputError(f"{path.as_posix()} exists and is not a directory")

    def _open_root(self, create: bool) -> int | None:
        if "" in self._fds:
            return self._fds[""]
        try:
            fd = os.open(self.root, _DIR_FLAGS)
        except FileNotFoundError:
            if not create:
                return None
            self._make_root()
            try:
                fd = os.open(self.root, _DIR_FLAGS)
            except OSError as exc:
                raise OutputError(f"cannot open {self.root.as_posix()}: {why(exc)}") from None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                raise self._refuse("") from None
            raise OutputError(f"cannot open {self.root.as_posix()}: {why(exc)}") from None
        self._fds[""] = fd
        return fd

    def _make_root(self) -> None:
        """Create the root and its missing parents, remembering them (removed again if the write fails)."""
        missing: list[Path] = []
        cur = self.root.absolute()
        while True:
            try:
                st = cur.lstat()
            except FileNotFoundError:
                missing.append(cur)
                if cur.parent == cur:
                    break
                cur = cur.parent
                continue
            except OSError as exc:
                raise OutputError(f"cannot create {self.root.as_posix()}: {cur.as_posix()}: {why(exc)}") from None
            if not stat.S_ISDIR(st.st_mode) and not (stat.S_ISLNK(st.st_mode) and cur.is_dir()):
                raise OutputError(
                    f"cannot create {self.root.as_posix()}: {cur.as_posix()} is not a directory; choose another "
                    "directory"
                )
            break
        for path in reversed(missing):
            try:
                os.mkdir(path, 0o777)
            except OSError as exc:
                raise OutputError(f"cannot create directory {path.as_posix()}: {why(exc)}") from None
            self._created_parents.append(path)
        self.created.append("")

    def dir(self, rel_dir: str, *, create: bool) -> int | None:
        """The descriptor of directory ``rel_dir`` ("" for root), or None when it does not exist and not ``create``."""
        if rel_dir in self._fds:
            return self._fds[rel_dir]
        fd = self._open_root(create)
        if fd is None:
            return None
        done = ""
        for part in rel_dir.split("/") if rel_dir else []:
            here = f"{done}/{part}" if done else part
            if here in self._fds:
                fd, done = self._fds[here], here
                continue
            try:
                child = os.open(part, _DIR_FLAGS, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    return None
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except OSError as exc:
                    raise OutputError(f"cannot create directory {self.shown(here)}: {why(exc)}") from None
                self.created.append(here)
                try:
                    child = os.open(part, _DIR_FLAGS, dir_fd=fd)
                except OSError as exc:
                    raise OutputError(f"cannot open {self.shown(here)}: {why(exc)}") from None
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise self._refuse(here) from None
                raise OutputError(f"cannot open {self.shown(here)}: {why(exc)}") from None
            self._fds[here] = child
            fd, done = child, here
        return fd

    def read(self, rel: str) -> bytes | None:
        """Content of the regular file ``rel``; None when it (or its directory) is missing; OutputError for a
        symlink, a FIFO or anything else that is not a regular file."""
        d, name = split(rel)
        fd = self.dir(d, create=False)
        if fd is None:
            return None
        try:
            file_fd = os.open(name, _READ_FLAGS, dir_fd=fd)
        except FileNotFoundError:
            return None
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK):
                raise OutputError(f"{self.shown(rel)} is a symlink; refusing to write through it") from None
            raise OutputError(f"cannot read {self.shown(rel)}: {why(exc)}") from None
        try:
            if not stat.S_ISREG(os.fstat(file_fd).st_mode):
                raise OutputError(f"{self.shown(rel)} is not a regular file; remove it or choose another directory")
            chunks = []
            while chunk := os.read(file_fd, 1 << 20):
                chunks.append(chunk)
            return b"".join(chunks)
        except OSError as exc:
            raise OutputError(f"cannot read {self.shown(rel)}: {why(exc)}") from None
        finally:
            os.close(file_fd)

    def kind(self, rel: str) -> int | None:
        """``st_mode`` of ``rel`` without following it; None when missing (or its directory is)."""
        d, name = split(rel)
        try:
            fd = self.dir(d, create=False)
        except OutputError:
            return None
        if fd is None:
            return None
        try:
            return os.stat(name, dir_fd=fd, follow_symlinks=False).st_mode
        except OSError:
            return None

    def listdir(self, rel_dir: str) -> list[str]:
        try:
            fd = self.dir(rel_dir, create=False)
        except OutputError:
            return []
        if fd is None:
            return []
        try:
            return sorted(os.listdir(fd))
        except OSError:
            return []

    def remove_created(self) -> None:
        """Remove the directories this tree created (when empty), newest first."""
        for rel in reversed([r for r in self.created if r]):
            parent, name = split(rel)
            fd = self._fds.pop(rel, None)
            if fd is not None:
                with contextlib.suppress(OSError):
                    os.close(fd)
            parent_fd = self._fds.get(parent)
            if parent_fd is not None:
                with contextlib.suppress(OSError):
                    os.rmdir(name, dir_fd=parent_fd)
        if "" in self.created:
            self.close()
            for path in reversed(self._created_parents):
                with contextlib.suppress(OSError):
                    os.rmdir(path)
        self.created.clear()
        self._created_parents.clear()


# ------------------------------------------------------------------------------------------------- the transaction


def check_root(root: Path) -> None:
    try:
        st = root.lstat()
    except FileNotFoundError:
        return
    except OSError as exc:
        raise OutputError(f"cannot use {root.as_posix()}: {why(exc)}") from None
    if stat.S_ISLNK(st.st_mode):
        raise OutputError(f"{root.as_posix()} is a symlink; give the real directory instead")
    if not stat.S_ISDIR(st.st_mode):
        raise OutputError(f"{root.as_posix()} exists and is not a directory")


def removable(tree: Tree, rel: str) -> bool:
    """A stale file is removed only while it is a regular file reached without any symlink."""
    mode = tree.kind(rel)
    return mode is not None and stat.S_ISREG(mode)
