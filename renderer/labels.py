"""Label keys, label values and selector integers, checked as Kubernetes checks them (stdlib only).

One place for what the models (validation, AL004) and the selector semantics (lint) both need. The checks and
their messages follow k8s.io/apimachinery: ``pkg/util/validation`` (``IsQualifiedName``, ``IsValidLabelValue``,
``IsDNS1123Subdomain``) and ``pkg/labels`` (``NewRequirement``: every value of a requirement must be a valid
label value, and a ``Gt``/``Lt`` value must parse with ``strconv.ParseInt(v, 10, 64)``). Cost: one regular
expression match per key or value.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

__all__ = [
    "INT64_MAX",
    "INT64_MIN",
    "is_valid_label_value",
    "label_key_problem",
    "label_value_problem",
    "parse_int64",
]

INT64_MIN: Final = -(2**63)
INT64_MAX: Final = 2**63 - 1
MAX_LABEL_VALUE_LEN: Final = 63
MAX_NAME_LEN: Final = 63
MAX_DNS_SUBDOMAIN_LEN: Final = 253

_INT_RE: Final = re.compile(r"[+-]?[0-9]+")
_LABEL_VALUE_RE: Final = re.compile(r"(?:[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?)?")
_NAME_RE: Final = re.compile(r"[A-Za-z0-9](?:[-A-Za-z0-9_.]*[A-Za-z0-9])?")
_DNS_SUBDOMAIN_RE: Final = re.compile(r"[a-z0-9](?:[-a-z0-9]*[a-z0-9])?(?:\.[a-z0-9](?:[-a-z0-9]*[a-z0-9])?)*")

QUALIFIED_NAME_MSG: Final = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric "
    "character (e.g. 'MyName', or 'my.name', or '123-abc')"
)
LABEL_VALUE_MSG: Final = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'MyValue', or 'my_value', or '12345')"
)
DNS_SUBDOMAIN_MSG: Final = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start "
    "and end with an alphanumeric character (e.g. 'example.com')"
)


def parse_int64(text: str) -> int | None:
    """``text`` read like Go's ``strconv.ParseInt(text, 10, 64)``: an optional sign and ASCII digits (leading zeros
    allowed), no ``_``, spaces, fraction or unit, within int64; None where Go returns an error."""
    if _INT_RE.fullmatch(text) is None:
        return None
    if len(text.lstrip("+-").lstrip("0")) > 19:  # beyond int64 (and keeps int() clear of its digit limit)
        return None
    number = int(text)
    return number if INT64_MIN <= number <= INT64_MAX else None


def label_value_problem(value: str) -> str | None:
    """Why ``value`` is not a valid label value, in apimachinery's words; None when it is (the empty string is)."""
    if len(value) > MAX_LABEL_VALUE_LEN:
        return f"must be no more than {MAX_LABEL_VALUE_LEN} characters"
    if _LABEL_VALUE_RE.fullmatch(value) is None:
        return LABEL_VALUE_MSG
    return None


def is_valid_label_value(value: str) -> bool:
    """True for a valid Kubernetes label value (the empty string included)."""
    return len(value) <= MAX_LABEL_VALUE_LEN and _LABEL_VALUE_RE.fullmatch(value) is not None


@lru_cache(maxsize=1 << 13)
def label_key_problem(key: str) -> str | None:
    """Why ``key`` is not a valid label key (a qualified name), in apimachinery's words; None when it is.

    Cost: O(len(key)) once per distinct key (the same few dozen keys label every pool of a fleet), O(1) after."""
    parts = key.split("/")
    if len(parts) > 2:
        return (
            f"a qualified name {QUALIFIED_NAME_MSG} with an optional DNS subdomain prefix and '/' "
            "(e.g. 'example.com/MyName')"
        )
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            return "prefix part must be non-empty"
        if len(prefix) > MAX_DNS_SUBDOMAIN_LEN:
            return f"prefix part must be no more than {MAX_DNS_SUBDOMAIN_LEN} characters"
        if _DNS_SUBDOMAIN_RE.fullmatch(prefix) is None:
            return f"prefix part {DNS_SUBDOMAIN_MSG}"
    if not name:
        return "name part must be non-empty"
    if len(name) > MAX_NAME_LEN:
        return f"name part must be no more than {MAX_NAME_LEN} characters"
    if _NAME_RE.fullmatch(name) is None:
        return f"name part {QUALIFIED_NAME_MSG}"
    return None
