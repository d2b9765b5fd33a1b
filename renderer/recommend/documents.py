"""The ReservationPolicy and CommitClass documents that carry the advice: complete, to write over the repo's files.

A policy that selects advised pools is rewritten under its own name, with the largest recommendation among the
pools it selects (a reservation) or the smallest (a commit percent) — and only when every pool it selects was
advised: rewriting it for one pool would move the others without evidence. A pool no policy selects gets a new one,
named ``<pool>-measured``, selecting the pool's labels (a NodePool's ``spec.labels``, a Node's hostname), carrying
what the pool has today for everything the advice does not change (eviction thresholds, ephemeral-storage).

A rewritten ReservationPolicy states cpu and memory explicitly; ``autoSizing`` gives way to them, or becomes the
fitted ``autoSizing.custom`` memory formula (``kubeReserved.memory: {perPod, base}``) when the slope is used on
every pool it selects; a value the dropped formula gave (ephemeral-storage) is written explicitly, as the model has
it. Documents are plain JSON values: the reporters write them (``-o yaml`` as YAML documents).

Cost: O(pools × policies).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from renderer.models.record import Record
from renderer.quantity import Quantity
from renderer.recommend.advice import MI, PoolAdvice

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel, PoolCapacity

__all__ = ["cpu_text", "documents", "memory_text", "plain"]


def plain(value: Any) -> Any:
    """A record (and what it holds) as JSON values: unset fields left out, quantities as their text."""
    if isinstance(value, Record):
        return {k: plain(v) for k, v in vars(value).items() if v is not None}
    if isinstance(value, Quantity):
        return str(value)
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else str(value)
    return value


def memory_text(value: float) -> str:
    """Bytes as a Kubernetes quantity in Mi (whole mebibytes: every recommendation is rounded up to one)."""
    mi = round(value / MI)
    return f"{mi}Mi" if mi * MI == int(value) else str(int(value))


def cpu_text(cores: float) -> str:
    return f"{round(cores * 1000)}m"


def _text(resource: str, value: float) -> str:
    return memory_text(value) if resource == "memory" else cpu_text(value)


def _selector(pc: PoolCapacity) -> list[dict[str, Any]]:
    labels = pc.pool.labels
    if pc.pool.origin == "Node" and "kubernetes.io/hostname" in labels:
        labels = {"kubernetes.io/hostname": labels["kubernetes.io/hostname"]}
    return [{"matchExpressions": [{"key": k, "operator": "In", "values": [v]} for k, v in sorted(labels.items())]}]


def documents(
    model: CapacityModel, advised: list[PoolAdvice]
) -> tuple[list[dict[str, Any]], list[tuple[str, str]], list[str]]:
    """The documents, what each replaces (ref, file; "" for a new one), and notes on what was not written."""
    by_pool = {a.pool: a for a in advised}
    docs: list[dict[str, Any]] = []
    replaces: list[tuple[str, str]] = []
    notes: list[str] = []
    reservation_groups: dict[str, tuple[Any, list[PoolCapacity]]] = {}
    commit_groups: dict[str, tuple[Any, list[PoolCapacity]]] = {}
    for pc in model.pools:
        for rp in pc.reservation_policies:
            reservation_groups.setdefault(rp.name, (rp, []))[1].append(pc)
        for cc in pc.commit_classes:
            commit_groups.setdefault(cc.name, (cc, []))[1].append(pc)
    for pc in model.pools:
        a = by_pool.get(pc.pool.name)
        if a is None:
            continue
        if len(pc.reservation_policies) > 1 or len(pc.commit_classes) > 1:
            notes.append(f"pool {a.pool} is selected by more than one policy of a kind: no document written for it")
            continue
        if a.reservations and not pc.reservation_policies:
            docs.append(_reservation_doc(f"{a.pool}-measured", None, [pc], [a], _selector(pc)))
            replaces.append((f"ReservationPolicy/{a.pool}-measured", ""))
        if a.commits and not pc.commit_classes and any(c.recommended != 100 for c in a.commits):
            docs.append(_commit_doc(f"{a.pool}-measured", None, [a], _selector(pc)))
            replaces.append((f"CommitClass/{a.pool}-measured", ""))
    for name in sorted(reservation_groups):
        loaded, pcs = reservation_groups[name]
        group = [by_pool.get(pc.pool.name) for pc in pcs]
        if not any(g is not None and g.reservations for g in group):
            continue
        lacking = [pc.pool.name for pc, g in zip(pcs, group, strict=True) if g is None or not g.reservations]
        if lacking:
            notes.append(
                f"ReservationPolicy {name} also selects {', '.join(lacking)}, with no advice: not rewritten (advise "
                "every pool it selects, or give those pools a policy of their own)"
            )
            continue
        docs.append(_reservation_doc(name, loaded.model, pcs, [g for g in group if g is not None], None))
        replaces.append((f"ReservationPolicy/{name}", loaded.source.path))
    for name in sorted(commit_groups):
        loaded, pcs = commit_groups[name]
        group = [by_pool.get(pc.pool.name) for pc in pcs]
        if not any(g is not None and g.commits for g in group):
            continue
        lacking = [pc.pool.name for pc, g in zip(pcs, group, strict=True) if g is None or not g.commits]
        if lacking:
            notes.append(f"CommitClass {name} also selects {', '.join(lacking)}, with no advice: not rewritten")
            continue
        docs.append(_commit_doc(name, loaded.model, [g for g in group if g is not None], None))
        replaces.append((f"CommitClass/{name}", loaded.source.path))
    return docs, replaces, notes


def _reservation_doc(
    name: str, record: Any, pcs: list[PoolCapacity], advice: list[PoolAdvice], selector: list[dict[str, Any]] | None
) -> dict[str, Any]:
    if record is not None:
        doc: dict[str, Any] = plain(record)
        spec = doc["spec"]
    else:
        spec = {"selector": selector}
        doc = {
            "apiVersion": "policy.allocatable.dev/v1alpha1",
            "kind": "ReservationPolicy",
            "metadata": {"name": name},
            "spec": spec,
        }
        eviction = pcs[0].eviction_hard
        if eviction:
            spec["evictionHard"] = dict(eviction)
    best: dict[tuple[str, str], float] = {}
    for a in advice:
        for r in a.reservations:
            if r.slice != "total":
                best[(r.slice, r.resource)] = max(best.get((r.slice, r.resource), 0.0), r.recommended)
    slopes = [a.slope for a in advice]
    use_slope = all(s is not None and s.used for s in slopes)
    had_formula = "autoSizing" in spec
    spec.pop("autoSizing", None)
    for key, slice_ in (("systemReserved", "system"), ("kubeReserved", "kube")):
        values = dict(spec.get(key) or {})
        if had_formula or record is None:  # what the formula (or the platform default) gave, now written out
            storage = [
                (pc.system_reserved if slice_ == "system" else pc.kube_reserved).get("ephemeral-storage") for pc in pcs
            ]
            if "ephemeral-storage" not in values and storage and all(s is not None for s in storage):
                values["ephemeral-storage"] = str(max(s.quantity for s in storage if s is not None))
        for resource in ("cpu", "memory"):
            if (slice_, resource) in best:
                values[resource] = _text(resource, best[(slice_, resource)])
            elif (had_formula or record is None) and resource not in values:
                # not measured: what the pools have today (the dropped formula's, or the platform default's)
                kept = [(pc.system_reserved if slice_ == "system" else pc.kube_reserved).get(resource) for pc in pcs]
                if kept and all(k is not None for k in kept):
                    values[resource] = str(max(k.quantity for k in kept if k is not None))
        if use_slope and slice_ == "kube":
            values.pop("memory", None)
        spec[key] = {k: values[k] for k in sorted(values)}
    if use_slope:
        per_pod = max(s.per_pod_recommended for s in slopes if s is not None)
        base = max(s.base_recommended for s in slopes if s is not None)
        spec["autoSizing"] = {
            "custom": {
                "kubeReserved": {"memory": {"perPod": f"{per_pod // 1024}Ki", "base": memory_text(base), "round": "up"}}
            }
        }
    return doc


def _commit_doc(
    name: str, record: Any, advice: list[PoolAdvice], selector: list[dict[str, Any]] | None
) -> dict[str, Any]:
    if record is not None:
        doc: dict[str, Any] = plain(record)
    else:
        doc = {
            "apiVersion": "node.k8s.io/v1alpha1",
            "kind": "CommitClass",
            "metadata": {"name": name},
            "spec": {"selector": selector, "resources": []},
        }
    percents: dict[str, int] = {}
    for a in advice:
        for c in a.commits:
            if c.recommended is not None:
                percents[c.resource] = min(percents.get(c.resource, c.recommended), c.recommended)
    had = {r["name"] for r in doc["spec"]["resources"]}
    resources = [r for r in doc["spec"]["resources"] if r["name"] not in percents]
    resources.extend({"name": r, "percent": p} for r, p in percents.items() if p != 100 or r in had)
    order = {"cpu": 0, "memory": 1}
    doc["spec"]["resources"] = sorted(resources, key=lambda r: (order.get(r["name"], 2), r["name"]))
    return doc
