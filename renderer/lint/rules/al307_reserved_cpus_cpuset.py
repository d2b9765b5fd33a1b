from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.cpuset import parse_cpuset
from renderer.findings import Finding
from renderer.lint.helpers import KubeletView, describe_pools, plural
from renderer.lint.rule import LintContext, Rule, register


@register
class ReservedCpusCpuset(Rule):
    """
    ## What it does
    Reports a `reservedSystemCPUs` value that is not a valid Linux CPU list (`0-1,4`: CPU numbers and ascending
    ranges separated by commas, no spaces), and a list that names CPUs some selected pool does not have.

    ## Why is this bad?
    The kubelet parses the list at start and exits on a malformed one (`unable to parse reservedSystemCPUs
    (--reserved-cpus) "0-1, 4"`). A CPU number beyond the node's CPU count cannot be reserved: the CPU manager
    fails to start on that node.

    ## Example
    ```yaml
    reservedSystemCPUs: "0-1, 4"
    ```

    ## Use instead
    ```yaml
    reservedSystemCPUs: "0-1,4"
    ```

    ## Fix
    Write the list without spaces, ranges low-high, CPU numbers below the node's CPU count.
    """

    code = "AL307"
    name = "reserved-cpus-cpuset"
    severity = "error"
    summary = "reservedSystemCPUs is not a valid CPU list, or names CPUs a selected pool does not have"

    # Complexity: O(ReservationPolicies + Σ pools each one selects): the cpuset is parsed once per policy.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        for rp in ctx.load.policies.reservation_policies:
            got = KubeletView(rp.model).get("reservedSystemCPUs")
            if got is None or not isinstance(got.value, str):
                continue
            ranges, problem = parse_cpuset(got.value)
            if ranges is None:
                yield self.finding(
                    f'the kubelet refuses to start: unable to parse reservedSystemCPUs (--reserved-cpus) "{got.value}": '
                    f"{problem}",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=got.path,
                    hint='write numbers and ranges with commas, no spaces: "0-1,4"',
                )
                continue
            if not ranges:
                continue
            highest = max(end for _, end in ranges)
            small = [
                pc
                for pc in ctx.model.pools_selected_by(rp)
                if "cpu" in pc.capacity and highest >= int(pc.capacity["cpu"].value)
            ]
            if small:
                pc = min(small, key=lambda p: p.capacity["cpu"].value)
                others = [p for p in small if p is not pc]
                yield self.finding(
                    f"reservedSystemCPUs names CPU {highest}, but {pc.pool.ref} has only "
                    f"{pc.capacity['cpu']} CPUs (0-{int(pc.capacity['cpu'].value) - 1})"
                    + (
                        f" (and {plural(len(others), 'more selected pool')}: {describe_pools(others)})"
                        if others
                        else ""
                    )
                    + ": a CPU the node does not have",
                    source=rp.source,
                    obj=rp.ref,
                    field_path=got.path,
                    hint="reserve CPUs every selected pool has",
                    related=[p.pool.ref for p in small],
                )
