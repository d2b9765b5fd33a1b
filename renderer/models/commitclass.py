"""CommitClass (node.k8s.io/v1alpha1), the shape of the Kubernetes CommitClass proposal (schema:
``renderer.models.schema.commitclass``)."""

from __future__ import annotations

from typing import Literal

from pydantic_core import InitErrorDetails, PydanticCustomError, ValidationError

from renderer.models.common import NodeSelectorTerm, ObjectMeta
from renderer.models.record import Record

CommitResourceName = Literal["cpu", "memory", "ephemeral-storage"]
MAX_PERCENT = 10_000


class CommitResource(Record):
    name: CommitResourceName
    percent: int


def unique_resources(resources: list[CommitResource]) -> list[CommitResource]:
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


class CommitClassSpec(Record):
    selector: list[NodeSelectorTerm]
    resources: list[CommitResource]


class CommitClass(Record):
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
