"""ReservationPolicy (policy.allocatable.dev/v1alpha1): kubelet reservations and eviction for selected nodes (schema:
``renderer.models.schema.reservationpolicy``)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any, Literal

from pydantic_core import InitErrorDetails, PydanticCustomError, ValidationError

from renderer.models.common import NodeSelectorTerm, ObjectMeta, minimum_reclaim_problem
from renderer.models.kubelet_fields import kubelet_field_problem
from renderer.models.record import Record
from renderer.quantity import Quantity

#: a formula name of ``renderer/platforms/`` (checked by ``renderer.platforms.check_formula_name``)
FormulaName = str
Input = Literal["cpu", "memory", "machineMemory", "ephemeralStorage"]


class CustomTier(Record):
    upTo: Quantity | None
    fraction: Decimal


class CustomFixed(Record):
    upTo: Quantity
    value: Quantity


class CustomTerm(Record):
    """One resource of a custom formula (``renderer.models.custom_formula``)."""

    of: Input | None
    whole: Quantity | None
    fixed: list[CustomFixed] | None
    tiers: list[CustomTier] | None
    eachTier: bool
    base: Quantity | None
    perPod: Quantity | None
    pods: Literal["maxPods", "eniMaxPods"]
    min: Quantity | None
    max: str | None
    round: Literal["down", "up", "half-up"]
    to: Quantity | None


class CustomFormula(Record):
    systemReserved: dict[str, CustomTerm] | None
    kubeReserved: dict[str, CustomTerm] | None


class AutoSizing(Record):
    formula: FormulaName | None
    custom: CustomFormula | None
    fallback: dict[str, Quantity] | None


def to_fraction(value: object) -> Decimal:
    """A fraction as YAML writes it: a number (0.06) or a numeric string; never a boolean."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str, Decimal)):
        raise ValueError(f"expected a number from 0 to 1 such as 0.06, got {type(value).__name__} {value!r}")
    try:
        d = Decimal(repr(value) if isinstance(value, float) else str(value))
    except InvalidOperation:
        raise ValueError(f"expected a number from 0 to 1 such as 0.06, got {value!r}") from None
    if not d.is_finite():
        raise ValueError(f"expected a finite number, got {value!r}")
    from renderer.models.custom_formula import check_fraction

    return check_fraction(d)


def to_bound(value: object) -> object:
    """``max``: a quantity (a YAML number is one) or a percentage string."""
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return repr(value) if isinstance(value, float) else str(value)
    return value


def check_tiers(tiers: list[CustomTier] | None) -> list[CustomTier] | None:
    from renderer.models.custom_formula import check_tiers as check

    return None if tiers is None else check(tiers)


def check_term(term: CustomTerm) -> CustomTerm:
    from renderer.models.custom_formula import check_term as check

    return check(term)  # type: ignore[no-any-return]


def check_terms(terms: dict[str, CustomTerm] | None) -> dict[str, CustomTerm] | None:
    from renderer.models.custom_formula import check_map

    return None if terms is None else check_map(terms)


def check_custom(custom: CustomFormula | None) -> CustomFormula | None:
    from renderer.models.custom_formula import check_plausible

    return None if custom is None else check_plausible(custom)


def check_auto_sizing(auto: AutoSizing | None) -> AutoSizing | None:
    if auto is None:
        return auto
    if auto.formula is None and auto.custom is None:
        raise ValueError("autoSizing needs a formula (a built-in, see `allocatable sizing --help`) or custom")
    if auto.formula is not None and auto.custom is not None:
        raise ValueError("autoSizing names both a formula and custom: keep one")
    return auto


def check_kubelet_field(name: str) -> str:
    problem = kubelet_field_problem(name)
    if problem:
        raise ValueError(problem)
    return name


class ReservationPolicySpec(Record):
    selector: list[NodeSelectorTerm]
    systemReserved: dict[str, Quantity] | None
    kubeReserved: dict[str, Quantity] | None
    autoSizing: AutoSizing | None
    evictionHard: dict[str, str] | None
    evictionSoft: dict[str, str] | None
    evictionSoftGracePeriod: dict[str, str] | None
    enforceNodeAllocatable: list[str] | None
    systemReservedCgroup: str | None
    kubeReservedCgroup: str | None
    reservedSystemCPUs: str | None
    cgroupDriver: Literal["systemd", "cgroupfs"] | None
    cgroupsPerQOS: bool | None
    maxPods: int | None
    podsPerCore: int | None
    podPidsLimit: int | None
    kubelet: dict[str, Any] | None


class ReservationPolicy(Record):
    """Reservations, eviction and enforcement for the nodes matched by spec.selector."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["ReservationPolicy"]
    metadata: ObjectMeta
    spec: ReservationPolicySpec


def check_kubelet_values(values: dict[str, Any] | None) -> dict[str, Any] | None:
    """The passed-through fields whose quantities the kubelet refuses when negative: ``evictionMinimumReclaim``
    (``minimum_reclaim_problem``), each problem located at its signal. (Its siblings with fields of their own,
    systemReserved, kubeReserved, evictionHard and evictionSoft, are checked by their types.)"""
    reclaims = (values or {}).get("evictionMinimumReclaim")
    if isinstance(reclaims, dict):
        errors = [
            InitErrorDetails(
                type=PydanticCustomError("value_error", "{error}", {"error": problem}),
                loc=("evictionMinimumReclaim", str(signal)),
                input=text,
            )
            for signal, text in reclaims.items()
            if (problem := minimum_reclaim_problem(str(signal), text)) is not None
        ]
        if errors:
            raise ValidationError.from_exception_data("kubelet", errors)
    return values
