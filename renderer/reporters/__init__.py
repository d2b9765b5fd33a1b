"""Output formats. A format is one module here, named after it, that registers itself with ``@reporter("name")``
(``renderer.reporters.report``); this package finds them by their file names and imports only the one asked for."""

from __future__ import annotations

import importlib
import os

from renderer.reporters.report import REGISTRY, Report, ReporterFn, reporter

__all__ = ["Report", "ReporterFn", "get", "names", "reporter"]


def names() -> list[str]:
    """Every format: the modules of this package (``report`` and ``_private`` ones are not formats)."""
    found = {
        entry[:-3]
        for folder in __path__
        for entry in os.listdir(folder)
        if entry.endswith(".py") and not entry.startswith("_") and entry != "report.py"
    }
    return sorted(found)


def get(name: str) -> ReporterFn:
    """The format ``name`` (one of ``names()``), importing its module on first use."""
    if name not in REGISTRY:
        importlib.import_module(f"{__name__}.{name}")
    return REGISTRY[name]
