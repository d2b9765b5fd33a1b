"""What the project's capacity model says a pool's nodes advertise to the scheduler, in the simulation's integers,
and which of those figures a change moves.

A node advertises its committed allocatable for cpu, memory and ephemeral-storage (``PoolCapacity.committed``: the
kubelet's allocatable scaled by the pool's CommitClass), its hugepages as they are, and ``maxPods`` pods — the same
figures ``verify --pods`` checks pods against (``renderer.verify.compare``).

Cost: O(pools × resources).
"""

from __future__ import annotations

from renderer.capacity.model import RESOURCES, CapacityModel, PoolCapacity
from renderer.impact.resources import PODS, units

__all__ = ["advertised", "changes"]


def advertised(pc: PoolCapacity) -> dict[str, int]:
    """The allocatable a node of ``pc`` reports, per the model."""
    out = {r: units(r, pc.committed[r]) for r in RESOURCES if r in pc.committed}
    for name, q in pc.capacity.items():
        if name.startswith("hugepages-"):
            out[name] = units(name, q)
    out[PODS] = pc.max_pods
    return out


def changes(base: CapacityModel, head: CapacityModel) -> dict[str, dict[str, int]]:
    """Per pool name, the advertised figures that differ between ``base`` and ``head`` (head's values); a pool new in
    ``head`` gets all of them. Pools whose figures do not move are left out."""
    before = {pc.pool.name: advertised(pc) for pc in base.pools}
    out: dict[str, dict[str, int]] = {}
    for pc in head.pools:
        now = advertised(pc)
        was = before.get(pc.pool.name)
        moved = {r: v for r, v in now.items() if was is None or was.get(r) != v}
        if moved:
            out[pc.pool.name] = moved
    return out
