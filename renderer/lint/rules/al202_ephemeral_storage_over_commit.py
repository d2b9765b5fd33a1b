from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register


@register
class EphemeralStorageOverCommit(Rule):
    """
    ## What it does
    Reports a CommitClass that advertises more than 100% of a node's ephemeral storage.

    ## Why is this bad?
    Disk space is not compressible either. When pods use the local storage they requested and the node's disk
    fills, the kubelet evicts pods under DiskPressure (nodefs.available) and the node stops taking new pods,
    often taking the image cache and container logs down with it. Unlike CPU, there is no throttling to fall back
    on.

    ## Example
    ```yaml
    resources:
    - name: ephemeral-storage
      percent: 150
    ```

    ## Use instead
    ```yaml
    resources:
    - name: ephemeral-storage
      percent: 100   # or leave it out: unlisted resources stay at 100%
    ```

    ## Fix
    Set ephemeral-storage to 100% or below, and give pods that need more scratch space a larger volume
    (a bigger root disk or a generic ephemeral volume) instead.
    """

    code = "AL202"
    name = "ephemeral-storage-over-commit"
    severity = "error"
    summary = "CommitClass over-commits ephemeral-storage (> 100%), which is not compressible"

    # Complexity: O(CommitClasses × resources they list).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for cc in ctx.load.policies.commit_classes:
            for i, res in enumerate(cc.model.spec.resources):
                if res.name == "ephemeral-storage" and res.percent > 100:
                    yield self.finding(
                        f"ephemeral-storage over-committed at {res.percent}%: pods that use their requests get "
                        "evicted under DiskPressure",
                        source=cc.source,
                        obj=cc.ref,
                        field_path=("spec", "resources", i, "percent"),
                        hint="set ephemeral-storage to 100% or below",
                    )
