"""ReservationPolicy (policy.allocatable.dev/v1alpha1): kubelet reservations and eviction for selected nodes."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field

from renderer.models.common import NodeSelectorTerm, ObjectMeta, QuantityValue, Strict
from renderer.models.kubelet_fields import kubelet_field_problem

FormulaName = Literal["openshift", "openshift-4.20", "gke", "aks", "aks-legacy", "eks"]


class AutoSizing(Strict):
    formula: FormulaName
    fallback: dict[str, QuantityValue] | None = Field(
        default=None,
        description="OpenShift only: the SYSTEM_RESERVED_CPU/MEMORY/ES values of /etc/node-sizing-enabled.env "
        "(keys cpu, memory, ephemeral-storage). With auto sizing on, dynamic-system-reserved-calc.sh computes cpu and "
        "memory and ignores their values, but passes ephemeral-storage through as the real reservation (default "
        "1Gi); cpu and memory apply only where auto sizing is off (NODE_SIZING_ENABLED=false)",
    )


def _check_kubelet_field(name: str) -> str:
    problem = kubelet_field_problem(name)
    if problem:
        raise ValueError(problem)
    return name


# Checked key by key, so that an error points at the offending key.
KubeletFieldName = Annotated[str, AfterValidator(_check_kubelet_field)]


class ReservationPolicySpec(Strict):
    selector: list[NodeSelectorTerm]
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


class ReservationPolicy(Strict):
    """Reservations, eviction and enforcement for the nodes matched by spec.selector."""

    apiVersion: Literal["policy.allocatable.dev/v1alpha1"]
    kind: Literal["ReservationPolicy"]
    metadata: ObjectMeta
    spec: ReservationPolicySpec
