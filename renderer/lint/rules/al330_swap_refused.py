from __future__ import annotations

from collections.abc import Iterator

from renderer.findings import Finding
from renderer.lint.helpers import KubeletView
from renderer.lint.rule import LintContext, Rule, register


@register
class SwapRefused(Rule):
    """
    ## What it does
    Reports a ReservationPolicy that gives workloads swap (`memorySwap.swapBehavior: LimitedSwap`) while
    `failSwapOn` stays true (its default): on the nodes with swap the policy is written for, the kubelet stops at
    start with `running with swap on is not supported, please disable swap! or set --fail-swap-on flag to false`
    (kubernetes `pkg/kubelet/cm/container_manager_linux.go` `validateSwapConfiguration`, the case
    "swap_is_enabled_fail_on" of its test).

    The kubelet has no start-up rule tying swap to a hard `memory.available` eviction threshold
    (`ValidateKubeletConfiguration` checks only that `swapBehavior` is `""`, `NoSwap` or `LimitedSwap`;
    `pkg/kubelet/apis/config/validation/validation.go` at 001332b0422071acf4860769f18e34b5e9b7c1bc): a missing
    threshold is AL208's warning, not a refusal.

    ## Why is this bad?
    The kubelet exits on every node that has swap turned on: the pool never becomes Ready.

    ## Example
    ```yaml
    spec:
      kubelet:
        memorySwap: {swapBehavior: LimitedSwap}
    ```

    ## Use instead
    ```yaml
    spec:
      kubelet:
        failSwapOn: false
        memorySwap: {swapBehavior: LimitedSwap}
    ```

    ## Fix
    Set `failSwapOn: false` beside `swapBehavior: LimitedSwap`, or leave swap off on the nodes (`NoSwap`).
    """

    code = "AL330"
    name = "swap-refused"
    severity = "error"
    summary = "swapBehavior LimitedSwap while failSwapOn stays true: the kubelet refuses hosts with swap"

    # Complexity: O(ReservationPolicies).
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            view = KubeletView(rp.model)
            swap = view.get("memorySwap")
            if swap is None or not isinstance(swap.value, dict) or swap.value.get("swapBehavior") != "LimitedSwap":
                continue
            fail = view.get("failSwapOn")
            if fail is not None and fail.value is False:
                continue
            yield self.finding(
                "the kubelet refuses to start on the nodes with swap that LimitedSwap is for: running with swap on "
                "is not supported, please disable swap! or set --fail-swap-on flag to false"
                + (" (failSwapOn is true)" if fail is not None else " (failSwapOn defaults to true)"),
                source=rp.source,
                obj=rp.ref,
                field_path=fail.path if fail is not None else (*swap.path, "swapBehavior"),
                hint="set failSwapOn: false",
            )
