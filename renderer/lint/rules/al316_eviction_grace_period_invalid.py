from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import KubeletView, parse_go_duration
from renderer.lint.rule import LintContext, Rule, register


@register
class EvictionGracePeriodInvalid(Rule):
    """
    ## What it does
    Reports an `evictionSoftGracePeriod` value that is not a Go duration (`90s`, `1m30s`, `2h`) or is negative,
    and a `kubelet.evictionPressureTransitionPeriod` that is not a duration.

    ## Why is this bad?
    The kubelet parses these with Go's duration parser and refuses to start on a value it cannot read
    (`time: missing unit in duration "90"`) or a negative grace period (`invalid eviction grace period
    specified: -1m, must be a positive value`).

    ## Example
    ```yaml
    evictionSoftGracePeriod:
      memory.available: "90"
    ```

    ## Use instead
    ```yaml
    evictionSoftGracePeriod:
      memory.available: 90s
    ```

    ## Fix
    Write a non-negative Go duration with a unit: `ns`, `us`, `ms`, `s`, `m` or `h` (`1m30s`).
    """

    code = "AL316"
    name = "eviction-grace-period-invalid"
    severity = "error"
    summary = "an eviction grace period is not a Go duration or is negative"

    # Complexity: O(ReservationPolicies × grace periods).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            grace = view.mapping("evictionSoftGracePeriod")
            for signal, raw in (grace[0] if grace else {}).items():
                value = str(raw)
                ns, problem = parse_go_duration(value)
                if problem is None and ns is not None and ns < 0:
                    problem = f"invalid eviction grace period specified: {value}, must be a positive value"
                elif problem is not None:
                    problem = f"time: {problem}"
                else:
                    continue
                assert grace is not None
                yield self.finding(
                    f"the kubelet refuses to start: {problem} (evictionSoftGracePeriod {signal})",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=(*grace[1], signal),
                    hint='write a Go duration of 0 or more: "90s", "1m30s"',
                )
            transition = view.get("evictionPressureTransitionPeriod")
            if transition is not None:
                ns, problem = parse_go_duration(str(transition.value))
                if problem is not None or not isinstance(transition.value, str):
                    yield self.finding(
                        f"the kubelet cannot read evictionPressureTransitionPeriod: "
                        f"{('time: ' + problem) if problem else 'expected a duration string such as 5m'}",
                        source=rp.source,
                        obj=rp.ref,
                        field_path=transition.path,
                        hint='write a Go duration with a unit, e.g. "5m"',
                    )
