from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import threshold_maps
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.kubelet_fields import EVICTION_SIGNALS
from renderer.quantity import Quantity, QuantityError


@register
class EvictionQuantityNotPositive(Rule):
    """
    ## What it does
    Reports an `evictionHard` or `evictionSoft` threshold given as a quantity (not a percentage) that is not a
    valid Kubernetes quantity, or is zero or negative.

    ## Why is this bad?
    The threshold is "evict when less than this is available". The kubelet rejects a zero or negative one at
    start (`eviction threshold memory.available must be positive: 0`), and an unreadable one as well; the node
    never becomes Ready.

    ## Example
    ```yaml
    evictionHard:
      memory.available: "0"
    ```

    ## Use instead
    ```yaml
    evictionHard:
      memory.available: 100Mi   # or "0%" to disable it deliberately (see AL208)
    ```

    ## Fix
    Use a positive quantity (`100Mi`, `1Gi`) or a percentage.
    """

    code = "AL313"
    name = "eviction-quantity-not-positive"
    severity = "error"
    summary = "an eviction threshold quantity is invalid, zero or negative"

    # Complexity: O(ReservationPolicies × eviction thresholds).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            for name, values, path in threshold_maps(rp.model):
                for signal, raw in values.items():
                    value = str(raw)
                    if signal not in EVICTION_SIGNALS or value.endswith("%"):
                        continue
                    try:
                        q = Quantity.parse(value)
                    except QuantityError as exc:
                        problem = str(exc)
                    else:
                        if not (q.is_zero() or q.is_negative()):
                            continue
                        problem = f"eviction threshold {signal} must be positive: {q}"
                    yield self.finding(
                        f"the kubelet refuses to start: {problem} (in {name})",
                        source=rp.source,
                        obj=rp.ref,
                        field_path=(*path, signal),
                        hint='use a positive quantity ("100Mi") or a percentage ("10%")',
                    )
