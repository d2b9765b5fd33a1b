"""Every lint rule, found by importing each module in ``renderer.lint.rules`` (a rule is one module there)."""

from __future__ import annotations

import importlib

from renderer import submodules
from renderer.lint.rule import _RULES, Rule

__all__ = ["all_rules"]

_discovered = False


def all_rules() -> dict[str, type[Rule]]:
    """Every rule, by code, found by importing each module in renderer.lint.rules."""
    global _discovered
    if not _discovered:  # not "if not _RULES": one rule imported directly must not stop discovery
        import renderer.lint.rules as pkg

        for name in submodules.names(pkg.__path__, private=True):
            importlib.import_module(f"{pkg.__name__}.{name}")
        _discovered = True
    return dict(sorted(_RULES.items()))
