"""How to leave a file that is not a policy out of the walk: the hint on a foreign kind's error.

A monorepo's Helm chart, kustomize files or other Kubernetes objects under the policy directory are errors (AL003,
or AL001 for a chart template that is not YAML until Helm renders it). The hint names the pattern that leaves them
out (``renderer.loading.exclude``): a chart's directory (the nearest one holding ``Chart.yaml``, as Helm finds a
chart), every ``kustomization.yaml`` by its name, anything else by its path relative to the policy repo root.
Cost: one ``stat`` per directory between the file and the root, only for a file already in error.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

__all__ = ["chart_directory", "exclude_hint"]

_KUSTOMIZATION = ("kustomization.yaml", "kustomization.yml", "Kustomization")


def chart_directory(path: Path, root: Path) -> Path | None:
    """The nearest directory at or above ``path``'s, below ``root``, that holds a Helm ``Chart.yaml``."""
    root = Path(os.path.abspath(root))
    d = Path(os.path.abspath(path)).parent
    while d != root and root in d.parents:
        if os.path.isfile(d / "Chart.yaml"):
            return d
        d = d.parent
    return None


def exclude_hint(path: Path, root: Path) -> str | None:
    """``not a policy? …`` with the pattern for ``path`` (a file under ``root``); None outside the root."""
    absolute, top = Path(os.path.abspath(path)), Path(os.path.abspath(root))
    if top not in absolute.parents:
        return None
    chart = chart_directory(absolute, top)
    if chart is not None:
        pattern = chart.relative_to(top).as_posix() + "/"
    elif absolute.name in _KUSTOMIZATION:
        pattern = absolute.name
    else:
        pattern = absolute.relative_to(top).as_posix()
    return (
        f'not a policy? leave it out with exclude: ["{pattern}"] in .allocatable.yaml, or --exclude '
        f"{shlex.quote(pattern)}"
    )
