from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import KubeletView, describe_pools, selects_openshift
from renderer.lint.rule import LintContext, Rule, register

#: systemCgroups in the kubelet configuration the Machine Config Operator renders for RHCOS nodes.
OPENSHIFT_SYSTEM_CGROUPS = "/system.slice"


@register
class OpenShiftSystemReservedCgroup(Rule):
    """
    ## What it does
    Reports a ReservationPolicy selecting OpenShift pools whose `systemReservedCgroup` differs from
    `systemCgroups` (`kubelet.systemCgroups`, or `/system.slice`, which OpenShift sets on RHCOS).

    ## Why is this bad?
    system-reserved is accounted (and, when enforced, limited) on the cgroup named by `systemReservedCgroup`;
    the system daemons actually run in `systemCgroups`. The Machine Config Operator refuses a KubeletConfig
    where the two differ, because enforcement would then limit a cgroup that holds none of the daemons.

    ## Example
    ```yaml
    systemReservedCgroup: /system
    ```

    ## Use instead
    ```yaml
    systemReservedCgroup: /system.slice
    ```

    ## Fix
    Use `/system.slice` (or whatever `kubelet.systemCgroups` says), or leave `systemReservedCgroup` out.
    """

    code = "AL322"
    name = "openshift-system-reserved-cgroup"
    severity = "error"
    summary = "OpenShift: systemReservedCgroup differs from systemCgroups"

    # Complexity: O(ReservationPolicies + Σ pools each one selects).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            cgroup = view.get("systemReservedCgroup")
            if cgroup is None or not cgroup.value:
                continue
            pools = selects_openshift(ctx, rp)
            if not pools:
                continue
            system = view.get("systemCgroups")
            expected = str(system.value) if system is not None and system.value else OPENSHIFT_SYSTEM_CGROUPS
            if str(cgroup.value) == expected:
                continue
            where = "kubelet.systemCgroups" if system is not None and system.value else "set by OpenShift"
            yield self.finding(
                f"the Machine Config Operator rejects the KubeletConfig for {describe_pools(pools)}: "
                f"systemReservedCgroup {cgroup.value} differs from systemCgroups {expected} ({where})",
                source=rp.source,
                obj=rp.ref,
                field_path=cgroup.path,
                hint=f"set systemReservedCgroup to {expected}, or leave it out",
                related=[pc.pool.ref for pc in pools],
            )
