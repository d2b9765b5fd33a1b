from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import describe_pools, selects_openshift
from renderer.lint.rule import LintContext, Rule, register


@register
class OpenShiftAutoSizingWithSystemReserved(Rule):
    """
    ## What it does
    Reports a ReservationPolicy that selects OpenShift pools and sets both an OpenShift auto-sizing formula
    (`autoSizing.formula: openshift` or `openshift-4.20`: auto node sizing, rendered as
    `autoSizingReserved: true` or, for fallbacks and the control plane, as the node-sizing env file) and
    `systemReserved`.

    ## Why is this bad?
    On OpenShift auto node sizing *computes* system-reserved on each node; an explicit value competes with it.
    The Machine Config Operator rejects the KubeletConfig with "autoSizingReserved and systemdReserved cannot be
    set together" (its wording, typo included), and the pool keeps its old configuration.

    ## Example
    ```yaml
    autoSizing:
      formula: openshift
    systemReserved:
      memory: 2Gi
    ```

    ## Use instead
    ```yaml
    autoSizing:
      formula: openshift
    # or: no autoSizing, explicit systemReserved only
    ```

    ## Fix
    Choose one: let auto sizing compute system-reserved, or set it explicitly without `autoSizing`. To
    reserve more for the kubelet itself, use `kubeReserved`, which auto sizing leaves alone.
    """

    code = "AL319"
    name = "openshift-auto-sizing-with-system-reserved"
    severity = "error"
    summary = 'OpenShift: autoSizing together with systemReserved ("cannot be set together")'

    # Complexity: O(ReservationPolicies + Σ pools each one selects).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            spec = rp.model.spec
            if spec.autoSizing is None:
                continue
            from renderer.capacity.openshift_sizing import node_computed_formulas  # only once a policy auto-sizes

            if spec.autoSizing.formula not in node_computed_formulas() or not spec.systemReserved:
                continue
            pools = selects_openshift(ctx, rp)
            if not pools:
                continue
            yield self.finding(
                f"the Machine Config Operator rejects the KubeletConfig for {describe_pools(pools)}: "
                '"autoSizingReserved and systemdReserved cannot be set together"',
                source=rp.source,
                obj=rp.ref,
                field_path=("spec", "systemReserved"),
                hint="remove systemReserved (auto sizing computes it), or remove autoSizing",
                related=[pc.pool.ref for pc in pools],
            )
