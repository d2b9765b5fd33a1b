from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.koordinator import AMPLIFIED
from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register


@register
class CommitNotDelivered(Rule):
    """
    ## What it does
    Reports a CommitClass that changes what nodes advertise (a percent other than 100) when no render target
    delivers that change to the cluster.

    ## Why is this bad?
    A commit level reaches the nodes only through something that acts on it: Koordinator's resource amplification
    (the `koordinator` target, over-commit of cpu and memory only) or an implementation of the CommitClass API (the
    `commitclasses` target). With neither, `allocatable render` writes nothing for the class, `explain` and `diff`
    show the new allocatable, and the nodes keep advertising their kubelet allocatable: the reviewer of a change
    from 150% to 300% sees a capacity change that never happens.

    ## Example
    ```yaml
    # .allocatable.yaml: render: {koordinator: false}, no commitclasses target
    resources:
    - name: cpu
      percent: 300
    ```

    ## Use instead
    ```yaml
    # .allocatable.yaml
    render:
      koordinator: true   # Koordinator installed, koord-manager's NodeMutatingWebhook gate on
    ```

    ## Fix
    Turn on the delivery your cluster has: `render.koordinator: true` for Koordinator (cpu and memory over-commit),
    or add `commitclasses` to `render.targets` for a cluster that implements the CommitClass API. Ephemeral-storage
    above 100% has no Koordinator form. A class kept only as documentation can say so:
    `allocatable.dev/ignore: "AL214: <why>"`.
    """

    code = "AL214"
    name = "commit-not-delivered"
    severity = "warning"
    summary = "a CommitClass changes what nodes advertise, but no render target delivers it"

    # Complexity: O(CommitClasses × resources they list).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        render = ctx.settings.render
        targets = render.targets
        if targets is not None and "commitclasses" in targets:
            return  # the CommitClass objects themselves are delivered, for an implementation of the API
        koordinator = render.koordinator and (targets is None or "koordinator" in targets)
        for cc in ctx.load.policies.commit_classes:
            resources = cc.model.spec.resources
            if koordinator and any(r.percent < 100 for r in resources):
                continue  # AL209 reports the class Koordinator leaves out
            lost = [
                (i, r)
                for i, r in enumerate(resources)
                if r.percent != 100 and not (koordinator and r.name in AMPLIFIED and r.percent > 100)
            ]
            if not lost:
                continue
            levels = ", ".join(f"{r.name} {r.percent}%" for _, r in lost)
            if koordinator:
                why = "Koordinator amplifies cpu and memory only"
                fix = "deliver it another way and record how (allocatable.dev/ignore), or keep it at 100"
            else:
                why = "render.koordinator is off, no commitclasses target"
                fix = "set render.koordinator: true, or add commitclasses to render.targets"
            yield self.finding(
                f"{levels} reaches no node: no render target delivers it ({why})",
                source=cc.source,
                obj=cc.ref,
                field_path=("spec", "resources", lost[0][0], "percent"),
                hint=fix,
            )
