"""pydantic schema of a v1 Node (the runtime records are ``renderer.models.node``): only the fields the tool uses."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from renderer.models import node as records
from renderer.models.schema.common import DNSSubdomain, Labels, NonNegativeQuantity


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


class NodeMeta(_Lenient, records.NodeMeta):
    name: DNSSubdomain
    labels: Labels = Field(default_factory=dict)
    annotations: dict[str, str] = Field(default_factory=dict)


class NodeInfo(_Lenient, records.NodeInfo):
    kubeletVersion: str = ""
    osImage: str = ""
    kernelVersion: str = ""
    containerRuntimeVersion: str = ""
    operatingSystem: str = ""
    architecture: str = ""


class NodeSpec(_Lenient, records.NodeSpec):
    providerID: str = ""


class NodeStatus(_Lenient, records.NodeStatus):
    capacity: dict[str, NonNegativeQuantity] = Field(default_factory=dict)
    allocatable: dict[str, NonNegativeQuantity] = Field(default_factory=dict)
    nodeInfo: NodeInfo = Field(default_factory=NodeInfo)


class Node(_Lenient, records.Node):
    """A v1 Node as the API server returns it."""

    apiVersion: Literal["v1"]
    kind: Literal["Node"]
    metadata: NodeMeta
    spec: NodeSpec = Field(default_factory=NodeSpec)
    status: NodeStatus = Field(default_factory=NodeStatus)
