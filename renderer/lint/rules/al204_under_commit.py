from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register


@register
class UnderCommit(Rule):
    """
    ## What it does
    Reports (as information) every resource a CommitClass commits below 100%, and says how the reserved slices
    are treated: `commit.underCommitScalesReserved` in `.allocatable.yaml` decides whether systemReserved,
    kubeReserved and hard eviction shrink with the class (`true`, the default) or stay whole (`false`).

    ## Why is this bad?
    It is not necessarily bad: under-commit is how a team buys headroom for latency-critical services. But it
    hands out less than the nodes have, and the CommitClass proposal leaves open what happens to the reserved
    slices. Making the chosen rule visible in every review avoids surprises in capacity planning: with
    `underCommitScalesReserved: true` a 90% class on a node with 2 reserved cores advertises
    (capacity − 2) × 90%; with `false`, capacity × 90% − 2.

    ## Example
    ```yaml
    resources:
    - name: cpu
      percent: 90
    ```

    ## Use instead
    ```yaml
    resources:
    - name: cpu
      percent: 90   # intended headroom: nothing to change; the finding is informational
    ```

    ## Fix
    Nothing, if the headroom is intended; check that `commit.underCommitScalesReserved` says what you mean.
    Disable the rule in `.allocatable.yaml` (`rules: {AL204: {enabled: false}}`) if the reminder is not useful.
    """

    code = "AL204"
    name = "under-commit"
    severity = "info"
    summary = "CommitClass commits a resource below 100%; states whether reserved slices scale"

    # Complexity: O(CommitClasses × resources they list).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        scales = ctx.settings.commit.underCommitScalesReserved
        rule = (
            "reserved slices scale with it (commit.underCommitScalesReserved)"
            if scales
            else "reserved slices do not scale (commit.underCommitScalesReserved: false)"
        )
        for cc in ctx.load.policies.commit_classes:
            for i, res in enumerate(cc.model.spec.resources):
                if res.percent < 100:
                    yield self.finding(
                        f"{res.name} under-committed at {res.percent}%: {rule}",
                        source=cc.source,
                        obj=cc.ref,
                        field_path=("spec", "resources", i, "percent"),
                    )
