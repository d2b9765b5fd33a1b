"""Karpenter's side of the arithmetic: the platform formulas as CEL over Karpenter's instance-type variables, and the
rounding Karpenter applies to what such an expression returns.

Karpenter (aws/karpenter-provider-aws, alpha AWS feature gate ``NodeClassCEL``) accepts a CEL expression instead of
a quantity in ``EC2NodeClass.spec.kubelet.kubeReserved``/``systemReserved`` and evaluates it once per instance type
(``pkg/cel/environment.go``; ``website/content/en/preview/concepts/nodeclasses.md``):

- variables, all 64-bit integers except ``instance_type`` (a string): ``vcpus`` (the instance type's default vCPUs),
  ``memory_mib`` (its nominal memory in MiB, as EC2 describes the type, not the kernel's MemTotal), ``max_pods``
  (the resolved maxPods), ``default_enis``, ``ips_per_eni``;
- functions: the standard arithmetic, comparison and logical operators, ``?:``, ``int()``, ``double()`` and
  Karpenter's own two-argument ``max(a, b)``/``min(a, b)`` (int/int gives int, a double on either side gives
  double; there is no three-argument form);
- the result must be an int or a double (a double is truncated toward zero); a negative result drops the entry;
- the unit comes from the key: ``cpu`` millicores, ``memory`` MiB, ``ephemeral-storage`` GiB, ``pid`` a count;
- rounding, always up: cpu to a multiple of 10m, memory to a multiple of 16Mi; ephemeral-storage and pid are not
  rounded.

The expressions below use integer arithmetic only (no double anywhere, so every sub-expression type-checks as int
under CEL's no-coercion rules) and reproduce ``renderer.capacity.formulas`` exactly for every whole vCPU count,
whole-MiB memory and max pods; ``tests/capacity/test_karpenter_cel.py`` proves it by evaluating each one with a CEL
implementation over a grid of shapes. :func:`rounded_up` is the one place Karpenter's rounding lives; the capacity
model applies it to formula values of pools delivered through Karpenter with expressions on, so ``explain`` and
``verify`` predict what such nodes really reserve.

Pure domain code: no I/O, no third-party imports. Cost: O(1) per call.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import ROUND_CEILING, Decimal

from renderer.models.inventory import Pool
from renderer.quantity import Quantity

#: Karpenter rounds cpu results up to this many millicores and memory results up to this many MiB
#: (``cpuRoundingMilliCores`` and ``memoryRoundingMiB`` in pkg/cel/environment.go).
CPU_ROUNDING_MILLI = 10
MEMORY_ROUNDING_MIB = 16
MIB = 1024**2

#: Karpenter's expression variables (all ints except instance_type).
VARIABLES: tuple[str, ...] = ("vcpus", "memory_mib", "max_pods", "default_enis", "ips_per_eni", "instance_type")

#: The unit Karpenter attaches to an expression's result, per reserved resource.
RESULT_UNIT: dict[str, str] = {"cpu": "m", "memory": "Mi", "ephemeral-storage": "Gi", "pid": ""}


class NotExpressible(ValueError):
    """A formula that has no faithful CEL form over Karpenter's variables (the message says why)."""


@dataclass(frozen=True)
class CelForm:
    """A formula's reserved values for Karpenter: CEL expressions, or plain quantities where the value is constant."""

    formula: str
    fills: str  # "systemReserved" or "kubeReserved"
    values: dict[str, str]  # resource -> CEL expression or quantity text
    expressions: frozenset[str]  # the resources whose value is an expression (the others are quantities)


def _clamp(var: str, lower: int, width: int) -> str:
    """The part of ``var`` that falls between ``lower`` and ``lower + width`` (0 below, ``width`` above)."""
    below = var if lower == 0 else f"{var} - {lower}"
    inside = below if lower == 0 else f"max({below}, 0)"
    return f"min({inside}, {width})"


def _above(var: str, lower: int) -> str:
    return f"max({var} - {lower}, 0)"


# EKS/nodeadm cpu: 6% of the first core, 1% of the second, 0.5% of the next two, 0.25% of every further core, each
# tier in integer millicores and truncated on its own; for whole vCPUs only the last tier can be fractional
# ((v - 4) x 2.5), and integer division truncates it as nodeadm does. GKE computes the same tiers and truncates the
# total, which for whole vCPUs is the same number.
_TIERED_CPU_6_1_05_025 = (
    f"60 * {_clamp('vcpus', 0, 1)} + 10 * {_clamp('vcpus', 1, 1)} + 5 * {_clamp('vcpus', 2, 2)}"
    f" + {_above('vcpus', 4)} * 5 / 2"
)
# AKS cpu: 60m for the first core, 40m for the second, 20m for each of the next two, 10m for every further core
# (the published table 1->60m ... 64->740m, extended at its last slope).
_AKS_CPU = (
    f"60 * {_clamp('vcpus', 0, 1)} + 40 * {_clamp('vcpus', 1, 1)} + 20 * {_clamp('vcpus', 2, 2)}"
    f" + 10 * {_above('vcpus', 4)}"
)


def _memory_tiers(unit: int) -> str:
    """25/20/10/6/2 % of 4/4/8/112 units and above 128 units of memory_mib, in hundredths, truncated."""
    parts = [
        f"25 * {_clamp('memory_mib', 0, 4 * unit)}",
        f"20 * {_clamp('memory_mib', 4 * unit, 4 * unit)}",
        f"10 * {_clamp('memory_mib', 8 * unit, 8 * unit)}",
        f"6 * {_clamp('memory_mib', 16 * unit, 112 * unit)}",
        f"2 * {_above('memory_mib', 128 * unit)}",
    ]
    return f"({' + '.join(parts)}) / 100"


_GKE_MEMORY = f"memory_mib <= 1000 ? 255 : {_memory_tiers(1000)}"
_AKS_LEGACY_MEMORY = _memory_tiers(1024)

_FORMS: dict[str, tuple[str, dict[str, str], frozenset[str]]] = {
    "eks": (
        "kubeReserved",
        {"cpu": _TIERED_CPU_6_1_05_025, "memory": "11 * max_pods + 255", "ephemeral-storage": "1Gi"},
        frozenset({"cpu", "memory"}),
    ),
    "gke": ("kubeReserved", {"cpu": _TIERED_CPU_6_1_05_025, "memory": _GKE_MEMORY}, frozenset({"cpu", "memory"})),
    "aks": (
        "kubeReserved",
        {"cpu": _AKS_CPU, "memory": "min(20 * max_pods + 50, memory_mib / 4)"},
        frozenset({"cpu", "memory"}),
    ),
    "aks-legacy": ("kubeReserved", {"cpu": _AKS_CPU, "memory": _AKS_LEGACY_MEMORY}, frozenset({"cpu", "memory"})),
}

_OPENSHIFT_REASON = (
    "OpenShift's node-sizing script computes systemReserved on the node from the kernel's MemTotal (`free -g`, "
    "whole GiB) and the online CPU count; Karpenter's expressions only see the instance type's nominal memory "
    "(memory_mib), which is larger than MemTotal, so no expression reproduces it (and OpenShift nodes are not "
    "launched by Karpenter)"
)
NOT_EXPRESSIBLE: dict[str, str] = {"openshift": _OPENSHIFT_REASON, "openshift-4.20": _OPENSHIFT_REASON}


def cel_form(formula: str) -> CelForm:
    """The formula as Karpenter reserved values. Raises :class:`NotExpressible` (with the reason) or KeyError."""
    if formula in NOT_EXPRESSIBLE:
        raise NotExpressible(NOT_EXPRESSIBLE[formula])
    fills, values, expressions = _FORMS[formula]
    return CelForm(formula, fills, dict(values), expressions)


def expressible(formula: str) -> bool:
    return formula in _FORMS


def _ceil(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_CEILING))


def rounded_up(resource: str, quantity: Quantity) -> Quantity:
    """What Karpenter reserves for an expression whose exact result is ``quantity``: cpu rounded up to 10m, memory
    up to 16Mi, everything else unchanged. The only implementation of Karpenter's rounding."""
    if resource == "cpu":
        milli = _ceil(quantity.value * 1000)
        return Quantity.parse(f"{_ceil(Decimal(milli) / CPU_ROUNDING_MILLI) * CPU_ROUNDING_MILLI}m")
    if resource == "memory":
        mib = _ceil(quantity.value / MIB)
        return Quantity.parse(f"{_ceil(Decimal(mib) / MEMORY_ROUNDING_MIB) * MEMORY_ROUNDING_MIB}Mi")
    return quantity


def rounding_note(resource: str, before: Quantity, after: Quantity) -> str | None:
    if before.value == after.value:
        return None
    step = f"{CPU_ROUNDING_MILLI}m" if resource == "cpu" else f"{MEMORY_ROUNDING_MIB}Mi"
    return f"{resource}: Karpenter rounds the expression's result {before} up to a multiple of {step} -> {after}"


def karpenter_evaluates(pool: Pool, formula: str) -> bool:
    """True when Karpenter evaluates the pool's formula itself: the pool is delivered through an EC2NodeClass and
    the formula has a CEL form (the caller checks that ``render.karpenter.expressions`` is on)."""
    return pool.delivery is not None and pool.delivery.karpenter is not None and expressible(formula)


def round_as_karpenter(values: dict[str, Quantity]) -> list[str]:
    """Round formula values in place as Karpenter rounds an expression's result; one note per value it changed."""
    notes: list[str] = []
    for key, before in values.items():
        after = rounded_up(key, before)
        note = rounding_note(key, before, after)
        if note is not None:
            values[key] = after
            notes.append(note)
    return notes
