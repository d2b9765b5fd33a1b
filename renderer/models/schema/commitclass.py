"""pydantic schema of CommitClass (the runtime records are ``renderer.models.commitclass``)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from renderer.models import commitclass as records
from renderer.models.commitclass import MAX_PERCENT, CommitResourceName, unique_resources
from renderer.models.schema.common import NodeSelectorTerm, ObjectMeta, Strict


class CommitResource(Strict, records.CommitResource):
    name: CommitResourceName
    percent: int = Field(gt=0, le=MAX_PERCENT, description="share of the node's capacity to advertise; 100 = unchanged")


class CommitClassSpec(Strict, records.CommitClassSpec):
    selector: list[NodeSelectorTerm] = Field(description="node selector terms (ORed); expressions in a term are ANDed")  # type: ignore[assignment]  # the schema's own records
    resources: Annotated[list[CommitResource], AfterValidator(unique_resources)] = Field(default_factory=list)  # type: ignore[assignment]  # the schema's own records


class CommitClass(Strict, records.CommitClass):
    """Nodes matched by spec.selector advertise `percent` of their capacity per resource."""

    apiVersion: Literal["node.k8s.io/v1alpha1"]
    kind: Literal["CommitClass"]
    metadata: ObjectMeta
    spec: CommitClassSpec
