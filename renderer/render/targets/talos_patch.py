"""``talos/<pool>.patch.yaml``: a Talos machine-config patch per NodePool with ``spec.delivery.talos``: a strategic merge
patch of ``machine.kubelet.extraConfig`` (``document: v1alpha1``, Talos up to 1.13) or a ``KubeletConfig`` document
(``document: KubeletConfig``, Talos 1.14+), for ``talosctl gen config --config-patch @talos/<pool>.patch.yaml`` or
``talosctl patch machineconfig --patch @...``. What goes in and what Talos refuses:
``renderer/capacity/deliveries/talos_patch.py``; docs/talos.md.
"""

from __future__ import annotations

from renderer.render.api_delivery import render_api
from renderer.render.target import Output, RenderContext, Target, register


@register
class TalosPatchTarget(Target):
    name = "talos-patch"
    summary = (
        "Talos machine-config patch: machine.kubelet.extraConfig or a KubeletConfig document (talos/<pool>.patch.yaml)"
    )
    delivers = True

    def render(self, ctx: RenderContext) -> list[Output]:
        return render_api(
            ctx,
            "talos",
            lambda pc: f"talos/{pc.pool.name}.patch.yaml",
            notes=lambda pc: (
                "Talos machine-config patch: talosctl patch machineconfig --patch @THIS_FILE, or --config-patch at "
                "talosctl gen config; a systemReserved here replaces Talos's own as a whole (docs/talos.md)",
            ),
        )
