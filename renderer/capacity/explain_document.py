"""``allocatable explain -o json``'s document, as data: every pool's figures, then the cluster totals. Quantities are
canonical Kubernetes strings; every mapping keyed by resources is in ``RESOURCES`` order (anything else after, by
name), every other mapping keeps its order. The formats that write it are ``renderer.reporters.explain``.

Each pool's document is made as it is read (:class:`PoolDocuments`) and each value the pools of a model share (their
equal maps and overhead figures are one object, ``renderer.capacity.pools.Shared``) is turned into JSON once per
report (:class:`Fragments`). Cost: O(size of the document); per pool one dict lookup per shared part, and the work of
its own parts (labels, names, a capacity of its own).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar, overload

from renderer.capacity.explain import RESOURCES, delivery, ordered, resource_key
from renderer.capacity.model import CapacityModel, OverheadFigures, PoolCapacity, Reserved
from renderer.quantity import Quantity

__all__ = ["Fragments", "PoolDocuments", "as_json", "pool_json", "reorder"]

_T = TypeVar("_T")
_RESOURCE_SET = frozenset(RESOURCES)


def reorder(value: Any) -> Any:
    """Resource-keyed mappings in ``RESOURCES`` order, recursively (other mappings keep their order). A copy: the
    mappings it is given may be shared. Cost: O(size); a call per container, none per leaf."""
    if isinstance(value, dict):
        items = {k: reorder(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
        return items if _RESOURCE_SET.isdisjoint(items) else ordered(items)
    if isinstance(value, list):
        return [reorder(v) if isinstance(v, (dict, list)) else v for v in value]
    return value


class Fragments:
    """The JSON fragments of one report's shared values, each made once, and the key orders of its mappings.

    A fragment is keyed by what it is, the id of the value (kept alive here with it) and ``extra`` (a pool's node
    count for cluster totals). It is handed to every pool that holds the value: read only. A key order is kept per
    tuple of keys as a mapping holds them (the pools' maps of one kind hold the same keys in the same order). Every
    mapping of a pool is put in resource order, which for keys that are no resource (labels, eviction signals) is by
    name: what sorting by key and then :func:`reorder` gives.
    Cost: one dict lookup per fragment per pool; at most ``LIMIT`` fragments and ``LIMIT`` orders are kept (then they
    are dropped and made again as needed): values of one pool alone do not pile up over 100,000 pools."""

    LIMIT = 4096
    __slots__ = ("_made", "_orders")

    def __init__(self) -> None:
        self._made: dict[tuple[str, int, object], tuple[object, Any]] = {}
        self._orders: dict[tuple[str, ...], tuple[str, ...]] = {}

    def part(self, kind: str, value: _T, make: Callable[[_T], Any], extra: object = None) -> Any:
        key = (kind, id(value), extra)
        got = self._made.get(key)
        if got is None or got[0] is not value:
            if len(self._made) >= self.LIMIT:
                self._made.clear()
            got = self._made[key] = (value, make(value))
        return got[1]

    def by_resource(self, keys: tuple[str, ...]) -> tuple[str, ...]:
        """``keys`` in resource order (``resource_key``)."""
        got = self._orders.get(keys)
        if got is None:
            if len(self._orders) >= self.LIMIT:
                self._orders.clear()
            got = self._orders[keys] = tuple(sorted(keys, key=resource_key))
        return got

    # The makers of the fragments: each gives the finished JSON value of one shared value.

    def texts(self, d: dict[str, Quantity]) -> dict[str, str]:
        return {k: d[k].canonical() for k in self.by_resource(tuple(d))}

    def reserved_texts(self, d: dict[str, Reserved]) -> dict[str, str]:
        return {k: d[k].quantity.canonical() for k in self.by_resource(tuple(d))}

    def sources(self, d: dict[str, Reserved]) -> dict[str, str]:
        return {k: d[k].source for k in self.by_resource(tuple(d))}

    def by_resource_map(self, d: dict[str, _T]) -> dict[str, _T]:
        return {k: d[k] for k in self.by_resource(tuple(d))}

    def totals(self, d: dict[str, Quantity], count: int) -> dict[str, str]:
        """``d`` on ``count`` nodes: the resources and pods of ``d``, each times ``count`` (a node's own texts when
        ``count`` is 1)."""
        keys = [k for k in self.by_resource(tuple(d)) if k in _RESOURCE_SET]
        if count == 1:
            return {k: d[k].canonical() for k in keys}
        return {k: d[k].canonical_times(count) for k in keys}

    def overhead(self, o: OverheadFigures) -> dict[str, Any]:
        return {
            "name": o.runtime_class.name,
            "handler": o.runtime_class.model.handler,
            "podFixed": self.texts(o.pod_fixed),
            "podsFitByOverhead": self.by_resource_map(o.pods_fit),
            "podsFit": o.limiting_pods,
            "maxPodsOverhead": self.texts(o.max_pods_overhead),
            "maxPodsOverheadPercent": {
                k: (None if (share := o.max_pods_share[k]) is None else f"{share:.2f}")
                for k in self.by_resource(tuple(o.max_pods_share))
            },
        }


def pool_json(model: CapacityModel, pc: PoolCapacity, fragments: Fragments | None = None) -> dict[str, Any]:
    """One pool of ``as_json``'s ``pools``. ``fragments``: shared by the pools of one report."""
    f = fragments if fragments is not None else Fragments()
    part = f.part
    pool = pc.pool
    count = pool.count
    labels = pool.labels
    return {
        "name": pool.name,
        "origin": pool.origin,
        "count": count,
        "platform": pool.platform,
        "labels": {k: labels[k] for k in f.by_resource(tuple(labels))},
        "commitClasses": [c.name for c in pc.commit_classes],
        "percent": part("percent", pc.percent, f.by_resource_map),
        "commitRule": part("commitRule", pc.commit_rule, f.by_resource_map),
        "reservationPolicies": [p.name for p in pc.reservation_policies],
        "formula": pc.formula.formula if pc.formula else None,
        "platformDefault": pc.platform_default.name if pc.platform_default else None,
        "capacity": part("q", pc.capacity, f.texts),
        "systemReserved": part("r", pc.system_reserved, f.reserved_texts),
        "kubeReserved": part("r", pc.kube_reserved, f.reserved_texts),
        "reservedSources": {
            "systemReserved": part("sources", pc.system_reserved, f.sources),
            "kubeReserved": part("sources", pc.kube_reserved, f.sources),
        },
        "evictionHard": part("eviction", pc.eviction_hard, f.by_resource_map),
        "evictionHardSource": pc.eviction_source,
        "evictionReserved": part("q", pc.eviction_reserved, f.texts),
        "maxPods": pc.max_pods,
        "allocatable": part("q", pc.allocatable, f.texts),
        "committedAllocatable": part("q", pc.committed, f.texts),
        "clusterTotals": {
            "nodes": count,
            "capacity": part("times", pc.capacity, lambda d: f.totals(d, count), count),
            "allocatable": part("times", pc.allocatable, lambda d: f.totals(d, count), count),
            "committedAllocatable": part("times", pc.committed, lambda d: f.totals(d, count), count),
        },
        "runtimeClasses": [part("overhead", o, f.overhead) for o in pc.overhead],
        "notes": list(pc.notes),
        # no resource among its keys: nothing to order
        "delivery": delivery(pc, model.policies.settings.render.karpenter.expressions),
    }


class PoolDocuments(Sequence[dict[str, Any]]):
    """``as_json``'s ``pools``: each pool's mapping made when it is read and not kept, so a writer that goes through
    them one by one holds one pool's document at a time (100,000 pools: 0.3 GB of JSON text) instead of all."""

    def __init__(self, model: CapacityModel, pools: list[PoolCapacity]) -> None:
        self._model = model
        self._pools = pools
        self._fragments = Fragments()

    def __len__(self) -> int:
        return len(self._pools)

    @overload
    def __getitem__(self, i: int) -> dict[str, Any]: ...

    @overload
    def __getitem__(self, i: slice) -> list[dict[str, Any]]: ...

    def __getitem__(self, i: int | slice) -> dict[str, Any] | list[dict[str, Any]]:
        if isinstance(i, slice):
            return [pool_json(self._model, pc, self._fragments) for pc in self._pools[i]]
        return pool_json(self._model, self._pools[i], self._fragments)


def as_json(model: CapacityModel, pools: list[PoolCapacity]) -> dict[str, Any]:
    """The document: ``pools`` is a :class:`PoolDocuments` (a sequence made as it is read; ``list()`` it for a
    list)."""
    return {
        "version": 1,
        "underCommitScalesReserved": model.under_commit_scales_reserved,
        "pools": PoolDocuments(model, pools),
        "totals": reorder(model.totals(pools)),
    }
