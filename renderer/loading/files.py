"""Find policy files under the given paths, deterministically, without leaving the policy repo."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from renderer import safepath
from renderer.errors import UserError
from renderer.findings import Finding
from renderer.safepath import FileProblem, not_regular
from renderer.stdio import InputError, read_input

if TYPE_CHECKING:
    from renderer.loading.exclude import Exclusions

__all__ = [
    "MAX_FILE_BYTES_CEILING",
    "POLICY_SUFFIXES",
    "SETTINGS_FILE",
    "STDIN_DISPLAY",
    "STDIN_NAMES",
    "FileProblem",
    "PolicyFile",
    "UsageError",
    "discover",
    "display_path",
    "is_stdin",
    "not_regular",
    "path_argument",
    "policy_root",
    "read_named",
    "read_regular",
    "settings_file",
    "stdin_file",
]

POLICY_SUFFIXES = (".yaml", ".yml", ".json")
SETTINGS_FILE = ".allocatable.yaml"
#: How findings in policies read from standard input are located (``<stdin>:line:col``).
STDIN_DISPLAY = "<stdin>"
#: Command-line spellings of standard input: ``-``, and the device names of file descriptor 0.
STDIN_NAMES = ("-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0")


class UsageError(UserError):
    """Bad command-line input (a path that does not exist, ...): exit 2 with one line."""


class PolicyFile(NamedTuple):
    abspath: Path
    display: str  # path as shown to users: relative to the working directory when inside it, POSIX


def display_path(p: Path, cwd: Path | None = None) -> str:
    cwd = cwd or Path.cwd()
    try:
        return p.relative_to(cwd).as_posix()
    except ValueError:
        rel = os.path.relpath(p, cwd)
        return Path(rel).as_posix() if not rel.startswith(".." + os.sep + "..") else p.as_posix()


#: What a PATH of ``-`` becomes on the command line (``path_argument``): ``Path("-")`` would be ambiguous, because
#: ``Path("./-")`` — a directory named ``-`` — is the same object.
STDIN_PATH = Path("/dev/stdin")


def is_stdin(p: Path | str) -> bool:
    """Standard input: the string ``-``, or a device name of file descriptor 0. A ``Path("-")`` is a file or directory
    named ``-`` (``./-`` on the command line, or one found in a tree), never standard input."""
    if isinstance(p, Path):
        return str(p) in STDIN_NAMES[1:]
    return p in STDIN_NAMES


def path_argument(text: str) -> Path:
    """argparse ``type=`` of a PATH: ``-`` is standard input (``STDIN_PATH``); ``./-`` stays the file named ``-``."""
    return STDIN_PATH if text == "-" else Path(text)


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
        import tempfile

        fd, name = tempfile.mkstemp(prefix="allocatable-stdin-", suffix=".yaml")
        copy = Path(name)
        safepath.remove_at_exit(copy)  # at exit, also when a signal ends the run (signals.Interrupted unwinds)
        with os.fdopen(fd, "wb") as out:
            left = max_bytes + 1
            while left > 0:
                try:
                    chunk = read_input(min(left, 1 << 16))
                except InputError as exc:
                    raise UsageError(str(exc)) from None
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


def read_regular(path: str | Path, max_bytes: int, *, follow: bool = True) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes``; FileProblem for anything else
    (``renderer.safepath.read_regular``: type checked before opening, non-blocking, same inode after opening,
    size-bounded). Cost: three system calls and one read of the file."""
    return safepath.read_regular(path, max_bytes, follow=follow)


def read_named(path: str | Path, max_bytes: int, *, what: str = "it") -> bytes:
    """A file named on the command line or in a setting (a ``--nodes`` dump, ...): refused when it lies in the
    repository but leads out of it through a symlink (``safepath.source_problem``; the message never says where),
    else read as ``read_regular`` reads. Cost: one ``realpath`` and ``read_regular``."""
    problem = safepath.source_problem(path, what=what)
    if problem is not None:
        raise FileProblem(problem)
    return read_regular(path, max_bytes)


def check_named(paths: list[Path]) -> None:
    """UsageError when a PATH lies in the repository but resolves outside it (``policies -> /etc`` committed in a pull
    request): checked before anything under it is opened."""
    for p in paths:
        if is_stdin(p):
            continue
        problem = safepath.source_problem(p, what="the policies there")
        if problem is not None:
            raise UsageError(f"{p.as_posix()}: {problem}")


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
    can quote it), a broken symlink or loop. Whether it is a regular file is checked when it is read. A ``root``
    in the repository that leads out of it is a UsageError (``check_named``).
    """
    if not is_stdin(root):
        check_named([root])
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
    paths: list[Path], root: Path, *, max_bytes: int = 8 * 1024 * 1024, exclusions: Exclusions | None = None
) -> tuple[list[PolicyFile], list[Finding]]:
    """Expand directories into sorted policy files; report unusable entries as findings.

    Hidden entries (``.git``, ``.github``, ``.allocatable.yaml``) are skipped while walking; a file named on the
    command line is always read. Symlinks are followed only when their target stays inside ``root``; a PATH that lies
    in the repository but leads out of it is a UsageError (``check_named``). A directory that cannot be read, or that
    lies more than ``safepath.MAX_TREE_DEPTH`` levels down, is an AL006 finding, never skipped. Standard input is
    ``-`` on the command line (``STDIN_PATH``), shown as ``<stdin>`` and copied once (``stdin_file``, at most
    ``max_bytes``); a file or directory *named* ``-`` is read as what it is. ``exclusions``
    (``renderer.loading.exclude``) leaves out what the walk finds and they match, never a PATH named. Cost: one walk of the tree (iterative,
    ``safepath.walk``), one ``lstat`` per entry, one ``realpath`` per directory.
    """
    check_named(paths)
    found = _Discovery(root, exclusions)
    for arg in paths:
        if is_stdin(arg):
            if not any(f.display == STDIN_DISPLAY for f in found.files):
                found.files.append(PolicyFile(abspath=stdin_file(max_bytes), display=STDIN_DISPLAY))
            continue
        st, is_dir = _named(arg)
        if is_dir:
            found.walk(arg)
        else:
            found.add(arg, st)  # a file, or anything else named on the command line: read_file says what it is
    found.files.sort(key=lambda f: f.display)
    return found.files, found.findings


def _named(arg: Path) -> tuple[os.stat_result, bool]:
    """The ``lstat`` of PATH ``arg`` and whether it is a directory (or a symlink to one); UsageError when it cannot
    be looked at."""
    try:
        st = arg.lstat()
    except FileNotFoundError:
        raise UsageError(f"{arg.as_posix()}: no such file or directory") from None
    except OSError as exc:
        raise UsageError(f"{arg.as_posix()}: {exc.strerror or exc}") from None
    except ValueError:
        raise UsageError(f"{arg.as_posix()!r}: a path cannot contain a NUL character") from None
    is_dir = stat.S_ISDIR(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        try:
            is_dir = stat.S_ISDIR(os.stat(arg).st_mode)
        except OSError:
            is_dir = False
    return st, is_dir


class _Discovery:
    """The policy files and AL006 findings of one ``discover``: what a PATH named adds (``add``), and what the walk
    of a directory does with its subdirectories (``_keep_dirs``) and files (``_add_files``)."""

    def __init__(self, root: Path, exclusions: Exclusions | None) -> None:
        self.cwd = Path.cwd()
        self.root = root
        self.root_real = os.path.realpath(root)
        self.exclusions = exclusions
        self.files: list[PolicyFile] = []
        self.findings: list[Finding] = []
        self.seen: set[str] = set()

    def shown(self, p: Path) -> str:
        return display_path(p.absolute(), self.cwd)

    def add(self, p: Path, st: os.stat_result) -> None:
        if stat.S_ISLNK(st.st_mode):
            problem = _symlink_problem(p, self.root, self.root_real)
            if problem is not None:
                self.findings.append(_file_error("AL006", self.shown(p), problem))
                return
        real = os.path.realpath(p)
        if real in self.seen:
            return
        self.seen.add(real)
        self.files.append(PolicyFile(abspath=p.absolute(), display=self.shown(p)))

    def walk(self, arg: Path) -> None:
        """Every policy file below directory ``arg``, sorted by the walk."""

        def walk_error(exc: OSError) -> None:
            where = Path(exc.filename) if exc.filename else self.root
            self.findings.append(
                _file_error(
                    "AL006",
                    self.shown(where),
                    f"cannot read directory: {exc.strerror or exc}; fix its permissions or move it out of the policy "
                    "directory",
                )
            )

        def too_deep(path: str) -> None:
            self.findings.append(
                _file_error(
                    "AL006",
                    self.shown(Path(path)),
                    f"directory is nested more than {safepath.MAX_TREE_DEPTH} levels below {self.shown(arg)}; it is "
                    "not read: flatten the policy tree",
                )
            )

        # os.path.join keeps a leading "./": a directory named "-" stays "./-", never "-".
        start = str(arg) if str(arg) != "-" else os.path.join(".", "-")
        for dirpath, dirnames, filenames in safepath.walk(start, on_error=walk_error, on_too_deep=too_deep):
            if self.exclusions is not None:
                self.exclusions.enter(dirpath, [*dirnames, *filenames])
            dirnames[:] = self._keep_dirs(dirpath, dirnames)
            self._add_files(dirpath, filenames)

    def _keep_dirs(self, dirpath: str, dirnames: list[str]) -> list[str]:
        """The subdirectories the walk enters: not hidden, not excluded, not symlinked, not named like a file."""
        base = Path(dirpath)
        keep_dirs = []
        for d in dirnames:
            if d.startswith("."):
                continue
            if self.exclusions is not None and self.exclusions.excluded(dirpath, d, is_dir=True):
                continue
            full = base / d
            try:
                dst = full.lstat()
            except OSError as exc:
                self.findings.append(_file_error("AL006", self.shown(full), f"cannot read: {exc.strerror or exc}"))
                continue
            if stat.S_ISLNK(dst.st_mode):
                problem = _symlink_problem(full, self.root, self.root_real, directory=True)
                if problem is not None and not problem.startswith("broken"):
                    self.findings.append(_file_error("AL006", self.shown(full), problem))
                continue  # never walk through symlinked directories
            if d.endswith(POLICY_SUFFIXES):
                self.findings.append(
                    _file_error(
                        "AL006",
                        self.shown(full),
                        "is a directory, but its name says it is a policy file; rename it or remove it",
                    )
                )
                continue
            keep_dirs.append(d)
        return keep_dirs

    def _add_files(self, dirpath: str, filenames: list[str]) -> None:
        """The policy files among ``filenames`` in ``dirpath`` (not hidden, not excluded, a policy suffix)."""
        base = Path(dirpath)
        # A plain file's real path, absolute path and display are its directory's and its name (the walk never
        # enters a symlinked directory): worked out once per directory, not once per file.
        here: tuple[str, Path, str] | None = None
        for name in filenames:
            if name.startswith(".") or not name.endswith(POLICY_SUFFIXES):
                continue
            if self.exclusions is not None and self.exclusions.excluded(dirpath, name, is_dir=False):
                continue
            entry = os.path.join(dirpath, name)
            try:
                fst = os.lstat(entry)
            except OSError as exc:
                self.findings.append(
                    _file_error("AL006", self.shown(Path(entry)), f"cannot read file: {exc.strerror or exc}")
                )
                continue
            if stat.S_ISLNK(fst.st_mode):
                self.add(Path(entry), fst)
                continue
            if here is None:
                dir_shown = self.shown(base)
                if dir_shown == ".":
                    dir_shown = ""
                elif not dir_shown.endswith("/"):
                    dir_shown += "/"
                here = (os.path.realpath(dirpath), base.absolute(), dir_shown)
            real = os.path.join(here[0], name)
            if real in self.seen:
                continue
            self.seen.add(real)
            self.files.append(PolicyFile(abspath=here[1] / name, display=here[2] + name))
