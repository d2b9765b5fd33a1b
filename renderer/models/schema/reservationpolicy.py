"""pydantic schema of ReservationPolicy (the runtime records are ``renderer.models.reservationpolicy``)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field, WithJsonSchema

from renderer import platforms
from renderer.models import reservationpolicy as records
from renderer.models.reservationpolicy import (
    check_auto_sizing,
    check_custom,
    check_kubelet_field,
    check_kubelet_values,
    check_term,
    check_terms,
    check_tiers,
    to_bound,
    to_fraction,
)
from renderer.models.schema.common import (
    EvictionThresholds,
    NodeSelectorTerm,
    NonNegativeQuantity,
    ObjectMeta,
    ReservedMap,
    Strict,
)

FormulaName = Annotated[
    str,
    AfterValidator(platforms.check_formula_name),
    WithJsonSchema(
        {
            "type": "string",
            "enum": list(platforms.formula_names()),
            "description": "a built-in formula (docs/platforms.md; `allocatable sizing --formula F` computes one)",
        }
    ),
]
Fraction = Annotated[
    Decimal,
    BeforeValidator(to_fraction),
    WithJsonSchema({"type": "number", "minimum": 0, "maximum": 1, "description": "a share from 0 to 1 (6% is 0.06)"}),
]


def _terms(part: str) -> Any:
    """The models of one reserved map of a custom formula. Each map gets its own classes: the compiled validators
    (renderer.models.schema.compile) take no model that pydantic would share between two fields."""

    class CustomTier(Strict, records.CustomTier):
        """A bracket of the input: ``fraction`` of the part of it above the previous tier's upTo, up to this one's."""

        upTo: NonNegativeQuantity | None = Field(
            default=None, description="where the bracket ends (in the input's unit: cores or bytes); none: no bound"
        )
        fraction: Fraction = Field(description="the share of the input within the bracket that is reserved")

    class CustomFixed(Strict, records.CustomFixed):
        """Inputs of at most upTo reserve exactly value (the smallest machines)."""

        upTo: NonNegativeQuantity
        value: NonNegativeQuantity

    class CustomTerm(Strict, records.CustomTerm):
        """One resource of a custom formula (docs/formulas.md): input, fixed values, tiers, base, per pod, clamps,
        rounding."""

        of: Literal["cpu", "memory", "machineMemory", "ephemeralStorage"] | None = Field(
            default=None,
            description="the input: cpu (cores), memory (MemTotal), machineMemory (the size the machine type is sold "
            "as; default for memory), ephemeralStorage",
        )
        whole: NonNegativeQuantity | None = Field(
            default=None, description="truncate the input to a multiple of this first (1: whole CPUs; 1Gi: free -g)"
        )
        fixed: list[CustomFixed] | None = Field(  # type: ignore[assignment]  # the schema's own records
            default=None, description="exact values for small inputs, by upTo"
        )
        tiers: Annotated[list[CustomTier] | None, AfterValidator(check_tiers)] = Field(  # type: ignore[assignment]
            default=None, description="brackets of the input, sorted by upTo; the last may be unbounded"
        )
        eachTier: bool = Field(default=False, description="round every bracket on its own (EKS's integer millicores)")
        base: NonNegativeQuantity | None = Field(default=None, description="a fixed amount added")
        perPod: NonNegativeQuantity | None = Field(default=None, description="an amount per pod, times pods")
        pods: Literal["maxPods", "eniMaxPods"] = Field(
            default="maxPods",
            description="maxPods: the node's; eniMaxPods: the ENI-limited maxPods EKS computes before an override",
        )
        min: NonNegativeQuantity | None = Field(default=None, description="the least reserved")
        max: Annotated[str | None, BeforeValidator(to_bound)] = Field(
            default=None, description="the most reserved: a quantity, or a percentage of the input (25%)"
        )
        round: Literal["down", "up", "half-up"] = Field(default="down", description="how the result is rounded")
        to: NonNegativeQuantity | None = Field(
            default=None, description="rounding step: default 1m for cpu, 1Mi otherwise"
        )

    for cls in (CustomTier, CustomFixed, CustomTerm):
        cls.__name__ = cls.__qualname__ = f"{part}{cls.__name__}"
    return Annotated[
        dict[str, Annotated[CustomTerm, AfterValidator(check_term)]] | None,
        AfterValidator(check_terms),
        Field(default=None, description=f"{part} per resource (cpu, memory, ephemeral-storage)"),
    ]


SystemTerms = _terms("SystemReserved")
KubeTerms = _terms("KubeReserved")


class CustomFormula(Strict, records.CustomFormula):
    """A formula of the policy's own: terms per resource for systemReserved and/or kubeReserved."""

    systemReserved: SystemTerms = None  # type: ignore[valid-type]  # built per map (see _terms)
    kubeReserved: KubeTerms = None  # type: ignore[valid-type]


class AutoSizing(Strict, records.AutoSizing):
    formula: FormulaName | None = None
    custom: Annotated[CustomFormula | None, AfterValidator(check_custom)] = Field(
        default=None, description="a formula of the policy's own (docs/formulas.md), instead of a built-in formula"
    )
    fallback: ReservedMap = Field(
        default=None,
        description="OpenShift only: the SYSTEM_RESERVED_CPU/MEMORY/ES values of /etc/node-sizing-enabled.env "
        "(keys cpu, memory, ephemeral-storage). With auto sizing on, dynamic-system-reserved-calc.sh computes cpu and "
        "memory and ignores their values, but passes ephemeral-storage through as the real reservation (default "
        "1Gi); cpu and memory apply only where auto sizing is off (NODE_SIZING_ENABLED=false)",
    )


# Checked key by key, so that an error points at the offending key.
KubeletFieldName = Annotated[str, AfterValidator(check_kubelet_field)]


#: The JSON Schema of the same: a minimum reclaim is a string (map[string]string in types.go), neither negative nor a
#: percentage of zero.
_KUBELET_SCHEMA: dict[str, Any] = {
    "properties": {
        "evictionMinimumReclaim": {
            "type": "object",
            "additionalProperties": {
                "type": "string",
                "pattern": r"^(?!-)(?!\+?0*\.?0*%$)",
                "description": 'a quantity ("500Mi") or a percentage ("5%"); the kubelet refuses a negative one, '
                "and a percentage of zero",
            },
        }
    }
}


class ReservationPolicySpec(Strict, records.ReservationPolicySpec):
    selector: list[NodeSelectorTerm]  # type: ignore[assignment]  # the schema's own records
    systemReserved: ReservedMap = None
    kubeReserved: ReservedMap = None
    autoSizing: Annotated[AutoSizing | None, AfterValidator(check_auto_sizing)] = None
    evictionHard: EvictionThresholds = None
    evictionSoft: EvictionThresholds = None
    evictionSoftGracePeriod: dict[str, str] | None = None
    enforceNodeAllocatable: list[str] | None = None
    systemReservedCgroup: str | None = None
    kubeReservedCgroup: str | None = None
    reservedSystemCPUs: str | None = None
    cgroupDriver: Literal["systemd", "cgroupfs"] | None = None
    cgroupsPerQOS: bool | None = None
    maxPods: int | None = None
    podsPerCore: int | None = None
    podPidsLimit: int | None = None
    kubelet: Annotated[dict[KubeletFieldName, Any] | None, AfterValidator(check_kubelet_values)] = Field(
        default=None,
        description="other KubeletConfiguration v1beta1 fields, passed through to the rendered config",
        json_schema_extra=_KUBELET_SCHEMA,
    )


class ReservationPolicy(Strict, records.ReservationPolicy):
    """Reservations, eviction and enforcement for the nodes matched by spec.selector."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["ReservationPolicy"]
    metadata: ObjectMeta
    spec: ReservationPolicySpec
