from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import NAME_PATH, plural
from renderer.lint.rule import LintContext, Rule, register
from renderer.lint.selectorchecks import conflicts


@register
class CommitClassConflict(Rule):
    """
    ## What it does
    Reports a pool of the inventory (a NodePool, or a Node exported with kubectl) that more than one CommitClass
    selects, and names the classes and the labels that make each of them match.

    ## Why is this bad?
    A node can advertise only one commit level per resource. The CommitClass proposal leaves open which class
    wins when several match; `allocatable` does not guess: it applies none of them to that pool until exactly one
    remains (`allocatable explain` shows the pool at 100%). Whatever the cluster would do instead depends on
    ordering nobody reviewed.

    ## Example
    ```yaml
    # pools: eks-compute-optimized has example.com/tier=batch and instance type c5.4xlarge
    kind: CommitClass
    metadata: {name: batch-burst}
    spec:
      selector:
      - matchExpressions: [{key: example.com/tier, operator: In, values: [batch]}]
    ---
    kind: CommitClass
    metadata: {name: high-cpu-density}
    spec:
      selector:
      - matchExpressions: [{key: node.kubernetes.io/instance-type, operator: In, values: [c5.4xlarge]}]
    ```

    ## Use instead
    ```yaml
    kind: CommitClass
    metadata: {name: high-cpu-density}
    spec:
      selector:
      - matchExpressions:
        - {key: node.kubernetes.io/instance-type, operator: In, values: [c5.4xlarge]}
        - {key: example.com/tier, operator: NotIn, values: [batch]}   # leave the batch tier to batch-burst
    ```

    ## Fix
    Make the selectors exclusive (an extra `NotIn`/`DoesNotExist` expression on one of them), or change the
    pool's labels so that only the intended class matches. The finding points at the pool; an
    `allocatable.dev/ignore: "AL101: <reason>"` annotation on the pool or on one of the classes suppresses it.
    """

    code = "AL101"
    name = "commitclass-conflict"
    severity = "error"
    summary = "a pool is selected by more than one CommitClass"

    # Complexity: O(pools + Σ CommitClasses selecting each pool + findings): conflicts come from the capacity model's
    # matches.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for c in conflicts(ctx, "CommitClass"):
            named = "; ".join(f"{p.name} ({why})" for p, why in zip(c.policies, c.reasons, strict=True))
            yield self.finding(
                f"{plural(len(c.policies), 'CommitClass', 'CommitClasses')} select this pool, so none applies: {named}",
                source=c.pool.pool.source,
                obj=c.pool.pool.ref,
                field_path=NAME_PATH,
                hint="make the selectors exclusive, or change the pool's labels",
                related=[p.ref for p in c.policies],
            )
