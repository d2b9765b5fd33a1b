"""The one safe-path layer: every file allocatable reads or writes, and all its temporary state, goes through here
(this module, and ``renderer.private_tree`` for the private directories and the trees written in them).

Threat model: the tool runs on a pull request's tree — in CI, in Argo CD's repo-server, in a reviewer's pre-commit —
and a pull request from a fork is hostile: its files, their names, its symlinks and its git objects are the
attacker's. Only the command line (the workflow, the plugin configuration, the person typing) is trusted. So a path
the user *names* is honoured, but nothing *found* in the tree — a symlink, a name, a tree entry, a setting — may
take a read or a write anywhere the user did not name. Standard library only (``--help`` and the shell steps import
it); the lowest layer: from the project it imports only ``renderer.signals`` (its interruption part).

What each part guarantees (docs/security.md lists the tests):

- **Confinement** (``repo_top``, ``source_problem``): the repository is the nearest directory at or above the
  working directory that holds ``.git`` (else the working directory). A path that lies inside it must resolve
  inside it, symlinks followed: ``policies -> /etc`` or ``nodes.json -> ~/.ssh/id_rsa`` committed in a pull request is
  refused before anything is opened, and no message names where it leads. A path outside the repository was typed
  by the user (``--nodes /tmp/nodes.json``) and is theirs.
- **Reading** (``read_regular``): regular files only — a FIFO, socket or device is refused on its ``stat``, before
  any open, and the file is opened non-blocking and checked again on the open descriptor (same inode, still
  regular), so nothing blocks and nothing reads ``/dev/zero``; at most the size limit plus one byte is read.
- **Walking** (``walk``): iterative (no recursion limit), entries sorted, symlinked directories never entered, at
  most ``MAX_TREE_DEPTH`` directories deep (a deeper tree is reported where it crosses the bound).
- **Writing** (``open_dir``, ``put``, ``renderer.private_tree.Beneath`` and ``renderer.render.output`` built on them): every directory is opened
  one component at a time from its parent's descriptor with ``O_NOFOLLOW | O_DIRECTORY``, every file created with
  ``O_CREAT | O_EXCL | O_NOFOLLOW``: a symlink on the way is refused, never followed, even when it appears while
  the tool runs. ``destination_problem`` refuses ``.git/`` and ``.github/`` (git hooks and CI workflows run what
  is written there) as destinations, on the path as given and as resolved. ``name_problem`` checks every name
  against the file system's limits before the first byte is written.
- **Interruption** (``renderer.signals``, ``renderer.private_tree.private_directory``): SIGTERM, SIGHUP and SIGINT raise ``Interrupted``
  in the main thread, so every ``finally`` and rollback runs and temporary state is removed on the way out; a
  private directory is removed on the way out too, and its removal is not cut short by a second signal.

Cost: a constant number of system calls per path component and per file; no step reads more than it is bounded to.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import os
import stat
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

from renderer.signals import Interrupted, deferred_signals, install_signal_handlers

__all__ = [
    "MAX_TREE_DEPTH",
    "NAME_MAX",
    "PROTECTED_DIRS",
    "FileProblem",
    "confined_to",
    "destination_problem",
    "inside",
    "name_problem",
    "not_regular",
    "open_dir",
    "read_regular",
    "repo_top",
    "source_problem",
    "walk",
]

# ---------------------------------------------------------------------------------------------- temporary state


def remove_at_exit(path: Path) -> None:
    """Remove the file ``path`` when the process ends (normally, or unwinding from a handled signal)."""
    atexit.register(_unlink_quietly, str(path))


def _unlink_quietly(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


# ------------------------------------------------------------------------------------------------- confinement

_TOPS: list[Path] = []  # set by ``confined_to`` (a --base mirror is its own repository)
_TOP_CACHE: dict[str, Path] = {}


def inside(child: str, parent: str) -> bool:
    """``child`` is ``parent`` or below it (both absolute and normalised the same way)."""
    return child == parent or child.startswith(parent.rstrip(os.sep) + os.sep)


def repo_top(cwd: str | None = None) -> Path:
    """The repository the tool works in: the nearest directory at or above ``cwd`` (default: the working directory)
    that holds ``.git`` (a directory, or the file of a worktree or submodule), else ``cwd`` itself.

    Cost: one ``lstat`` per ancestor, once per working directory."""
    if _TOPS:
        return _TOPS[-1]
    here = os.path.abspath(cwd or os.getcwd())
    cached = _TOP_CACHE.get(here)
    if cached is not None:
        return cached
    top = Path(here)
    for d in (top, *top.parents):
        if os.path.lexists(d / ".git"):
            top = d
            break
    _TOP_CACHE[here] = top
    return top


@contextlib.contextmanager
def confined_to(top: Path) -> Iterator[None]:
    """Treat ``top`` as the repository while the block runs (a ``--base`` mirror, which holds no ``.git``)."""
    _TOPS.append(top)
    try:
        yield
    finally:
        _TOPS.pop()


def _shown(path: str | os.PathLike[str]) -> str:
    return Path(path).as_posix()


def source_problem(path: str | os.PathLike[str], *, what: str = "it", top: Path | None = None) -> str | None:
    """Why ``path`` may not be read (a message to put after the path): it lies in the repository but resolves outside
    it (through a symlink on the way, or at its end). None when it may. The message never says where it leads."""
    top = top or repo_top()
    try:
        lexical = os.path.abspath(path)
    except ValueError:  # a NUL in the name
        return "contains a NUL character; no file has such a name"
    if not inside(lexical, os.path.abspath(top)):
        return None  # named by the user, outside the repository: theirs to name
    real, top_real = os.path.realpath(path), os.path.realpath(top)
    if inside(real, top_real):
        return None
    return (
        f"leads outside the repository ({_shown(top)}) through a symlink; refusing to read {what}: copy what it "
        "points to into the repository instead"
    )


PROTECTED_DIRS = {
    ".git": "git's own directory (hooks there run on the next git command)",
    ".github": "GitHub's directory (workflows there run in CI)",
}


def _protected_part(parts: tuple[str, ...]) -> str | None:
    for part in parts:
        # Case-insensitive file systems (macOS, Windows) treat .GIT as .git; Windows also drops trailing dots and
        # spaces. None of these spellings is a place to write.
        folded = part.casefold().rstrip(". ")
        if folded in PROTECTED_DIRS:
            return folded
    return None


def destination_problem(path: str | os.PathLike[str], *, top: Path | None = None, what: str = "write") -> str | None:
    """Why the directory ``path`` may not receive files: it is, or is inside, ``.git`` or ``.github`` — on the path
    as given or as resolved (symlinks followed) — counting only components below the repository. None when it may."""
    top = top or repo_top()
    try:
        candidates = [
            (os.path.abspath(path), os.path.abspath(top)),
            (os.path.realpath(path), os.path.realpath(top)),
        ]
    except ValueError:
        return f"{_shown(path)!r} contains a NUL character; no directory has such a name"
    for p, t in candidates:
        rel = Path(p).relative_to(t).parts if inside(p, t) else Path(p).parts
        hit = _protected_part(rel)
        if hit is not None:
            return f"refusing to {what} into {_shown(path)}: it is inside {hit}/, {PROTECTED_DIRS[hit]}; choose another directory"
    return None


#: The longest file name (one path component) every supported file system takes, in bytes.
NAME_MAX = 255


def name_problem(name: str, limit: int = NAME_MAX) -> str | None:
    """Why ``name`` (one path component) cannot be created: longer than ``limit`` bytes as the file system sees them
    (UTF-8, undecodable bytes as they were), or holding a NUL or a slash."""
    if "\0" in name or "/" in name:
        return f"file name {name!r} holds a NUL or a slash"
    size = len(os.fsencode(name))
    if size > limit:
        short = name[:40] + "…"
        return f"file name {short} is {size} bytes, longer than the {limit} bytes a file system allows in one name"
    return None


# ---------------------------------------------------------------------------------------------------------- reading


class FileProblem(Exception):
    """A file that is not read: not a regular file, unreadable, too large, outside, or replaced while being opened."""


_KINDS = (
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISFIFO, "is a FIFO (named pipe)"),
    (stat.S_ISSOCK, "is a socket"),
    (stat.S_ISCHR, "is a character device"),
    (stat.S_ISBLK, "is a block device"),
    (stat.S_ISLNK, "is a symlink"),
)
_READ_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the check still never blocks the open
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)
NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
CREATE_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | NOFOLLOW | getattr(os, "O_CLOEXEC", 0)


def not_regular(mode: int) -> str | None:
    """What a file of this mode is when it is not a regular file ("is a FIFO (named pipe)"), else None."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "is not a regular file")


def _strerror(exc: OSError) -> str:
    return exc.strerror or str(exc)


def open_regular(path: str | os.PathLike[str]) -> int:
    """A descriptor of the regular file ``path``, opened as ``read_regular`` opens it (type checked before and after
    opening, non-blocking), for a caller that reads it in chunks; FileProblem for anything else. The caller closes
    it. Cost: three system calls."""
    try:
        before = os.stat(path)
    except OSError as exc:
        raise FileProblem(f"cannot read file: {_strerror(exc)}") from None
    except ValueError:
        raise FileProblem("cannot read file: its name contains a NUL character") from None
    kind = not_regular(before.st_mode)
    if kind is not None:
        raise FileProblem(kind)
    try:
        fd = os.open(path, _READ_FLAGS)
    except OSError as exc:
        raise FileProblem(f"cannot read file: {_strerror(exc)}") from None
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
        os.close(fd)
        raise FileProblem("was replaced while it was being opened; run again")
    return fd


def read_regular(
    path: str | os.PathLike[str], max_bytes: int, *, follow: bool = True, dir_fd: int | None = None
) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes``; FileProblem for anything else.

    The type is checked with ``stat`` before opening, the file is opened non-blocking (``follow=False``: also
    ``O_NOFOLLOW``) and checked again with ``fstat`` on the open descriptor, which must be the file that was checked.
    At most ``max_bytes + 1`` bytes are read, whatever the file claims. Cost: three system calls and one read.
    """
    try:
        before = os.stat(path, follow_symlinks=follow, dir_fd=dir_fd)
    except OSError as exc:
        raise FileProblem(f"cannot read file: {_strerror(exc)}") from None
    except ValueError:  # a NUL in the name: no file system has such a file
        raise FileProblem("cannot read file: its name contains a NUL character") from None
    kind = not_regular(before.st_mode)
    if kind is not None:
        raise FileProblem(kind)
    try:
        fd = os.open(path, _READ_FLAGS | (0 if follow else NOFOLLOW), dir_fd=dir_fd)
    except OSError as exc:
        raise FileProblem(f"cannot read file: {_strerror(exc)}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
            raise FileProblem("was replaced while it was being opened; run again")
        if st.st_size > max_bytes:
            raise FileProblem(too_large(max_bytes))
        # One read of the size the file has (plus one byte, to see it grew), so a big file is allocated once; the
        # limit, not the file's claim, bounds what is read.
        step = st.st_size + 1 if 0 < st.st_size <= max_bytes else 1 << 20
        chunks: list[bytes] = []
        left = max_bytes + 1
        while left > 0:
            chunk = os.read(fd, min(left, step))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    except OSError as exc:
        raise FileProblem(f"cannot read file: {_strerror(exc)}") from None
    finally:
        os.close(fd)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if len(data) > max_bytes:
        raise FileProblem(too_large(max_bytes))
    return data


def too_large(max_bytes: int) -> str:
    return (
        f"file is larger than the {max_bytes} byte limit; split it, or raise the limit with "
        "--max-file-size or limits.maxFileBytes in .allocatable.yaml"
    )


# ---------------------------------------------------------------------------------------------------------- walking

#: Directories below a walked root. Policy trees are a few levels deep; a thousand-level tree is an attack on the
#: walker (and on every path the tool prints), reported where it crosses this bound.
MAX_TREE_DEPTH = 64


def walk(
    root: str,
    *,
    on_error: Callable[[OSError], None],
    on_too_deep: Callable[[str], None],
    max_depth: int = MAX_TREE_DEPTH,
) -> Iterator[tuple[str, list[str], list[str]]]:
    """``os.walk(root, topdown=True, followlinks=False)`` without recursion: ``(dirpath, dirnames, filenames)``
    with both lists sorted; the caller may prune ``dirnames`` in place. A directory ``max_depth`` levels below
    ``root`` is passed to ``on_too_deep`` and not entered. Symlinks to directories are listed in ``dirnames``
    (so the caller can say why they are not walked) and never entered. Cost: one ``scandir`` per directory."""
    stack: list[tuple[str, int]] = [(root, 0)]
    while stack:
        top, depth = stack.pop()
        try:
            with os.scandir(top) as it:
                entries = list(it)
        except OSError as exc:
            on_error(exc)
            continue
        dirnames: list[str] = []
        filenames: list[str] = []
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            (dirnames if is_dir else filenames).append(entry.name)
        dirnames.sort()
        filenames.sort()
        yield top, dirnames, filenames
        below: list[tuple[str, int]] = []
        for name in dirnames:
            path = os.path.join(top, name)
            if os.path.islink(path):
                continue
            if depth + 1 > max_depth:
                on_too_deep(path)
                continue
            below.append((path, depth + 1))
        stack.extend(reversed(below))  # sorted, depth first: the order os.walk gives


# ---------------------------------------------------------------------------------------------------------- writing


def open_dir(name: str, dir_fd: int | None = None) -> int:
    """A descriptor of the directory ``name`` (relative to ``dir_fd``), never through a symlink at its last
    component: OSError ELOOP/ENOTDIR for a symlink or a file."""
    return os.open(name, DIR_FLAGS, dir_fd=dir_fd)


ELOOP_ERRNOS = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)


def _refuse_component(shown: str, part: str, exc: OSError) -> FileProblem:
    if exc.errno in ELOOP_ERRNOS:
        return FileProblem(f"refusing to write {shown}: {part} is a symlink or not a directory")
    return FileProblem(f"cannot write {shown}: {part}: {_strerror(exc)}")


def put(dest: str | os.PathLike[str], data: bytes, *, top: Path | None = None) -> None:
    """Write ``data`` to the file ``dest``, all or nothing: staged under a temporary name in the same directory,
    flushed, then renamed over ``dest``. Below the repository every directory on the way is opened with
    ``O_NOFOLLOW`` (missing ones created): a symlink anywhere on the way, or at ``dest`` itself, is refused, as is
    anything at ``dest`` that is not a regular file, and any destination in ``.git/`` or ``.github/``.
    FileProblem says why. Cost: a constant number of system calls per path component."""
    top = top or repo_top()
    shown = _shown(dest)
    lexical = os.path.abspath(dest)
    problem = destination_problem(lexical, top=top)  # the file's own name too: a file ".git" is git's
    if problem is not None:
        raise FileProblem(problem)
    top_abs = os.path.abspath(top)
    if inside(lexical, top_abs) and lexical != top_abs:
        base, parts = top_abs, Path(lexical).relative_to(top_abs).parts
    else:  # outside the repository: the directory the user named is theirs
        base, parts = os.path.dirname(lexical), (os.path.basename(lexical),)
    name = parts[-1]
    problem = name_problem(name)
    if problem is not None:
        raise FileProblem(f"cannot write {shown}: {problem}")
    try:
        fd = os.open(base, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise FileProblem(f"cannot write {shown}: {_strerror(exc)}") from None
    try:
        for part in parts[:-1]:
            try:
                child = open_dir(part, fd)
            except FileNotFoundError:
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                    child = open_dir(part, fd)
                except OSError as exc:
                    raise _refuse_component(shown, part, exc) from None
            except OSError as exc:
                raise _refuse_component(shown, part, exc) from None
            os.close(fd)
            fd = child
        try:
            st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise FileProblem(f"cannot write {shown}: {_strerror(exc)}") from None
        else:
            kind = not_regular(st.st_mode)
            if kind is not None:
                raise FileProblem(f"refusing to write {shown}: it {kind}; remove it or choose another file")
        tmp = f".allocatable-new-{os.urandom(4).hex()}"
        try:
            out = os.open(tmp, CREATE_FLAGS, 0o666, dir_fd=fd)
            try:
                view = memoryview(data)
                while view:
                    view = view[os.write(out, view) :]
                os.fsync(out)
            finally:
                os.close(out)
            os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        except BaseException as exc:
            with deferred_signals(), contextlib.suppress(OSError):
                os.unlink(tmp, dir_fd=fd)
            if isinstance(exc, OSError):
                raise FileProblem(f"cannot write {shown}: {_strerror(exc)}") from None
            raise
    finally:
        os.close(fd)


_USAGE = """\
usage: python -m renderer.safepath put DEST          write standard input to DEST (safely, all or nothing)
       python -m renderer.safepath check-read PATH   exit 2 if PATH, inside the repository, leads outside it
"""


def main(argv: list[str] | None = None) -> int:
    """The layer for shell steps (the GitHub Action): one line ``allocatable: error: ...`` and exit 2 on refusal."""
    args = sys.argv[1:] if argv is None else argv
    install_signal_handlers()
    try:
        if len(args) == 2 and args[0] == "put":
            from renderer.stdio import InputError, read_input

            parts: list[bytes] = []
            try:
                while chunk := read_input(1 << 16):
                    parts.append(chunk)
            except InputError as exc:
                raise FileProblem(f"{args[1]}: nothing written: {exc}") from None
            put(args[1], b"".join(parts))
            return 0
        if len(args) == 2 and args[0] == "check-read":
            problem = source_problem(args[1])
            if problem is not None:
                raise FileProblem(f"{args[1]}: {problem}")
            return 0
    except FileProblem as exc:
        sys.stderr.write(f"allocatable: error: {_printable(str(exc))}\n")
        return 2
    except Interrupted as exc:
        return exc.exit_code
    sys.stderr.write(_USAGE)
    return 2


def _printable(text: str) -> str:
    """Control, bidi and undecodable characters as escapes: the message is one inert line (this layer imports
    nothing, so it carries its own small escaper; ``renderer.escaping.plain`` is the full one)."""
    out = []
    for c in text:
        o = ord(c)
        if (
            o < 0x20
            or 0x7F <= o <= 0x9F
            or 0xD800 <= o <= 0xDFFF
            or o in (0x2028, 0x2029, 0xFEFF)
            or (0x202A <= o <= 0x202E or 0x2066 <= o <= 0x2069)
        ):
            out.append(f"\\x{o:02x}" if o < 0x100 else f"\\u{o:04x}")
        else:
            out.append(c)
    return "".join(out)


if __name__ == "__main__":  # pragma: no cover - exercised through the Action's shell steps
    raise SystemExit(main())
