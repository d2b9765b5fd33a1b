from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

from renderer.capacity.model import RESOURCES, PoolCapacity
from renderer.findings import Finding, Severity
from renderer.lint.helpers import Blame, blame_capacity, describe_pools, plural, reservation_breakdown
from renderer.lint.rule import LintContext, Rule, register
from renderer.units import of, readable


@register
class CommittedAllocatableTooSmall(Rule):
    """
    ## What it does
    Reports a pool whose committed allocatable — what its nodes advertise after reservations, hard eviction,
    huge pages and the CommitClass percent — is zero or less for cpu, memory or ephemeral-storage (error), or
    below `thresholds.minCommittedShareOfCapacityPercent` of the node's capacity (warning; default 50%, 0
    turns the warning off).

    The finding points at what shrinks the pool most: the CommitClass percent for an under-commit, otherwise the
    largest reservation in the pool's ReservationPolicy, otherwise the pool's capacity. Pools sharing that cause
    are reported together. Pools whose reservation exceeds capacity are left to AL206.

    ## Why is this bad?
    A node that advertises nothing of a resource cannot run any pod that requests it; a node that advertises a
    small share of itself wastes most of what it costs. Both usually come from a typo (`percent: 10` for 100,
    `memory: 30Gi` reserved on a 32Gi node) or a policy selecting much smaller nodes than it was written for.

    ## Example
    ```yaml
    # 8 GiB nodes
    kubeReserved:
      memory: 6Gi
    ```

    ## Use instead
    ```yaml
    kubeReserved:
      memory: 1Gi
    ```

    ## Fix
    Correct the percent or the reservation, or narrow the policy's selector to the nodes it was sized for.
    """

    code = "AL205"
    name = "committed-allocatable-too-small"
    severity = "error"
    summary = "committed allocatable of a pool is ≤ 0, or below thresholds.minCommittedShareOfCapacityPercent"

    # Complexity: O(pools × resources + findings): pools with the same blamed field are grouped into one finding.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        min_share = Decimal(ctx.settings.thresholds.minCommittedShareOfCapacityPercent)
        groups: dict[tuple[str, tuple[object, ...], str, Severity], tuple[Blame, list[tuple[PoolCapacity, str]]]] = {}
        for pc in ctx.model.pools:
            for resource in RESOURCES:
                cap = pc.capacity.get(resource)
                committed = pc.committed.get(resource)
                if cap is None or committed is None:
                    continue
                if pc.reserved_total(resource) > cap:
                    continue  # AL206
                level: Severity
                if committed.is_zero():
                    level = "error"
                    detail = (
                        f"{pc.pool.ref} advertises no {resource} (capacity {readable(cap, resource)}, "
                        f"{reservation_breakdown(pc, resource)}, at {pc.percent[resource]}%)"
                    )
                elif min_share > 0 and not cap.is_zero() and committed.value * 100 < cap.value * min_share:
                    level = "warning"
                    share = (committed.value * 100 / cap.value).quantize(Decimal("0.1"))
                    detail = (
                        f"{pc.pool.ref} advertises {share}% of its {resource} ({of(committed, cap, resource)}; "
                        f"{reservation_breakdown(pc, resource)}, at {pc.percent[resource]}%)"
                    )
                else:
                    continue
                blame = blame_capacity(pc, resource, percent_first=True)
                key = (blame.obj, tuple(blame.field_path), resource, level)
                groups.setdefault(key, (blame, []))[1].append((pc, detail))
        for (_, _, resource, level), (blame, items) in groups.items():
            pools = [pc for pc, _ in items]
            more = (
                f" (and {plural(len(items) - 1, 'more pool')}: {describe_pools(pools[1:])})" if len(items) > 1 else ""
            )
            if level == "error":
                message = f"{items[0][1]}{more}: no pod that requests {resource} fits"
                hint = "reduce the reservation or raise the percent"
            else:
                message = f"{items[0][1]}{more}, below the minimum of {min_share}%"
                hint = "check the percent and the reservations for a typo"
            yield self.finding(
                message,
                source=blame.source,
                obj=blame.obj,
                field_path=blame.field_path,
                severity=level,
                hint=hint,
                related=blame.related,
            )
