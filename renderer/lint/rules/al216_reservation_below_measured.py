from __future__ import annotations

import math
from collections.abc import Iterator

from renderer.findings import FieldPath, Finding
from renderer.lint.helpers import plural
from renderer.lint.rule import LintContext, Rule, register
from renderer.measured import NodeDay

#: node-days named in a message (the largest peaks first)
SHOWN = 3
_MI = 1 << 20


def _amount(resource: str, value: float) -> str:
    """Whole Mi or millicores, rounded up (after float noise: 0.37 cores is 370m, not 371m)."""
    if resource == "memory":
        return f"{math.ceil(round(value / _MI, 6))}Mi"
    return f"{math.ceil(round(value * 1000, 6))}m"


def _day(day: int) -> str:
    from datetime import datetime, timezone

    return datetime.fromtimestamp(day * 86400, timezone.utc).strftime("%Y-%m-%d")


@register
class ReservationBelowMeasured(Rule):
    """
    ## What it does
    With measured usage (`allocatable lint --usage FILE...` or `--prometheus URL`, the exports and queries of
    `allocatable recommend`, docs/recommend.md), compares each pool's reservation for the kubelet, the container
    runtime and the system daemons (kubeReserved + systemReserved, cpu and memory, as the capacity model has them)
    with what those actually used: the daily peak of `/system.slice` and the kubelet's and runtime's services on
    every node of the pool. Reports a reservation some node-day's peak exceeded, naming the worst nodes, days and
    peaks, at the ReservationPolicy that sets it (or the pool, when none does).

    ## Why is this bad?
    The reservation is what the kubelet keeps back from pods for the node itself. When the node's own daemons use
    more, pods can fill the node while the kubelet or the runtime still needs memory: under pressure they are
    starved or OOM-killed and the node goes NotReady — what OpenShift's SystemMemoryExceedsReservation alert warns
    of (it fires at 95 % of the reservation).

    ## Example
    ```yaml
    # the general nodes' daemons peaked at 684Mi of memory (gp-2, 2025-11-06)
    kubeReserved: {memory: 255Mi}
    systemReserved: {memory: 100Mi}
    ```

    ## Use instead
    ```yaml
    # allocatable recommend --usage ... -o yaml writes the measured values with a 15 % margin
    kubeReserved: {memory: 474Mi}
    systemReserved: {memory: 460Mi}
    ```

    ## Fix
    Raise the reservation above the measured peaks: `allocatable recommend` with the same usage prints the values
    (the largest daily peak plus 15 %) and writes the documents with `-o yaml`.
    """

    code = "AL216"
    name = "reservation-below-measured"
    severity = "warning"
    summary = "a pool's daemons used more cpu or memory than kubeReserved + systemReserved keeps for them"

    def applicable(self, ctx: LintContext) -> bool:
        return ctx.measured is not None

    # Complexity: O(pools × node-days): one pass over each pool's measured peaks, sorted once where exceeded.
    def check(self, ctx: LintContext) -> Iterator[Finding]:
        measured = ctx.measured
        assert measured is not None
        for pc in ctx.model.pools:
            peaks = measured.pools.get(pc.pool.name)
            if not peaks:
                continue
            rp = pc.policy
            for resource in ("memory", "cpu"):
                if resource == "cpu" and pc.cpu_override is not None:
                    current = float(pc.cpu_override.value)
                else:
                    current = sum(
                        float(part[resource].quantity.value)
                        for part in (pc.kube_reserved, pc.system_reserved)
                        if resource in part
                    )
                over: list[NodeDay] = sorted(
                    (p for p in peaks.get(resource, []) if p.value > current), key=lambda p: (-p.value, p.node, p.day)
                )
                if not over:
                    continue
                nodes = len({p.node for p in over})
                shown = ", ".join(f"{p.node} {_amount(resource, p.value)} ({_day(p.day)})" for p in over[:SHOWN])
                more = f" and {plural(len(over) - SHOWN, 'more node-day')}" if len(over) > SHOWN else ""
                message = (
                    f"{pc.pool.ref} reserves {_amount(resource, current)} {resource} for its daemons "
                    f"(kubeReserved + systemReserved), but they used more on {plural(len(over), 'node-day')} of "
                    f"{plural(nodes, 'node')}: {shown}{more}"
                )
                hint = "`allocatable recommend` on the same usage prints the value to reserve (the peak and 15 %)"
                if rp is None:
                    path: FieldPath = ("spec", "platform") if pc.pool.origin == "NodePool" else ("metadata", "name")
                    yield self.finding(message, source=pc.pool.source, obj=pc.pool.ref, field_path=path, hint=hint)
                    continue
                spec = rp.model.spec
                path = ("spec",)
                for attr in ("kubeReserved", "systemReserved"):
                    if resource in (getattr(spec, attr) or {}):
                        path = ("spec", attr, resource)
                        break
                else:
                    if spec.autoSizing is not None:
                        path = ("spec", "autoSizing")
                yield self.finding(message, source=rp.source, obj=rp.ref, field_path=path, hint=hint)
