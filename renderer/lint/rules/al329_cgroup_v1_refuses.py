from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import KubeletView
from renderer.lint.rule import LintContext, Rule, register


@register
class CgroupV1Refuses(Rule):
    """
    ## What it does
    Reports a ReservationPolicy that lets the kubelet run on cgroup v1 hosts (`failCgroupV1: false`) and also sets
    what the kubelet refuses on exactly those hosts: `singleProcessOOMKill: false`. The kubelet's words
    (kubernetes `pkg/kubelet/apis/config/validation/validation_linux.go`, `validateKubeletOSConfiguration`):
    `invalid configuration: singleProcessOOMKill must not be explicitly set to false when using cgroup v1`.

    Since Kubernetes 1.35 `failCgroupV1` defaults to true (KEP-5573): on a cgroup v1 host the kubelet stops with
    `kubelet is configured to not run on a host using cgroup v1. cgroup v1 support is unsupported and will be
    removed in a future release` unless the configuration sets `failCgroupV1: false`. Which hosts run cgroup v1 is
    not something a Node object shows (its `nodeInfo` has the OS image and kernel, not the cgroup hierarchy), so
    this rule reads only what the policy states: a policy that turns `failCgroupV1` off says its nodes may be
    cgroup v1, and then must not set what cgroup v1 refuses.

    ## Why is this bad?
    The kubelet exits at start on the cgroup v1 nodes the policy was written for: they never become Ready.

    ## Example
    ```yaml
    spec:
      kubelet:
        failCgroupV1: false
        singleProcessOOMKill: false
    ```

    ## Use instead
    ```yaml
    spec:
      kubelet:
        failCgroupV1: false
    ```

    ## Fix
    Remove `singleProcessOOMKill: false` (cgroup v1 always kills a single process), or move the nodes to cgroup v2
    and drop `failCgroupV1: false`.
    """

    code = "AL329"
    name = "cgroup-v1-refuses"
    severity = "error"
    summary = "failCgroupV1: false with a setting the kubelet refuses on the cgroup v1 hosts it admits"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            fail = view.get("failCgroupV1")
            oom = view.get("singleProcessOOMKill")
            if fail is None or fail.value is not False or oom is None or oom.value is not False:
                continue
            yield self.finding(
                "the kubelet refuses to start on the cgroup v1 hosts failCgroupV1: false admits: invalid "
                "configuration: singleProcessOOMKill must not be explicitly set to false when using cgroup v1",
                source=rp.source,
                obj=rp.ref,
                field_path=oom.path,
                hint="remove singleProcessOOMKill: false, or run the nodes on cgroup v2 and drop failCgroupV1: false",
            )
