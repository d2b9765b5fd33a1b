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
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from functools import lru_cache, wraps
from itertools import chain
from typing import Any, Concatenate, NamedTuple, ParamSpec, TypeVar

from renderer.capacity import kubelet_dropins
from renderer.capacity.cpuset import cpuset_size, parse_cpuset
from renderer.capacity.eviction import threshold_bytes
from renderer.capacity.formulas import Formula, FormulaError, FormulaResult, MachineShape, compute
from renderer.capacity.karpenter import karpenter_evaluates, round_as_karpenter
from renderer.capacity.matching import Matches, match_all
from renderer.capacity.platform import PlatformDefault, formula_inputs, platform_default
from renderer.loading.files import UsageError
from renderer.models import validators
from renderer.models.commitclass import CommitClass
from renderer.models.inventory import Pool
from renderer.models.kubelet_fields import KUBELET_DEFAULT_EVICTION_HARD
from renderer.models.reservationpolicy import ReservationPolicy, ReservationPolicySpec
from renderer.models.runtimeclass import RuntimeClass
from renderer.models.settings import Settings
from renderer.platforms import KubeletFiles
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
_V = TypeVar("_V")


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
            f"{src.path}:{src.line}:{src.column}: {pool.origin}/{pool.name}: {what}; no real node or fleet has that "
            "much: correct the values"
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
    """One pool's capacity arithmetic. Built by :func:`pool_capacity` and read only after that: equal mappings and
    values of the pools of one model are one shared object (``build``), so none of them may be changed in place.
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
    """Every pool's capacity arithmetic, with the matches it came from (built by :func:`build`)."""

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


@lru_cache(maxsize=4096)
def _formula(formula: Formula, shape: MachineShape) -> FormulaResult:
    return compute(formula, shape)


#: custom formulas by the id of their policy's autoSizing record (records are not hashable), dropped with it
_CUSTOM: dict[int, tuple[weakref.ref[object], Formula]] = {}


def policy_formula(policy: Loaded[ReservationPolicy] | None) -> Formula | None:
    """The formula a policy names (``autoSizing.formula``) or writes (``autoSizing.custom``, built once)."""
    spec = policy.model.spec if policy is not None else None
    auto = spec.autoSizing if spec is not None else None
    if auto is None:
        return None
    if auto.custom is not None:
        entry = _CUSTOM.get(id(auto))
        if entry is not None and entry[0]() is auto:
            return entry[1]
        from renderer.models.custom_formula import formula_of

        assert policy is not None
        found = formula_of(auto.custom, f"custom:{policy.name}")
        key = id(auto)
        _CUSTOM[key] = (weakref.ref(auto), found)
        weakref.finalize(auto, _CUSTOM.pop, key, None)
        return found
    if auto.formula is None:
        return None
    from renderer import platforms

    try:
        return platforms.formula(auto.formula)
    except FormulaError:
        return None


def file_formula(policies: PolicySet, shown: str) -> Formula:
    """The formula of the one ReservationPolicy with autoSizing in ``policies`` (read from the file ``shown``:
    ``allocatable sizing --policy``); raises ``UsageError`` when there is not exactly one."""
    sized = [p for p in policies.reservation_policies if p.model.spec.autoSizing is not None]
    if len(sized) != 1:
        names = ", ".join(p.ref for p in sized) or "none"
        raise UsageError(f"{shown}: --policy needs exactly one ReservationPolicy with autoSizing, found {names}")
    found = policy_formula(sized[0])
    if found is None:  # pragma: no cover - validation guarantees a formula
        raise UsageError(f"{shown}: {sized[0].ref} has no formula")
    return found


def _parse_map(values: dict[str, str]) -> dict[str, Quantity]:
    out: dict[str, Quantity] = {}
    for k, v in values.items():
        try:
            out[k] = Quantity.parse(v)
        except QuantityError:
            continue
    return out


def _reserved_system_cpus(text: str | None) -> int:
    if not text:
        return 0
    ranges, _ = parse_cpuset(text.strip())
    return cpuset_size(ranges) if ranges else 0


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


class Shared:
    """One object for each distinct value the pools of one model hold: per-resource maps (percent, commit rule,
    eviction signals, reserved values, capacity, allocatable, committed) repeat from pool to pool, and 100,000 pools
    held a copy of each (about 2 KB a pool). Values are equal when their content is, in order; quantities when
    their value and format are (what their text and arithmetic depend on). Cost: O(entries) per value."""

    __slots__ = ("_quantities", "_table")

    def __init__(self) -> None:
        self._table: dict[tuple[Any, ...], Any] = {}
        self._quantities: dict[tuple[int, str], Quantity] = {}

    def quantity(self, q: Quantity) -> Quantity:
        return q.interned(self._quantities)

    def reserved(self, r: Reserved) -> Reserved:
        q = r.quantity.interned(self._quantities)
        key = ("r", id(q), r.source)  # id: the table keeps q alive
        got: Reserved | None = self._table.get(key)
        if got is None:
            got = self._table[key] = r if r.quantity is q else Reserved(q, r.source)
        return got

    def plain(self, d: dict[str, _V]) -> dict[str, _V]:
        """A map of hashable values (ints, strings)."""
        got: dict[str, _V] = self._table.setdefault(("p", *chain.from_iterable(d.items())), d)
        return got

    def quantities(self, d: dict[str, Quantity]) -> dict[str, Quantity]:
        table = self._quantities
        values = [q.interned(table) for q in d.values()]
        ids = list(map(id, values))
        # the caller's map (a pool's capacity) may hold the shared values already
        own = d if ids == list(map(id, d.values())) else dict(zip(d, values, strict=True))
        got: dict[str, Quantity] = self._table.setdefault(("qs", *chain.from_iterable(zip(d, ids, strict=True))), own)
        return got

    def reserved_map(self, d: dict[str, Reserved]) -> dict[str, Reserved]:
        own = {k: self.reserved(v) for k, v in d.items()}
        got: dict[str, Reserved] = self._table.setdefault(
            ("rs", *chain.from_iterable(zip(own, map(id, own.values()), strict=True))), own
        )
        return got


_P = ParamSpec("_P")


def _in_range(
    build: Callable[Concatenate[Pool, _P], PoolCapacity],
) -> Callable[Concatenate[Pool, _P], PoolCapacity]:
    """``build`` (the first argument the pool), raising :class:`OutOfRange` where a figure of the pool, or of its nodes
    together (``count`` × every figure a view multiplies), leaves the range of a Kubernetes quantity."""

    def checked(pool: Pool, /, *args: _P.args, **kwargs: _P.kwargs) -> PoolCapacity:
        try:
            pc = build(pool, *args, **kwargs)
        except QuantityError as exc:
            raise out_of_range(pool, "its capacity arithmetic", exc) from None
        count = pool.count
        if count > 1:  # allocatable is at most capacity
            for part, values in (
                ("", pc.capacity),
                ("committed ", pc.committed),
                ("hard eviction ", pc.eviction_reserved),
            ):
                for resource, q in values.items():
                    if not q.fits_times(count) and (
                        resource in RESOURCES or resource == "pods" or is_extended(resource)
                    ):
                        raise _times_out_of_range(pool, f"{part}{resource} {q}")
            for part, reserved in (("systemReserved ", pc.system_reserved), ("kubeReserved ", pc.kube_reserved)):
                for resource, r in reserved.items():
                    if not r.quantity.fits_times(count) and resource in RESOURCES:
                        raise _times_out_of_range(pool, f"{part}{resource} {r.quantity}")
            if not pc.hugepages.fits_times(count):
                raise _times_out_of_range(pool, f"hugepages {pc.hugepages}")
        return pc

    return wraps(build)(checked)


def _times_out_of_range(pool: Pool, what: str) -> OutOfRange:
    return OutOfRange(
        pool, f"{pool.count} nodes of {what} (its cluster total) leave the range of a Kubernetes quantity (2^63-1)"
    )


@_in_range
def pool_capacity(
    pool: Pool,
    commit_classes: list[Loaded[CommitClass]],
    policies: list[Loaded[ReservationPolicy]],
    runtime_classes: list[Loaded[RuntimeClass]],
    under_commit_scales_reserved: bool,
    settings: Settings | None = None,
    *,
    default: PlatformDefault | None = None,
    shared: Shared | None = None,
) -> PoolCapacity:
    """The capacity of one pool; ``default``: the platform default to assume when no policy selects it (verify's
    causes try other releases and platforms this way), else the pool's platform decides; ``shared``: the values
    equal to another pool's of the same model are that pool's (see :class:`Shared`).

    Raises :class:`OutOfRange` when a figure of the pool, or of its nodes together, leaves the range of a Kubernetes
    quantity (see ``_in_range``)."""
    settings = settings if settings is not None else validators.new("Settings")
    notes: list[str] = []
    cc = commit_classes[0].model if len(commit_classes) == 1 else None
    percent = cc.percents() if cc else {r: 100 for r in RESOURCES}
    if len(commit_classes) > 1:
        notes.append(
            f"{len(commit_classes)} CommitClasses select this pool ({', '.join(c.name for c in commit_classes)}); "
            "none is applied until one remains"
        )
    policy = policies[0].model if len(policies) == 1 else None
    if len(policies) > 1:
        notes.append(
            f"{len(policies)} ReservationPolicies select this pool ({', '.join(p.name for p in policies)}); "
            "none is applied until one remains"
        )
    spec = policy.spec if policy else None
    max_pods = effective_max_pods(pool, policy)

    # No policy selects the pool: its platform still reserves what it always does.
    if policies:
        default = None
    elif default is None:
        default = platform_default(pool, settings)
    system: dict[str, Reserved] = {}
    kube: dict[str, Reserved] = {}
    formula: FormulaResult | None = None
    chosen: Formula | None = policy_formula(policies[0]) if len(policies) == 1 else None
    if default is not None:
        chosen = default.formula
        notes.append(f"no ReservationPolicy selects this pool: {default.source} applies ({default.reason})")
    if chosen is not None:
        es = None
        fallback = spec.autoSizing.fallback if spec is not None and spec.autoSizing is not None else None
        if fallback and "fallback" in chosen.inputs():
            if "ephemeral-storage" in fallback:
                es = str(fallback["ephemeral-storage"])
            unused = sorted(k for k in fallback if k != "ephemeral-storage")
            if unused:
                notes.append(
                    f"autoSizing.fallback {', '.join(unused)} not used: with auto sizing on the script computes "
                    "cpu and memory itself (fallbacks apply only when it is off)"
                )
        shape, input_notes = formula_inputs(pool, chosen, settings, max_pods, es)
        # an input note ("memory: ...") about values the policy states itself in every map says nothing the table shows
        explicit = _explicit(spec)
        replaced = {r for r in chosen.resources if all((p, r) in explicit for p, m in chosen.terms.items() if r in m)}
        notes.extend(n for n in input_notes if n.split(":", 1)[0] not in replaced)
        if shape is not None:
            try:
                formula = _formula(chosen, shape)
            except FormulaError as exc:
                notes.append(f"formula {chosen.name} not applied: {exc}")
        if formula is not None:
            source = default.source if default is not None else f"formula:{formula.formula}"
            formula_system, formula_kube = _parse_map(formula.system_reserved), _parse_map(formula.kube_reserved)
            notes.extend(formula_notes(formula, explicit))
            if default is None and settings.render.karpenter.expressions and karpenter_evaluates(pool, chosen):
                for part, values in (("systemReserved", formula_system), ("kubeReserved", formula_kube)):
                    kept = {k: q for k, q in values.items() if (part, k) not in explicit}
                    both = " and " in formula.fills  # then a note names the map, as the formula's own notes do
                    notes.extend(f"{part} {n}" if both else n for n in round_as_karpenter(kept))
                    values.update(kept)
            for k, q in formula_system.items():
                system[k] = Reserved(q, source)
            for k, q in formula_kube.items():
                kube[k] = Reserved(q, source)
    if spec is not None:
        for k, q in (spec.systemReserved or {}).items():
            system[k] = Reserved(q, "explicit")
        for k, q in (spec.kubeReserved or {}).items():
            kube[k] = Reserved(q, "explicit")
    # The kubelet: "Option --reserved-cpus is specified, it will overwrite the cpu setting in KubeReserved and
    # SystemReserved": systemReserved cpu becomes the set's size and kubeReserved cpu is dropped
    # (kubernetes/kubernetes@293a53f2:cmd/kubelet/app/server.go). The policy's own values stay as written (they are
    # what gets rendered); only the arithmetic uses the override.
    cpu_override: Quantity | None = None
    reserved_cpus = _reserved_system_cpus(spec.reservedSystemCPUs if spec is not None else None)
    if reserved_cpus:
        cpu_override = Quantity.from_value(reserved_cpus)
        notes.append(
            f"cpu: reservedSystemCPUs {spec.reservedSystemCPUs if spec else ''} ({reserved_cpus} CPUs) replaces the "
            "cpu of systemReserved and kubeReserved, as the kubelet does"
        )

    if spec is not None and spec.evictionHard is not None:
        eviction, eviction_source = dict(spec.evictionHard), "explicit"
    elif default is not None and default.eviction_hard is not None:
        eviction, eviction_source = dict(default.eviction_hard), default.source
    elif formula is not None and default is None and not (formula.spec is not None and formula.spec.custom):
        eviction, eviction_source = dict(formula.eviction_hard), f"formula:{formula.formula}"
    else:
        eviction, eviction_source = dict(KUBELET_DEFAULT_EVICTION_HARD), "kubelet default"

    # The pool's file is a drop-in beside the platform's own: the kubelet merges them, map keys one by one, so
    # keys the policy leaves out keep the platform's values, and those count (kubelet_dropins).
    files = kubelet_dropins.pool_files(pool, settings) if len(policies) == 1 else None
    effective = None
    if files is not None and spec is not None:
        effective = _effective_kubelet(files, pool, settings, system, kube, eviction_source, eviction, spec)
    if effective is not None:
        for part, target in (("systemReserved", system), ("kubeReserved", kube)):
            for k, v in (effective.get(part) or {}).items():
                winner = effective.winner(part, k)
                if winner is not None and kubelet_dropins.kept(effective, part, k):
                    target[k] = Reserved(Quantity.parse(v), kubelet_dropins.label(winner))
        eviction = dict(effective.get("evictionHard") or eviction)  # the source stays the policy's: its keys win
        notes.extend(kubelet_dropins.notes(effective))

    capacity = pool.capacity  # read only, as every map here
    eviction_reserved: dict[str, Quantity] = {}
    for signal, resource in EVICTION_RESOURCE.items():
        if signal in eviction and resource in capacity:
            got = eviction_reservation(eviction[signal], capacity[resource])
            if got is not None:
                eviction_reserved[resource] = got

    hugepages = ZERO
    for k, v in capacity.items():
        if k.startswith("hugepages-"):
            hugepages = hugepages + v

    rules = {r: commit_rule(percent[r], under_commit_scales_reserved) for r in RESOURCES}
    allocatable: dict[str, Quantity] = {}
    committed: dict[str, Quantity] = {}
    reserved_totals: dict[str, Quantity] = {}
    for resource in RESOURCES:
        if resource not in capacity:
            continue
        cap = capacity[resource]
        reserved = reserved_totals[resource] = _reserved_sum(resource, system, kube, eviction_reserved, cpu_override)
        hp = hugepages if resource == "memory" else ZERO
        allocatable[resource] = commit_value(resource, cap, reserved, hp, 100, True)
        committed[resource] = commit_value(
            resource, cap, reserved, hp, percent[resource], rules[resource] != "unscaled"
        )
    allocatable["pods"] = committed["pods"] = Quantity.from_value(max_pods)
    for resource, cap in capacity.items():
        # Extended resources (nvidia.com/gpu): the kubelet reserves none, and no CommitClass scales them.
        if is_extended(resource):
            allocatable[resource] = committed[resource] = cap
    if shared is not None:
        percent, rules, eviction = shared.plain(percent), shared.plain(rules), shared.plain(eviction)
        system, kube = shared.reserved_map(system), shared.reserved_map(kube)
        capacity, eviction_reserved = shared.quantities(capacity), shared.quantities(eviction_reserved)
        allocatable, committed = shared.quantities(allocatable), shared.quantities(committed)
        reserved_totals, hugepages = shared.quantities(reserved_totals), shared.quantity(hugepages)
    return PoolCapacity(
        pool=pool,
        commit_classes=commit_classes,
        reservation_policies=policies,
        runtime_classes=runtime_classes,
        percent=percent,
        commit_rule=rules,
        capacity=capacity,
        system_reserved=system,
        kube_reserved=kube,
        eviction_hard=eviction,
        eviction_source=eviction_source,
        eviction_reserved=eviction_reserved,
        hugepages=hugepages,
        allocatable=allocatable,
        committed=committed,
        max_pods=max_pods,
        formula=formula,
        platform_default=default,
        cpu_override=cpu_override,
        effective_kubelet=effective,
        notes=notes,
        _reserved=reserved_totals,
    )


def _explicit(spec: ReservationPolicySpec | None) -> dict[tuple[str, str], Quantity]:
    """The reserved values a policy states itself, by (map, resource): they replace a formula's."""
    if spec is None:
        return {}
    out: dict[tuple[str, str], Quantity] = {}
    for part, values in (("systemReserved", spec.systemReserved), ("kubeReserved", spec.kubeReserved)):
        for k, q in (values or {}).items():
            out[(part, k)] = q
    return out


def formula_notes(formula: FormulaResult, explicit: dict[tuple[str, str], Quantity]) -> list[str]:
    """The formula's notes as the table shows its values: the steps of a value the policy states itself are
    replaced, where they were, by one note saying which value the table shows instead and from which field.
    Cost: O(notes)."""
    values = {"systemReserved": formula.system_reserved, "kubeReserved": formula.kube_reserved}
    out: list[str] = []
    replaced: set[tuple[str, str]] = set()

    def replace(part: str, resource: str) -> None:
        if (part, resource) in replaced:
            return
        replaced.add((part, resource))
        computed = values[part].get(resource)
        said = f"{part} {resource}: {explicit[(part, resource)]} from spec.{part}.{resource}"
        if computed:
            out.append(f"{said} replaces the {formula.formula} formula's {computed}")
        else:
            out.append(f"{said} (the {formula.formula} formula gives none for this pool)")

    for part, resource, note in formula.attributed:
        if part is not None and resource is not None and (part, resource) in explicit:
            replace(part, resource)
        else:
            out.append(note)
    for part, resource in explicit:
        if resource in values[part] and (part, resource) not in replaced:
            replace(part, resource)
    return list(dict.fromkeys(out))


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


def build(policies: PolicySet) -> CapacityModel:
    """The capacity model of a validated policy set.

    Cost: matching (see ``capacity.matching``) plus O(pools) for the arithmetic; pod overhead figures are left
    to first use (``PoolCapacity.overhead``, ``CapacityModel.overhead_groups``)."""
    matches = match_all(policies)
    scales = policies.settings.commit.underCommitScalesReserved
    figures: dict[tuple[Any, ...], OverheadFigures] = {}
    shared = Shared()
    pools = [
        pool_capacity(
            pool,
            matches.commit_classes[i],
            matches.reservation_policies[i],
            matches.runtime_classes[i],
            scales,
            policies.settings,
            shared=shared,
        )
        for i, pool in enumerate(policies.pools)
    ]
    for pc in pools:
        pc._figures = figures
    return CapacityModel(policies, matches, pools, scales)


def platform_reservation(
    pc: PoolCapacity, settings: Settings
) -> tuple[dict[str, Quantity], dict[str, Quantity], dict[str, str]]:
    """What the pool's platform reserves by itself (systemReserved, kubeReserved, evictionHard), computed for the
    pool's size: what its nodes keep where a delivery cannot carry the policy's value. Cost: one formula evaluation."""
    return platform_reservation_for(
        pc.pool, pc.platform_default or platform_default(pc.pool, settings), settings, pc.max_pods
    )


def platform_reservation_for(
    pool: Pool, default: PlatformDefault | None, settings: Settings, max_pods: int
) -> tuple[dict[str, Quantity], dict[str, Quantity], dict[str, str]]:
    """:func:`platform_reservation` of ``pool`` under ``default`` for ``max_pods`` pods."""
    if default is None:
        return {}, {}, dict(KUBELET_DEFAULT_EVICTION_HARD)
    system: dict[str, Quantity] = {}
    kube: dict[str, Quantity] = {}
    if default.formula is not None:
        shape, _ = formula_inputs(pool, default.formula, settings, max_pods)
        if shape is not None:
            try:
                result = _formula(default.formula, shape)
            except FormulaError:
                result = None
            if result is not None:
                system, kube = _parse_map(result.system_reserved), _parse_map(result.kube_reserved)
    return system, kube, default.eviction


def _effective_kubelet(
    files: KubeletFiles,
    pool: Pool,
    settings: Settings,
    system: dict[str, Reserved],
    kube: dict[str, Reserved],
    eviction_source: str,
    eviction: dict[str, str],
    spec: ReservationPolicySpec,
) -> kubelet_dropins.EffectiveConfig:
    """The platform's file (what its default reserves for the pool, its evictionHard, its maxPods) merged with the
    fields the kubelet targets render for the policy (``capacity.kubeletfields``)."""
    default = platform_default(pool, settings)
    platform_max_pods = effective_max_pods(pool, None)
    psys, pkube, _ = platform_reservation_for(pool, default, settings, platform_max_pods)
    theirs: dict[str, Any] = {}
    ours: dict[str, Any] = {}
    for part, mine, platform_map in (("systemReserved", system, psys), ("kubeReserved", kube, pkube)):
        if platform_map:
            theirs[part] = {k: str(q) for k, q in platform_map.items()}
        if mine:
            ours[part] = {k: str(r.quantity) for k, r in mine.items()}
    if default is not None and default.eviction_hard is not None:
        theirs["evictionHard"] = dict(default.eviction_hard)
    if eviction_source == "explicit" or eviction_source.startswith("formula:"):
        ours["evictionHard"] = dict(eviction)
    if files.sets_max_pods:
        theirs["maxPods"] = platform_max_pods
    if spec.maxPods is not None:
        ours["maxPods"] = spec.maxPods
    return kubelet_dropins.layered(files, theirs, ours)
