"""pydantic schema of the shared field types (the runtime records are ``renderer.models.common``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    PlainSerializer,
    PlainValidator,
    WithJsonSchema,
)

from renderer.models import common as records
from renderer.models.common import (
    DNS1123_LABEL_PATTERN,
    DNS1123_SUBDOMAIN_PATTERN,
    LABEL_VALUE_PATTERN,
    NON_NEGATIVE_QUANTITY_PATTERN,
    QUALIFIED_NAME_PATTERN,
    Operator,
    check_dns_label,
    check_dns_subdomain,
    check_eviction_thresholds,
    check_label_key,
    check_label_value,
    check_requirement,
    check_reserved,
    check_selector_value,
    to_non_negative_quantity,
    to_quantity,
)
from renderer.quantity import Quantity


class Strict(BaseModel):
    """Base for policy models: unknown fields are errors, no type coercion (YAML 1.1 surprises surface)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=True)


DNSSubdomain = Annotated[
    str,
    AfterValidator(check_dns_subdomain),
    WithJsonSchema({"type": "string", "maxLength": 253, "pattern": DNS1123_SUBDOMAIN_PATTERN}),
]
DNSLabel = Annotated[
    str,
    AfterValidator(check_dns_label),
    WithJsonSchema({"type": "string", "maxLength": 63, "pattern": DNS1123_LABEL_PATTERN}),
]
LabelKey = Annotated[
    str, AfterValidator(check_label_key), WithJsonSchema({"type": "string", "pattern": QUALIFIED_NAME_PATTERN})
]
LabelValue = Annotated[
    str,
    AfterValidator(check_label_value),
    WithJsonSchema({"type": "string", "maxLength": 63, "pattern": LABEL_VALUE_PATTERN}),
]
Labels = dict[LabelKey, LabelValue]

_NON_NEGATIVE_QUANTITY_SCHEMA: dict[str, Any] = {
    "anyOf": [{"type": "string", "pattern": NON_NEGATIVE_QUANTITY_PATTERN}, {"type": "number", "minimum": 0}],
    "description": "non-negative Kubernetes quantity",
}
NonNegativeQuantity = Annotated[
    Quantity,
    PlainValidator(to_non_negative_quantity),
    PlainSerializer(str, return_type=str),
    WithJsonSchema(_NON_NEGATIVE_QUANTITY_SCHEMA),
]
# A reservation map's value: validated as a quantity, the sign checked by the map (check_reserved), so the message
# names the key as the kubelet's does; the JSON Schema refuses the sign itself.
_ReservedValue = Annotated[
    Quantity,
    PlainValidator(to_quantity),
    PlainSerializer(str, return_type=str),
    WithJsonSchema(
        {
            **_NON_NEGATIVE_QUANTITY_SCHEMA,
            "description": "non-negative Kubernetes quantity (the kubelet refuses a negative reservation)",
        }
    ),
]
ReservedMap = Annotated[dict[str, _ReservedValue] | None, AfterValidator(check_reserved)]
_EvictionValue = Annotated[
    str,
    WithJsonSchema(
        {
            "type": "string",
            "pattern": r"^[^-]",
            "description": 'a quantity ("100Mi") or a percentage ("10%"); the kubelet refuses a negative one',
        }
    ),
]
EvictionThresholds = Annotated[dict[str, _EvictionValue] | None, AfterValidator(check_eviction_thresholds)]


SelectorValue = Annotated[
    str,
    AfterValidator(check_selector_value),
    WithJsonSchema({"type": "string", "maxLength": 63, "pattern": LABEL_VALUE_PATTERN}),
]


class NodeSelectorRequirement(Strict, records.NodeSelectorRequirement):
    key: LabelKey
    operator: Operator
    values: list[SelectorValue] | None = None


class FieldSelectorRequirement(Strict, records.FieldSelectorRequirement):
    key: Literal["metadata.name"]
    operator: Literal["In", "NotIn"]
    values: list[str] = Field(min_length=1, max_length=1)


class NodeSelectorTerm(Strict, records.NodeSelectorTerm):
    matchExpressions: list[Annotated[NodeSelectorRequirement, AfterValidator(check_requirement)]] | None = None  # type: ignore[assignment]  # the schema's own records
    matchFields: list[FieldSelectorRequirement] | None = None  # type: ignore[assignment]  # the schema's own records


class ObjectMeta(Strict, records.ObjectMeta):
    name: DNSSubdomain
    labels: Labels | None = None
    annotations: dict[str, str] | None = None


class Toleration(Strict, records.Toleration):
    key: str | None = None
    operator: Literal["Exists", "Equal"] | None = None
    value: str | None = None
    effect: Literal["NoSchedule", "PreferNoSchedule", "NoExecute"] | None = None
    tolerationSeconds: int | None = None
