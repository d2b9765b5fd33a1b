from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.matching import to_terms
from renderer.capacity.selectors import format_requirement
from renderer.findings import Finding
from renderer.lint.helpers import plural
from renderer.lint.rule import LintContext, Rule, register
from renderer.lint.selectorchecks import Selecting


@register
class MatchFieldsOnNodePool(Rule):
    """
    ## What it does
    Reports a node selector term of a CommitClass or ReservationPolicy that uses `matchFields` while the
    inventory has NodePools. The scheduler supports one field, `metadata.name`, and compares it with each Node's
    own name; a NodePool describes nodes whose names are given when they are created, so the term cannot be
    evaluated for it. `allocatable` does not apply such a term to any NodePool (it never compares it with the
    pool's name: real nodes are not named after their pool), only to exported Nodes, whose names are known.

    ## Why is this bad?
    The policy looks like it covers the pool, but nothing in the repo can tell which of the pool's nodes it will
    select: the capacity the review shows for the pool is without it, and on the cluster it selects whatever
    nodes happen to carry that name.

    ## Example
    ```yaml
    selector:
    - matchFields:
      - {key: metadata.name, operator: In, values: [general]}   # the NodePool's name, not a node's
    ```

    ## Use instead
    ```yaml
    selector:
    - matchExpressions:
      - {key: example.com/tier, operator: In, values: [general]}
    ```

    ## Fix
    Select NodePools by their labels (`matchExpressions`). Keep `matchFields` for exported Nodes (one node by its
    name), or suppress this with `allocatable.dev/ignore: "AL108: <why>"` when the inventory's NodePools are not
    meant to be selected by it.
    """

    code = "AL108"
    name = "match-fields-on-nodepool"
    severity = "warning"
    summary = "a selector term with matchFields cannot be evaluated for NodePools (their node names are unknown)"

    # Complexity: O(selector terms + pools).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        p = ctx.load.policies
        nodepools = sum(1 for pool in p.pools if pool.origin == "NodePool")
        if not nodepools:
            return
        policies: list[Selecting] = [*p.commit_classes, *p.reservation_policies]
        for loaded in policies:
            for i, term in enumerate(to_terms(loaded.model.spec.selector)):
                if not term.fields:
                    continue
                shown = format_requirement(term.fields[0], field=True)
                yield self.finding(
                    f"selector term {i + 1} uses matchFields ({shown}): it selects none of the "
                    f"{plural(nodepools, 'NodePool', 'NodePools')}, whose node names are unknown",
                    source=loaded.source,
                    obj=loaded.ref,
                    field_path=("spec", "selector", i, "matchFields"),
                    hint="select NodePools by labels (matchExpressions)",
                )
