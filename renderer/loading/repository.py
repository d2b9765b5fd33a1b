"""Where things are, wherever a command is run from: the policy repo and the repository that holds it.

Commands behave the same from any directory of a repository, as ruff and pre-commit do:

- **The policy repo** a command reads when no PATH is given (:func:`default_policy_dir`) is found by walking up from
  the working directory, no higher than the nearest directory that holds ``.git`` (outside git, up to ``/``): the
  nearest directory that holds ``.allocatable.yaml`` or is named ``policies``, or has a ``policies/`` directory.
  So ``allocatable lint`` works at the top of the repository, inside the policy directory and in any directory
  below either. A PATH given on the command line is taken as typed, relative to the working directory.
- **The repository root** (:func:`repository_root`), which ``render.outputDir`` is relative to: the nearest directory
  at or above the policy repo that holds ``.git``; outside git, the directory that holds the policy repo. The
  setting therefore means the same directory whoever runs ``render``, from wherever.

Cost: one ``stat`` per ancestor directory, no reads.
"""

from __future__ import annotations

import os
from pathlib import Path

from renderer.loading.files import SETTINGS_FILE, display_path

__all__ = ["DEFAULT_POLICY_DIR", "default_policy_dir", "enclosing", "repository_root", "shown", "under"]

#: The policy directory's conventional name (``allocatable init`` creates it).
DEFAULT_POLICY_DIR = "policies"


def _ancestors(start: Path) -> list[Path]:
    """``start`` and its parents, up to the nearest one that holds ``.git`` (inclusive), else up to ``/``."""
    out = []
    for d in (start, *start.parents):
        out.append(d)
        if os.path.lexists(d / ".git"):
            break
    return out


def default_policy_dir(cwd: Path | None = None) -> Path | None:
    """The policy repo to read when no PATH is given, relative to ``cwd`` (default: the working directory) as a user
    would type it (``.``, ``policies``, ``../policies``); None when there is none at or above ``cwd``.

    The nearest directory wins: walking up from ``cwd``, the first that holds ``.allocatable.yaml``, is named
    ``policies``, or has a ``policies/`` directory."""
    here = Path(os.path.abspath(cwd or Path.cwd()))
    for d in _ancestors(here):
        if (d / SETTINGS_FILE).is_file() or (d.name == DEFAULT_POLICY_DIR and d.is_dir()):
            return Path(os.path.relpath(d, here))
        if (d / DEFAULT_POLICY_DIR).is_dir():
            return Path(os.path.relpath(d / DEFAULT_POLICY_DIR, here))
    return None


def repository_root(policy_root: Path) -> Path:
    """The directory ``render.outputDir`` is relative to: the nearest one at or above ``policy_root`` that holds
    ``.git``, else the directory holding ``policy_root`` (absolute)."""
    root = Path(os.path.abspath(policy_root))
    for d in (root, *root.parents):
        if os.path.lexists(d / ".git"):
            return d
    return root.parent


def shown(path: Path) -> Path:
    """``path`` as a user would type it from the working directory (relative when that is shorter to read)."""
    return Path(display_path(Path(os.path.abspath(path))) or ".")


def _settings_root(path: Path) -> Path | None:
    """The nearest directory strictly above ``path`` (a directory) or holding ``path`` (a file) that holds
    ``.allocatable.yaml``, no higher than the nearest ``.git`` (outside git: up to ``/``); None when ``path`` is
    the repo itself or there is none."""
    here = Path(os.path.abspath(path))
    is_dir = os.path.isdir(here)  # os.path: an unreadable directory is False, never an exception
    start = here if is_dir else here.parent
    if is_dir and os.path.isfile(here / SETTINGS_FILE):
        return None
    for d in _ancestors(start):
        if d != here and os.path.isfile(d / SETTINGS_FILE):
            return d
    return None


def enclosing(paths: list[Path]) -> tuple[list[Path], list[Path] | None]:
    """The PATHs to read, and the ones to show findings for: a first PATH inside a policy repo (a subdirectory or
    file below the nearest ``.allocatable.yaml``, found as ruff and pre-commit find their configuration) is read
    as part of that repo — its settings, every file, the cross-file rules — and the PATHs given become the focus.
    Other PATHs inside the repo are read with it; PATHs outside it (another file, ``-``) are read as before.
    Returns ``(paths, None)`` when the first PATH is the repo or missing, and whenever standard input is among
    them: the stream stands for a file whose place in the repo is not known (it would meet itself as a duplicate),
    so the directory given is the repo, as before."""
    from renderer.loading.files import is_stdin

    first = paths[0]
    if any(is_stdin(p) for p in paths) or not os.path.lexists(first):
        return paths, None
    root = _settings_root(first)
    if root is None:
        return paths, None
    shown_root = Path(os.path.relpath(root)) if not first.is_absolute() else root
    rest = [p for p in paths[1:] if is_stdin(p) or not _inside(p, root)]
    return [shown_root, *rest], list(paths)


def _inside(path: Path, root: Path) -> bool:
    real = os.path.abspath(path)
    top = str(root)
    return real == top or real.startswith(top.rstrip(os.sep) + os.sep)


def under(shown_path: str, focus: list[Path]) -> bool:
    """Whether a finding's path (as shown: relative to the working directory, absolute, or ``<stdin>``) lies at or
    below one of ``focus``."""
    from renderer.loading.files import STDIN_DISPLAY, is_stdin

    if shown_path == STDIN_DISPLAY:
        return any(is_stdin(p) for p in focus)
    return any(not is_stdin(p) and _inside(Path(shown_path), Path(os.path.abspath(p))) for p in focus)
