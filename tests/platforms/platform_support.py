"""Pools and settings for the platform tests, built the way the loader builds them (no files, no CLI)."""

from __future__ import annotations

from typing import Any, cast

from renderer import platforms
from renderer.capacity.model import PoolCapacity
from renderer.capacity.pools import pool_capacity
from renderer.findings import SourceRef
from renderer.models.inventory import Pool, pool_from_node
from renderer.models.node import Node
from renderer.models.settings import Settings
from renderer.platforms import Default
from renderer.quantity import Quantity
from renderer.validation.validate import validated


def settings(**fields: Any) -> Settings:
    return cast(Settings, validated("Settings", fields))


def node(
    name: str = "n1",
    *,
    labels: dict[str, str] | None = None,
    capacity: dict[str, str] | None = None,
    allocatable: dict[str, str] | None = None,
    provider_id: str = "",
    **node_info: str,
) -> Pool:
    """A Node as ``kubectl get nodes`` gives it, as a pool of one."""
    capacity = capacity or {"cpu": "4", "memory": "16Gi", "ephemeral-storage": "100Gi", "pods": "110"}
    data = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels or {}},
        "spec": {"providerID": provider_id} if provider_id else {},
        "status": {"capacity": capacity, "allocatable": allocatable or capacity, "nodeInfo": node_info},
    }
    return pool_from_node(cast(Node, validated("Node", data)), SourceRef("nodes.yaml"))


def default(pool: Pool, s: Settings | None = None) -> Default | None:
    return platforms.default_for(pool, s or settings())


def model(pool: Pool, s: Settings | None = None, *, default: Default | None = None) -> PoolCapacity:
    """The capacity model of one pool that no policy selects."""
    return pool_capacity(pool, [], [], [], True, s or settings(), default=default)


def reserved(pc: PoolCapacity, part: str = "all") -> dict[str, Quantity]:
    """systemReserved + kubeReserved per resource (or one map)."""
    out: dict[str, Quantity] = {}
    maps = {"systemReserved": pc.system_reserved, "kubeReserved": pc.kube_reserved}
    for name, m in maps.items():
        if part not in ("all", name):
            continue
        for k, r in m.items():
            out[k] = out[k] + r.quantity if k in out else r.quantity
    return out


Q = Quantity.parse
