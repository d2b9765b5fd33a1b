"""Output formats of ``allocatable verify``: one module each, registered by name with ``@fmt("name")``; the
``-o`` choices are this registry's keys."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import TextIO

from renderer.verify.result import VerifyResult

Formatter = Callable[[VerifyResult, TextIO], None]
REGISTRY: dict[str, Formatter] = {}
_discovered = False


def fmt(name: str) -> Callable[[Formatter], Formatter]:
    def register(fn: Formatter) -> Formatter:
        REGISTRY[name] = fn
        return fn

    return register


def _discover() -> None:
    global _discovered
    if not _discovered:
        for mod in pkgutil.iter_modules(__path__):
            if not mod.name.startswith("_"):
                importlib.import_module(f"{__name__}.{mod.name}")
        _discovered = True


def get(name: str) -> Formatter:
    _discover()
    return REGISTRY[name]


def names() -> list[str]:
    _discover()
    return sorted(REGISTRY)
