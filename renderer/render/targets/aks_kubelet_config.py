"""``aks/<pool>.kubelet-config.json``: an AKS agent pool's ``kubeletConfig`` per NodePool with
``spec.delivery.aksKubeletConfig``, for ``az aks nodepool add|update --kubelet-config`` or the ``kubeletConfig`` of an
ARM/Bicep/Terraform agent pool at the api-version the pool names (2026-08-02-preview for ``kubeReserved`` and
``hardEvictionThreshold``). JSON has no comments: the api-version is the pool's, stated in the policy repo. What goes
in and what AKS refuses: ``renderer/capacity/deliveries/aks_kubelet_config.py``; docs/aks.md.
"""

from __future__ import annotations

from renderer.render.api_delivery import render_api
from renderer.render.target import Output, RenderContext, Target, register


@register
class AKSKubeletConfigTarget(Target):
    name = "aks-kubelet-config"
    summary = "AKS agent pool kubeletConfig for az aks nodepool add --kubelet-config (aks/<pool>.kubelet-config.json)"
    delivers = True

    def render(self, ctx: RenderContext) -> list[Output]:
        return render_api(
            ctx, "aksKubeletConfig", lambda pc: f"aks/{pc.pool.name}.kubelet-config.json", format=lambda pc: "json"
        )
