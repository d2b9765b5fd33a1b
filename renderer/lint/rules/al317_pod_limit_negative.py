from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import KubeletView
from renderer.lint.rule import LintContext, Rule, register

_FLAGS = {"maxPods": "--max-pods", "podsPerCore": "--pods-per-core"}


@register
class PodLimitNegative(Rule):
    """
    ## What it does
    Reports a negative `maxPods` or `podsPerCore`.

    ## Why is this bad?
    The kubelet validates both at start and exits (`maxPods (--max-pods) -1 must not be a negative number`).
    `podsPerCore: 0` is the way to switch the per-core limit off; there is no "unlimited" negative value.

    ## Example
    ```yaml
    maxPods: -1
    ```

    ## Use instead
    ```yaml
    maxPods: 110
    ```

    ## Fix
    Use a non-negative number (`podsPerCore: 0` disables the per-core limit).
    """

    code = "AL317"
    name = "pod-limit-negative"
    severity = "error"
    summary = "maxPods or podsPerCore is negative"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            for name, flag in _FLAGS.items():
                got = view.get(name)
                if got is None or not isinstance(got.value, int) or isinstance(got.value, bool) or got.value >= 0:
                    continue
                yield self.finding(
                    f"the kubelet refuses to start: {name} ({flag}) {got.value} must not be a negative number",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=got.path,
                    hint="use 0 to switch podsPerCore off" if name == "podsPerCore" else "use a positive pod limit",
                )
