"""Paths relative to the repository root, for formats read by code hosts (SARIF, GitHub annotations).

The root is the git top-level directory of the reported files when they are in a git work tree, else the
current directory. Findings carry paths relative to the current directory (as users typed them); code hosts
want them relative to the repository root, which differs when the tool runs in a subdirectory.
"""

from __future__ import annotations

import os
import subprocess
from functools import lru_cache
from pathlib import Path, PurePosixPath


@lru_cache(maxsize=64)
def _git_top(directory: str) -> str | None:
    try:
        done = subprocess.run(
            ["git", "-C", directory, "rev-parse", "--show-toplevel"],
            capture_output=True,
            text=True,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except OSError:
        return None
    if done.returncode != 0:
        return None
    top = done.stdout.strip()
    return top or None


def repo_root(paths: list[str]) -> Path:
    """The git top-level of the first existing reported path's directory, else the current directory."""
    for p in paths:
        directory = Path(p).absolute().parent
        try:
            while not directory.exists() and directory != directory.parent:
                directory = directory.parent
        except ValueError:  # a NUL in the name
            break
        top = _git_top(str(directory))
        if top is not None:
            return Path(top).resolve()
        break
    return Path.cwd().resolve()


def relative_to_root(path: str, root: Path) -> str:
    """``path`` (relative to the cwd, or absolute) as a POSIX path relative to ``root`` when it is inside it."""
    given = Path(path).absolute()
    try:
        absolute = (
            Path(os.path.realpath(given.parent)) / given.name
        )  # resolve directories, keep a symlinked file's name
    except (OSError, ValueError):  # a name no file system holds (a NUL): reported as given
        return PurePosixPath(path).as_posix()
    try:
        return PurePosixPath(absolute.relative_to(root)).as_posix()
    except ValueError:
        return PurePosixPath(absolute).as_posix()
