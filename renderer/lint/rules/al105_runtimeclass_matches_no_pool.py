from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.rule import LintContext, Rule, register


@register
class RuntimeClassMatchesNoPool(Rule):
    """
    ## What it does
    Reports a RuntimeClass whose `scheduling.nodeSelector` matches no pool of the inventory.

    ## Why is this bad?
    The scheduler adds the RuntimeClass's `scheduling.nodeSelector` to every pod that uses the class. When no
    node carries those labels, every such pod stays Pending with "didn't match Pod's node affinity/selector".

    ## Example
    ```yaml
    kind: RuntimeClass
    metadata: {name: kata}
    handler: kata-qemu
    scheduling:
      nodeSelector:
        katacontainers.io/kata-runtime: "yes"   # kata-deploy sets "true"
    ```

    ## Use instead
    ```yaml
    scheduling:
      nodeSelector:
        katacontainers.io/kata-runtime: "true"
    ```

    ## Fix
    Correct the label in the nodeSelector or label the pool that has the runtime installed.
    """

    code = "AL105"
    name = "runtimeclass-matches-no-pool"
    severity = "warning"
    summary = "a RuntimeClass scheduling.nodeSelector matches no pool"

    # Complexity: O(RuntimeClasses): whether a class selects a pool is a lookup in the model's matches.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        if not ctx.model.pools:
            return
        for rc in ctx.load.policies.runtime_classes:
            selector = (rc.model.scheduling.nodeSelector if rc.model.scheduling else None) or {}
            if not selector or ctx.model.selects_any(rc):
                continue
            shown = ", ".join(f"{k}={v}" for k, v in sorted(selector.items()))
            yield self.finding(
                f"no pool has the labels {{{shown}}}: pods of this RuntimeClass stay Pending",
                source=rc.source,
                obj=rc.ref,
                field_path=("scheduling", "nodeSelector"),
                hint="correct the nodeSelector, or label the pools that have the runtime",
            )
