"""RuntimeClass (node.k8s.io/v1) with pod overhead (schema: ``renderer.models.schema.runtimeclass``)."""

from __future__ import annotations

from typing import Literal

from renderer.models.common import ObjectMeta, Toleration
from renderer.models.record import Record
from renderer.quantity import Quantity


class Overhead(Record):
    podFixed: dict[str, Quantity] | None


class Scheduling(Record):
    nodeSelector: dict[str, str] | None
    tolerations: list[Toleration] | None


class RuntimeClass(Record):
    """The handler names the CRI runtime configuration; overhead is added to every pod's requests."""

    apiVersion: Literal["node.k8s.io/v1"]
    kind: Literal["RuntimeClass"]
    metadata: ObjectMeta
    handler: str
    overhead: Overhead | None
    scheduling: Scheduling | None
