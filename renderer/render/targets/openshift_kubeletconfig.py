"""``openshift/<machineConfigPool>/kubeletconfig.yaml``: a KubeletConfig (machineconfiguration.openshift.io/v1).

One per MachineConfigPool whose pools a ReservationPolicy selects. It targets the pool by its
``pools.operator.machineconfiguration.openshift.io/<pool>`` label, says ``autoSizingReserved: true`` when the
policy uses an OpenShift auto-sizing formula and the KubeletConfig can own the node-sizing env file (see
renderer/capacity/openshift_sizing.py), otherwise carries explicit systemReserved, and never sets a field the Machine Config
Operator owns. Eviction, kubeReserved, enforcement and the other policy fields go into ``kubeletConfig``.
"""

from __future__ import annotations

from renderer.render.openshift_pools import openshift_pools
from renderer.render.target import MANAGED_BY, Output, RenderContext, Target, register

API_VERSION = "machineconfiguration.openshift.io/v1"


def kubeletconfig_name(mcp: str) -> str:
    return f"allocatable-{mcp}"


@register
class OpenShiftKubeletConfigTarget(Target):
    name = "openshift-kubeletconfig"
    summary = "OpenShift KubeletConfig per MachineConfigPool (openshift/<pool>/kubeletconfig.yaml)"
    delivers = True

    def render(self, ctx: RenderContext) -> list[Output]:
        outputs: list[Output] = []
        for group in openshift_pools(ctx):
            spec = group.kubeletconfig
            if spec is None:
                continue
            doc = {
                "apiVersion": API_VERSION,
                "kind": "KubeletConfig",
                "metadata": {"name": kubeletconfig_name(group.mcp), "labels": dict(MANAGED_BY)},
                "spec": spec,
            }
            outputs.append(
                Output(path=f"openshift/{group.mcp}/kubeletconfig.yaml", documents=(doc,), sources=tuple(group.sources))
            )
        return outputs
