from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import DISABLED_THRESHOLDS, threshold_maps
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.kubelet_fields import EVICTION_SIGNALS


@register
class EvictionThresholdDisabled(Rule):
    """
    ## What it does
    Reports (as information) an `evictionHard` or `evictionSoft` threshold written as `"0%"` or `"100%"`: the
    kubelet drops such a threshold, so the signal is not watched at all. A disabled hard `memory.available` is
    reported by AL208 instead, as a warning.

    ## Why is this bad?
    It is the documented way to turn a signal off, so it may be intended (e.g. `imagefs.available: "0%"` on
    nodes without a separate image disk). But "0%" reads like "evict at 0% free", and "100%" like "always
    evict": neither is what happens. The finding makes the effect visible in review.

    ## Example
    ```yaml
    evictionHard:
      nodefs.available: "0%"
    ```

    ## Use instead
    ```yaml
    evictionHard:
      nodefs.available: "10%"   # or remove the key if the kubelet's behaviour without it is what you want
    ```

    ## Fix
    Set a real threshold, or keep "0%" deliberately and suppress the note with a reason.
    """

    code = "AL312"
    name = "eviction-threshold-disabled"
    severity = "info"
    summary = 'an eviction threshold of "0%" or "100%" is dropped by the kubelet'

    # Complexity: O(ReservationPolicies × eviction thresholds).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            for name, values, path in threshold_maps(rp.model):
                for signal, raw in values.items():
                    value = str(raw)
                    if signal not in EVICTION_SIGNALS or value not in DISABLED_THRESHOLDS:
                        continue
                    if name == "evictionHard" and signal == "memory.available":
                        continue  # AL208
                    yield self.finding(
                        f'{name} {signal} is "{value}", which the kubelet drops: {signal} is not watched '
                        f"{'at all' if name == 'evictionHard' else 'by the soft threshold'}",
                        source=rp.source,
                        obj=rp.ref,
                        field_path=(*path, signal),
                        hint="set a real threshold, or remove the key",
                    )
