"""Shared field types: names, labels, quantities, node selector terms, object metadata.

The classes are the runtime records every stage reads (see ``renderer.models.record``); their pydantic schema, with
each field's constraints, is ``renderer.models.schema.common``. The checks here are called by both.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, Literal

from renderer.labels import label_key_problem, label_value_problem, parse_int64
from renderer.models.record import Record
from renderer.quantity import Quantity, QuantityError

if TYPE_CHECKING:
    from pydantic_core.core_schema import ValidationInfo

POLICY_API_VERSION = "policy.allocatable.dev/v1alpha1"

_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_PATTERN = rf"^{_DNS_LABEL}$"
DNS1123_SUBDOMAIN_PATTERN = rf"^{_DNS_LABEL}(\.{_DNS_LABEL})*$"
_NAME_PART = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
LABEL_VALUE_PATTERN = rf"^({_NAME_PART})?$"
QUALIFIED_NAME_PATTERN = rf"^({_DNS_LABEL}(\.{_DNS_LABEL})*/)?{_NAME_PART}$"

_DNS_LABEL_RE = re.compile(DNS1123_LABEL_PATTERN)
_DNS_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_PATTERN)


def check_dns_subdomain(value: str) -> str:
    if len(value) > 253:
        raise ValueError(f'"{value[:40]}…" is longer than 253 characters')
    if not _DNS_SUBDOMAIN_RE.match(value):
        raise ValueError(
            f'"{value}" is not a valid name: use lower-case letters, digits, "-" and ".", starting and ending '
            'with a letter or digit (DNS-1123 subdomain, e.g. "compute-optimized")'
        )
    return value


def check_dns_label(value: str) -> str:
    if len(value) > 63:
        raise ValueError(f'"{value[:40]}…" is longer than 63 characters')
    if not _DNS_LABEL_RE.match(value):
        raise ValueError(
            f'"{value}" is not a valid DNS-1123 label: use lower-case letters, digits and "-", starting and '
            'ending with a letter or digit (e.g. "kata-qemu")'
        )
    return value


def _short(value: str) -> str:
    return value if len(value) <= 63 else value[:40] + "…"


def check_label_key(value: str) -> str:
    problem = label_key_problem(value)
    if problem is not None:
        raise ValueError(f'"{_short(value)}" is not a valid label key: {problem}')
    return value


def check_label_value(value: str) -> str:
    problem = label_value_problem(value)
    if problem is not None:
        raise ValueError(f'"{_short(value)}" is not a valid label value: {problem}')
    return value


def to_quantity(value: object) -> Quantity:
    """Accept what Kubernetes accepts for a quantity: a string, or a YAML/JSON number."""
    if isinstance(value, Quantity):
        return value
    if isinstance(value, bool):
        raise ValueError(f'expected a quantity such as "500m" or "1Gi", got the boolean {str(value).lower()}')
    if isinstance(value, int):
        return Quantity.parse(str(value))
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"expected a quantity, got {value!r} (not a finite number)")
        return Quantity.parse(repr(value).replace("e+", "e"))
    if isinstance(value, str):
        try:
            return Quantity.parse(value)
        except QuantityError as exc:
            raise ValueError(str(exc)) from None
    raise ValueError(f'expected a quantity such as "500m" or "1Gi", got {type(value).__name__}')


def to_non_negative_quantity(value: object) -> Quantity:
    q = to_quantity(value)
    if q.is_negative():
        raise ValueError(f'quantity "{q}" must not be negative')
    return q


#: A quantity without a sign, or with "+": what the JSON Schemas allow where negative values are refused.
NON_NEGATIVE_QUANTITY_PATTERN = r"^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?[0-9]+))?$"


def check_reserved(values: dict[str, Quantity] | None) -> dict[str, Quantity] | None:
    """systemReserved, kubeReserved and autoSizing.fallback: the kubelet refuses a negative reservation at start,
    in these words (cmd/kubelet/app/server.go, ``parseResourceList``)."""
    for key, q in (values or {}).items():
        if q.is_negative():
            raise ValueError(f'the kubelet refuses to start: resource quantity for "{key}" cannot be negative: {q}')
    return values


def check_eviction_thresholds(values: dict[str, str] | None) -> dict[str, str] | None:
    """evictionHard and evictionSoft: a negative threshold is refused at start, in these words
    (pkg/kubelet/eviction/helpers.go, ``parseThresholdStatement``). Anything else wrong with a threshold (zero,
    above 100 %, not a quantity, an unknown signal) is lint's (AL310, AL311, AL313), which says more about it."""
    for signal, text in (values or {}).items():
        if not isinstance(text, str) or not text.lstrip().startswith("-"):
            continue
        if text.endswith("%"):
            raise ValueError(
                f"the kubelet refuses to start: eviction percentage threshold {signal} must be >= 0%: {text}"
            )
        try:
            q = Quantity.parse(text)
        except QuantityError:
            continue  # not a quantity: AL313 says so
        if q.is_negative():
            raise ValueError(f"the kubelet refuses to start: eviction threshold {signal} must be positive: {q}")
    return values


#: A decimal floating-point number as Go's strconv.ParseFloat reads one (hexadecimal and underscores aside), and the
#: infinities and NaN it also reads.
_DECIMAL = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")
_GO_INF_NAN = re.compile(r"[+-]?(inf|infinity|nan)", re.IGNORECASE)


def check_kubelet_passthrough(values: dict[str, Any] | None) -> dict[str, Any] | None:
    """spec.kubelet: what the kubelet refuses at start among the quantities passed through. For
    ``evictionMinimumReclaim``, pkg/kubelet/eviction/helpers.go ``parseMinimumReclaims``: a percentage must parse
    and be above zero ("eviction percentage minimum reclaim %v must be positive: %s"), a quantity must parse and not
    be negative ("negative eviction minimum reclaim specified for %v"). An unknown signal is AL310's."""
    reclaim = (values or {}).get("evictionMinimumReclaim")
    for signal, raw in reclaim.items() if isinstance(reclaim, dict) else ():
        text = str(raw)
        problem = None
        if text.endswith("%"):
            number = text[:-1]
            if _GO_INF_NAN.fullmatch(number):
                continue  # Go's strconv.ParseFloat reads them, and NaN or +Inf passes "<= 0": the kubelet starts
            if not _DECIMAL.fullmatch(number):
                problem = f'"{text}" is not a percentage such as "5%"'  # strconv.ParseFloat: invalid syntax
            elif float(number) <= 0:
                problem = f"eviction percentage minimum reclaim {signal} must be positive: {text}"
        else:
            try:
                q = Quantity.parse(text)
            except QuantityError as exc:
                problem = str(exc)
            else:
                if q.is_negative():
                    problem = f"negative eviction minimum reclaim specified for {signal} ({text})"
        if problem:
            raise ValueError(f"evictionMinimumReclaim: the kubelet refuses to start: {problem}")
    return values


Operator = Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]


def check_requirement(req: NodeSelectorRequirement) -> NodeSelectorRequirement:
    op, values = req.operator, req.values
    if op in ("In", "NotIn") and not values:
        raise ValueError(f'operator {op} needs at least one value in "values"')
    if op in ("Exists", "DoesNotExist") and values:
        raise ValueError(f'operator {op} takes no values; remove "values"')
    if op in ("Gt", "Lt") and (values is None or len(values) != 1):
        raise ValueError(
            f"operator {op} needs exactly one integer in \"values\": for 'Gt', 'Lt' operators, exactly one value "
            "is required"
        )
    return req


def check_selector_value(value: str, info: ValidationInfo) -> str:
    """One ``values`` item: a valid label value, and for Gt/Lt an integer as ``strconv.ParseInt(v, 10, 64)``
    reads it (``labels.NewRequirement`` checks both, for every operator)."""
    op = info.data.get("operator")
    if op in ("Gt", "Lt") and parse_int64(value) is None:
        digits = re.fullmatch(r"[+-]?[0-9]+", value) is not None
        what = "is beyond the 64-bit range" if digits else "is not an integer"
        raise ValueError(
            f"operator {op} compares integers, but \"{_short(value)}\" {what}: for 'Gt', 'Lt' operators, the "
            'value must be an integer (64-bit, digits only: no "_", spaces, fraction or unit)'
        )
    return check_label_value(value)


class NodeSelectorRequirement(Record):
    key: str
    operator: Operator
    values: list[str] | None


class FieldSelectorRequirement(Record):
    key: Literal["metadata.name"]
    operator: Literal["In", "NotIn"]
    values: list[str]


class NodeSelectorTerm(Record):
    matchExpressions: list[NodeSelectorRequirement] | None
    matchFields: list[FieldSelectorRequirement] | None


class ObjectMeta(Record):
    name: str
    labels: dict[str, str] | None
    annotations: dict[str, str] | None


class Toleration(Record):
    key: str | None
    operator: Literal["Exists", "Equal"] | None
    value: str | None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None
    tolerationSeconds: int | None
