"""pydantic schema of RuntimeClass (the runtime records are ``renderer.models.runtimeclass``)."""

from __future__ import annotations

from typing import Literal

from renderer.models import runtimeclass as records
from renderer.models.schema.common import DNSLabel, NonNegativeQuantity, ObjectMeta, Strict, Toleration


class Overhead(Strict, records.Overhead):
    podFixed: dict[str, NonNegativeQuantity] | None = None


class Scheduling(Strict, records.Scheduling):
    nodeSelector: dict[str, str] | None = None
    tolerations: list[Toleration] | None = None  # type: ignore[assignment]  # the schema's own records


class RuntimeClass(Strict, records.RuntimeClass):
    """The handler names the CRI runtime configuration; overhead is added to every pod's requests."""

    apiVersion: Literal["node.k8s.io/v1"]
    kind: Literal["RuntimeClass"]
    metadata: ObjectMeta
    handler: DNSLabel
    overhead: Overhead | None = None
    scheduling: Scheduling | None = None
