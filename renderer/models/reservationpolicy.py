"""ReservationPolicy (policy.allocatable.dev/v1alpha1): kubelet reservations and eviction for selected nodes (schema:
``renderer.models.schema.reservationpolicy``)."""

from __future__ import annotations

from typing import Any, Literal

from renderer.models.common import NodeSelectorTerm, ObjectMeta
from renderer.models.kubelet_fields import kubelet_field_problem
from renderer.models.record import Record
from renderer.quantity import Quantity

FormulaName = Literal["openshift", "openshift-4.20", "gke", "aks", "aks-legacy", "eks"]


class AutoSizing(Record):
    formula: FormulaName
    fallback: dict[str, Quantity] | None


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
