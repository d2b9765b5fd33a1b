"""Helpers shared by the verify formats: safe text and short quantity lists."""

from __future__ import annotations

import re

from renderer.quantity import Quantity

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def clean(text: str) -> str:
    """Input data is printed with control characters escaped (a node name or annotation cannot move the cursor)."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text).replace("\n", "\\n")


ORDER = ("cpu", "memory", "ephemeral-storage", "pods")


def ordered(keys: list[str] | set[str]) -> list[str]:
    return sorted(keys, key=lambda k: (ORDER.index(k) if k in ORDER else len(ORDER), k))


def quantities(values: dict[str, Quantity]) -> str:
    return ", ".join(f"{k} {values[k]}" for k in ordered(list(values))) or "-"
