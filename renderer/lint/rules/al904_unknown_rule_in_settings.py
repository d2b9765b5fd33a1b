from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import closest_code
from renderer.lint.rule import LintContext, Rule, register


@register
class UnknownRuleInSettings(Rule):
    """
    ## What it does
    Reports a key under `rules:` in `.allocatable.yaml` that is not the code of a rule (a lint rule or a code of
    the render stage), or that names a code which cannot be configured: validation errors (AL001-AL006) and the
    render errors that leave no correct file to write (AL801, AL802, AL804, AL805, AL807, AL808, AL809); the
    message says why.

    ## Why is this bad?
    The setting does nothing: the rule you meant to switch off or re-grade keeps its default, and the typo
    stays unnoticed (`AL230` for `AL203`). It can also be a rule that a newer or older version of the tool has
    and this one has not.

    ## Example
    ```yaml
    rules:
      AL230: {enabled: false}
    ```

    ## Use instead
    ```yaml
    rules:
      AL203: {enabled: false}
    ```

    ## Fix
    Use a code from `allocatable rules`, or remove the entry.
    """

    code = "AL904"
    name = "unknown-rule-in-settings"
    severity = "error"
    summary = "a rules entry in .allocatable.yaml names no known rule, or one that cannot be configured"

    # Complexity: O(entries under rules in .allocatable.yaml).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        source = ctx.load.policies.settings_source
        if source is None:
            return
        configurable = sorted({*ctx.known_codes, *(c for c, why in ctx.other_codes.items() if why is None)})
        for code in ctx.settings.rules:
            if code in configurable:
                continue
            fixed = ctx.other_codes.get(code)
            if fixed is not None:
                message, hint = f"rules.{code} cannot be configured: {fixed}", "remove the entry"
            else:
                guess = closest_code(code, configurable)
                message = f"rules.{code} names no rule: the setting does nothing"
                hint = f"did you mean {guess}?" if guess else "see `allocatable rules` for the codes"
            yield self.finding(
                message, source=source, obj="Settings", field_path=("rules", code), at_key=True, hint=hint
            )
