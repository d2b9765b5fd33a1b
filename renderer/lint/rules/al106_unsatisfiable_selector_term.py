from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.matching import to_terms
from renderer.capacity.selectors import unsatisfiable_reason
from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register
from renderer.lint.selectorchecks import Selecting


@register
class UnsatisfiableSelectorTerm(Rule):
    """
    ## What it does
    Reports a node selector term of a CommitClass or ReservationPolicy that no node can ever satisfy, and says
    which requirements contradict each other (e.g. `env In [prod]` with `env NotIn [prod]`, `cpu Gt 8` with
    `cpu Lt 4`, `zone In [a]` with `zone DoesNotExist`, or `Lt 0`, which no label value can meet).

    ## Why is this bad?
    Kubernetes accepts such a term and silently never matches it. It is dead configuration that looks like it
    does something, and it usually hides a mistake (a wrong operator, a swapped bound).

    ## Example
    ```yaml
    - matchExpressions:
      - {key: example.com/cores, operator: Gt, values: ["32"]}
      - {key: example.com/cores, operator: Lt, values: ["16"]}
    ```

    ## Use instead
    ```yaml
    - matchExpressions:
      - {key: example.com/cores, operator: Gt, values: ["16"]}
      - {key: example.com/cores, operator: Lt, values: ["32"]}
    ```

    ## Fix
    Correct the contradicting requirements, or delete the term.
    """

    code = "AL106"
    name = "unsatisfiable-selector-term"
    severity = "warning"
    summary = "a node selector term can never match any node"

    # Complexity: O(selector terms): each distinct term is compiled (and its satisfiability decided) once.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        p = ctx.load.policies
        policies: list[Selecting] = [*p.commit_classes, *p.reservation_policies]
        for loaded in policies:
            for i, term in enumerate(to_terms(loaded.model.spec.selector)):
                reason = unsatisfiable_reason(term)
                if reason is None:
                    continue
                yield self.finding(
                    f"selector term {i + 1} can never match a node: {reason}",
                    source=loaded.source,
                    obj=loaded.ref,
                    field_path=("spec", "selector", i),
                    hint="correct the requirements or delete the term",
                )
