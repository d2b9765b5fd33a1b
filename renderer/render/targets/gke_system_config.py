"""GKE node pool system configuration, per NodePool with ``spec.delivery.gkeSystemConfig``.

``format: gcloud`` (default): ``gke/<pool>.system-config.yaml``, the file of ``gcloud container node-pools
create|update --system-config-from-file`` (top-level ``kubeletConfig``). ``format: rest``:
``gke/<pool>.node-kubelet-config.json``, the ``NodeKubeletConfig`` of the container v1 REST API
(``nodeConfig.kubeletConfig`` of a node pool create, ``kubeletConfig`` of an update), the only form with
``reservedResourcesConfig``. What goes in and what GKE cannot take: ``renderer/capacity/deliveries/
gke_system_config.py``; docs/gke.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from renderer.render.api_delivery import render_api
from renderer.render.target import Output, RenderContext, Target, register

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity


def _rest(pc: PoolCapacity) -> bool:
    delivery = pc.pool.delivery
    return delivery is not None and delivery.gkeSystemConfig is not None and delivery.gkeSystemConfig.format == "rest"


@register
class GKESystemConfigTarget(Target):
    name = "gke-system-config"
    summary = "GKE node pool system config (gke/<pool>.system-config.yaml, or the REST NodeKubeletConfig as JSON)"
    delivers = True

    def render(self, ctx: RenderContext) -> list[Output]:
        return render_api(
            ctx,
            "gkeSystemConfig",
            lambda pc: (
                f"gke/{pc.pool.name}.node-kubelet-config.json"
                if _rest(pc)
                else f"gke/{pc.pool.name}.system-config.yaml"
            ),
            format=lambda pc: "json" if _rest(pc) else "yaml",
            notes=lambda pc: (
                "for gcloud container node-pools create|update NODE_POOL --system-config-from-file=THIS_FILE "
                "(gcloud takes no kube-reserved, system-reserved or eviction-hard; docs/gke.md)",
            ),
        )
