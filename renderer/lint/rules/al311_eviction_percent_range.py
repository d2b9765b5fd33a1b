from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import DISABLED_THRESHOLDS, parse_percent, threshold_maps
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.kubelet_fields import EVICTION_SIGNALS


@register
class EvictionPercentRange(Rule):
    """
    ## What it does
    Reports an `evictionHard` or `evictionSoft` percentage that is not a number or lies outside 0–100%.

    ## Why is this bad?
    A percentage threshold is a share of the resource's capacity. The kubelet rejects anything else at start
    (`eviction percentage threshold nodefs.available must be <= 100%: 110%`).

    ## Example
    ```yaml
    evictionHard:
      nodefs.available: "110%"
    ```

    ## Use instead
    ```yaml
    evictionHard:
      nodefs.available: "10%"
    ```

    ## Fix
    Use a percentage between 0% and 100% (exclusive: `0%` and `100%` disable the threshold, see AL312), or an
    absolute quantity such as `10Gi`.
    """

    code = "AL311"
    name = "eviction-percent-range"
    severity = "error"
    summary = "an eviction percentage is not a number or is outside 0-100%"

    # Complexity: O(ReservationPolicies × eviction thresholds).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            for name, values, path in threshold_maps(rp.model):
                for signal, raw in values.items():
                    value = str(raw)
                    if signal not in EVICTION_SIGNALS or not value.endswith("%") or value in DISABLED_THRESHOLDS:
                        continue
                    pct = parse_percent(value)
                    if pct is None:
                        problem = f'"{value}" is not a percentage (a number followed by %)'
                    elif pct < 0:
                        problem = f"eviction percentage threshold {signal} must be >= 0%: {value}"
                    elif pct > 100:
                        problem = f"eviction percentage threshold {signal} must be <= 100%: {value}"
                    else:
                        continue
                    yield self.finding(
                        f"the kubelet refuses to start: {problem} (in {name})",
                        source=rp.source,
                        obj=rp.ref,
                        field_path=(*path, signal),
                        hint='use 0% to 100%, or a quantity such as "1Gi"',
                    )
