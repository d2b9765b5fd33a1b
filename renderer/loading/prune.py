"""Keep-specs: which fields of a Kubernetes object a caller needs, and pruning a value to them.

A ``v1 List`` dump (``kubectl get nodes|pods -o yaml|json``) is mostly fields nothing here reads (``status.images``,
conditions, ``managedFields``): the readers (``renderer.loading.events`` for YAML, ``renderer.loading.jsonscan`` for
JSON) prune each item to its kind's keep-spec while they read it, and these functions prune a value already built the
same way, so every path gives the same values whatever the order of the fields.

Cost: O(kept fields) per value: the spec's keys are looked up, not the value's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Union

__all__ = ["NODE_FIELDS", "KeepSpec", "Prune", "prune_item", "prune_value"]

#: Fields to keep of one object: a key mapped to True keeps its whole value, to a KeepSpec keeps those sub-fields.
KeepSpec = Mapping[str, Union[bool, "KeepSpec"]]
#: Per (apiVersion, kind) of a List item, the fields to keep; items of other kinds are kept whole.
Prune = Mapping[tuple[str, str], KeepSpec]

#: What the model and ``verify`` need of a v1 Node; images, conditions, managedFields, addresses and volumes are
#: dropped while the item is read.
NODE_FIELDS: KeepSpec = {
    "apiVersion": True,
    "kind": True,
    "metadata": {"name": True, "labels": True, "annotations": True},
    "spec": {"providerID": True},  # platform detection (renderer/platforms/)
    "status": {"capacity": True, "allocatable": True, "nodeInfo": True},
}


def prune_value(value: Any, spec: KeepSpec) -> Any:
    """``value`` with only the fields ``spec`` keeps: a mapping's keys, each element of a list; anything else is
    returned as it is (the same as the YAML reader keeps while reading; a mapping's kept keys come in the spec's
    order). Cost: O(kept fields): the spec's keys are looked up, not the value's (a Pod's dozens of dropped fields
    are never visited)."""
    if value.__class__ is list:
        return [prune_value(v, spec) for v in value]
    if value.__class__ is not dict:
        return value
    out: dict[Any, Any] = {}
    for key, sub in spec.items():
        if key in value:
            if sub is True:
                out[key] = value[key]
            elif sub:
                out[key] = prune_value(value[key], sub)
    return out


def prune_item(item: Any, prune: Prune) -> Any:
    """A List item (or a single object) pruned as the YAML reader prunes it while reading: by the spec of its
    apiVersion and kind, for the fields after both (kubectl sorts keys, so every field but those two); fields
    before them, and apiVersion and kind themselves, are kept. Cost: O(top-level fields + kept fields)."""
    if not prune or item.__class__ is not dict:
        return item
    spec: KeepSpec | None = None
    out: dict[Any, Any] = {}
    for key, value in item.items():
        if spec is None and isinstance(key, str) and key not in ("apiVersion", "kind"):
            api, kind = out.get("apiVersion"), out.get("kind")
            if isinstance(api, str) and isinstance(kind, str):
                spec = prune.get((api, kind), {})
        if not spec or not isinstance(key, str):
            out[key] = value
            continue
        sub = spec.get(key)
        if sub is True:
            out[key] = value
        elif sub:
            out[key] = prune_value(value, sub)
    return out
