from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register
from renderer.validation.validate import Loaded


@register
class NoInventory(Rule):
    """
    ## What it does
    Reports a policy repo that has CommitClasses, ReservationPolicies or RuntimeClasses but no inventory: no
    NodePool and no exported Node.

    ## Why is this bad?
    Most checks compare policies with the pools they select: conflicts between classes (AL101/AL102), selectors
    that match nothing (AL104/AL105), capacity arithmetic (AL205-AL207, AL212). Without an inventory they have
    nothing to look at, and a clean lint run would only mean that nothing could be checked.

    ## Example
    ```text
    policies/
      commitclasses/burst.yaml
      reservations/eks.yaml
    ```

    ## Use instead
    ```text
    policies/
      commitclasses/burst.yaml
      reservations/eks.yaml
      pools/eks.yaml              # NodePools describing the node groups
      inventory/nodes.yaml        # and/or `kubectl get nodes -o yaml`
    ```

    ## Fix
    Describe the node groups as NodePools, or export nodes with `kubectl get nodes -o yaml` into the repo.
    """

    code = "AL107"
    name = "no-inventory"
    severity = "warning"
    summary = "the repo has policies but no NodePool or Node to check them against"

    # Complexity: O(1).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        p = ctx.load.policies
        if p.pools:
            return
        policies: list[Loaded[Any]] = [*p.commit_classes, *p.reservation_policies, *p.runtime_classes]
        first = policies[0] if policies else None
        if first is None:
            return
        yield self.finding(
            "no NodePool or Node in the repo: selectors and capacity are checked against nothing",
            source=first.source,
            obj=first.ref,
            field_path=(),
            hint="add NodePools, or kubectl get nodes -o yaml output",
        )
