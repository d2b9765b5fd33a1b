"""``bottlerocket/<pool>.settings.toml``: Bottlerocket user data (``[settings.kubernetes]``: kube-reserved, system-reserved,
eviction-hard, ...) per NodePool with ``spec.delivery.bottlerocket: true``, for a launch template's user data, an
EC2NodeClass ``userData`` or ``apiclient set --json``. Written by tomli-w. What goes in and what Bottlerocket
refuses: ``renderer/capacity/deliveries/bottlerocket_settings.py``; docs/bottlerocket.md.
"""

from __future__ import annotations

from renderer.render.api_delivery import render_api
from renderer.render.target import Output, RenderContext, Target, register


@register
class BottlerocketSettingsTarget(Target):
    name = "bottlerocket-settings"
    summary = "Bottlerocket user data, settings.kubernetes TOML (bottlerocket/<pool>.settings.toml)"
    delivers = True

    def render(self, ctx: RenderContext) -> list[Output]:
        return render_api(
            ctx,
            "bottlerocket",
            lambda pc: f"bottlerocket/{pc.pool.name}.settings.toml",
            format=lambda pc: "toml",
            notes=lambda pc: (
                "Bottlerocket user data: merge these tables into the node's user data TOML (docs/bottlerocket.md)",
            ),
        )
