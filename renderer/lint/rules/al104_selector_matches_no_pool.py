from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.matching import to_terms
from renderer.capacity.selectors import unsatisfiable_reason
from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register
from renderer.lint.selectorchecks import Selecting


@register
class SelectorMatchesNoPool(Rule):
    """
    ## What it does
    Reports a CommitClass or ReservationPolicy whose selector matches no pool of the inventory (no NodePool and no
    exported Node).

    Selectors whose every term can never match are reported by AL106 instead, and nothing is reported while the
    repo has no inventory at all (AL107).

    ## Why is this bad?
    A policy that selects nothing does nothing: usually a typo in a label key or value, a pool that was renamed,
    or a label the node group never got. On OpenShift the Machine Config Operator also rejects a KubeletConfig
    whose selector matches no MachineConfigPool.

    ## Example
    ```yaml
    spec:
      selector:
      - matchExpressions: [{key: example.com/tier, operator: In, values: [genral]}]
    ```

    ## Use instead
    ```yaml
    spec:
      selector:
      - matchExpressions: [{key: example.com/tier, operator: In, values: [general]}]
    ```

    ## Fix
    Correct the selector, or add the pool it is meant for to the inventory. A policy prepared ahead of a node
    group can carry `allocatable.dev/ignore: "AL104: node group arrives with ticket OPS-123"`.
    """

    code = "AL104"
    name = "selector-matches-no-pool"
    severity = "warning"
    summary = "a CommitClass or ReservationPolicy selector matches no pool in the inventory"

    # Complexity: O(CommitClasses + ReservationPolicies + their selector terms): whether a policy selects a pool is a
    # lookup.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        if not ctx.model.pools:
            return
        p = ctx.load.policies
        pools = ctx.model.pools
        matched = (
            f"the selector does not match the only pool, {pools[0].pool.ref}"
            if len(pools) == 1
            else f"the selector matches none of the {len(pools)} pools"
        )
        policies: list[Selecting] = [*p.commit_classes, *p.reservation_policies]
        for loaded in policies:
            if ctx.model.selects_any(loaded):
                continue
            terms = to_terms(loaded.model.spec.selector)
            if terms and all(unsatisfiable_reason(t) is not None for t in terms):
                continue  # AL106 says why
            yield self.finding(
                f"{matched}: this {loaded.kind} applies to no node",
                source=loaded.source,
                obj=loaded.ref,
                field_path=("spec", "selector"),
                hint="compare its labels with the pools' (allocatable explain -o json lists them)",
            )
