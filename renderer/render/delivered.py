"""NodePools grouped by the object that carries their kubelet settings to the nodes (an EC2NodeClass, a
KubeadmConfigTemplate), and the check that all pools of one object would render the same settings.

One object configures every node built from it, so two pools that share it must agree; when they would not, the
render stage names both pools and the first difference instead of picking one (AL807), or, when the difference is
a formula computed for each pool's size, says how to deliver it (AL808). Cost: O(pools × rendered size).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from renderer.render.codes import FormulaNotDeliverable, PoolsSharingObjectDisagree
from renderer.render.compare import first_difference
from renderer.render.target import RenderContext

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity


@dataclass
class PoolConfig:
    """What one pool would put into the shared object."""

    pc: PoolCapacity
    content: Any  # the rendered settings; None when the pool has no single ReservationPolicy
    sized: dict[str, str] = field(default_factory=dict)  # dotted path -> formula, for values computed per pool size


def delivered_pools(ctx: RenderContext, way: str) -> list[PoolCapacity]:
    """NodePools whose ``spec.delivery`` names ``way`` ("karpenter", "clusterAPI", "nodeadm"), by name."""
    out = []
    for pc in ctx.model.pools:
        delivery = pc.pool.delivery
        if pc.pool.origin == "NodePool" and delivery is not None and way in delivery.ways():
            out.append(pc)
    return sorted(out, key=lambda pc: pc.pool.name)


def group(pools: list[PoolCapacity], key: Callable[[PoolCapacity], str]) -> dict[str, list[PoolCapacity]]:
    groups: dict[str, list[PoolCapacity]] = {}
    for pc in pools:
        groups.setdefault(key(pc), []).append(pc)
    return dict(sorted(groups.items()))


def agree(ctx: RenderContext, shared: str, configs: list[PoolConfig], *, sized_hint: str, hint: str) -> bool:
    """True when every pool renders the same content; otherwise one finding naming the first disagreeing pair."""
    first = configs[0]
    for other in configs[1:]:
        if other.content == first.content:
            continue
        a, b = first.pc.pool, other.pc.pool
        if first.content is None or other.content is None:
            without = a if first.content is None else b
            detail = f"{without.ref} has no single ReservationPolicy, so it would get the other's settings"
            path = ""
        else:
            detail = first_difference(first.content, other.content)
            path = detail.split(":", 1)[0]
        formula = first.sized.get(path) or other.sized.get(path)
        if formula is not None:
            ctx.report(
                FormulaNotDeliverable,
                f"{a.ref} and {b.ref} share {shared}, but formula {formula} gives them different values ({detail})",
                b.source,
                b.ref,
                ("spec", "delivery"),
                hint=sized_hint,
            )
        else:
            ctx.report(
                PoolsSharingObjectDisagree,
                f"{a.ref} and {b.ref} share {shared} but would render different kubelet settings ({detail})",
                b.source,
                b.ref,
                ("spec", "delivery"),
                hint=hint,
            )
        return False
    return True
