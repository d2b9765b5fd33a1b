from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import DISABLED_THRESHOLDS, KubeletView
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.kubelet_fields import EVICTION_SIGNALS


@register
class GracePeriodWithoutSoftEviction(Rule):
    """
    ## What it does
    Reports an `evictionSoftGracePeriod` entry for a signal that has no (enabled) `evictionSoft` threshold.

    ## Why is this bad?
    The kubelet ignores such a grace period, so it does nothing; usually the soft threshold was removed, or the
    two maps spell the signal differently. Managed platforms that validate kubelet settings (Karpenter's
    EC2NodeClass, for one) reject the mismatch outright.

    ## Example
    ```yaml
    evictionSoft:
      memory.available: 500Mi
    evictionSoftGracePeriod:
      memory.available: 1m30s
      nodefs.available: 2m
    ```

    ## Use instead
    ```yaml
    evictionSoft:
      memory.available: 500Mi
      nodefs.available: "15%"
    evictionSoftGracePeriod:
      memory.available: 1m30s
      nodefs.available: 2m
    ```

    ## Fix
    Add the missing soft threshold, or remove the grace period.
    """

    code = "AL315"
    name = "grace-period-without-soft-eviction"
    severity = "warning"
    summary = "an evictionSoftGracePeriod entry has no evictionSoft threshold"

    # Complexity: O(ReservationPolicies × grace periods).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            grace = view.mapping("evictionSoftGracePeriod")
            if grace is None:
                continue
            soft = view.mapping("evictionSoft")
            active = {s for s, v in (soft[0] if soft else {}).items() if str(v) not in DISABLED_THRESHOLDS}
            for signal in grace[0]:
                if signal not in EVICTION_SIGNALS or signal in active:
                    continue
                yield self.finding(
                    f"evictionSoftGracePeriod {signal} has no evictionSoft threshold: the kubelet ignores it",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=(*grace[1], signal),
                    at_key=True,
                    hint=f"add evictionSoft {signal}, or remove the grace period",
                )
