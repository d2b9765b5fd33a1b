from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import DISABLED_THRESHOLDS, KubeletView
from renderer.lint.rule import LintContext, Rule, register


@register
class NoHardMemoryEviction(Rule):
    """
    ## What it does
    Reports a ReservationPolicy that leaves its nodes without a hard `memory.available` eviction threshold:
    either it sets `evictionHard` without `memory.available` (the kubelet then drops its default of 100Mi, unless
    `kubelet.mergeDefaultEvictionSettings` is true), or it disables the signal with `"0%"` or `"100%"`.

    ## Why is this bad?
    The hard memory threshold is what lets the kubelet evict pods before the kernel's OOM killer acts. Without
    it the OOM killer picks victims by its own score — possibly the container runtime, the kubelet or a
    system daemon — and the node can hang instead of recovering. It also reserves that memory: without it,
    allocatable is larger than the node can safely hand out.

    ## Example
    ```yaml
    evictionHard:
      nodefs.available: "10%"
    ```

    ## Use instead
    ```yaml
    evictionHard:
      memory.available: 100Mi
      nodefs.available: "10%"
    ```

    ## Fix
    Add `memory.available` to `evictionHard` (100Mi is the kubelet's default; larger nodes often use 500Mi–1Gi).
    """

    code = "AL208"
    name = "no-hard-memory-eviction"
    severity = "warning"
    summary = "no hard memory.available eviction threshold (missing from evictionHard, or disabled)"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            hard = rp.model.spec.evictionHard
            if hard is None:
                continue  # the kubelet's (or the formula's) defaults apply, with memory.available
            value = hard.get("memory.available")
            if value is None:
                merge = KubeletView(rp.model).get("mergeDefaultEvictionSettings")
                if merge is not None and merge.value is True:
                    continue
                yield self.finding(
                    "evictionHard without memory.available: no hard memory threshold, the OOM killer decides what dies",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=("spec", "evictionHard"),
                    hint='add memory.available: "100Mi" (any signal listed drops the defaults of the others)',
                )
            elif value in DISABLED_THRESHOLDS:
                yield self.finding(
                    f'evictionHard memory.available "{value}" is no threshold: the OOM killer decides what dies',
                    source=rp.source,
                    obj=rp.ref,
                    field_path=("spec", "evictionHard", "memory.available"),
                    hint='set a real threshold, e.g. memory.available: "100Mi"',
                )
