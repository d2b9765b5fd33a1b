"""Formats of the ``sizing`` report (one reservation formula for one machine shape): one module per format, each
with ``write(sizing, out)`` for a :class:`Sizing`."""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from renderer.capacity.formulas import FormulaResult
from renderer.quantity import Quantity

__all__ = ["Sizing", "as_json"]


@dataclass(frozen=True)
class Sizing:
    """What ``allocatable sizing`` computed: the formula's result for a machine of ``cpus`` and ``memory``."""

    result: FormulaResult
    cpus: Decimal
    memory: Quantity


def as_json(sizing: Sizing) -> dict[str, Any]:
    """The JSON document of ``-o json`` (and so of ``-o yaml`` and ``-o jsonpath``)."""
    r = sizing.result
    return {
        "formula": r.formula,
        "fills": r.fills,
        "systemReserved": r.system_reserved,
        "kubeReserved": r.kube_reserved,
        "evictionHard": r.eviction_hard,
        "notes": list(r.notes),
    }
