from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register


@register
class CpuCommitCeiling(Rule):
    """
    ## What it does
    Reports a CommitClass whose cpu percent is above the repo's ceiling, `thresholds.cpuCommitCeilingPercent` in
    `.allocatable.yaml` (default 400).

    ## Why is this bad?
    CPU is compressible, so over-committing it is a legitimate tool, but each step up multiplies the contention
    when pods burst together: at 1000% a node promises ten times the CPU it has, and a busy node throttles every
    container to a tenth of its request. Latency-sensitive pods miss their deadlines, liveness probes time out
    and pods restart. The CommitClass proposal lists "cpu over-commit beyond physical CPUs" as an open risk.

    ## Example
    ```yaml
    resources:
    - name: cpu
      percent: 1000
    ```

    ## Use instead
    ```yaml
    resources:
    - name: cpu
      percent: 300
    ```

    ## Fix
    Lower the percent, or, when a pool really runs above the ceiling (batch pools with measured low usage),
    record why on the class: `allocatable.dev/ignore: "AL203: batch-only pool, measured p99 cpu use 8%"`. Raise
    the ceiling in `.allocatable.yaml` only when it is wrong for the whole repo.
    """

    code = "AL203"
    name = "cpu-commit-ceiling"
    severity = "warning"
    summary = "CommitClass cpu percent is above thresholds.cpuCommitCeilingPercent (default 400)"

    # Complexity: O(CommitClasses × resources they list).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        ceiling = ctx.settings.thresholds.cpuCommitCeilingPercent
        for cc in ctx.load.policies.commit_classes:
            for i, res in enumerate(cc.model.spec.resources):
                if res.name == "cpu" and res.percent > ceiling:
                    yield self.finding(
                        f"cpu committed at {res.percent}%, above the ceiling of {ceiling}%: pods bursting together get "
                        f"about {100 * 100 // res.percent}% of their requests",
                        source=cc.source,
                        obj=cc.ref,
                        field_path=("spec", "resources", i, "percent"),
                        hint=f'lower it to {ceiling}%, or say why the pool takes it: "AL203: <reason>"',
                    )
