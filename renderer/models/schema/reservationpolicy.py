"""pydantic schema of ReservationPolicy (the runtime records are ``renderer.models.reservationpolicy``)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from renderer.models import reservationpolicy as records
from renderer.models.reservationpolicy import FormulaName, check_kubelet_field
from renderer.models.schema.common import NodeSelectorTerm, ObjectMeta, QuantityValue, Strict


class AutoSizing(Strict, records.AutoSizing):
    formula: FormulaName
    fallback: dict[str, QuantityValue] | None = Field(
        default=None,
        description="OpenShift only: the SYSTEM_RESERVED_CPU/MEMORY/ES values of /etc/node-sizing-enabled.env "
        "(keys cpu, memory, ephemeral-storage). With auto sizing on, dynamic-system-reserved-calc.sh computes cpu and "
        "memory and ignores their values, but passes ephemeral-storage through as the real reservation (default "
        "1Gi); cpu and memory apply only where auto sizing is off (NODE_SIZING_ENABLED=false)",
    )


# Checked key by key, so that an error points at the offending key.
KubeletFieldName = Annotated[str, AfterValidator(check_kubelet_field)]


class ReservationPolicySpec(Strict, records.ReservationPolicySpec):
    selector: list[NodeSelectorTerm]  # type: ignore[assignment]  # the schema's own records
    systemReserved: dict[str, QuantityValue] | None = None
    kubeReserved: dict[str, QuantityValue] | None = None
    autoSizing: AutoSizing | None = None
    evictionHard: dict[str, str] | None = None
    evictionSoft: dict[str, str] | None = None
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
    kubelet: dict[KubeletFieldName, Any] | None = Field(
        default=None, description="other KubeletConfiguration v1beta1 fields, passed through to the rendered config"
    )


class ReservationPolicy(Strict, records.ReservationPolicy):
    """Reservations, eviction and enforcement for the nodes matched by spec.selector."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["ReservationPolicy"]
    metadata: ObjectMeta
    spec: ReservationPolicySpec
