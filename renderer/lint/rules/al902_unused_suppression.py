from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register
from renderer.lint.suppression import ANNOTATION, ANNOTATION_PATH


@register
class UnusedSuppression(Rule):
    """
    ## What it does
    Reports an `allocatable.dev/ignore` entry that suppressed nothing in this run: the rule it names reported
    nothing on the object (or on anything the object causes). Entries for rules that did not run — switched off
    in `.allocatable.yaml`, or AL210 without `--base` — are not reported.

    ## Why is this bad?
    A stale suppression hides the next real finding of that rule on the object, silently. It usually means the
    problem was fixed (good: remove the annotation) or the code is wrong (`AL230` for `AL203`).

    ## Example
    ```yaml
    # cpu percent was lowered to 300, below the ceiling
    allocatable.dev/ignore: "AL203: batch-only pool"
    ```

    ## Use instead
    ```yaml
    # annotation removed
    ```

    ## Fix
    Remove the entry (or the whole annotation), or correct the code.
    """

    code = "AL902"
    name = "unused-suppression"
    severity = "warning"
    summary = "an allocatable.dev/ignore entry suppresses nothing"
    phase = "after"

    # Complexity: O(suppressions).
    def check_after(self, ctx: LintContext, findings: list[Finding]) -> Iterator[Finding]:
        if ctx.suppressions is None:
            return
        skipped = ctx.skipped_rules
        for s in ctx.suppressions.all():
            if s.used or s.code in skipped:
                continue
            yield self.finding(
                f'{ANNOTATION} suppresses {s.code} ("{s.reason}"), but {s.code} reports nothing here',
                source=s.source,
                obj=s.obj,
                field_path=ANNOTATION_PATH,
                hint=f"remove {s.code} from the annotation before it hides a real finding",
            )
