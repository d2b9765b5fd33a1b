"""A user's own reservation formula (``ReservationPolicy.spec.autoSizing.custom``) as a :class:`Formula`.

```yaml
autoSizing:
  custom:
    kubeReserved:
      cpu: {tiers: [{upTo: "1", fraction: 0.06}, {upTo: "2", fraction: 0.01}, {fraction: 0.0025}], to: 1m}
      memory: {perPod: 11Mi, base: 255Mi, max: 25%}
    systemReserved:
      memory: {of: machineMemory, tiers: [{upTo: 16Gi, fraction: 0.05}, {fraction: 0.02}], min: 500Mi}
```

Each resource (cpu, memory, ephemeral-storage) takes the terms of ``renderer.platforms.Term``: ``of`` (the
input: ``cpu``, ``memory`` (MemTotal), ``machineMemory`` (the size the machine type is sold as) or
``ephemeralStorage``), ``whole`` (the input truncated to a multiple first), ``fixed`` (exact values for inputs of at
most ``upTo``), ``tiers`` (a fraction per bracket, sorted by ``upTo``; the last may leave it out: no bound),
``eachTier`` (round every bracket on its own, as EKS does in integer millicores), ``base``, ``perPod`` times
``pods`` (``maxPods``, or ``eniMaxPods``: the ENI-limited maxPods EKS computes before an override), ``min``, ``max``
(a quantity, or a percentage of the input), ``round`` (down, up, half-up) to a multiple of ``to`` (1m for cpu, 1Mi
otherwise, by default). Order: input, fixed or (base + tiers + per pod), clamps, rounding.

The checks here run while a policy is validated, each at the field it is about: tiers sorted and not overlapping,
fractions in [0, 1], ``min`` not above ``max``, fixed values that never make a larger machine reserve less than a
smaller one, and no reservation larger than the largest machine Kubernetes runs on. Records are read by attribute
(``renderer.models.reservationpolicy``), so this module imports no model. Cost: O(tiers) per term.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction
from typing import Any, Literal

from renderer.platforms import (
    GIB,
    KUBELET_DEFAULTS,
    MIB,
    Clamp,
    Formula,
    MachineShape,
    Rounding,
    Step,
    Term,
    Tier,
)

__all__ = [
    "INPUTS",
    "LARGEST",
    "RESOURCES",
    "check_fraction",
    "check_map",
    "check_plausible",
    "check_term",
    "check_tiers",
    "formula_of",
]

RESOURCES = ("cpu", "memory", "ephemeral-storage")
#: the inputs each resource may be computed from
INPUTS: dict[str, tuple[str, ...]] = {
    "cpu": ("cpu",),
    "memory": ("machineMemory", "memory"),
    "ephemeral-storage": ("ephemeralStorage",),
}
#: The largest machine a formula must still fit: AWS u-24tb1.metal (448 vCPUs, 24 TiB, 737 pods, Karpenter's own
#: overflow case) with 64 TiB of local storage.
LARGEST = MachineShape(
    cpus=Decimal(448),
    memory_bytes=24 * 1024 * GIB,
    max_pods=737,
    machine_memory_bytes=24 * 1024 * GIB,
    eni_max_pods=737,
    ephemeral_storage_bytes=64 * 1024 * GIB,
)
_LARGEST_TEXT = "448 vCPUs, 24Ti memory, 64Ti ephemeral storage, 737 pods"


def _amount(q: Any) -> Fraction:
    """A Quantity as the model's unit (cores for cpu, bytes otherwise): its exact value."""
    return Fraction(q.value)


def _percent(text: str) -> Fraction | None:
    if isinstance(text, str) and text.endswith("%"):
        try:
            return Fraction(Decimal(text[:-1])) / 100
        except ArithmeticError:
            return None
    return None


def _unit(resource: str, step: Fraction) -> str:
    if resource == "cpu":
        return "m" if (step * 1000).denominator == 1 else "cores"
    if step % GIB == 0:
        return "GiMi"
    return "Mi" if step % MIB == 0 else "bytes"


def term_of(resource: str, rec: Any) -> Term:
    """One resource's record as a Term (the record already passed the schema's checks)."""
    default_step = Fraction(1, 1000) if resource == "cpu" else Fraction(MIB)
    step = _amount(rec.to) if rec.to is not None else default_step
    source = rec.of or INPUTS[resource][0]
    maximum = None
    if rec.max is not None:
        pct = _percent(rec.max)
        if pct is not None:
            maximum = Clamp(fraction=pct)
        else:
            from renderer.quantity import Quantity

            maximum = Clamp(amount=Fraction(Quantity.parse(rec.max).value))
    rounding = Rounding(rec.round or "down", step)
    uses_input = bool(rec.tiers or rec.fixed or (maximum is not None and maximum.fraction is not None))
    if rec.base is not None and not (uses_input or rec.perPod or rec.min or maximum or rec.whole or rec.to):
        return Term(base=_amount(rec.base), unit="m" if resource == "cpu" else "Mi", text=str(rec.base))
    return Term(
        input=source if uses_input else "none",  # type: ignore[arg-type]
        whole=_amount(rec.whole) if rec.whole is not None else None,
        steps=tuple(Step(_amount(f.upTo), _amount(f.value)) for f in rec.fixed or ()),
        tiers=tuple(
            Tier(None if t.upTo is None else _amount(t.upTo), Fraction(Decimal(t.fraction))) for t in rec.tiers or ()
        ),
        each_tier=rounding if rec.eachTier else None,
        base=_amount(rec.base) if rec.base is not None else Fraction(0),
        per_pod=_amount(rec.perPod) if rec.perPod is not None else Fraction(0),
        pods=rec.pods or "maxPods",
        minimum=Clamp(amount=_amount(rec.min)) if rec.min is not None else None,
        maximum=maximum,
        rounding=rounding,
        unit=_unit(resource, step),  # type: ignore[arg-type]
    )


def formula_of(rec: Any, name: str) -> Formula:
    """The Formula of an ``autoSizing.custom`` record (``name``: how explain and findings call it)."""
    terms: dict[str, dict[str, Term]] = {}
    for part in ("systemReserved", "kubeReserved"):
        resources = getattr(rec, part, None) or {}
        if resources:
            terms[part] = {r: term_of(r, t) for r, t in resources.items()}
    return Formula(
        name=name,
        summary=f"{name}: a formula of the policy's own",
        terms=terms,
        eviction_hard=dict(KUBELET_DEFAULTS),
        custom=True,
    )


# ----------------------------------------------------------------------------------------------------
# checks (raise ValueError with what to change; called by the schema's validators)


def check_fraction(value: Decimal) -> Decimal:
    if not Decimal(0) <= value <= Decimal(1):
        raise ValueError(
            f"fraction {value} is outside [0, 1]: a tier reserves that share of the input within its bracket "
            "(write 6% as 0.06)"
        )
    return value


def check_tiers(tiers: list[Any]) -> list[Any]:
    """Sorted by upTo, each above the one before, only the last without upTo."""
    previous: Fraction | None = None
    for i, tier in enumerate(tiers, 1):
        if tier.upTo is None:
            if i != len(tiers):
                raise ValueError(
                    f"tier {i} has no upTo, but tier {i + 1} follows: only the last tier may be unbounded; give "
                    f"tier {i} an upTo or move it last"
                )
            continue
        bound = _amount(tier.upTo)
        if bound <= 0:
            raise ValueError(f"tier {i} ends at upTo {tier.upTo}: a bracket ends above 0")
        if previous is not None and bound <= previous:
            raise ValueError(
                f"tier {i} (upTo {tier.upTo}) does not start above tier {i - 1}: tiers overlap or are out of order; "
                "sort them by upTo, each bracket ending above the previous one"
            )
        previous = bound
    return tiers


def check_term(rec: Any) -> Any:
    """min not above max; ``to`` positive; fixed values sorted and never above what a larger input reserves."""
    if rec.to is not None and _amount(rec.to) <= 0:
        raise ValueError(f"to: {rec.to} is not a rounding step; give a positive quantity such as 1m or 1Mi")
    if rec.whole is not None and _amount(rec.whole) <= 0:
        raise ValueError(f"whole: {rec.whole} is not a step; give a positive quantity such as 1 or 1Gi")
    pct = _percent(rec.max) if rec.max is not None else None
    if rec.max is not None and pct is None:
        from renderer.quantity import Quantity, QuantityError

        try:
            q = Quantity.parse(rec.max)
        except QuantityError:
            raise ValueError(
                f'max: "{rec.max}" is neither a quantity nor a percentage of the input (e.g. 25%)'
            ) from None
        if q.is_negative():
            raise ValueError(f"max: {rec.max} is negative")
        if rec.min is not None and rec.min > q:
            raise ValueError(f"min {rec.min} is above max {rec.max}: no value satisfies both; lower min or raise max")
    if pct is not None and not 0 <= pct <= 1:
        raise ValueError(f"max: {rec.max} is not a percentage from 0% to 100%")
    fixed = rec.fixed or []
    for i in range(1, len(fixed)):
        a, b = fixed[i - 1], fixed[i]
        if _amount(b.upTo) <= _amount(a.upTo):
            raise ValueError(f"fixed {i + 1} (upTo {b.upTo}) is not above fixed {i}: sort fixed values by upTo")
        if _amount(b.value) < _amount(a.value):
            raise ValueError(
                f"not monotonic: fixed {i + 1} reserves {b.value} for inputs up to {b.upTo}, less than the {a.value} of "
                f"smaller inputs (up to {a.upTo}); a larger machine would reserve less: raise it to at least {a.value}"
            )
    return rec


def check_map(resources: dict[str, Any]) -> dict[str, Any]:
    """Each resource's input fits it; the largest fixed value is not above what the formula gives just past it."""
    for resource, rec in resources.items():
        if resource not in INPUTS:
            raise ValueError(f'"{resource}" cannot be reserved by a formula: use cpu, memory or ephemeral-storage')
        if rec.of is not None and rec.of not in INPUTS[resource]:
            raise ValueError(
                f"{resource}: of {rec.of} is not an input for {resource}; use {' or '.join(INPUTS[resource])}"
            )
        fixed = rec.fixed or []
        if fixed:
            term = term_of(resource, rec)
            last = fixed[-1]
            above = _after(term, _amount(last.upTo))
            if above is not None and above < _amount(last.value):
                raise ValueError(
                    f"{resource}: not monotonic: inputs up to {last.upTo} reserve {last.value}, but the formula gives "
                    f"only {_show(above, resource)} just above that; lower the fixed value or raise base/tiers"
                )
    return resources


def _after(term: Term, bound: Fraction) -> Fraction | None:
    """The term's value (before rounding) for an input just above ``bound``."""
    plain = Term(
        input=term.input,
        tiers=term.tiers,
        base=term.base,
        per_pod=Fraction(0),
        minimum=term.minimum,
        maximum=term.maximum,
        unit=term.unit,
    )
    x = bound + Fraction(1, 10**6)
    total = plain.base
    lower = Fraction(0)
    for tier in plain.tiers:
        if x <= lower:
            break
        top = x if tier.up_to is None else min(x, tier.up_to)
        total += (top - lower) * tier.fraction
        if tier.up_to is None:
            break
        lower = tier.up_to
    if term.minimum is not None and term.minimum.amount is not None:
        total = max(total, term.minimum.amount)
    return total


def _show(value: Fraction, resource: str) -> str:
    if resource == "cpu":
        return f"{float(value * 1000):.0f}m"
    return f"{float(value / MIB):.0f}Mi"


def _at_largest(term: Term) -> Fraction:
    """The term's value on :data:`LARGEST`, before rounding (an upper bound is all the check needs)."""
    inputs = {
        "cpu": Fraction(LARGEST.cpus),
        "memory": Fraction(LARGEST.memory_bytes),
        "machineMemory": Fraction(LARGEST.memory_bytes),
        "ephemeralStorage": Fraction(LARGEST.ephemeral_storage_bytes or 0),
        "none": Fraction(0),
    }
    x = inputs.get(term.input, Fraction(0))
    for step in term.steps:
        if x <= step.at_most:
            return step.value
    total = term.base + term.per_pod * (LARGEST.max_pods or 0)
    lower = Fraction(0)
    for tier in term.tiers:
        if x <= lower:
            break
        top = x if tier.up_to is None else min(x, tier.up_to)
        total += (top - lower) * tier.fraction
        if tier.up_to is None:
            break
        lower = tier.up_to
    if term.minimum is not None and term.minimum.amount is not None:
        total = max(total, term.minimum.amount)
    if term.maximum is not None:
        cap = term.maximum.amount if term.maximum.amount is not None else (term.maximum.fraction or Fraction(0)) * x
        total = min(total, cap)
    return total


def check_plausible(rec: Any) -> Any:
    """No reservation larger than the largest machine Kubernetes runs on (a unit slip, a fraction as a percentage)."""
    if not (getattr(rec, "systemReserved", None) or getattr(rec, "kubeReserved", None)):
        raise ValueError("a custom formula needs systemReserved or kubeReserved with at least one resource")
    from renderer.quantity import Quantity

    capacity = {
        "cpu": Fraction(LARGEST.cpus),
        "memory": Fraction(LARGEST.memory_bytes),
        "ephemeral-storage": Fraction(LARGEST.ephemeral_storage_bytes or 0),
    }
    totals: dict[str, list[tuple[str, Fraction]]] = {}
    for part in ("systemReserved", "kubeReserved"):
        for resource, t in (getattr(rec, part, None) or {}).items():
            totals.setdefault(resource, []).append((part, _at_largest(term_of(resource, t))))
    for resource, parts in totals.items():
        if resource in capacity and sum(v for _, v in parts) > capacity[resource]:
            fmt: Literal["DecimalSI", "BinarySI"] = "DecimalSI" if resource == "cpu" else "BinarySI"
            shown = ", ".join(
                f"{p} {Quantity.from_value(Decimal(v.numerator) / Decimal(v.denominator), fmt)}" for p, v in parts
            )
            raise ValueError(
                f"implausible: {resource} reserves {shown} on the largest machine Kubernetes runs on ({_LARGEST_TEXT}), "
                f"more than it has; check the units (cpu in cores or m, 6% as 0.06) and perPod"
            )
    return rec
