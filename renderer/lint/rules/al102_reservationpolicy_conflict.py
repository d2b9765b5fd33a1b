from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import NAME_PATH, plural
from renderer.lint.rule import LintContext, Rule, register
from renderer.lint.selectorchecks import conflicts


@register
class ReservationPolicyConflict(Rule):
    """
    ## What it does
    Reports a pool of the inventory that more than one ReservationPolicy selects, and names the policies and the
    labels that make each of them match.

    ## Why is this bad?
    A node runs one kubelet with one configuration. Two policies for the same node mean two competing kubelet
    configurations (on OpenShift, two KubeletConfigs for one MachineConfigPool, which the Machine Config Operator
    merges in an order nobody reviews). `allocatable` applies neither of them to that pool until one remains.

    ## Example
    ```yaml
    kind: ReservationPolicy
    metadata: {name: eks-static}
    spec:
      selector:
      - matchExpressions: [{key: eks.amazonaws.com/nodegroup, operator: Exists}]
    ---
    kind: ReservationPolicy
    metadata: {name: gpu-nodes}
    spec:
      selector:
      - matchExpressions: [{key: eks.amazonaws.com/nodegroup, operator: In, values: [gpu]}]
    ```

    ## Use instead
    ```yaml
    kind: ReservationPolicy
    metadata: {name: eks-static}
    spec:
      selector:
      - matchExpressions:
        - {key: eks.amazonaws.com/nodegroup, operator: Exists}
        - {key: eks.amazonaws.com/nodegroup, operator: NotIn, values: [gpu]}
    ```

    ## Fix
    Make the selectors exclusive, or change the pool's labels. The finding points at the pool; an
    `allocatable.dev/ignore: "AL102: <reason>"` annotation on the pool or on one of the policies suppresses it.
    """

    code = "AL102"
    name = "reservationpolicy-conflict"
    severity = "error"
    summary = "a pool is selected by more than one ReservationPolicy"

    # Complexity: O(pools + Σ ReservationPolicies selecting each pool + findings): conflicts come from the model's
    # matches.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for c in conflicts(ctx, "ReservationPolicy"):
            named = "; ".join(f"{p.name} ({why})" for p, why in zip(c.policies, c.reasons, strict=True))
            yield self.finding(
                f"{plural(len(c.policies), 'ReservationPolicy', 'ReservationPolicies')} select this pool, so none "
                f"applies: {named}",
                source=c.pool.pool.source,
                obj=c.pool.pool.ref,
                field_path=NAME_PATH,
                hint="make the selectors exclusive, or change the pool's labels",
                related=[p.ref for p in c.policies],
            )
