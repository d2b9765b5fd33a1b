"""Helpers shared by the verify formats: safe text and short quantity lists."""

from __future__ import annotations

from renderer.escaping import plain
from renderer.quantity import Quantity


def clean(text: str) -> str:
    """Input data is printed with control characters escaped (a node name or annotation cannot move the cursor):
    the one shared helper, ``renderer.escaping.plain``."""
    return plain(text)


ORDER = ("cpu", "memory", "ephemeral-storage", "pods")


def ordered(keys: list[str] | set[str]) -> list[str]:
    return sorted(keys, key=lambda k: (ORDER.index(k) if k in ORDER else len(ORDER), k))


def quantities(values: dict[str, Quantity]) -> str:
    return ", ".join(f"{k} {values[k]}" for k in ordered(list(values))) or "-"
