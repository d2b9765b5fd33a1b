"""The capacity model: for every pool, which policies apply and what each node really advertises.

Arithmetic, per resource (cpu, memory, ephemeral-storage), as the kubelet does it:

    reserved     = systemReserved + kubeReserved + hard eviction
    allocatable  = max(capacity − reserved, 0)              (memory: then − hugepages, again at least 0)

and for a CommitClass at p percent (``commit_value``, the one place this rule lives):

    scaled:   committed = allocatable × p/100                (reserved slices scale with the class)
    unscaled: committed = max(capacity × p/100 − reserved − hugepages, 0)

Over-commit (p > 100) always scales the reserved slices, as the CommitClass proposal says (2 of 24 reserved cores
at 1000% become 20 of 240). Under-commit follows ``commit.underCommitScalesReserved`` in .allocatable.yaml.
Results are rounded down — cpu to whole millicores, other resources to whole units — so a node never
advertises more than the arithmetic allows.

This module holds the model's types and these rules; every pool's arithmetic is ``renderer.capacity.pools``
(``pool_capacity``, ``build``), formulas and platform reservations ``renderer.capacity.reservations``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache
from typing import Any, NamedTuple

from renderer.capacity import kubelet_dropins
from renderer.capacity.eviction import threshold_bytes
from renderer.capacity.formulas import FormulaResult
from renderer.capacity.matching import Matches
from renderer.capacity.platform import PlatformDefault
from renderer.loading.files import UsageError
from renderer.models.commitclass import CommitClass
from renderer.models.inventory import Pool
from renderer.models.reservationpolicy import ReservationPolicy
from renderer.models.runtimeclass import RuntimeClass
from renderer.quantity import Quantity, QuantityError, Sum
from renderer.reprs import fields_repr
from renderer.resourcenames import is_extended
from renderer.validation.validate import Loaded, PolicySet

RESOURCES: tuple[str, ...] = ("cpu", "memory", "ephemeral-storage")
DEFAULT_MAX_PODS = 110

# Only these hard-eviction signals reduce allocatable.
EVICTION_RESOURCE: dict[str, str] = {"memory.available": "memory", "nodefs.available": "ephemeral-storage"}
ZERO = Quantity.parse("0")
_HUNDRED = Decimal(100)


#: The cluster totals, by the PoolCapacity map each sums.
TOTALS_OF = {"capacity": "capacity", "allocatable": "allocatable", "committedAllocatable": "committed"}
TOTALS = tuple(TOTALS_OF)


class OutOfRange(UsageError):
    """A pool's figure leaves the range of a Kubernetes quantity (2^63-1 units): inputs no real node or fleet has
    (an exbibyte of memory, a million-fold commit). The commands report it as an input error: one line that names
    the object and where it is, exit 2."""

    def __init__(self, pool: Pool, what: str) -> None:
        src = pool.source
        super().__init__(
            f"{pool.origin}/{pool.name}: {what}; no real node or fleet has that much: correct the values",
            f"{src.path}:{src.line}:{src.column}",
        )


def out_of_range(pool: Pool, what: str, exc: QuantityError) -> OutOfRange:
    """The input error for an arithmetic result out of range (``exc``) in ``what`` (a figure of ``pool``)."""
    return OutOfRange(pool, f"{what} leaves the range of a Kubernetes quantity ({exc})")


class Reserved(NamedTuple):
    quantity: Quantity
    source: str  # "explicit", "formula:<name>", "platform-default:<name>", "fallback"


@dataclass(repr=False, eq=False)
class OverheadFigures:
    """What one RuntimeClass's pod overhead costs on one pool (compared by identity: one object per class and pool
    shape, see :func:`overhead_figures`)."""

    __repr__ = fields_repr

    runtime_class: Loaded[RuntimeClass]
    pod_fixed: dict[str, Quantity]
    pods_fit: dict[str, int | None]  # per resource: pods that fit by overhead alone (None: no overhead)
    max_pods_overhead: dict[str, Quantity]  # maxPods × overhead
    max_pods_share: dict[str, Decimal | None]  # that, as a percentage of committed allocatable

    @property
    def limiting_pods(self) -> int | None:
        fits = [v for v in self.pods_fit.values() if v is not None]
        return min(fits) if fits else None


@dataclass(slots=True, repr=False, eq=False)
class PoolCapacity:
    """One pool's capacity arithmetic. Built by ``renderer.capacity.pools.pool_capacity`` and read only after that:
    equal mappings and values of the pools of one model are one shared object (``pools.build``), so none of them may
    be changed in place.
    Compared by identity (no generated ``__eq__``: 25 fields compiled at every start for no caller)."""

    __repr__ = fields_repr

    pool: Pool
    commit_classes: list[Loaded[CommitClass]]
    reservation_policies: list[Loaded[ReservationPolicy]]
    runtime_classes: list[Loaded[RuntimeClass]]
    percent: dict[str, int]
    commit_rule: dict[str, str]  # per resource: "unchanged", "scaled", "unscaled"
    capacity: dict[str, Quantity]
    system_reserved: dict[str, Reserved]
    kube_reserved: dict[str, Reserved]
    eviction_hard: dict[str, str]
    eviction_source: str
    eviction_reserved: dict[str, Quantity]
    hugepages: Quantity
    allocatable: dict[str, Quantity]
    committed: dict[str, Quantity]
    max_pods: int
    formula: FormulaResult | None = None
    platform_default: PlatformDefault | None = None
    cpu_override: Quantity | None = None  # reservedSystemCPUs: the kubelet's cpu reservation replaces both maps'
    #: the merged configuration where the pool's file is a drop-in beside the platform's (kubelet_dropins)
    effective_kubelet: kubelet_dropins.EffectiveConfig | None = None
    notes: list[str] = field(default_factory=list)
    _reserved: dict[str, Quantity] = field(default_factory=dict, repr=False)
    _overhead: list[OverheadFigures] | None = field(default=None, repr=False)
    # Overhead figures by what they depend on, shared by every pool of one model (see overhead_figures).
    _figures: dict[tuple[Any, ...], OverheadFigures] = field(default_factory=dict, repr=False)
    _shape: tuple[Any, ...] | None = field(default=None, repr=False)
    #: what verify's causes computed for this pool once (they run per differing resource)
    memo: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)

    @property
    def overhead(self) -> list[OverheadFigures]:
        """Pod overhead figures per RuntimeClass that can land here, computed on first use.

        Cost: O(RuntimeClasses of this pool); each distinct (class, committed allocatable, max pods) is computed
        once per model, so 60 classes over 2,000 pools of ten sizes compute 600 figures, not 120,000."""
        if self._overhead is None:
            self._overhead = [overhead_figures(self, rc) for rc in self.runtime_classes]
        return self._overhead

    @property
    def shape(self) -> tuple[Any, ...]:
        """What overhead figures depend on: max pods and committed allocatable per resource."""
        if self._shape is None:
            self._shape = (self.max_pods, *(self.committed.get(r) for r in RESOURCES))
        return self._shape

    @property
    def commit_class(self) -> Loaded[CommitClass] | None:
        """The class in effect: only when exactly one selects the pool (conflicts are lint errors)."""
        return self.commit_classes[0] if len(self.commit_classes) == 1 else None

    @property
    def policy(self) -> Loaded[ReservationPolicy] | None:
        return self.reservation_policies[0] if len(self.reservation_policies) == 1 else None

    def reserved_total(self, resource: str) -> Quantity:
        """systemReserved + kubeReserved + hard eviction for one resource (kept by the build for the pool's
        resources, else computed)."""
        cached = self._reserved.get(resource)
        if cached is not None:
            return cached
        return _reserved_sum(
            resource, self.system_reserved, self.kube_reserved, self.eviction_reserved, self.cpu_override
        )


class OverheadFit(NamedTuple):
    """One resource of one pod overhead over one set of pools (indexes into ``CapacityModel.pools``, ascending)."""

    none_fit: list[int]  # not one pod fits by this overhead alone
    bounded: list[tuple[int, int]]  # (pool, pods that fit) where fewer than the pool's max pods fit


@dataclass(eq=False, repr=False)
class CapacityModel:
    """Every pool's capacity arithmetic, with the matches it came from (built by ``renderer.capacity.pools.build``)."""

    policies: PolicySet
    matches: Matches
    pools: list[PoolCapacity]
    under_commit_scales_reserved: bool
    _fits: dict[tuple[Any, ...], OverheadFit] = field(default_factory=dict, repr=False)
    _refs: list[str] | None = field(default=None, repr=False)

    def total_quantities(
        self, pools: list[PoolCapacity] | None = None, keys: tuple[str, ...] = TOTALS
    ) -> dict[str, dict[str, Quantity]]:
        """Cluster totals (per-node values × count) over ``pools`` (default: every pool), as quantities.

        ``keys``: which of ``capacity``, ``allocatable`` and ``committedAllocatable`` (default: all three); cost
        O(pools × resources) each. A total out of a quantity's range raises :class:`OutOfRange`."""
        pools = self.pools if pools is None else pools
        out: dict[str, dict[str, Quantity]] = {}
        for key in keys:
            attr = TOTALS_OF[key]
            acc: dict[str, Sum] = {}
            for p in pools:
                count = p.pool.count
                for res, val in getattr(p, attr).items():
                    if res in RESOURCES or res == "pods" or is_extended(res):
                        total = acc.get(res)
                        if total is None:
                            total = acc[res] = Sum()
                        try:
                            total.add(val, count)
                        except QuantityError as exc:
                            what = f"the cluster total of {key} {res} with this pool"
                            raise out_of_range(p.pool, what, exc) from None
            out[key] = {res: total.total() for res, total in sorted(acc.items())}
        return out

    def totals(self, pools: list[PoolCapacity] | None = None) -> dict[str, Any]:
        """Cluster totals over ``pools`` as canonical strings, with the pool and node counts (for JSON)."""
        pools = self.pools if pools is None else pools
        out: dict[str, Any] = {"pools": len(pools), "nodes": sum(p.pool.count for p in pools)}
        for key, values in self.total_quantities(pools).items():
            out[key] = {k: str(v) for k, v in values.items()}
        return out

    def pools_selected_by(self, loaded: object) -> list[PoolCapacity]:
        return [self.pools[i] for i in self.matches.pools_of.get(id(loaded), [])]

    def selects_any(self, loaded: object) -> bool:
        """Whether the policy or RuntimeClass selects at least one pool (O(1))."""
        return bool(self.matches.pools_of.get(id(loaded)))

    def overhead_fits(self, rc: Loaded[RuntimeClass]) -> dict[str, OverheadFit]:
        """Per resource of ``rc``'s non-zero ``overhead.podFixed``: the pools it can land on where not one pod fits
        by that overhead alone, and where fewer than max pods fit (AL212, AL213).

        Exact integer division of committed allocatable by the overhead. Classes with the same overhead and the
        same pools share one result, so 60 classes of 5 overheads over 10,000 pools divide 50,000 times, not
        600,000. Cost: O(pools rc selects) to recognise the selection, plus O(pools) per distinct (resource,
        overhead, selection)."""
        pod_fixed = (rc.model.overhead.podFixed or {}) if rc.model.overhead else {}
        selected = self.matches.pools_of.get(id(rc), [])
        if not selected or not pod_fixed:
            return {}
        selection = tuple(selected)
        pools = self.pools
        out: dict[str, OverheadFit] = {}
        for resource, per_pod in sorted(pod_fixed.items()):
            if per_pod.is_zero():
                continue
            key = (resource, per_pod, selection)
            got = self._fits.get(key)
            if got is None:
                none_fit: list[int] = []
                bounded: list[tuple[int, int]] = []
                for i in selected:
                    committed = pools[i].committed.get(resource)
                    if committed is None:
                        continue
                    fit = committed.floor_div(per_pod)
                    if fit == 0:
                        none_fit.append(i)
                    elif fit < pools[i].max_pods:
                        bounded.append((i, fit))
                got = self._fits[key] = OverheadFit(none_fit, bounded)
            out[resource] = got
        return out

    @property
    def pool_refs(self) -> list[str]:
        """``Kind/name`` of every pool, by index (built once: findings that name thousands of pools share them)."""
        if self._refs is None:
            self._refs = [pc.pool.ref for pc in self.pools]
        return self._refs


def _floor(q: Quantity, resource: str) -> Quantity:
    """Round down: cpu to whole millicores, other resources to whole units; never below 0."""
    if q.is_negative():
        return Quantity.from_value(0, q.format)
    return q.floor_to(3 if resource == "cpu" else 0)


def commit_value(
    resource: str,
    capacity: Quantity,
    reserved: Quantity,
    hugepages: Quantity,
    percent: int,
    scale_reserved: bool,
) -> Quantity:
    """Advertised allocatable for one resource at ``percent``; the only implementation of the commit rule."""
    if percent == 100 or scale_reserved:
        base = (capacity - reserved - hugepages).clamp_min_zero()
        if percent == 100:
            return _floor(base, resource)
        return _floor(base.scale_fraction(percent, 100), resource)
    scaled_capacity = capacity.scale_fraction(percent, 100)
    return _floor((scaled_capacity - reserved - hugepages).clamp_min_zero(), resource)


def commit_rule(percent: int, under_commit_scales_reserved: bool) -> str:
    if percent == 100:
        return "unchanged"
    if percent > 100 or under_commit_scales_reserved:
        return "scaled"
    return "unscaled"


def eviction_reservation(value: str, capacity: Quantity) -> Quantity | None:
    """Bytes a hard threshold keeps free: a quantity, or a percentage of capacity resolved as the kubelet does it
    (a float32 fraction, see ``renderer.capacity.eviction``; ``0%`` and ``100%`` disable it).

    None when the value cannot be read (lint reports that). Cost: computed once per distinct (value, capacity,
    format) in a run (the pools of one machine shape share their thresholds), at most 4,096 kept."""
    return _threshold(value, capacity, capacity.format)


@lru_cache(maxsize=4096)
def _threshold(value: str, capacity: Quantity, _format: str) -> Quantity | None:
    """``threshold_bytes`` keyed by the capacity's format too (quantities compare by value alone)."""
    return threshold_bytes(value, capacity)


def effective_max_pods(pool: Pool, policy: ReservationPolicy | None) -> int:
    spec = policy.spec if policy else None
    if spec is not None and spec.maxPods is not None and spec.maxPods > 0:
        max_pods = spec.maxPods
    elif pool.max_pods is not None:
        max_pods = pool.max_pods
    elif "pods" in pool.capacity:
        max_pods = pool.capacity["pods"].int_value()
    else:
        max_pods = DEFAULT_MAX_PODS
    if spec is not None and spec.podsPerCore and spec.podsPerCore > 0 and "cpu" in pool.capacity:
        per_core = int(spec.podsPerCore * pool.capacity["cpu"].value)
        max_pods = min(max_pods, per_core)
    return max_pods


def _reserved_sum(
    resource: str,
    system: dict[str, Reserved],
    kube: dict[str, Reserved],
    eviction: dict[str, Quantity],
    cpu_override: Quantity | None,
) -> Quantity:
    total = ZERO
    if resource == "cpu" and cpu_override is not None:
        total = cpu_override
    else:
        for part in (system, kube):
            if resource in part:
                total = total + part[resource].quantity
    return total + eviction.get(resource, ZERO)


def overhead_figures(pc: PoolCapacity, rc: Loaded[RuntimeClass]) -> OverheadFigures:
    """Overhead figures of ``rc`` on ``pc``, computed once per (class, :attr:`PoolCapacity.shape`) of a model.

    Pods that fit are whole-number divisions of exact integers; only the percentages use Decimal."""
    key = (id(rc), pc.shape)
    cached = pc._figures.get(key)
    if cached is not None and cached.runtime_class is rc:
        return cached
    pod_fixed = dict((rc.model.overhead.podFixed or {}) if rc.model.overhead else {})
    fits: dict[str, int | None] = {}
    totals: dict[str, Quantity] = {}
    shares: dict[str, Decimal | None] = {}
    for resource, per_pod in sorted(pod_fixed.items()):
        committed = pc.committed.get(resource)
        try:
            totals[resource] = per_pod.scale(pc.max_pods)
        except QuantityError as exc:
            what = f"RuntimeClass {rc.name}: maxPods {pc.max_pods} × its {resource} overhead {per_pod}"
            raise out_of_range(pc.pool, what, exc) from None
        if committed is None or per_pod.is_zero():
            fits[resource] = None
            shares[resource] = None
            continue
        fits[resource] = committed.floor_div(per_pod)
        shares[resource] = (
            None
            if committed.is_zero()
            else (totals[resource].value * _HUNDRED / committed.value).quantize(Decimal("0.01"))
        )
    figures = OverheadFigures(rc, pod_fixed, fits, totals, shares)
    pc._figures[key] = figures
    return figures
