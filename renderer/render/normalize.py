"""Normalised Kubernetes data from policy objects: canonical quantities, sorted maps, no empty or unset fields."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderer.models.record import as_dict
from renderer.render.target import MANAGED_BY

if TYPE_CHECKING:
    from renderer.models.common import NodeSelectorTerm, ObjectMeta, Toleration
    from renderer.quantity import Quantity

# Annotations that steer this tool (lint suppressions) and mean nothing to a cluster.
TOOL_ANNOTATION_PREFIX = "allocatable.dev/"


def metadata(meta: ObjectMeta) -> dict[str, Any]:
    out: dict[str, Any] = {"name": meta.name}
    labels = {**MANAGED_BY, **(meta.labels or {})}
    out["labels"] = dict(sorted(labels.items()))
    annotations = {k: v for k, v in (meta.annotations or {}).items() if not k.startswith(TOOL_ANNOTATION_PREFIX)}
    if annotations:
        out["annotations"] = dict(sorted(annotations.items()))
    return out


def quantities(values: dict[str, Quantity]) -> dict[str, str]:
    return {k: str(values[k]) for k in sorted(values)}


def selector_terms(terms: list[NodeSelectorTerm]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for term in terms:
        t: dict[str, Any] = {}
        if term.matchExpressions:
            t["matchExpressions"] = [
                {"key": e.key, "operator": e.operator, **({"values": list(e.values)} if e.values else {})}
                for e in term.matchExpressions
            ]
        if term.matchFields:
            t["matchFields"] = [
                {"key": f.key, "operator": f.operator, "values": list(f.values)} for f in term.matchFields
            ]
        out.append(t)
    return out


def tolerations(items: list[Toleration]) -> list[dict[str, Any]]:
    out = []
    for tol in items:
        out.append({k: v for k, v in as_dict(tol).items() if v is not None})
    return out
