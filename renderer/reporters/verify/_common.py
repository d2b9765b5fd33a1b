"""Helpers shared by the verify formats: safe text and short quantity lists."""

from __future__ import annotations

from renderer.escaping import plain
from renderer.quantity import Quantity
from renderer.units import amount, column, is_bytes


def clean(text: str) -> str:
    """Input data is printed with control characters escaped (a node name or annotation cannot move the cursor):
    the one shared helper, ``renderer.escaping.plain``."""
    return plain(text)


ORDER = ("cpu", "memory", "ephemeral-storage", "pods")


def ordered(keys: list[str] | set[str]) -> list[str]:
    return sorted(keys, key=lambda k: (ORDER.index(k) if k in ORDER else len(ORDER), k))


def quantities(values: dict[str, Quantity]) -> str:
    """What a node reports, for reading: ``cpu 7.5 cores, memory 14.43Gi, ephemeral-storage 71.00Gi, pods 58``."""
    return ", ".join(f"{k} {amount(values[k], k)}" for k in ordered(list(values))) or "-"


def compared(predicted: Quantity | None, reported: Quantity | None, resource: str) -> tuple[str, str]:
    """A predicted and a reported value for reading side by side, in one unit (``renderer.units``); bytes also
    exactly as the kubelet writes them, to compare with ``kubectl describe node``: ``56.42Gi (60585346153)``,
    ``3.4 cores``.
    "nothing" where a value is missing."""
    shown = column([predicted, reported], resource)
    out = []
    for q, text in zip((predicted, reported), shown, strict=True):
        if q is None:
            out.append("nothing")
        elif is_bytes(resource) and text != str(q):
            out.append(f"{text} ({q})")
        else:
            out.append(f"{text} cores" if resource == "cpu" else text)
    return out[0], out[1]
