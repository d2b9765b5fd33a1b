from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register


@register
class PodsPerCoreExceedsMaxPods(Rule):
    """
    ## What it does
    Reports a ReservationPolicy whose `podsPerCore` is larger than its `maxPods`.

    ## Why is this bad?
    The kubelet's pod limit is the smaller of `maxPods` and `podsPerCore` × cores. A node has at least one core,
    so a `podsPerCore` above `maxPods` can never be the smaller one: the setting does nothing, and was probably
    meant as a much smaller number (`podsPerCore: 10` rather than `100`).

    ## Example
    ```yaml
    maxPods: 110
    podsPerCore: 200
    ```

    ## Use instead
    ```yaml
    maxPods: 110
    podsPerCore: 10
    ```

    ## Fix
    Lower `podsPerCore` to the per-core density you want, or remove it.
    """

    code = "AL318"
    name = "pods-per-core-exceeds-max-pods"
    severity = "warning"
    summary = "podsPerCore is larger than maxPods, so it never takes effect"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            spec = rp.model.spec
            if spec.maxPods is None or spec.podsPerCore is None or spec.maxPods < 0:
                continue
            if spec.podsPerCore > spec.maxPods:
                yield self.finding(
                    f"podsPerCore {spec.podsPerCore} is more than maxPods {spec.maxPods}: it never takes effect",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=("spec", "podsPerCore"),
                    hint="lower podsPerCore, or remove it",
                )
