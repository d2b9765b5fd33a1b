from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import enforcements
from renderer.lint.rule import LintContext, Rule, register


@register
class EnforceNodeAllocatableNone(Rule):
    """
    ## What it does
    Reports `enforceNodeAllocatable` lists that combine `none` with other values.

    ## Why is this bad?
    `none` means "enforce nothing"; the kubelet rejects it next to anything else
    (`enforceNodeAllocatable may not contain additional enforcements when "none" is specified`) and does not
    start.

    ## Example
    ```yaml
    enforceNodeAllocatable: [none, pods]
    ```

    ## Use instead
    ```yaml
    enforceNodeAllocatable: [pods]   # or [none] alone
    ```

    ## Fix
    Decide: enforce nothing (`[none]`), or list only the enforcements you want.
    """

    code = "AL302"
    name = "enforce-node-allocatable-none"
    severity = "error"
    summary = "enforceNodeAllocatable combines none with other values"

    # Complexity: O(ReservationPolicies × enforceNodeAllocatable entries).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            got = enforcements(rp.model)
            if got is None:
                continue
            values, path = got
            if "none" in values and len(values) > 1:
                yield self.finding(
                    "the kubelet refuses to start: enforceNodeAllocatable may not contain additional enforcements "
                    'when "none" is specified',
                    source=rp.source,
                    obj=rp.ref,
                    field_path=(*path, values.index("none")),
                    hint='use [none] alone, or remove "none"',
                )
