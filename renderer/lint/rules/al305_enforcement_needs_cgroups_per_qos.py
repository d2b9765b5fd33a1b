from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import FieldPath, Finding
from renderer.lint.rule import LintContext, Rule, register


@register
class EnforcementNeedsCgroupsPerQOS(Rule):
    """
    ## What it does
    Reports a ReservationPolicy with `cgroupsPerQOS: false` while `enforceNodeAllocatable` contains anything but
    `none` — including the default `[pods]` when `enforceNodeAllocatable` is not set.

    ## Why is this bad?
    Enforcement works through the kubepods cgroup hierarchy, which only exists with `cgroupsPerQOS: true`. The
    kubelet rejects the combination (`cgroupsPerQOS (--cgroups-per-qos) must be set to true when "pods"
    contained in enforceNodeAllocatable`) and does not start.

    ## Example
    ```yaml
    cgroupsPerQOS: false
    ```

    ## Use instead
    ```yaml
    cgroupsPerQOS: false
    enforceNodeAllocatable: [none]
    # or simply keep cgroupsPerQOS at its default, true
    ```

    ## Fix
    Keep `cgroupsPerQOS: true` (the default), or set `enforceNodeAllocatable: [none]`.
    """

    code = "AL305"
    name = "enforcement-needs-cgroups-per-qos"
    severity = "error"
    summary = "enforceNodeAllocatable (default [pods]) with cgroupsPerQOS: false"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            spec = rp.model.spec
            if spec.cgroupsPerQOS is not False:
                continue
            values = spec.enforceNodeAllocatable if spec.enforceNodeAllocatable is not None else ["pods"]
            enforced = [v for v in values if v != "none"]
            if not enforced:
                continue
            path: FieldPath = ("spec", "cgroupsPerQOS")
            default = "" if spec.enforceNodeAllocatable is not None else " (the default)"
            yield self.finding(
                f"the kubelet refuses to start: cgroupsPerQOS (--cgroups-per-qos) must be set to true when "
                f'"{enforced[0]}" contained in enforceNodeAllocatable{default}',
                source=rp.source,
                obj=rp.ref,
                field_path=path,
                hint="keep cgroupsPerQOS true, or set enforceNodeAllocatable: [none]",
            )
