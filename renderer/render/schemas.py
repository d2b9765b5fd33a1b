"""JSON Schemas for rendered artefacts (no pydantic model behind them), written to ``schemas/`` by ``allocatable schema``.

``kubeletconfiguration.json``: KubeletConfiguration (kubelet.config.k8s.io/v1beta1). Upstream publishes no JSON
Schema for it, so this one is ours: every field of ``renderer.models.kubelet_fields`` with its type (integers with
their Go width and validation.go's range, enumerations: ``renderer.models.kubelet_validation``, which lint rule AL326
checks), and the kubelet's own validation rules for the fields this tool renders (reserved resource names and quantities, eviction
signals and thresholds, enforceNodeAllocatable combinations and the cgroups they need, reservedSystemCPUs as a
cpuset that excludes reserved cgroups). Unknown fields are rejected, as the kubelet's strict decoding does.
"""

from __future__ import annotations

from typing import Any

from renderer.models.kubelet_elements import GATE_PATTERN, QOS_PERCENT_PATTERN, SYSCTL_PATTERN
from renderer.models.kubelet_fields import ENFORCEMENTS, KUBELET_CONFIGURATION_FIELDS, RESERVABLE_RESOURCES
from renderer.models.kubelet_fields import EVICTION_SIGNALS as _SIGNALS
from renderer.models.kubelet_validation import ENUMS, INT32, INT64, KIND, RANGES

DIALECT = "https://json-schema.org/draft/2020-12/schema"

_QUANTITY = r"([0-9]+(\.[0-9]*)?|\.[0-9]+)(([KMGTPE]i)|[numkMGTPE]|([eE][+-]?[0-9]+))?"
NON_NEGATIVE_QUANTITY = rf"^\+?{_QUANTITY}$"
PERCENT = r"^(100(\.0+)?|[0-9]{1,2}(\.[0-9]+)?)%$"
DURATION = r"^([-+]?([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+$|^[-+]?0$"
CPUSET = r"^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$"
RESERVED_KEYS = list(RESERVABLE_RESOURCES)
EVICTION_SIGNALS = list(_SIGNALS)
ENFORCE_VALUES = list(ENFORCEMENTS)

_BOOL = {"type": "boolean"}
_INT = {"type": "integer"}
_NON_NEGATIVE_INT = {"type": "integer", "minimum": 0}
_STRING = {"type": "string"}
_DURATION = {"type": "string", "pattern": DURATION, "description": 'Go duration, e.g. "1m30s"'}
_STRINGS = {"type": "array", "items": {"type": "string"}}
_STRING_MAP = {"type": "object", "additionalProperties": {"type": "string"}}
_OBJECT = {"type": "object"}
_OBJECTS = {"type": "array", "items": {"type": "object"}}
_RESERVED = {
    "type": "object",
    "propertyNames": {"enum": RESERVED_KEYS},
    "additionalProperties": {"type": "string", "pattern": NON_NEGATIVE_QUANTITY},
    "description": "resources reserved for the OS or Kubernetes daemons: cpu, memory, ephemeral-storage, pid",
}
_THRESHOLDS = {
    "type": "object",
    "propertyNames": {"enum": EVICTION_SIGNALS},
    "additionalProperties": {
        "type": "string",
        "anyOf": [{"pattern": PERCENT}, {"pattern": NON_NEGATIVE_QUANTITY}],
    },
}

#: The schema of each field kind (``renderer.models.kubelet_kinds``, the one table of types lint reads too).
_BY_KIND: dict[str, dict[str, Any]] = {
    "bool": _BOOL,
    "int32": _INT,
    "int64": _INT,
    "float": {"type": "number"},
    "duration": _DURATION,
    "string": _STRING,
    "strings": _STRINGS,
    "string-map": _STRING_MAP,
    "bool-map": {"type": "object", "additionalProperties": {"type": "boolean"}},
    "strings-map": {"type": "object", "additionalProperties": _STRINGS},
    "reserved": _RESERVED,
    "thresholds": _THRESHOLDS,
    "durations-map": {
        "type": "object",
        "propertyNames": {"enum": EVICTION_SIGNALS},
        "additionalProperties": _DURATION,
    },
    "enforcements": {"type": "array", "items": {"enum": ENFORCE_VALUES}, "uniqueItems": True},
    "object": _OBJECT,
    "objects": _OBJECTS,
}

FIELD_TYPES: dict[str, dict[str, Any]] = {
    **{name: _BY_KIND[kind] for name, kind in KIND.items()},
    # fields whose values validation.go narrows further than their type
    "imageGCHighThresholdPercent": {"type": "integer", "minimum": 0, "maximum": 100},
    "imageGCLowThresholdPercent": {"type": "integer", "minimum": 0, "maximum": 100},
    "maxPods": {**_NON_NEGATIVE_INT, "maximum": INT32[1], "description": "must not be a negative number (default 110)"},
    "podsPerCore": {**_NON_NEGATIVE_INT, "maximum": INT32[1], "description": "0 turns the per-core limit off"},
    "memoryThrottlingFactor": {"type": "number", "exclusiveMinimum": 0, "maximum": 1},
    "runOnce": {"const": False, "description": "validation.go: runOnce mode has been deprecated and should not be set"},
    "cgroupDriver": {"enum": ["cgroupfs", "systemd"]},
    # list and map elements as the kubelet reads them (renderer.models.kubelet_elements, AL326)
    "featureGates": {
        "type": "object",
        "propertyNames": {"pattern": f"^{GATE_PATTERN}$"},
        "additionalProperties": {"type": "boolean"},
    },
    "allowedUnsafeSysctls": {
        "type": "array",
        "items": {"type": "string", "maxLength": 253, "pattern": f"^{SYSCTL_PATTERN}$"},
    },
    "qosReserved": {
        "type": "object",
        "propertyNames": {"enum": ["memory"]},
        "additionalProperties": {"type": "string", "pattern": f"^{QOS_PERCENT_PATTERN}$"},
        "description": 'memory only, a percentage from 0% to 100% ("50%")',
    },
    "reservedSystemCPUs": {"type": "string", "pattern": CPUSET, "description": 'cpuset list such as "0-1,4"'},
}


def _integer(name: str) -> dict[str, Any]:
    """An integer field: the width of its Go type (types.go) and validation.go's range, as
    ``renderer.models.kubelet_validation`` holds them (AL326 checks the same bounds)."""
    low, high = INT32 if KIND[name] == "int32" else INT64
    bounded = RANGES.get(name)
    if bounded is None:
        return {"type": "integer", "minimum": low, "maximum": high}
    r_low, r_high, _, zero_ok = bounded
    ranged = {
        "type": "integer",
        "minimum": low if r_low is None else max(low, r_low),
        "maximum": high if r_high is None else min(high, r_high),
    }
    return {"anyOf": [{"const": 0}, ranged]} if zero_ok else ranged


def _contains(*values: str) -> dict[str, Any]:
    return {
        "required": ["enforceNodeAllocatable"],
        "properties": {"enforceNodeAllocatable": {"contains": {"enum": list(values)}}},
    }


def kubelet_configuration_schema() -> dict[str, Any]:
    properties: dict[str, Any] = {
        "apiVersion": {"const": "kubelet.config.k8s.io/v1beta1"},
        "kind": {"const": "KubeletConfiguration"},
    }
    for name in sorted(KUBELET_CONFIGURATION_FIELDS):
        properties[name] = FIELD_TYPES[name]
        if FIELD_TYPES[name] == _INT:
            properties[name] = _integer(name)
        if name in ENUMS:
            properties[name] = {"enum": list(ENUMS[name])}
    return {
        "$schema": DIALECT,
        "title": "KubeletConfiguration (kubelet.config.k8s.io/v1beta1)",
        "description": "Written by allocatable from the kubelet's configuration fields and validation rules; "
        "upstream publishes no JSON Schema for it.",
        "type": "object",
        "required": ["apiVersion", "kind"],
        "properties": properties,
        "additionalProperties": False,
        "allOf": [
            {
                "if": _contains("system-reserved", "system-reserved-compressible"),
                "then": {"required": ["systemReservedCgroup"]},
            },
            {
                "if": _contains("kube-reserved", "kube-reserved-compressible"),
                "then": {"required": ["kubeReservedCgroup"]},
            },
            {"if": _contains("none"), "then": {"properties": {"enforceNodeAllocatable": {"maxItems": 1}}}},
            {"not": {"allOf": [_contains("system-reserved"), _contains("system-reserved-compressible")]}},
            {"not": {"allOf": [_contains("kube-reserved"), _contains("kube-reserved-compressible")]}},
            {
                "if": {"required": ["cgroupsPerQOS"], "properties": {"cgroupsPerQOS": {"const": False}}},
                "then": {
                    "required": ["enforceNodeAllocatable"],
                    "properties": {"enforceNodeAllocatable": {"items": {"const": "none"}}},
                },
            },
            {"not": {"required": ["reservedSystemCPUs", "systemReservedCgroup"]}},
            {"not": {"required": ["reservedSystemCPUs", "kubeReservedCgroup"]}},
            {"if": {"required": ["systemCgroups"]}, "then": {"required": ["cgroupRoot"]}},
            {  # validation.go: maxParallelImagePulls > 1 only with serializeImagePulls false (it defaults to true)
                "if": {"required": ["maxParallelImagePulls"], "properties": {"maxParallelImagePulls": {"minimum": 2}}},
                "then": {"required": ["serializeImagePulls"], "properties": {"serializeImagePulls": {"const": False}}},
            },
        ],
    }


def rendered_schemas() -> dict[str, dict[str, Any]]:
    return {"kubeletconfiguration.json": kubelet_configuration_schema()}
