from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import KubeletView
from renderer.lint.rule import LintContext, Rule, register


@register
class ReservedCpusWithReservedCgroup(Rule):
    """
    ## What it does
    Reports a ReservationPolicy that sets `reservedSystemCPUs` together with `systemReservedCgroup` or
    `kubeReservedCgroup`.

    ## Why is this bad?
    `reservedSystemCPUs` pins system daemons to an explicit CPU set and replaces the CPU part of
    systemReserved/kubeReserved; the kubelet does not support it next to the reserved cgroups and exits at start:
    `can't use reservedSystemCPUs (--reserved-cpus) with systemReservedCgroup (--system-reserved-cgroup) or
    kubeReservedCgroup (--kube-reserved-cgroup)`. Some platforms set those cgroups on the user's behalf, which
    makes this failure easy to hit.

    ## Example
    ```yaml
    reservedSystemCPUs: "0-1"
    systemReservedCgroup: /system.slice
    ```

    ## Use instead
    ```yaml
    reservedSystemCPUs: "0-1"
    ```

    ## Fix
    Choose one mechanism: pin CPUs with `reservedSystemCPUs`, or reserve and enforce with the cgroups.
    """

    code = "AL306"
    name = "reserved-cpus-with-reserved-cgroup"
    severity = "error"
    summary = "reservedSystemCPUs combined with systemReservedCgroup or kubeReservedCgroup"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            cpus = view.get("reservedSystemCPUs")
            if cpus is None or cpus.value == "":
                continue
            for cgroup in ("systemReservedCgroup", "kubeReservedCgroup"):
                got = view.get(cgroup)
                if got is None or not got.value:
                    continue
                yield self.finding(
                    "the kubelet refuses to start: can't use reservedSystemCPUs (--reserved-cpus) with "
                    "systemReservedCgroup (--system-reserved-cgroup) or kubeReservedCgroup (--kube-reserved-cgroup)",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=got.path,
                    hint=f"remove {cgroup}, or reserve CPU with systemReserved instead",
                )
