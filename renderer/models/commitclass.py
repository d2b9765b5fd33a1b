"""CommitClass (node.k8s.io/v1alpha1), the shape of the Kubernetes CommitClass proposal."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field, ValidationError
from pydantic_core import InitErrorDetails, PydanticCustomError

from renderer.models.common import NodeSelectorTerm, ObjectMeta, Strict

CommitResourceName = Literal["cpu", "memory", "ephemeral-storage"]
MAX_PERCENT = 10_000


class CommitResource(Strict):
    name: CommitResourceName
    percent: int = Field(gt=0, le=MAX_PERCENT, description="share of the node's capacity to advertise; 100 = unchanged")


def _unique_resources(resources: list[CommitResource]) -> list[CommitResource]:
    seen: dict[str, int] = {}
    for i, r in enumerate(resources):
        if r.name in seen:
            # Reported at the second entry's name (a ValueError would point at the whole list).
            message = f'resource "{r.name}" is listed more than once (also entry {seen[r.name] + 1}); keep one entry'
            error = PydanticCustomError("value_error", message)
            raise ValidationError.from_exception_data(
                "CommitClass", [InitErrorDetails(type=error, loc=(i, "name"), input=r.name)]
            )
        seen[r.name] = i
    return resources


class CommitClassSpec(Strict):
    selector: list[NodeSelectorTerm] = Field(description="node selector terms (ORed); expressions in a term are ANDed")
    resources: Annotated[list[CommitResource], AfterValidator(_unique_resources)] = Field(default_factory=list)


class CommitClass(Strict):
    """Nodes matched by spec.selector advertise `percent` of their capacity per resource."""

    apiVersion: Literal["node.k8s.io/v1alpha1"]
    kind: Literal["CommitClass"]
    metadata: ObjectMeta
    spec: CommitClassSpec

    def percents(self) -> dict[str, int]:
        """Percent per resource; unspecified resources are 100."""
        out = {"cpu": 100, "memory": 100, "ephemeral-storage": 100}
        for r in self.spec.resources:
            out[r.name] = r.percent
        return out
