"""The first difference between two rendered configurations, for messages that say where pools disagree."""

from __future__ import annotations

from typing import Any


def first_difference(a: Any, b: Any, path: str = "") -> str:
    """``path: a vs b`` for the first key (in sorted order) whose values differ; O(size of the two values)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b)):
            if a.get(key) != b.get(key):
                return first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else key)
    if a is None or b is None:
        return f"{path or 'configuration'}: {'nothing' if a is None else 'set'} vs {'nothing' if b is None else 'set'}"
    return f"{path}: {a!r} vs {b!r}"
