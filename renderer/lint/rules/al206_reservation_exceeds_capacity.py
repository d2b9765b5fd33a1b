from __future__ import annotations

from collections.abc import Iterator

from renderer.capacity.model import RESOURCES, PoolCapacity
from renderer.findings import Finding
from renderer.lint.helpers import Blame, blame_capacity, describe_pools, plural, reservation_breakdown
from renderer.lint.rule import LintContext, Rule, register


@register
class ReservationExceedsCapacity(Rule):
    """
    ## What it does
    Reports a pool whose reservation for a resource — systemReserved + kubeReserved + the hard-eviction
    threshold, as the kubelet adds them up — is larger than the node's capacity. The finding points at the
    largest part of that reservation in the pool's ReservationPolicy.

    ## Why is this bad?
    The kubelet checks this at start and refuses to run: `invalid Node Allocatable configuration. Resource
    "memory" has a reservation of … but capacity of …. Expected capacity >= reservation.` The node never
    becomes Ready. It typically happens when a policy sized for large machines selects a small node group.

    ## Example
    ```yaml
    # selects 8 GiB nodes too
    systemReserved:
      memory: 6Gi
    kubeReserved:
      memory: 3Gi
    ```

    ## Use instead
    ```yaml
    systemReserved:
      memory: 500Mi
    kubeReserved:
      memory: 1Gi
    ```

    ## Fix
    Lower the reservation, or narrow the selector so that the policy only selects nodes it fits; an
    auto-sizing formula (`spec.autoSizing`) scales with each node's size.
    """

    code = "AL206"
    name = "reservation-exceeds-capacity"
    severity = "error"
    summary = "reservation (system + kube + hard eviction) is larger than capacity; the kubelet refuses to start"

    # Complexity: O(pools × resources + findings): pools with the same blamed field are grouped into one finding.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        groups: dict[tuple[str, tuple[object, ...], str], tuple[Blame, list[tuple[PoolCapacity, str]]]] = {}
        for pc in ctx.model.pools:
            for resource in RESOURCES:
                cap = pc.capacity.get(resource)
                if cap is None:
                    continue
                reserved = pc.reserved_total(resource)
                if reserved <= cap:
                    continue
                detail = (
                    f'Resource "{resource}" has a reservation of {reserved} but capacity of {cap} on {pc.pool.ref} '
                    f"({reservation_breakdown(pc, resource, hugepages=False)})"
                )
                blame = blame_capacity(pc, resource, percent_first=False)
                key = (blame.obj, tuple(blame.field_path), resource)
                groups.setdefault(key, (blame, []))[1].append((pc, detail))
        for (_, _, _resource), (blame, items) in groups.items():
            pools = [pc for pc, _ in items]
            more = (
                f" (and {plural(len(items) - 1, 'more pool')}: {describe_pools(pools[1:])})" if len(items) > 1 else ""
            )
            yield self.finding(
                f"the kubelet refuses to start: {items[0][1]}{more}",
                source=blame.source,
                obj=blame.obj,
                field_path=blame.field_path,
                hint="lower the reservation, or select only nodes it fits",
                related=blame.related,
            )
