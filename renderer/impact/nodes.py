"""A node as the simulation keeps it: name, pool, labels, taints, cordon and allocatable (scheduler integers).

``pool`` is whatever groups nodes of one shape for the reader (a node group, a Karpenter NodePool, the project's
pool): the caller decides; :func:`node_from_object` takes it from a label when told which.

Cost: O(labels + taints + resources) per node.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from renderer.impact.resources import from_quantities
from renderer.impact.taints import Taint, parse_taints
from renderer.loading.prune import KeepSpec
from renderer.quantity import Quantity, QuantityError

__all__ = ["IMPACT_NODE_KEEP", "NodeError", "SimNode", "node_from_object"]

SCALE_DOWN_DISABLED_ANNOTATION: Final = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
#: The fields of a Node the simulation reads.
IMPACT_NODE_KEEP: Final[KeepSpec] = {
    "apiVersion": True,
    "kind": True,
    "metadata": {"name": True, "labels": True, "annotations": {SCALE_DOWN_DISABLED_ANNOTATION: True}},
    "spec": {"taints": True, "unschedulable": True},
    "status": {"capacity": True, "allocatable": True},
}


class NodeError(ValueError):
    """A field of a node that cannot be read: the message names it, ``field_path`` leads to it."""

    def __init__(self, field_path: tuple[str | int, ...], message: str) -> None:
        super().__init__(f"{'.'.join(str(p) for p in field_path)}: {message}")
        self.field_path = field_path


@dataclass(eq=False, slots=True)
class SimNode:
    name: str
    pool: str
    labels: Mapping[str, str]
    allocatable: dict[str, int]
    taints: tuple[Taint, ...] = ()
    unschedulable: bool = False
    capacity: dict[str, int] = field(default_factory=dict)
    scale_down_disabled: bool = False


def _quantities(raw: Any, where: tuple[str | int, ...]) -> dict[str, int]:
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise NodeError(where, "must be a mapping of resource names to quantities")
    parsed: dict[str, Quantity] = {}
    for name, value in raw.items():
        try:
            parsed[str(name)] = Quantity.parse(str(value))
        except QuantityError as exc:
            raise NodeError((*where, str(name)), str(exc)) from None
    return from_quantities(parsed, keep_zero=True)


def node_from_object(
    data: Mapping[str, Any], pool_labels: Sequence[str] = (), labels: Mapping[str, str] | None = None
) -> SimNode:
    """A pruned Node object (``IMPACT_NODE_KEEP``) → its :class:`SimNode`; the pool is the value of the first of
    ``pool_labels`` the node carries, else its instance type, else ``"(none)"``. ``labels``: the node's labels
    already read (a caller that keeps them elsewhere shares one mapping instead of two)."""
    meta = data.get("metadata") or {}
    spec = data.get("spec") or {}
    status = data.get("status") or {}
    for key, value in (("metadata", meta), ("spec", spec), ("status", status)):
        if not isinstance(value, dict):
            raise NodeError((key,), "must be a mapping")
    if labels is None:
        raw_labels = meta.get("labels") or {}
        if not isinstance(raw_labels, dict):
            raise NodeError(("metadata", "labels"), "must be a mapping")
        labels = {str(k): "" if v is None else str(v) for k, v in raw_labels.items()}
    pool = next((labels[k] for k in pool_labels if k in labels), None)
    if pool is None:
        pool = labels.get("node.kubernetes.io/instance-type") or "(none)"
    annotations = meta.get("annotations") or {}
    disabled = isinstance(annotations, dict) and str(annotations.get(SCALE_DOWN_DISABLED_ANNOTATION, "")) == "true"
    return SimNode(
        name=str(meta.get("name") or ""),
        pool=pool,
        labels=labels,
        allocatable=_quantities(status.get("allocatable"), ("status", "allocatable")),
        taints=parse_taints(spec.get("taints")),
        unschedulable=spec.get("unschedulable") is True,
        capacity=_quantities(status.get("capacity"), ("status", "capacity")),
        scale_down_disabled=disabled,
    )
