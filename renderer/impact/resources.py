"""Resource amounts as the scheduler compares them: one integer per resource name.

The scheduler's ``framework.Resource`` keeps cpu in millicores (``Quantity.MilliValue()``) and every other resource —
memory, ephemeral-storage, hugepages-*, extended resources, pods — in whole units (``Quantity.Value()``); both round
away from zero, so a fractional extended request of ``0.5`` counts 1 (kubernetes/kubernetes
pkg/scheduler/framework/types.go ``Resource.Add``). The simulation works on these integers only: comparisons are
exact and cheap, and every figure it reports converts back to a canonical quantity with :func:`quantity`.

A vector is a plain ``dict[str, int]``; absent names are 0. Pods keep only their non-zero requests (the fit filter
never looks at a zero request, see ``fit.py``).

Cost: O(resource names) per call.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from decimal import Decimal
from typing import Final

from renderer.quantity import Quantity

__all__ = [
    "CPU",
    "EPHEMERAL_STORAGE",
    "MEMORY",
    "PODS",
    "add_into",
    "from_quantities",
    "is_scalar",
    "quantity",
    "sub_into",
    "units",
]

CPU: Final = "cpu"
MEMORY: Final = "memory"
EPHEMERAL_STORAGE: Final = "ephemeral-storage"
PODS: Final = "pods"
#: Resources the fit filter checks by name; every other name is a "scalar" resource (extended, hugepages-*,
#: attachable volumes), checked one by one (fit.go ``fitsRequest``).
NATIVE: Final = frozenset((CPU, MEMORY, EPHEMERAL_STORAGE))
_THOUSAND = Decimal(1000)


def units(name: str, q: Quantity) -> int:
    """``q`` in the scheduler's integer unit for ``name``: millicores for cpu, whole units otherwise (rounded away
    from zero, as ``MilliValue``/``Value`` do)."""
    return q.milli_value() if name == CPU else q.int_value()


def from_quantities(values: Mapping[str, Quantity], *, keep_zero: bool = False) -> dict[str, int]:
    """A resource map (``status.allocatable``, a pod's requests) as integers; zero entries dropped unless asked."""
    out: dict[str, int] = {}
    for name, q in values.items():
        n = units(name, q)
        if n or keep_zero:
            out[name] = n
    return out


def quantity(name: str, amount: int) -> Quantity:
    """The canonical quantity of ``amount`` (an integer in the unit of ``name``): ``1500`` cpu is ``1500m``,
    ``1073741824`` memory is ``1Gi``."""
    if name == CPU:
        return Quantity(Decimal(amount) / _THOUSAND, "DecimalSI")
    binary = name in (MEMORY, EPHEMERAL_STORAGE) or name.startswith("hugepages-")
    return Quantity(amount, "BinarySI" if binary else "DecimalSI")


def is_scalar(name: str) -> bool:
    """True for resources checked individually by the fit filter (not cpu, memory or ephemeral-storage, nor pods)."""
    return name not in NATIVE and name != PODS


def add_into(into: dict[str, int], more: Mapping[str, int], times: int = 1) -> None:
    """``into += more × times`` per resource."""
    for name, amount in more.items():
        into[name] = into.get(name, 0) + amount * times


def sub_into(into: dict[str, int], less: Mapping[str, int]) -> None:
    """``into -= less`` per resource."""
    for name, amount in less.items():
        into[name] = into.get(name, 0) - amount


def total(vectors: Iterable[Mapping[str, int]]) -> dict[str, int]:
    """The per-resource sum of ``vectors``."""
    out: dict[str, int] = {}
    for v in vectors:
        add_into(out, v)
    return out
