from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.model import PoolCapacity
from renderer.findings import Finding
from renderer.lint.helpers import describe_pools, plural
from renderer.lint.rule import LintContext, Rule, register


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

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rc in ctx.load.policies.runtime_classes:
            per_resource: dict[str, list[PoolCapacity]] = {}
            for pc in ctx.model.pools_selected_by(rc):
                for figures in pc.overhead:
                    if figures.runtime_class is not rc:
                        continue
                    for resource, fit in sorted(figures.pods_fit.items()):
                        if fit == 0:
                            per_resource.setdefault(resource, []).append(pc)
            for resource, pools in per_resource.items():
                worst = min(pools, key=lambda pc: pc.committed[resource].value)
                per_pod = rc.model.overhead.podFixed[resource]  # type: ignore[union-attr,index]
                others = [p for p in pools if p is not worst]
                more = f" (and {plural(len(others), 'more pool')}: {describe_pools(others)})" if others else ""
                yield self.finding(
                    f"the {resource} overhead of one pod ({per_pod}) is more than {worst.pool.ref} advertises "
                    f"({worst.committed[resource]} committed allocatable){more}: no pod of RuntimeClass {rc.name} "
                    "can be scheduled there",
                    source=rc.source,
                    obj=rc.ref,
                    field_path=("overhead", "podFixed", resource),
                    hint="correct the overhead, or restrict the class to larger pools with scheduling.nodeSelector",
                    related=[p.pool.ref for p in pools],
                )
