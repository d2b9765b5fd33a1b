from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register


@register
class MemoryOverCommit(Rule):
    """
    ## What it does
    Reports a CommitClass that advertises more than 100% of a node's memory.

    ## Why is this bad?
    Memory is not compressible. CPU time can be shared out more thinly when pods burst together; memory cannot,
    so when over-committed pods use what they requested, the kernel's OOM killer or kubelet eviction decides which
    of them dies. The CommitClass proposal's own example (120% memory) shows how easy the mistake is.

    ## Example
    ```yaml
    resources:
    - name: memory
      percent: 120
    ```

    ## Use instead
    ```yaml
    resources:
    - name: memory
      percent: 100   # or leave memory out: unlisted resources stay at 100%
    ```

    ## Fix
    Set memory to 100% or below. If you accept the risk for a batch-only pool, suppress it on the object with a
    reason: `allocatable.dev/ignore: "AL201: <why this pool can take it>"`.
    """

    code = "AL201"
    name = "memory-over-commit"
    severity = "error"
    summary = "CommitClass over-commits memory (> 100%), which is not compressible"

    # Complexity: O(CommitClasses × resources they list).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for cc in ctx.load.policies.commit_classes:
            for i, res in enumerate(cc.model.spec.resources):
                if res.name == "memory" and res.percent > 100:
                    yield self.finding(
                        f"memory over-committed at {res.percent}%: pods that use their requests get OOM-killed",
                        source=cc.source,
                        obj=cc.ref,
                        field_path=("spec", "resources", i, "percent"),
                        hint="set memory to 100% or below",
                    )
