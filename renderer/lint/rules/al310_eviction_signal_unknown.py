from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import closest, eviction_maps
from renderer.lint.rule import LintContext, Rule, register
from renderer.models.kubelet_fields import EVICTION_SIGNALS


@register
class EvictionSignalUnknown(Rule):
    """
    ## What it does
    Reports a key of `evictionHard`, `evictionSoft`, `evictionSoftGracePeriod` or
    `kubelet.evictionMinimumReclaim` that is not an eviction signal the kubelet knows: `memory.available`,
    `nodefs.available`, `nodefs.inodesFree`, `imagefs.available`, `imagefs.inodesFree`,
    `containerfs.available`, `containerfs.inodesFree`, `allocatableMemory.available`, `pid.available`.

    ## Why is this bad?
    The kubelet rejects the configuration at start (`unsupported eviction signal memory.availble`) and the node
    never becomes Ready.

    ## Example
    ```yaml
    evictionHard:
      memory.availble: 100Mi
    ```

    ## Use instead
    ```yaml
    evictionHard:
      memory.available: 100Mi
    ```

    ## Fix
    Use one of the signal names above (they are case-sensitive).
    """

    code = "AL310"
    name = "eviction-signal-unknown"
    severity = "error"
    summary = "an eviction map uses a signal the kubelet does not know"

    # Complexity: O(ReservationPolicies × eviction signals).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            for name, values, path in eviction_maps(rp.model):
                for signal in values:
                    if signal in EVICTION_SIGNALS:
                        continue
                    guess = closest(str(signal), EVICTION_SIGNALS)
                    yield self.finding(
                        f"the kubelet refuses to start: unsupported eviction signal {signal} (in {name})",
                        source=rp.source,
                        obj=rp.ref,
                        field_path=(*path, signal),
                        at_key=True,
                        hint=f'did you mean "{guess}"?' if guess else f"valid signals: {', '.join(EVICTION_SIGNALS)}",
                    )
