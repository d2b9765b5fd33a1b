"""How text output shows quantities: one rule for every text report (explain text/wide/markdown/html, verify,
diff, finding messages), so a reader never meets two notations for one resource side by side.

- **cpu** in cores, up to three decimals (exact to the millicore): ``8``, ``0.1``, ``7.79``, ``11.685``.
- **bytes** (memory, ephemeral-storage, hugepages-*) in one binary unit per column or message: the largest of
  Ki, Mi and Gi that the largest value of the column (or message) reaches — Gi for anything node-sized, cluster
  totals included — with two decimals unless the value is whole in that unit: ``30.89Gi``, ``0.10Gi``, ``1Gi``
  (``<0.01Gi`` for a value that would read as zero). The exact value is a Kubernetes quantity: where a user
  compares a figure with what a node reports (``kubectl describe node`` prints ``32386524Ki`` or
  ``75150584500``), the report shows the exact quantity as the kubelet writes it, next to the readable one.
- **counts** (pods, extended resources such as ``nvidia.com/gpu``) as they are.

JSON, YAML and jsonpath keep canonical Kubernetes quantities; values a user copies into configuration (``sizing``,
rendered files) keep the notation that configuration takes.
"""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from renderer.quantity import Quantity

__all__ = ["amount", "column", "cores", "in_unit", "is_bytes", "of", "readable", "unit_for"]

#: Binary units, smallest first; nothing above Gi, the unit Kubernetes users read node memory and disk in.
UNITS: tuple[tuple[str, int], ...] = (("Ki", 1024), ("Mi", 1024**2), ("Gi", 1024**3))
_BYTES = frozenset({"memory", "ephemeral-storage"})


def is_bytes(resource: str) -> bool:
    return resource in _BYTES or resource.startswith("hugepages-")


def cores(q: Quantity) -> str:
    """cpu as a decimal number of cores, at most 3 decimals (whole millicores): 8, 0.1, 7.79, 140.22."""
    text = f"{Decimal(q.floor_milli_value()) / 1000:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def unit_for(values: Iterable[Quantity | None]) -> str:
    """The unit of a column or message of byte values: the largest unit its largest magnitude reaches ("" for
    plain bytes, below 1Ki)."""
    largest = max((abs(q.value) for q in values if q is not None), default=Decimal(0))
    unit = ""
    for name, size in UNITS:
        if largest >= size:
            unit = name
    return unit


def in_unit(q: Quantity, unit: str) -> str:
    """``q`` bytes in ``unit``: whole numbers as they are, others with two decimals (``29.82Gi``, ``1Gi``)."""
    if q.is_zero():
        return "0"
    size = dict(UNITS).get(unit, 1)
    scaled = q.value / size
    if scaled == scaled.to_integral_value():
        return f"{int(scaled)}{unit}"
    if abs(scaled) < Decimal("0.005"):
        return f"{'-' if scaled < 0 else ''}<0.01{unit}"
    return f"{scaled:.2f}{unit}"


def readable(q: Quantity | None, resource: str, unit: str | None = None) -> str:
    """One value for reading: cpu in cores, bytes in ``unit`` (default: the value's own largest unit), counts as
    they are; ``-`` for None."""
    if q is None:
        return "-"
    if resource == "cpu":
        return cores(q)
    if is_bytes(resource):
        return in_unit(q, unit_for([q]) if unit is None else unit)
    return str(q)


def column(values: list[Quantity | None], resource: str) -> list[str]:
    """A column (or a message's figures) of one resource, in one unit."""
    unit = unit_for(values) if is_bytes(resource) else None
    return [readable(q, resource, unit) for q in values]


def of(part: Quantity, whole: Quantity, resource: str) -> str:
    """Two amounts of one resource in one unit: ``9 of 7.91 cores``, ``36Gi of 27.80Gi``, ``12 of 58``."""
    a, b = column([part, whole], resource)
    return f"{a} of {b}{' cores' if resource == 'cpu' else ''}"


def amount(q: Quantity, resource: str) -> str:
    """One amount in a sentence: ``1 core``, ``6.5 cores``, ``14.43Gi``, ``58``."""
    text = readable(q, resource)
    if resource != "cpu":
        return text
    return f"{text} core" if text == "1" else f"{text} cores"
