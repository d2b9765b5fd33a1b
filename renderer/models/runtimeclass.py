"""RuntimeClass (node.k8s.io/v1) with pod overhead."""

from __future__ import annotations

from typing import Literal

from renderer.models.common import DNSLabel, NonNegativeQuantity, ObjectMeta, Strict, Toleration


class Overhead(Strict):
    podFixed: dict[str, NonNegativeQuantity] | None = None


class Scheduling(Strict):
    nodeSelector: dict[str, str] | None = None
    tolerations: list[Toleration] | None = None


class RuntimeClass(Strict):
    """The handler names the CRI runtime configuration; overhead is added to every pod's requests."""

    apiVersion: Literal["node.k8s.io/v1"]
    kind: Literal["RuntimeClass"]
    metadata: ObjectMeta
    handler: DNSLabel
    overhead: Overhead | None = None
    scheduling: Scheduling | None = None
