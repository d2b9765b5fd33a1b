from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import closest_code
from renderer.lint.rule import LintContext, Rule, register
from renderer.lint.suppression import ANNOTATION, ANNOTATION_PATH


@register
class InvalidSuppression(Rule):
    """
    ## What it does
    Reports an `allocatable.dev/ignore` entry that cannot be used: text that does not start with a rule code
    (`AL` and three digits), a code no rule has, a code that cannot be suppressed (validation errors AL001-AL006,
    which stop lint before rules run, the AL9xx meta rules, and the render stage's AL8xx codes, which
    `.allocatable.yaml` configures instead), or a code listed twice on one object.

    ## Why is this bad?
    The entry silently does nothing, so the finding it was written for keeps appearing (or the annotation hides
    a typo that will confuse the next reader).

    ## Example
    ```yaml
    allocatable.dev/ignore: "cpu ceiling: batch pool"
    ```

    ## Use instead
    ```yaml
    allocatable.dev/ignore: "AL203: batch pool"
    ```

    ## Fix
    Start each entry with the rule code shown in the finding (`[AL203]`), then a colon and the reason;
    `allocatable rules` lists the codes.
    """

    code = "AL903"
    name = "invalid-suppression"
    severity = "warning"
    summary = "an allocatable.dev/ignore entry is unreadable, names an unknown code, or repeats one"
    phase = "after"

    # Complexity: O(suppression problems).
    def check_after(self, ctx: LintContext, findings: list[Finding]) -> Iterator[Finding]:
        if ctx.suppressions is None:
            return
        known = sorted(ctx.known_codes)
        suppressible = [c for c in known if not c.startswith("AL9")]
        for p in ctx.suppressions.problems:
            hint = 'entries look like "AL203: reason"'
            if p.kind == "no-reason":
                continue
            if p.kind == "unreadable":
                message = f'{ANNOTATION} entry "{p.text}" does not start with a rule code'
                hint = 'write "ALnnn: reason" entries, separated by commas'
            elif p.kind == "duplicate":
                message = f"{ANNOTATION} lists {p.code} more than once; only the first entry is used"
            elif p.code in known:
                message = f"{ANNOTATION} names {p.code}, a meta rule, which annotations cannot suppress"
                hint = "switch it off in .allocatable.yaml if you must"
            elif p.code is not None and p.code[2:4] == "00":
                message = f"{ANNOTATION} names {p.code}, a validation error, which cannot be suppressed"
                hint = "fix the file instead"
            elif p.code is not None and p.code in ctx.other_codes:
                fixed = ctx.other_codes[p.code]
                message = f"{ANNOTATION} names {p.code}, a render finding, which annotations do not suppress"
                hint = "configure it under rules in .allocatable.yaml" if fixed is None else f"it is fixed: {fixed}"
            else:
                message = f"{ANNOTATION} names {p.code}, which is not a rule code (see `allocatable rules`)"
                guess = closest_code(p.code or "", suppressible)
                if guess is not None:
                    hint = f"did you mean {guess}?"
            yield self.finding(message, source=p.source, obj=p.obj, field_path=ANNOTATION_PATH, hint=hint)
