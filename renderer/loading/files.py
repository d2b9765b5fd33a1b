"""Find policy files under the given paths, deterministically, without leaving the policy repo."""

from __future__ import annotations

import errno
import os
import stat
import sys
from dataclasses import dataclass
from pathlib import Path

from renderer.findings import Finding

POLICY_SUFFIXES = (".yaml", ".yml", ".json")
SETTINGS_FILE = ".allocatable.yaml"
#: How findings in policies read from standard input are located (``<stdin>:line:col``).
STDIN_DISPLAY = "<stdin>"
#: Command-line spellings of standard input: ``-``, and the device names of file descriptor 0.
STDIN_NAMES = ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")


class UsageError(Exception):
    """Bad command-line input (a path that does not exist, ...): exit 2 with one line."""


@dataclass(frozen=True, slots=True)
class PolicyFile:
    abspath: Path
    display: str  # path as shown to users: relative to the working directory when inside it, POSIX


def display_path(p: Path, cwd: Path | None = None) -> str:
    cwd = cwd or Path.cwd()
    try:
        return p.relative_to(cwd).as_posix()
    except ValueError:
        rel = os.path.relpath(p, cwd)
        return Path(rel).as_posix() if not rel.startswith(".." + os.sep + "..") else p.as_posix()


def is_stdin(p: Path | str) -> bool:
    return str(p) in STDIN_NAMES


_stdin_copy: Path | None = None


def stdin_file(max_bytes: int) -> Path:
    """Standard input, read once and kept in a private temporary file for the rest of the run.

    Every later step reads files by path — parsing, and positions for findings, which reads the file again — and a
    pipe can be read only once. Reading stops after ``max_bytes + 1`` bytes, so the usual size limit applies (the
    parser refuses the file) without storing an unbounded stream. The copy is removed when the process exits.
    Cost: one pass over the input.
    """
    global _stdin_copy
    if _stdin_copy is None:
        import atexit
        import tempfile

        fd, name = tempfile.mkstemp(prefix="allocatable-stdin-", suffix=".yaml")
        copy = Path(name)
        atexit.register(copy.unlink, missing_ok=True)
        with os.fdopen(fd, "wb") as out:
            left = max_bytes + 1
            while left > 0:
                chunk = sys.stdin.buffer.read(min(left, 1 << 16))
                if not chunk:
                    break
                out.write(chunk)
                left -= len(chunk)
        _stdin_copy = copy
    return _stdin_copy


def policy_root(paths: list[Path]) -> Path:
    """The policy repo root: the first directory argument (or the first file's directory); for standard input,
    the working directory (its ``.allocatable.yaml``, if any, applies)."""
    first = paths[0]
    if is_stdin(first):
        return Path(".")
    return first if first.is_dir() else first.parent


def _file_error(code: str, path: str, message: str) -> Finding:
    return Finding(code=code, severity="error", message=message, path=path, line=1, column=1)


#: ``--max-file-size`` and ``limits.maxFileBytes`` accept 1 byte … 1 GiB: a policy file is read into memory whole.
MAX_FILE_BYTES_CEILING = 1 << 30


class FileProblem(Exception):
    """A file that is not read: not a regular file, unreadable, too large, or replaced while being opened."""


_KINDS = (
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISFIFO, "is a FIFO (named pipe)"),
    (stat.S_ISSOCK, "is a socket"),
    (stat.S_ISCHR, "is a character device"),
    (stat.S_ISBLK, "is a block device"),
    (stat.S_ISLNK, "is a symlink"),
)
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO swapped in after the check still never blocks the open
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


def not_regular(mode: int) -> str | None:
    """What a file of this mode is when it is not a regular file ("is a FIFO (named pipe)"), else None."""
    if stat.S_ISREG(mode):
        return None
    return next((what for test, what in _KINDS if test(mode)), "is not a regular file")


def read_regular(path: str | Path, max_bytes: int, *, follow: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes``; FileProblem for anything else.

    Never blocks and never reads a device: the type is checked with ``stat`` before opening, the file is opened
    non-blocking (``follow=False``: also ``O_NOFOLLOW``) and checked again with ``fstat`` on the open descriptor,
    which must be the file that was checked. At most ``max_bytes + 1`` bytes are read, whatever the file claims.
    Cost: three system calls and one read of the file.
    """
    try:
        before = os.stat(path, follow_symlinks=follow)
    except OSError as exc:
        raise FileProblem(f"cannot read file: {exc.strerror or exc}") from None
    except ValueError:  # a NUL in the name: no file system has such a file
        raise FileProblem("cannot read file: its name contains a NUL character") from None
    kind = not_regular(before.st_mode)
    if kind is not None:
        raise FileProblem(kind)
    flags = _OPEN_FLAGS | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise FileProblem(f"cannot read file: {exc.strerror or exc}") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) != (before.st_dev, before.st_ino):
            raise FileProblem("was replaced while it was being opened; run again")
        if st.st_size > max_bytes:
            raise FileProblem(_too_large(max_bytes))
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
        raise FileProblem(f"cannot read file: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    data = chunks[0] if len(chunks) == 1 else b"".join(chunks)
    if len(data) > max_bytes:
        raise FileProblem(_too_large(max_bytes))
    return data


def _too_large(max_bytes: int) -> str:
    return (
        f"file is larger than the {max_bytes} byte limit; split it, or raise the limit with "
        "--max-file-size or limits.maxFileBytes in .allocatable.yaml"
    )


def _inside(real: str, root_real: str) -> bool:
    return real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)


def _symlink_problem(link: Path, root: Path, root_real: str, *, directory: bool = False) -> str | None:
    """Why the symlink ``link`` is not followed (it leaves the policy repo, or leads nowhere), else None."""
    real = os.path.realpath(link)
    if not _inside(real, root_real):
        if directory:
            return "symlinked directory points outside the policy repo; it is not read"
        return (
            f"symlink points outside the policy repo ({display_path(root.absolute())}); copy the file into the repo "
            "instead"
        )
    try:
        os.stat(link)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop: the link leads back to itself; remove it"
        return "broken symlink"
    return None


def settings_file(root: Path, cwd: Path | None = None) -> tuple[PolicyFile | None, list[Finding]]:
    """``root/.allocatable.yaml`` when it exists and may be read, with the AL006 finding when it may not.

    Refused like a policy file: a symlink that leaves the policy repo (its target is never opened, so no message
    can quote it), a broken symlink or loop. Whether it is a regular file is checked when it is read.
    """
    path = root / SETTINGS_FILE
    try:
        st = path.lstat()
    except FileNotFoundError:
        return None, []
    except OSError as exc:
        shown = display_path(path.absolute(), cwd or Path.cwd())
        return None, [_file_error("AL006", shown, f"cannot read file: {exc.strerror or exc}")]
    shown = display_path(path.absolute(), cwd or Path.cwd())
    if stat.S_ISLNK(st.st_mode):
        problem = _symlink_problem(path, root, os.path.realpath(root))
        if problem is not None:
            return None, [_file_error("AL006", shown, problem)]
    return PolicyFile(abspath=path.absolute(), display=shown), []


def discover(
    paths: list[Path], root: Path, *, max_bytes: int = 8 * 1024 * 1024
) -> tuple[list[PolicyFile], list[Finding]]:
    """Expand directories into sorted policy files; report unusable entries as findings.

    Hidden entries (``.git``, ``.github``, ``.allocatable.yaml``) are skipped while walking; a file named on the
    command line is always read. Symlinks are followed only when their target stays inside ``root``. A directory
    that cannot be read is an AL006 finding, never skipped. ``-`` (or ``/dev/stdin``) is standard input, shown as
    ``<stdin>`` and copied once (``stdin_file``, at most ``max_bytes``). Cost: one walk of the tree, one ``lstat``
    per entry.
    """
    cwd = Path.cwd()
    root_real = os.path.realpath(root)
    files: list[PolicyFile] = []
    findings: list[Finding] = []
    seen: set[str] = set()

    def shown(p: Path) -> str:
        return display_path(p.absolute(), cwd)

    def add(p: Path, st: os.stat_result) -> None:
        if stat.S_ISLNK(st.st_mode):
            problem = _symlink_problem(p, root, root_real)
            if problem is not None:
                findings.append(_file_error("AL006", shown(p), problem))
                return
        real = os.path.realpath(p)
        if real in seen:
            return
        seen.add(real)
        files.append(PolicyFile(abspath=p.absolute(), display=shown(p)))

    def walk_error(exc: OSError) -> None:
        where = Path(exc.filename) if exc.filename else root
        findings.append(
            _file_error(
                "AL006",
                shown(where),
                f"cannot read directory: {exc.strerror or exc}; fix its permissions or move it out of the policy "
                "directory",
            )
        )

    for arg in paths:
        if is_stdin(arg):
            if not any(f.display == STDIN_DISPLAY for f in files):
                files.append(PolicyFile(abspath=stdin_file(max_bytes), display=STDIN_DISPLAY))
            continue
        try:
            st = arg.lstat()
        except FileNotFoundError:
            raise UsageError(f"{arg.as_posix()}: no such file or directory") from None
        except OSError as exc:
            raise UsageError(f"{arg.as_posix()}: {exc.strerror or exc}") from None
        is_dir = stat.S_ISDIR(st.st_mode)
        if stat.S_ISLNK(st.st_mode):
            try:
                is_dir = stat.S_ISDIR(os.stat(arg).st_mode)
            except OSError:
                is_dir = False
        if not is_dir:
            add(arg, st)  # a file, or anything else named on the command line: read_file says what it is
            continue
        for dirpath, dirnames, filenames in os.walk(arg, onerror=walk_error, followlinks=False):
            base = Path(dirpath)
            keep_dirs = []
            for d in sorted(dirnames):
                if d.startswith("."):
                    continue
                full = base / d
                try:
                    dst = full.lstat()
                except OSError as exc:
                    findings.append(_file_error("AL006", shown(full), f"cannot read: {exc.strerror or exc}"))
                    continue
                if stat.S_ISLNK(dst.st_mode):
                    problem = _symlink_problem(full, root, root_real, directory=True)
                    if problem is not None and not problem.startswith("broken"):
                        findings.append(_file_error("AL006", shown(full), problem))
                    continue  # never walk through symlinked directories
                if d.endswith(POLICY_SUFFIXES):
                    findings.append(
                        _file_error(
                            "AL006",
                            shown(full),
                            "is a directory, but its name says it is a policy file; rename it or remove it",
                        )
                    )
                    continue
                keep_dirs.append(d)
            dirnames[:] = keep_dirs
            for name in sorted(filenames):
                if name.startswith(".") or not name.endswith(POLICY_SUFFIXES):
                    continue
                full = base / name
                try:
                    fst = full.lstat()
                except OSError as exc:
                    findings.append(_file_error("AL006", shown(full), f"cannot read file: {exc.strerror or exc}"))
                    continue
                add(full, fst)
    files.sort(key=lambda f: f.display)
    return files, findings
