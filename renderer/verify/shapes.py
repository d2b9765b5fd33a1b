"""The capacity model of many Nodes, computed once per node shape.

verify models every Node as a pool of one. The nodes of one node group carry the same labels (but their hostname),
capacity, platform, kubelet version and OS image, and the same policies select them, so the arithmetic of
``renderer.capacity.model.pool_capacity`` gives them the same figures. :func:`node_capacity_model` computes it for
the first node of each shape and gives every other node of that shape a copy holding its own ``Pool`` (name, source,
reported allocatable) and its own empty ``memo``; the figures are shared objects, as ``build`` already shares equal
values between pools (they are read only).

Measured (bench/serve.py, 2026-12-06, docs/performance.md "serve"): the capacity model was about 38 % of a
2,000-node serve cycle, one ``pool_capacity`` per node; per shape it is a few dozen calls for the bench fleet.

What a shape is: every field of the Pool the model reads, and the policies matched to it (by identity, so a policy
that selects one node by name or hostname makes that node its own shape). Left out are only what no capacity
arithmetic reads: the name, the source, the reported allocatable, the detection evidence, the providerID and
``Pool.resources`` (every resource name of ``status.capacity``, attachable-volumes-* included; both read only by
platform detection, which ran when the Node was read, and by verify's identity ranking, which reads each node's own
Pool), the ``kubernetes.io/hostname`` label and the per-machine ids of ``status.nodeInfo`` (machineID, systemUUID,
bootID). A pool with a delivery, autoscaler or price (NodePools,
never Nodes) is its own shape. Cost: O(nodes × their labels) for the keys, plus the model of one node per shape.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from renderer.capacity.matching import match_all
from renderer.capacity.model import CapacityModel, PoolCapacity
from renderer.capacity.pools import build
from renderer.models.inventory import Pool
from renderer.validation.validate import PolicySet

__all__ = ["node_capacity_model", "shape_key"]

#: Labels and nodeInfo fields unique to each machine that no capacity arithmetic reads.
_PER_NODE_LABELS = frozenset({"kubernetes.io/hostname"})
_PER_NODE_INFO = frozenset({"machineID", "systemUUID", "bootID"})


def _quantities(values: dict[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple((k, str(q)) for k, q in values.items())


def shape_key(pool: Pool) -> tuple[Any, ...] | None:
    """What the capacity model reads of ``pool`` (None: a pool not keyed, modelled on its own)."""
    if pool.delivery is not None or pool.cluster_autoscaler is not None or pool.price is not None:
        return None
    return (
        pool.origin,
        tuple((k, v) for k, v in pool.labels.items() if k not in _PER_NODE_LABELS),
        _quantities(pool.capacity),
        pool.count,
        pool.platform,
        pool.machine_config_pool,
        pool.max_pods,
        tuple(pool.annotations.items()),
        None if pool.machine_memory is None else str(pool.machine_memory),
        None if pool.boot_disk is None else str(pool.boot_disk),
        tuple((k, v) for k, v in pool.node_info.items() if k not in _PER_NODE_INFO),
        pool.profile,
    )


def node_capacity_model(policies: PolicySet) -> CapacityModel:
    """``build(policies)``, computing each shape's capacity once (see the module's docstring); the same pools, in
    the same order, with the same figures."""
    pools = policies.pools
    matches = match_all(policies)
    first: dict[tuple[Any, ...], int] = {}
    rep_of: list[int] = []  # per pool: the index of its shape's first pool among the representatives
    representatives: list[Pool] = []
    for i, pool in enumerate(pools):
        key = shape_key(pool)
        if key is not None:
            key = (
                key,
                tuple(map(id, matches.commit_classes[i])),
                tuple(map(id, matches.reservation_policies[i])),
                tuple(map(id, matches.runtime_classes[i])),
            )
            seen = first.get(key)
            if seen is not None:
                rep_of.append(seen)
                continue
            first[key] = len(representatives)
        rep_of.append(len(representatives))
        representatives.append(pool)
    if len(representatives) == len(pools):
        return build(policies)
    model = build(replace(policies, pools=representatives))
    computed: list[PoolCapacity] = model.pools
    out: list[PoolCapacity] = []
    for pool, r in zip(pools, rep_of, strict=True):
        pc = computed[r]
        out.append(pc if pc.pool is pool else replace(pc, pool=pool, notes=list(pc.notes), memo={}))
    return CapacityModel(policies, matches, out, model.under_commit_scales_reserved)
