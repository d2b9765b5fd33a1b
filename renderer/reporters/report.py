"""The report every command hands to an output format, and the ``@reporter("name")`` registration."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO

from renderer.findings import Finding

__all__ = ["REGISTRY", "Report", "ReporterFn", "reporter"]


@dataclass
class Report:
    command: str
    findings: list[Finding]
    files: int = 0
    objects: int = 0
    extra: dict[str, Any] = field(default_factory=dict)


ReporterFn = Callable[[Report, TextIO], None]
REGISTRY: dict[str, ReporterFn] = {}


def reporter(name: str) -> Callable[[ReporterFn], ReporterFn]:
    def deco(fn: ReporterFn) -> ReporterFn:
        REGISTRY[name] = fn
        return fn

    return deco
