from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import DISABLED_THRESHOLDS, KubeletView
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.kubelet_fields import EVICTION_SIGNALS


@register
class SoftEvictionWithoutGracePeriod(Rule):
    """
    ## What it does
    Reports an `evictionSoft` threshold whose signal has no entry in `evictionSoftGracePeriod`.

    ## Why is this bad?
    A soft threshold evicts only after the signal stays below it for the grace period; without one it is
    meaningless, and the kubelet refuses the configuration at start (`grace period must be specified for the
    soft eviction threshold memory.available`).

    ## Example
    ```yaml
    evictionSoft:
      memory.available: 500Mi
    ```

    ## Use instead
    ```yaml
    evictionSoft:
      memory.available: 500Mi
    evictionSoftGracePeriod:
      memory.available: 1m30s
    ```

    ## Fix
    Add a grace period (a Go duration such as `90s` or `1m30s`) for the same signal.
    """

    code = "AL314"
    name = "soft-eviction-without-grace-period"
    severity = "error"
    summary = "an evictionSoft threshold has no evictionSoftGracePeriod"

    # Complexity: O(ReservationPolicies × soft eviction thresholds).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            soft = view.mapping("evictionSoft")
            if soft is None:
                continue
            grace = view.mapping("evictionSoftGracePeriod")
            periods = grace[0] if grace else {}
            for signal, value in soft[0].items():
                if signal not in EVICTION_SIGNALS or str(value) in DISABLED_THRESHOLDS or signal in periods:
                    continue
                yield self.finding(
                    f"the kubelet refuses to start: grace period must be specified for the soft eviction threshold "
                    f"{signal}",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=(*soft[1], signal),
                    hint=f"add evictionSoftGracePeriod: {{{signal}: 1m30s}} (a Go duration)",
                )
