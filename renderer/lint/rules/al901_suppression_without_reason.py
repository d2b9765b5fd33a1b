from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register
from renderer.lint.suppression import ANNOTATION, ANNOTATION_PATH


@register
class SuppressionWithoutReason(Rule):
    """
    ## What it does
    Reports an `allocatable.dev/ignore` entry that names a rule but gives no reason (`"AL203"` or `"AL203:"`).
    Such an entry is **not applied**: the finding it meant to silence is still reported.

    ## Why is this bad?
    A suppression is a decision to accept a risk on one object. Its reason is what reviewers approve and what
    the next person reads when the situation changes ("batch-only pool" stops being true). Without it the
    decision cannot be reviewed or revisited.

    ## Example
    ```yaml
    metadata:
      annotations:
        allocatable.dev/ignore: "AL203"
    ```

    ## Use instead
    ```yaml
    metadata:
      annotations:
        allocatable.dev/ignore: "AL203: batch-only pool, measured p99 cpu use 8%"
    ```

    ## Fix
    Write the reason after a colon. Several rules: `"AL203: reason, AL204: reason"`, or one reason for several:
    `"AL203, AL204: reason"`. Meta findings (AL9xx) cannot be suppressed by annotation; switch them off in
    `.allocatable.yaml` if you must.
    """

    code = "AL901"
    name = "suppression-without-reason"
    severity = "warning"
    summary = "an allocatable.dev/ignore entry has no reason, so it is not applied"
    phase = "after"

    # Complexity: O(suppression problems).
    def check_after(self, ctx: LintContext, findings: list[Finding]) -> Iterator[Finding]:
        if ctx.suppressions is None:
            return
        for p in ctx.suppressions.problems:
            if p.kind != "no-reason":
                continue
            yield self.finding(
                f'{ANNOTATION} "{p.text}" gives no reason: {p.code} is not suppressed',
                source=p.source,
                obj=p.obj,
                field_path=ANNOTATION_PATH,
                hint=f'write why it is acceptable here: "{p.code}: <reason>"',
            )
