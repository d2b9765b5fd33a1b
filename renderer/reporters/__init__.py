"""Output formats. A format is one module here that registers itself with ``@reporter("name")``
(``renderer.reporters.report``); this package finds them."""

from __future__ import annotations

import importlib
import pkgutil

from renderer.reporters.report import REGISTRY, Report, ReporterFn, reporter

__all__ = ["Report", "ReporterFn", "get", "names", "reporter"]

_discovered = False


def _discover() -> None:
    """Import every format module once (importing one of them directly must not hide the others)."""
    global _discovered
    if _discovered:
        return
    for mod in pkgutil.iter_modules(__path__):
        if mod.name != "report":
            importlib.import_module(f"{__name__}.{mod.name}")
    _discovered = True


def get(name: str) -> ReporterFn:
    _discover()
    return REGISTRY[name]


def names() -> list[str]:
    _discover()
    return sorted(REGISTRY)
