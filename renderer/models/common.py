"""Shared field types: names, labels, quantities, node selector terms, object metadata.

The classes are the runtime records every stage reads (see ``renderer.models.record``); their pydantic schema, with
each field's constraints, is ``renderer.models.schema.common``. The checks here are called by both.
"""

from __future__ import annotations

import math
import re
from typing import Literal

from renderer.models.record import Record
from renderer.quantity import Quantity, QuantityError

POLICY_API_VERSION = "policy.allocatable.dev/v1alpha1"

_DNS_LABEL = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_LABEL_PATTERN = rf"^{_DNS_LABEL}$"
DNS1123_SUBDOMAIN_PATTERN = rf"^{_DNS_LABEL}(\.{_DNS_LABEL})*$"
_NAME_PART = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
LABEL_VALUE_PATTERN = rf"^({_NAME_PART})?$"
QUALIFIED_NAME_PATTERN = rf"^({_DNS_LABEL}(\.{_DNS_LABEL})*/)?{_NAME_PART}$"

_DNS_LABEL_RE = re.compile(DNS1123_LABEL_PATTERN)
_DNS_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_PATTERN)
_NAME_PART_RE = re.compile(rf"^{_NAME_PART}$")
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_PATTERN)


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


def check_label_key(value: str) -> str:
    prefix, slash, name = value.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _DNS_SUBDOMAIN_RE.match(prefix)):
        raise ValueError(
            f'label key "{value}" has an invalid prefix "{prefix}": it must be a DNS-1123 subdomain such as '
            '"node.kubernetes.io"'
        )
    if not name or len(name) > 63 or not _NAME_PART_RE.match(name):
        raise ValueError(
            f'"{value}" is not a valid label key: the name part must be 1-63 characters of letters, digits, '
            '"-", "_" or ".", starting and ending with a letter or digit (optionally prefixed, "example.com/name")'
        )
    return value


def check_label_value(value: str) -> str:
    if len(value) > 63 or not _LABEL_VALUE_RE.match(value):
        raise ValueError(
            f'"{value}" is not a valid label value: at most 63 characters of letters, digits, "-", "_" or ".", '
            "starting and ending with a letter or digit (or empty)"
        )
    return value


QUANTITY_PATTERN = r"^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?[0-9]+))?$"


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


Operator = Literal["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]


def check_requirement(req: NodeSelectorRequirement) -> NodeSelectorRequirement:
    op, values = req.operator, req.values
    if op in ("In", "NotIn") and not values:
        raise ValueError(f'operator {op} needs at least one value in "values"')
    if op in ("Exists", "DoesNotExist") and values:
        raise ValueError(f'operator {op} takes no values; remove "values"')
    if op in ("Gt", "Lt"):
        if values is None or len(values) != 1:
            raise ValueError(f'operator {op} needs exactly one integer in "values"')
        try:
            int(values[0], 10)
        except ValueError:
            raise ValueError(f'operator {op} compares integers, but "{values[0]}" is not an integer') from None
    return req


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
