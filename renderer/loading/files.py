"""Find policy files under the given paths, deterministically, without leaving the policy repo."""

from __future__ import annotations

import os
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


def discover(
    paths: list[Path], root: Path, *, max_bytes: int = 8 * 1024 * 1024
) -> tuple[list[PolicyFile], list[Finding]]:
    """Expand directories into sorted policy files; report unusable entries as findings.

    Hidden entries (``.git``, ``.github``, ``.allocatable.yaml``) are skipped while walking; a file named on the
    command line is always read. Symlinks are followed only when their target stays inside ``root``. ``-`` (or
    ``/dev/stdin``) is standard input, shown as ``<stdin>`` and copied once (``stdin_file``, at most ``max_bytes``).
    """
    cwd = Path.cwd()
    root_real = root.resolve()
    files: list[PolicyFile] = []
    findings: list[Finding] = []
    seen: set[Path] = set()

    def add(p: Path) -> None:
        shown = display_path(p.absolute(), cwd)
        real = p.resolve()
        if p.is_symlink() and not (real == root_real or root_real in real.parents):
            findings.append(
                _file_error(
                    "AL006",
                    shown,
                    f"symlink points outside the policy repo ({root.as_posix()}); copy the file into the repo instead",
                )
            )
            return
        if real in seen:
            return
        seen.add(real)
        files.append(PolicyFile(abspath=p.absolute(), display=shown))

    for arg in paths:
        if is_stdin(arg):
            if not any(f.display == STDIN_DISPLAY for f in files):
                files.append(PolicyFile(abspath=stdin_file(max_bytes), display=STDIN_DISPLAY))
            continue
        if not arg.exists() and not arg.is_symlink():
            raise UsageError(f"{arg.as_posix()}: no such file or directory")
        if arg.is_file() or (arg.is_symlink() and not arg.is_dir()):
            if arg.is_symlink() and not arg.exists():
                findings.append(_file_error("AL006", display_path(arg.absolute(), cwd), "broken symlink"))
                continue
            add(arg)
            continue
        for dirpath, dirnames, filenames in os.walk(arg, followlinks=False):
            base = Path(dirpath)
            keep_dirs = []
            for d in sorted(dirnames):
                if d.startswith("."):
                    continue
                full = base / d
                if full.is_symlink():
                    target = full.resolve()
                    if not (target == root_real or root_real in target.parents):
                        findings.append(
                            _file_error(
                                "AL006",
                                display_path(full.absolute(), cwd),
                                "symlinked directory points outside the policy repo; it is not read",
                            )
                        )
                    continue  # never walk through symlinked directories
                if d.endswith(POLICY_SUFFIXES):
                    findings.append(
                        _file_error(
                            "AL006",
                            display_path(full.absolute(), cwd),
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
                if full.is_symlink() and not full.exists():
                    findings.append(_file_error("AL006", display_path(full.absolute(), cwd), "broken symlink"))
                    continue
                add(full)
    files.sort(key=lambda f: f.display)
    return files, findings
