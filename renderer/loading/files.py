"""Find policy files under the given paths, deterministically, without leaving the policy repo."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from renderer.findings import Finding

POLICY_SUFFIXES = (".yaml", ".yml", ".json")
SETTINGS_FILE = ".allocatable.yaml"


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


def policy_root(paths: list[Path]) -> Path:
    """The policy repo root: the first directory argument (or the first file's directory)."""
    first = paths[0]
    return first if first.is_dir() else first.parent


def _file_error(code: str, path: str, message: str) -> Finding:
    return Finding(code=code, severity="error", message=message, path=path, line=1, column=1)


def discover(paths: list[Path], root: Path) -> tuple[list[PolicyFile], list[Finding]]:
    """Expand directories into sorted policy files; report unusable entries as findings.

    Hidden entries (``.git``, ``.github``, ``.allocatable.yaml``) are skipped while walking; a file named on the
    command line is always read. Symlinks are followed only when their target stays inside ``root``.
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
