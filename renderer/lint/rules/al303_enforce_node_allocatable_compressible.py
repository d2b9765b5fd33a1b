from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import enforcements
from renderer.lint.rule import LintContext, Rule, register


@register
class EnforceNodeAllocatableCompressible(Rule):
    """
    ## What it does
    Reports `enforceNodeAllocatable` lists that contain both `system-reserved` and
    `system-reserved-compressible`, or both `kube-reserved` and `kube-reserved-compressible`.

    ## Why is this bad?
    The `-compressible` form enforces only the CPU part of a reservation; the plain form enforces CPU and
    memory. They are alternatives, and the kubelet rejects both together
    (`both "system-reserved" and "system-reserved-compressible" cannot be specified together in
    enforceNodeAllocatable`) and does not start.

    ## Example
    ```yaml
    enforceNodeAllocatable: [pods, system-reserved, system-reserved-compressible]
    ```

    ## Use instead
    ```yaml
    enforceNodeAllocatable: [pods, system-reserved-compressible]
    ```

    ## Fix
    Keep one of the two: `-compressible` (CPU only, the safer choice: system daemons are throttled, never
    OOM-killed) or the plain form.
    """

    code = "AL303"
    name = "enforce-node-allocatable-compressible"
    severity = "error"
    summary = "enforceNodeAllocatable lists X and X-compressible together"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            got = enforcements(rp.model)
            if got is None:
                continue
            values, path = got
            for base in ("system-reserved", "kube-reserved"):
                pair = f"{base}-compressible"
                if base in values and pair in values:
                    yield self.finding(
                        f'the kubelet refuses to start: both "{base}" and "{pair}" cannot be specified together in '
                        "enforceNodeAllocatable",
                        source=rp.source,
                        obj=rp.ref,
                        field_path=(*path, max(values.index(base), values.index(pair))),
                        hint=f'keep one of them ("{pair}" enforces cpu only)',
                    )
