"""The targets of the platforms' own kubelet APIs (gke-system-config, aks-kubelet-config, bottlerocket-settings,
talos-patch): one file per NodePool whose ``spec.delivery`` chooses the API, from the one translation lint rule
AL327 checks too (``renderer/capacity/deliveries/``).

The translation's problems are reported again here (AL809), so a render without lint, or with AL327 turned off, still
says what a pool's API cannot take; a pool whose policy leaves nothing the API can carry gets no file, and a warning
(AL813) says so instead of writing a file nothing reads. Cost: O(pools × fields of their policy).
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING

from renderer.capacity.deliveries import apis
from renderer.render.codes import FieldNotDeliverable, NothingToDeliver, NotRenderable
from renderer.render.delivered import delivered_pools
from renderer.render.target import Output, RenderContext

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity


def render_api(
    ctx: RenderContext,
    way: str,
    path: Callable[[PoolCapacity], str],
    *,
    format: Callable[[PoolCapacity], str] = lambda pc: "yaml",
    notes: Callable[[PoolCapacity], tuple[str, ...]] = lambda pc: (),
) -> list[Output]:
    """One Output per NodePool delivered through ``way`` that has a single ReservationPolicy."""
    module: ModuleType = apis()[way]
    outputs: list[Output] = []
    settings = ctx.model.policies.settings
    for pc in delivered_pools(ctx, way):
        policy = pc.policy
        if policy is None:
            continue  # no single policy: the platform's own values stay, nothing to deliver
        translation = module.translate(pc, settings)
        for message, where in translation.unrenderable:
            ctx.report(
                NotRenderable,
                f"{'.'.join(str(p) for p in where)}: {message}",
                policy.source,
                policy.ref,
                where,
            )
        for p in translation.problems:
            ctx.report(
                FieldNotDeliverable,
                f"{pc.pool.ref}: {p.message}",
                policy.source,
                policy.ref,
                p.field_path,
                hint=p.hint,
                severity=p.severity,
            )
        if translation.document is None:
            ctx.report(
                NothingToDeliver,
                f"{pc.pool.ref}: nothing in {policy.ref} has a place in {translation.api}: no file rendered",
                pc.pool.source,
                pc.pool.ref,
                ("spec", "delivery"),
                hint="remove spec.delivery, or set what the API takes",
            )
            continue
        outputs.append(
            Output(
                path=path(pc),
                documents=(translation.document,),
                sources=(ctx.pool_source(pc), ctx.source(policy.source, policy.ref)),
                cluster=False,
                notes=notes(pc),
                format=format(pc),
            )
        )
    return outputs
