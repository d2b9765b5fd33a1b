from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.model import PoolCapacity
from renderer.findings import Finding
from renderer.lint.helpers import describe_pools, plural
from renderer.lint.rule import LintContext, Rule, register
from renderer.units import column


@register
class OverheadExceedsAllocatable(Rule):
    """
    ## What it does
    Reports a RuntimeClass whose pod overhead (`overhead.podFixed`) for some resource is larger than the
    committed allocatable of a pool its pods can be scheduled to (every pool when the class has no
    `scheduling.nodeSelector`).

    ## Why is this bad?
    The scheduler adds the overhead to every pod of the class. If the overhead alone exceeds what a node
    advertises, not a single pod of that class fits: pods stay Pending on that pool with "Insufficient memory"
    (or cpu) even when the node is empty.

    ## Example
    ```yaml
    # pool: 2 CPUs, committed allocatable 1800m
    overhead:
      podFixed: {cpu: "2"}
    ```

    ## Use instead
    ```yaml
    overhead:
      podFixed: {cpu: 250m}
    scheduling:
      nodeSelector: {example.com/vm-capable: "true"}   # keep sandbox pods on the large nodes
    ```

    ## Fix
    Correct the overhead (a unit slip, `160Gi` for `160Mi`, is the usual cause), or restrict the class with
    `scheduling.nodeSelector` to pools large enough for it.
    """

    code = "AL212"
    name = "overhead-exceeds-allocatable"
    severity = "error"
    summary = "a RuntimeClass overhead does not fit the committed allocatable of a pool its pods can land on"

    # Complexity: O(Σ pools each RuntimeClass can land on + distinct (overhead, selection) × pools + findings):
    # the divisions are shared by classes with the same overhead and pools (CapacityModel.overhead_fits).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        refs = ctx.model.pool_refs
        for rc in ctx.load.policies.runtime_classes:
            for resource, fits in ctx.model.overhead_fits(rc).items():
                if not fits.none_fit:
                    continue
                pools: list[PoolCapacity] = [ctx.model.pools[i] for i in fits.none_fit]
                worst = min(pools, key=lambda pc: pc.committed[resource])
                per_pod = rc.model.overhead.podFixed[resource]  # type: ignore[union-attr,index]
                others = [p for p in pools if p is not worst]
                more = f" (and {plural(len(others), 'more pool')}: {describe_pools(others)})" if others else ""
                each, advertised = column([per_pod, worst.committed[resource]], resource)
                yield self.finding(
                    f"{resource} overhead per pod ({each}) exceeds all {worst.pool.ref} advertises ({advertised})"
                    f"{more}: no such pod fits",
                    source=rc.source,
                    obj=rc.ref,
                    field_path=("overhead", "podFixed", resource),
                    hint="correct the overhead, or keep the class off these pools (scheduling.nodeSelector)",
                    related=[refs[i] for i in fits.none_fit],
                )
