from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from renderer.capacity.model import PoolCapacity
from renderer.findings import FieldPath, Finding
from renderer.lint.helpers import describe_pools, plural
from renderer.lint.rule import LintContext, Rule, register
from renderer.quantity import Quantity, QuantityError

_ZERO = Quantity.parse("0")


def reserved_memory_totals(entries: Any) -> dict[str, Quantity] | None:
    """Per memory type, the sum of ``reservedMemory[].limits`` over the NUMA nodes; None when unreadable."""
    if entries is None:
        return {}
    if not isinstance(entries, list):
        return None
    totals: dict[str, Quantity] = {}
    for entry in entries:
        limits = entry.get("limits") if isinstance(entry, dict) else None
        if not isinstance(limits, dict):
            return None
        for name, raw in limits.items():
            try:
                q = Quantity.parse(str(raw))
            except QuantityError:
                return None
            # the kubelet adds the running total to this entry's quantity (q.Add(value)): q's format wins
            totals[str(name)] = q + totals[str(name)] if str(name) in totals else q
    return totals


def allocatable_reservation(pc: PoolCapacity) -> dict[str, Quantity]:
    """systemReserved + kubeReserved + hard eviction per memory type, summed as the kubelet's
    ``GetNodeAllocatableReservation`` does (a DecimalSI zero that takes the first non-zero term's format)."""
    out: dict[str, Quantity] = {}
    names = {"memory"} | {k for k in pc.capacity if k.startswith("hugepages-")}
    for name in names:
        value = _ZERO
        for part in (pc.system_reserved, pc.kube_reserved):
            if name in part:
                value = value + part[name].quantity
        value = value + pc.eviction_reserved.get(name, _ZERO)
        out[name] = value
    return out


def mismatches(pc: PoolCapacity, totals: dict[str, Quantity]) -> list[tuple[str, Quantity, Quantity]]:
    """(type, reservedMemory total, Node Allocatable reservation) for every memory type where they differ."""
    reservation = allocatable_reservation(pc)
    names = set(totals) | {n for n, q in reservation.items() if not q.is_zero()}
    out = []
    for name in sorted(names):
        if name != "memory" and not name.startswith("hugepages-"):
            continue
        reserved = _ZERO + totals[name] if name in totals else _ZERO
        expected = _ZERO + reservation[name] if name in reservation else _ZERO
        if reserved != expected:
            out.append((name, reserved, expected))
    return out


@register
class ReservedMemoryMismatch(Rule):
    """
    ## What it does
    For a ReservationPolicy that turns on the kubelet's static memory manager (`kubelet.memoryManagerPolicy:
    Static`), adds up `kubelet.reservedMemory` over the NUMA nodes, per memory type, and compares the sum with
    what Node Allocatable reserves on each pool it selects: systemReserved + kubeReserved + the hard eviction
    threshold `memory.available` (a percentage resolved against the pool's memory as the kubelet does). Reports
    a difference in the kubelet's own words.

    ## Why is this bad?
    The kubelet validates exactly this when its memory manager starts and refuses to run otherwise
    (kubernetes/kubernetes `pkg/kubelet/cm/memorymanager/memory_manager.go`, `validateReservedMemory`): the node
    never becomes Ready. A published case (kubeReserved 16Gi, the default eviction 100Mi, reservedMemory 16548Mi)
    failed with `the total amount "16548Mi" of type "memory" is not equal to the value "16484Mi" determined by
    Node Allocatable feature`. The eviction threshold is easy to forget because it is often the kubelet's default.

    ## Example
    ```yaml
    kubeReserved: {memory: 16Gi}
    kubelet:
      memoryManagerPolicy: Static
      reservedMemory:
      - {numaNode: 0, limits: {memory: 16Gi}}
    ```

    ## Use instead
    ```yaml
    kubeReserved: {memory: 16Gi}
    kubelet:
      memoryManagerPolicy: Static
      reservedMemory:               # 16Gi + hard eviction memory.available 100Mi
      - {numaNode: 0, limits: {memory: 16484Mi}}
    ```

    ## Fix
    Make the `reservedMemory` limits of all NUMA nodes add up to the value the message names (systemReserved +
    kubeReserved + `evictionHard` `memory.available`), or change the reservations to match.
    """

    code = "AL325"
    name = "reserved-memory-mismatch"
    severity = "error"
    summary = "static memory manager: reservedMemory does not add up to what Node Allocatable reserves"

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        # Complexity: O(pools × memory types): each pool is compared once with its single ReservationPolicy.
        groups: dict[tuple[int, str, str, str], list[PoolCapacity]] = {}
        for pc in ctx.model.pools:
            rp = pc.policy
            if rp is None:
                continue
            kubelet = rp.model.spec.kubelet or {}
            if kubelet.get("memoryManagerPolicy") != "Static":
                continue
            totals = reserved_memory_totals(kubelet.get("reservedMemory"))
            if totals is None:
                continue
            for name, reserved, expected in mismatches(pc, totals):
                groups.setdefault((id(rp), name, str(reserved), str(expected)), []).append(pc)
        owners = {id(rp): rp for rp in ctx.load.policies.reservation_policies}
        for (rp_id, name, reserved_text, expected_text), pools in groups.items():
            rp = owners[rp_id]
            kubelet = rp.model.spec.kubelet or {}
            path: FieldPath = (
                ("spec", "kubelet", "reservedMemory")
                if "reservedMemory" in kubelet
                else ("spec", "kubelet", "memoryManagerPolicy")
            )
            where = pools[0].pool.ref + (
                f" and {plural(len(pools) - 1, 'more pool')} ({describe_pools(pools[1:])})" if len(pools) > 1 else ""
            )
            yield self.finding(
                f'the kubelet refuses to start on {where}: the total amount "{reserved_text}" of type "{name}" is not '
                f'equal to the value "{expected_text}" determined by Node Allocatable feature',
                source=rp.source,
                obj=rp.ref,
                field_path=path,
                hint=f"make reservedMemory add up to {expected_text} (reserved + hard eviction)",
                related=[pc.pool.ref for pc in pools],
            )
