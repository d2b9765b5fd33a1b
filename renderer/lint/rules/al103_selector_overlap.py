"""AL103 decides overlap symbolically, per label key (the interval/set algebra of one key's requirements), and never
compares all pairs nor builds a product of values: ``renderer.lint.overlapsearch`` partitions the terms key by key
(absent, present, each value, integer ranges) and pairs only compatible classes; each candidate is then checked
exactly with ``selectors.overlap_witness``.

Complexity: O(Σ over the search's tasks of the constraints in them + candidate pairs): near-linear (n log n) when it
finds nothing, on the shapes of bench/selector_shapes.py (tests/rules/test_selector_cost.py bounds the work)."""

from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register
from renderer.lint.selectorchecks import Kind, conflicting_pairs, format_witness, overlapping_pairs, selecting


@register
class SelectorOverlap(Rule):
    """
    ## What it does
    Reports two CommitClasses (or two ReservationPolicies) whose selectors can both match the same node, although
    no pool in the inventory shows it yet. The message gives the smallest set of labels such a node would carry.

    Overlap is decided exactly, from the selector expressions, not by sampling. To stay quiet about selectors that
    merely live side by side, a pair is only reported when the two terms constrain at least one common label key
    and can still be satisfied together: `env In [prod]` next to `env Exists` + `owner In [ops]` is reported
    (a node `{env: prod, owner: ops}` matches both), `tier In [a]` next to `zone In [b]` is not. When the pair
    already selects a common pool, AL101/AL102 report it instead.

    ## Why is this bad?
    The inventory in git is a snapshot. The next node group created with the witness labels gets two commit
    levels (or two kubelet configurations), and the conflict only shows once the nodes exist.

    ## Example
    ```yaml
    kind: CommitClass
    metadata: {name: prod}
    spec:
      selector:
      - matchExpressions: [{key: env, operator: In, values: [prod]}]
    ---
    kind: CommitClass
    metadata: {name: ops}
    spec:
      selector:
      - matchExpressions:
        - {key: env, operator: Exists}
        - {key: owner, operator: In, values: [ops]}
    ```

    ## Use instead
    ```yaml
    kind: CommitClass
    metadata: {name: ops}
    spec:
      selector:
      - matchExpressions:
        - {key: env, operator: NotIn, values: [prod]}
        - {key: owner, operator: In, values: [ops]}
    ```

    ## Fix
    Add an expression to one selector that excludes the other's nodes (the witness in the message shows which
    labels to exclude). If the overlap is intended because such nodes will never exist, suppress it on either
    object: `allocatable.dev/ignore: "AL103: <why no node has these labels>"`.
    """

    code = "AL103"
    name = "selector-overlap"
    severity = "warning"
    summary = "two CommitClass or two ReservationPolicy selectors can match the same node"

    # Complexity: see the module docstring (near-linear when nothing overlaps; the findings themselves otherwise).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        kinds: tuple[Kind, ...] = ("CommitClass", "ReservationPolicy")
        for kind in kinds:
            skip = conflicting_pairs(ctx, kind)
            for o in overlapping_pairs(selecting(ctx, kind), skip):
                node = (
                    f"a node labelled {format_witness(o.witness)}"
                    if o.witness
                    else "a node that has none of the labels they name"
                )
                yield self.finding(
                    f"{o.first.ref} (term {o.first_term + 1}) also selects {node} (this term {o.second_term + 1}): "
                    + ("two commit levels" if kind == "CommitClass" else "two kubelet configurations"),
                    source=o.second.source,
                    obj=o.second.ref,
                    field_path=("spec", "selector", o.second_term),
                    hint="exclude these labels in one of the two selectors",
                    related=[o.first.ref],
                )
