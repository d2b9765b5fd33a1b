from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from renderer.findings import Finding
from renderer.lint.helpers import Field, KubeletView, describe_pools, selects_openshift
from renderer.lint.rule import LintContext, Rule, register

#: KubeletConfiguration fields the Machine Config Operator does not let a KubeletConfig set.
OWNED = ("cgroupDriver", "clusterDNS", "clusterDomain", "featureGates", "failSwapOn", "staticPodPath")


def go_value(value: Any) -> str:
    """A value as Go's %v prints it in the operator's message (maps as map[k:v], booleans lower-case)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "map[" + " ".join(f"{k}:{go_value(v)}" for k, v in sorted(value.items())) + "]"
    if isinstance(value, list):
        return "[" + " ".join(go_value(v) for v in value) + "]"
    return str(value)


def _is_set(name: str, value: Any) -> bool:
    if name == "failSwapOn":
        return value is not None
    return bool(value)


@register
class OpenShiftOperatorOwnedField(Rule):
    """
    ## What it does
    Reports a ReservationPolicy selecting OpenShift pools that sets a kubelet field the Machine Config Operator
    owns: `cgroupDriver`, `clusterDNS`, `clusterDomain`, `featureGates`, `failSwapOn`, a non-empty
    `staticPodPath`, or `memorySwap.swapBehavior` — as a field of the policy or inside `spec.kubelet`.

    ## Why is this bad?
    OpenShift sets these itself (from the cluster's network, feature-gate and swap configuration). The Machine
    Config Operator rejects a KubeletConfig that sets them ("KubeletConfiguration: featureGates is not allowed to
    be set, but contains: …") and the pool keeps its old kubelet configuration: none of the policy applies.

    ## Example
    ```yaml
    cgroupDriver: systemd
    kubelet:
      featureGates: {InPlacePodVerticalScaling: true}
    ```

    ## Use instead
    ```yaml
    # nothing: cgroupDriver is systemd on OpenShift already; feature gates are set cluster-wide in
    # featuregates.config.openshift.io/cluster
    ```

    ## Fix
    Remove the field from the policy (or give OpenShift pools a policy of their own without it), and change the
    setting through OpenShift's own configuration.
    """

    code = "AL321"
    name = "openshift-operator-owned-field"
    severity = "error"
    summary = "OpenShift: a kubelet field the Machine Config Operator owns is set"

    # Complexity: O(ReservationPolicies × operator-owned fields + Σ pools each one selects).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            pools = selects_openshift(ctx, rp)
            if not pools:
                continue
            view = KubeletView(rp.model)
            found: list[tuple[str, Field]] = []
            for name in OWNED:
                got = view.get(name)
                if got is not None and _is_set(name, got.value):
                    found.append((name, got))
            swap = view.get("memorySwap")
            if swap is not None and isinstance(swap.value, dict) and swap.value.get("swapBehavior"):
                found.append(("swapBehavior", Field(swap.value["swapBehavior"], (*swap.path, "swapBehavior"))))
            for name, got in found:
                shown = go_value(got.value)
                yield self.finding(
                    f"the Machine Config Operator rejects the KubeletConfig for {describe_pools(pools)}: "
                    f'"KubeletConfiguration: {name} is not allowed to be set, but contains: {shown}"',
                    source=rp.source,
                    obj=rp.ref,
                    field_path=got.path,
                    at_key=True,
                    hint=f"remove {name} (OpenShift sets it)",
                    related=[pc.pool.ref for pc in pools],
                )
