"""pre-commit support: from the file names pre-commit passes to the policy repos they belong to.

Lint rules compare files with each other (two CommitClasses selecting one pool, a selector that matches no pool),
so checking only the changed files would miss conflicts with unchanged ones. A hook therefore maps every passed
file to its policy repo root and checks each root, whole:

- the root is the nearest directory at or above the file that holds ``.allocatable.yaml`` (``allocatable init``
  writes one), stopping at the working directory (pre-commit runs hooks at the top of the git repository);
- failing that, the nearest directory above it named ``policies`` (the default policy directory);
- files under neither are not policy files (other YAML in the repository) and are skipped.

For ``render-check``, a passed file outside every policy root (a hand edit under ``rendered/``) checks every policy
repo of the git repository, found by their ``.allocatable.yaml`` (or ``policies/``).
"""

from __future__ import annotations

import subprocess
from pathlib import Path

from renderer import safepath
from renderer.loading.files import SETTINGS_FILE

DEFAULT_POLICY_DIR = "policies"


def _within(path: Path, top: Path) -> bool:
    return path == top or top in path.parents


def root_of(file: Path, top: Path) -> Path | None:
    """The policy repo root containing ``file`` (absolute), searching no higher than ``top`` (absolute)."""
    if not _within(file, top):
        return None
    start = file if file.is_dir() else file.parent
    for d in (start, *start.parents):
        if not _within(d, top):
            break
        if (d / SETTINGS_FILE).is_file():
            return d
    for d in (start, *start.parents):
        if not _within(d, top):
            break
        if d.name == DEFAULT_POLICY_DIR and d.is_dir():
            return d
    return None


def all_roots(top: Path) -> list[Path]:
    """Every policy repo root below ``top``: directories holding ``.allocatable.yaml`` that git tracks (or that
    exist, outside git), else ``policies/`` when it exists."""
    found: set[Path] = set()
    proc = subprocess.run(
        ["git", "-C", str(top), "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        capture_output=True,
        check=False,
    )
    if proc.returncode == 0:
        for name in proc.stdout.decode("utf-8", "surrogateescape").split("\0"):
            if name == SETTINGS_FILE or name.endswith("/" + SETTINGS_FILE):
                found.add((top / name).parent)
    else:  # iterative and depth-bounded (safepath.walk): a thousand-level tree is not a crash
        for dirpath, dirnames, filenames in safepath.walk(
            str(top), on_error=lambda exc: None, on_too_deep=lambda p: None
        ):
            dirnames[:] = [d for d in dirnames if not d.startswith(".") and d not in ("node_modules", "venv")]
            if SETTINGS_FILE in filenames:
                found.add(Path(dirpath))
    if not found and (top / DEFAULT_POLICY_DIR).is_dir():
        found.add(top / DEFAULT_POLICY_DIR)
    return sorted(found)


def roots_for(files: list[Path], top: Path, *, everything_on_stray: bool = False) -> tuple[list[Path], list[Path]]:
    """(policy roots to check, passed files outside every root)."""
    roots: set[Path] = set()
    stray: list[Path] = []
    for f in files:
        r = root_of(f.absolute(), top)
        if r is None:
            stray.append(f)
        else:
            roots.add(r)
    if everything_on_stray and stray:
        roots.update(all_roots(top))
    return sorted(roots), stray
