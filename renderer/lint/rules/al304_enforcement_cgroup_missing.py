from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import KubeletView, enforcements
from renderer.lint.rule import LintContext, Rule, register

_NEEDS = (
    ("system-reserved", "systemReservedCgroup", "--system-reserved-cgroup"),
    ("kube-reserved", "kubeReservedCgroup", "--kube-reserved-cgroup"),
)


@register
class EnforcementCgroupMissing(Rule):
    """
    ## What it does
    Reports `enforceNodeAllocatable` entries `system-reserved`/`system-reserved-compressible` without
    `systemReservedCgroup`, and `kube-reserved`/`kube-reserved-compressible` without `kubeReservedCgroup`.

    ## Why is this bad?
    Enforcing a reservation means putting a limit on the cgroup the system daemons (or the kubelet and the
    runtime) run in; the kubelet has to be told which one. Without it the kubelet rejects the configuration
    (`systemReservedCgroup (--system-reserved-cgroup) must be specified when "system-reserved" or
    "system-reserved-compressible" included in enforceNodeAllocatable`) and does not start.

    ## Example
    ```yaml
    enforceNodeAllocatable: [pods, system-reserved-compressible]
    ```

    ## Use instead
    ```yaml
    enforceNodeAllocatable: [pods, system-reserved-compressible]
    systemReservedCgroup: /system.slice
    ```

    ## Fix
    Set the cgroup the daemons run in (`/system.slice` for systemd services; `kubeReservedCgroup` is often
    `/runtime.slice` or `/podruntime.slice`, depending on how the kubelet and runtime units are set up).
    """

    code = "AL304"
    name = "enforcement-cgroup-missing"
    severity = "error"
    summary = "system-reserved or kube-reserved enforcement without its cgroup"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            got = enforcements(rp.model)
            if got is None:
                continue
            values, path = got
            view = KubeletView(rp.model)
            for base, cgroup, flag in _NEEDS:
                used = [i for i, v in enumerate(values) if v in (base, f"{base}-compressible")]
                configured = view.get(cgroup)
                if not used or (configured is not None and configured.value):
                    continue
                yield self.finding(
                    f'the kubelet refuses to start: {cgroup} ({flag}) must be specified when "{base}" or '
                    f'"{base}-compressible" included in enforceNodeAllocatable',
                    source=rp.source,
                    obj=rp.ref,
                    field_path=(*path, used[0]),
                    hint=f"set spec.{cgroup}" + (" (e.g. /system.slice)" if base == "system-reserved" else ""),
                )
