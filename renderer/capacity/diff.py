"""Capacity impact of a change: two capacity models (base and head) compared pool by pool, and lint findings
compared by code, object and message. Pure data; ``renderer.reporters.diff`` writes it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from renderer.capacity.model import RESOURCES, CapacityModel, PoolCapacity
from renderer.findings import Finding
from renderer.loading.git import Revision
from renderer.models import validators
from renderer.quantity import Quantity
from renderer.resourcenames import is_extended

#: Resources compared per pool: the three the commit rule applies to, plus the pod count; then every extended
#: resource (``nvidia.com/gpu``) a side has, by name (``compared``), so a CPU-only fleet's diff has no more.
DIFF_RESOURCES: tuple[str, ...] = (*RESOURCES, "pods")
ZERO = Quantity.from_value(0)


def compared(*sides: Iterable[str] | None) -> list[str]:
    """The resources of ``sides`` a diff compares: ``DIFF_RESOURCES`` in that order, then the extended resources any
    side has, by name. Cost: O(resources of the sides)."""
    present = {r for side in sides if side is not None for r in side}
    return [r for r in DIFF_RESOURCES if r in present] + sorted(r for r in present if is_extended(r))


@dataclass(frozen=True)
class Change:
    """One number before and after. ``None`` on a side that does not have it (pool added or removed)."""

    before: Quantity | None
    after: Quantity | None

    @property
    def delta(self) -> Quantity:
        return (self.after or ZERO) - (self.before or ZERO)

    @property
    def changed(self) -> bool:
        return self.before != self.after

    @property
    def percent(self) -> Decimal | None:
        """Δ as a percentage of ``before``; None when there is no non-zero ``before`` to compare with."""
        if self.before is None or self.after is None or self.before.is_zero():
            return None
        return (self.delta.value * 100 / self.before.value).quantize(Decimal("0.1"))

    def as_dict(self) -> dict[str, Any]:
        before, after = self.before, self.after
        if before is not None and after is not None and before == after:
            # most numbers of a diff do not move: no arithmetic for them (the same text as below)
            return {
                "before": str(before),
                "after": str(after),
                "delta": "0",
                "deltaPercent": None if before.is_zero() else "0.0",
            }
        pct = self.percent
        return {
            "before": None if self.before is None else str(self.before),
            "after": None if self.after is None else str(self.after),
            "delta": str(self.delta),
            "deltaPercent": None if pct is None else str(pct),
        }


@dataclass
class PoolDiff:
    ref: str  # "NodePool/name" or "Node/name"
    name: str
    origin: str
    status: str  # "added", "removed", "changed", "unchanged"
    count: tuple[int | None, int | None]
    committed: dict[str, Change]  # per node
    allocatable: dict[str, Change]  # per node, before any CommitClass
    cluster: dict[str, Change]  # committed × count
    commit_classes: tuple[list[str], list[str]]
    reservation_policies: tuple[list[str], list[str]]
    percent: tuple[dict[str, int], dict[str, int]]
    platform: str
    source: str

    @property
    def reasons(self) -> list[str]:
        """Why the numbers moved, in words (what a reviewer checks first)."""
        out: list[str] = []
        if self.status in ("added", "removed"):
            return [f"pool {self.status}"]
        (cb, ca), (rb, ra) = self.commit_classes, self.reservation_policies
        if self.count[0] != self.count[1]:
            out.append(f"node count {self.count[0]} → {self.count[1]}")
        if cb != ca:
            out.append(f"CommitClass {_names(cb)} → {_names(ca)}")
        elif self.percent[0] != self.percent[1]:
            moved = [
                f"{r} {self.percent[0][r]}% → {self.percent[1][r]}%"
                for r in RESOURCES
                if self.percent[0].get(r) != self.percent[1].get(r)
            ]
            out.append("commit percent " + ", ".join(moved))
        if rb != ra:
            out.append(f"ReservationPolicy {_names(rb)} → {_names(ra)}")
        if not out and any(c.changed for r, c in self.allocatable.items() if not is_extended(r)):
            out.append("reservations, eviction thresholds or capacity changed")
        # an extended resource (nvidia.com/gpu) is all capacity: its per-node count is the reason it moved
        out += [
            f"{r} per node {c.before} → {c.after}"
            for r, c in self.allocatable.items()
            if is_extended(r) and c.changed and c.before is not None and c.after is not None
        ]
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "ref": self.ref,
            "name": self.name,
            "origin": self.origin,
            "status": self.status,
            "platform": self.platform,
            "source": self.source,
            "count": {"before": self.count[0], "after": self.count[1]},
            "commitClasses": {"before": self.commit_classes[0], "after": self.commit_classes[1]},
            "reservationPolicies": {"before": self.reservation_policies[0], "after": self.reservation_policies[1]},
            "percent": {"before": self.percent[0] or None, "after": self.percent[1] or None},
            "reasons": self.reasons,
            "committed": {r: c.as_dict() for r, c in self.committed.items()},
            "allocatable": {r: c.as_dict() for r, c in self.allocatable.items()},
            "cluster": {r: c.as_dict() for r, c in self.cluster.items()},
        }


def _names(names: list[str]) -> str:
    return ", ".join(names) if names else "none"


@dataclass
class ObjectChanges:
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.changed)


@dataclass
class DiffResult:
    base_label: str  # e.g. "main (1a2b3c4d5e6f)"
    head_label: str  # "working tree" or "HEAD (…)"
    base_ref: str
    base_commit: str
    head_ref: str | None
    head_commit: str | None
    pools: list[PoolDiff]
    totals: dict[str, Change]  # cluster committed allocatable, all pools
    nodes: tuple[int, int]
    objects: ObjectChanges
    new_findings: list[Finding]
    fixed_findings: list[Finding]
    unchanged_findings: int
    head_findings: list[Finding]
    invalid: tuple[int, int] = (0, 0)  # validation errors (base, head): what they define is left out of the figures
    #: the base commit read: the merge-base of the base ref and the head, or the tip asked for
    base_revision: Revision | None = None
    #: The re-packing simulation of the change on a cluster snapshot (``renderer.impact.report.ImpactReport``), set by
    #: the composer when ``diff`` is given one; the diff reporters print it as a section of their own.
    impact: Any = None
    #: The change priced (``renderer.capacity.cost.ChangeCost``), set by the composer when the head has ``pricing``.
    cost: Any = None

    @property
    def changed_pools(self) -> list[PoolDiff]:
        return [p for p in self.pools if p.status != "unchanged"]

    def count(self, status: str) -> int:
        return sum(1 for p in self.pools if p.status == status)

    @property
    def capacity_changed(self) -> bool:
        return bool(self.changed_pools)


def _pool_key(pc: PoolCapacity) -> str:
    return pc.pool.ref


def _changes(before: dict[str, Quantity] | None, after: dict[str, Quantity] | None) -> dict[str, Change]:
    out: dict[str, Change] = {}
    for r in compared(before, after):
        b = None if before is None else before.get(r)
        a = None if after is None else after.get(r)
        if b is None and a is None:
            continue
        out[r] = Change(b, a)
    return out


def _times(d: dict[str, Quantity], n: int) -> dict[str, Quantity]:
    return {k: v.scale(n) for k, v in d.items()}


def _pool_diff(before: PoolCapacity | None, after: PoolCapacity | None) -> PoolDiff:
    some = after or before
    assert some is not None
    b_committed = before.committed if before else None
    a_committed = after.committed if after else None
    committed = _changes(b_committed, a_committed)
    allocatable = _changes(before.allocatable if before else None, after.allocatable if after else None)
    cluster = _changes(
        _times(before.committed, before.pool.count) if before else None,
        _times(after.committed, after.pool.count) if after else None,
    )
    count = (before.pool.count if before else None, after.pool.count if after else None)
    ccs = (
        [c.name for c in before.commit_classes] if before else [],
        [c.name for c in after.commit_classes] if after else [],
    )
    rps = (
        [p.name for p in before.reservation_policies] if before else [],
        [p.name for p in after.reservation_policies] if after else [],
    )
    pct = (dict(before.percent) if before else {}, dict(after.percent) if after else {})
    if before is None:
        status = "added"
    elif after is None:
        status = "removed"
    elif (
        count[0] != count[1]
        or any(c.changed for c in committed.values())
        or any(c.changed for c in allocatable.values())
        or ccs[0] != ccs[1]
        or rps[0] != rps[1]
        or pct[0] != pct[1]
    ):
        status = "changed"
    else:
        status = "unchanged"
    return PoolDiff(
        ref=some.pool.ref,
        name=some.pool.name,
        origin=some.pool.origin,
        status=status,
        count=count,
        committed=committed,
        allocatable=allocatable,
        cluster=cluster,
        commit_classes=ccs,
        reservation_policies=rps,
        percent=pct,
        platform=some.pool.platform,
        source=some.pool.source.path,
    )


def _sum(model: CapacityModel) -> dict[str, Quantity]:
    totals = model.total_quantities(keys=("committedAllocatable",))["committedAllocatable"]
    return {r: totals[r] for r in compared(totals)}


def finding_key(f: Finding) -> tuple[str, str, str]:
    """Findings are the same across revisions when code, object and message agree (lines may move)."""
    return (f.code, f.object or f.path, f.message)


def compare_findings(base: list[Finding], head: list[Finding]) -> tuple[list[Finding], list[Finding], int]:
    """(new in head, fixed since base, unchanged count); a key present n times in base covers n in head."""
    base_keys = Counter(finding_key(f) for f in base)
    head_keys = Counter(finding_key(f) for f in head)
    new: list[Finding] = []
    seen: Counter[tuple[str, str, str]] = Counter()
    for f in head:
        k = finding_key(f)
        seen[k] += 1
        if seen[k] > base_keys[k]:
            new.append(f)
    fixed: list[Finding] = []
    seen.clear()
    for f in base:
        k = finding_key(f)
        seen[k] += 1
        if seen[k] > head_keys[k]:
            fixed.append(f)
    return new, fixed, len(head) - len(new)


def _object_dumps(model: CapacityModel) -> dict[str, Any]:
    pols = model.policies
    out: dict[str, Any] = {}
    for group in (pols.commit_classes, pols.reservation_policies, pols.runtime_classes):
        for loaded in group:
            out[loaded.ref] = validators.dump(loaded.kind, loaded.model, mode="json")
    for pool in pols.pools:
        out[pool.ref] = (
            sorted(pool.labels.items()),
            sorted((k, str(v)) for k, v in pool.capacity.items()),
            pool.count,
            pool.platform,
            pool.machine_config_pool,
            pool.max_pods,
        )
    return out


def compare_objects(base: CapacityModel, head: CapacityModel) -> ObjectChanges:
    b, h = _object_dumps(base), _object_dumps(head)
    return ObjectChanges(
        added=sorted(set(h) - set(b)),
        removed=sorted(set(b) - set(h)),
        changed=sorted(k for k in set(b) & set(h) if b[k] != h[k]),
    )


def compare(
    base_model: CapacityModel,
    head_model: CapacityModel,
    base_findings: list[Finding],
    head_findings: list[Finding],
    *,
    base_label: str,
    head_label: str,
    base_ref: str,
    base_commit: str,
    head_ref: str | None = None,
    head_commit: str | None = None,
) -> DiffResult:
    before = {_pool_key(pc): pc for pc in base_model.pools}
    after = {_pool_key(pc): pc for pc in head_model.pools}
    order = [k for k in after] + [k for k in before if k not in after]
    pools = [_pool_diff(before.get(k), after.get(k)) for k in order]
    pools.sort(key=lambda p: p.status == "unchanged")  # changed, added and removed first; file order within
    totals_b, totals_a = _sum(base_model), _sum(head_model)
    totals = {r: Change(totals_b.get(r, ZERO), totals_a.get(r, ZERO)) for r in compared(totals_b, totals_a)}
    new, fixed, unchanged = compare_findings(base_findings, head_findings)
    return DiffResult(
        base_label=base_label,
        head_label=head_label,
        base_ref=base_ref,
        base_commit=base_commit,
        head_ref=head_ref,
        head_commit=head_commit,
        pools=pools,
        totals=totals,
        nodes=(sum(p.pool.count for p in base_model.pools), sum(p.pool.count for p in head_model.pools)),
        objects=compare_objects(base_model, head_model),
        new_findings=new,
        fixed_findings=fixed,
        unchanged_findings=unchanged,
        head_findings=head_findings,
    )
