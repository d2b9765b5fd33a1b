from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import closest, enforcements
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.kubelet_fields import ENFORCEMENTS


@register
class EnforceNodeAllocatableValues(Rule):
    """
    ## What it does
    Reports `enforceNodeAllocatable` entries the kubelet does not know, and entries listed twice. Valid values
    are `pods`, `system-reserved`, `system-reserved-compressible`, `kube-reserved`, `kube-reserved-compressible`
    and `none`.

    ## Why is this bad?
    The kubelet validates its configuration at start and exits on either mistake
    (`invalid configuration: option "pod" specified for enforceNodeAllocatable`, `duplicated enforcements "pods"
    in enforceNodeAllocatable`): the node never becomes Ready.

    ## Example
    ```yaml
    enforceNodeAllocatable: [pod, pods]
    ```

    ## Use instead
    ```yaml
    enforceNodeAllocatable: [pods]
    ```

    ## Fix
    Use the exact value names and list each once.
    """

    code = "AL301"
    name = "enforce-node-allocatable-values"
    severity = "error"
    summary = "enforceNodeAllocatable has an unknown or duplicated value"

    # Complexity: O(ReservationPolicies × enforceNodeAllocatable entries).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            got = enforcements(rp.model)
            if got is None:
                continue
            values, path = got
            seen: set[str] = set()
            for i, value in enumerate(values):
                if value not in ENFORCEMENTS:
                    guess = closest(value, ENFORCEMENTS)
                    yield self.finding(
                        f'the kubelet refuses to start: option "{value}" specified for enforceNodeAllocatable',
                        source=rp.source,
                        obj=rp.ref,
                        field_path=(*path, i),
                        hint=f'did you mean "{guess}"?' if guess else f"valid options: {', '.join(ENFORCEMENTS)}",
                    )
                elif value in seen:
                    yield self.finding(
                        f'the kubelet refuses to start: duplicated enforcements "{value}" in enforceNodeAllocatable',
                        source=rp.source,
                        obj=rp.ref,
                        field_path=(*path, i),
                        hint=f'list "{value}" once',
                    )
                seen.add(value)
