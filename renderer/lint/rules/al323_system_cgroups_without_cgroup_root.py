from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import KubeletView
from renderer.lint.rule import LintContext, Rule, register


@register
class SystemCgroupsWithoutCgroupRoot(Rule):
    """
    ## What it does
    Reports `kubelet.systemCgroups` set without `kubelet.cgroupRoot`.

    ## Why is this bad?
    The kubelet moves non-kernel processes into `systemCgroups` relative to the cgroup root, and refuses to
    start when it does not know the root: `systemCgroups (--system-cgroups) was specified and cgroupRoot
    (--cgroup-root) was not specified`.

    ## Example
    ```yaml
    kubelet:
      systemCgroups: /system.slice
    ```

    ## Use instead
    ```yaml
    kubelet:
      systemCgroups: /system.slice
      cgroupRoot: /
    ```

    ## Fix
    Set `cgroupRoot` (usually `/`), or remove `systemCgroups`.
    """

    code = "AL323"
    name = "system-cgroups-without-cgroup-root"
    severity = "error"
    summary = "systemCgroups is set without cgroupRoot"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            system = view.get("systemCgroups")
            root = view.get("cgroupRoot")
            if system is None or not system.value or (root is not None and root.value):
                continue
            yield self.finding(
                "the kubelet refuses to start: systemCgroups (--system-cgroups) was specified and cgroupRoot "
                "(--cgroup-root) was not specified",
                source=rp.source,
                obj=rp.ref,
                field_path=system.path,
                hint='add kubelet.cgroupRoot (usually "/")',
            )
