"""Output formats. A format is one module here that registers itself with ``@reporter("name")``."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from renderer.findings import Finding


@dataclass
class Report:
    command: str
    findings: list[Finding]
    files: int = 0
    objects: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


ReporterFn = Callable[[Report, TextIO], None]
_REGISTRY: dict[str, ReporterFn] = {}


def reporter(name: str) -> Callable[[ReporterFn], ReporterFn]:
    def deco(fn: ReporterFn) -> ReporterFn:
        _REGISTRY[name] = fn
        return fn

    return deco


_discovered = False


def _discover() -> None:
    """Import every format module once (importing one of them directly must not hide the others)."""
    global _discovered
    if _discovered:
        return
    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")
    _discovered = True


def get(name: str) -> ReporterFn:
    _discover()
    return _REGISTRY[name]


def names() -> list[str]:
    _discover()
    return sorted(_REGISTRY)
