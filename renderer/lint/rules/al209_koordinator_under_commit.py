from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.koordinator import AMPLIFIED
from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register


@register
class KoordinatorUnderCommit(Rule):
    """
    ## What it does
    When Koordinator output is enabled (`render.koordinator: true` in `.allocatable.yaml`), reports every
    resource of a CommitClass committed below 100%.

    ## Why is this bad?
    Koordinator delivers a commit level as a resource-amplification ratio, and it rejects ratios below 1: it
    can raise what a node advertises, never lower it. `allocatable render` therefore leaves a class with any
    resource below 100% out of Koordinator's configuration altogether — including an over-commit the same class
    has for another resource (cpu 200% with memory 90% delivers neither). A reader of the class would believe
    Koordinator enforces levels it never receives.

    ## Example
    ```yaml
    # .allocatable.yaml: render: {koordinator: true}
    resources:
    - name: cpu
      percent: 200
    - name: memory
      percent: 90
    ```

    ## Use instead
    ```yaml
    resources:
    - name: cpu
      percent: 200
    - name: memory
      percent: 100   # Koordinator carries over-commit only
    ```

    ## Fix
    Keep under-commit out of classes meant for Koordinator. For a class that is an under-commit on purpose,
    deliver it another way and record that on the class:
    `allocatable.dev/ignore: "AL209: <how the headroom reaches the nodes>"`; or turn Koordinator output off.
    """

    code = "AL209"
    name = "koordinator-under-commit"
    severity = "error"
    summary = "Koordinator output is enabled and a CommitClass percent is below 100 (ratios < 1 are rejected)"

    # Complexity: O(CommitClasses × resources they list).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        if not ctx.settings.render.koordinator:
            return
        for cc in ctx.load.policies.commit_classes:
            percents = cc.model.percents()
            lost = [f"{r} {percents[r]}%" for r in AMPLIFIED if percents[r] > 100]
            also = f", and its {', '.join(lost)} with it" if lost else ""
            for i, res in enumerate(cc.model.spec.resources):
                if res.percent >= 100:
                    continue
                why = (
                    f"ratio {res.percent / 100:.2f} < 1"
                    if res.name in AMPLIFIED
                    else "it amplifies cpu and memory only"
                )
                yield self.finding(
                    f"{res.name} at {res.percent}%: Koordinator cannot deliver an under-commit ({why}), so render "
                    f"leaves the class out{also}",
                    source=cc.source,
                    obj=cc.ref,
                    field_path=("spec", "resources", i, "percent"),
                    hint='keep under-commit out of Koordinator classes, or record how it is delivered: "AL209: <how>"',
                )
