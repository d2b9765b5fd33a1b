"""Every pool's capacity arithmetic: :func:`pool_capacity` for one pool (the steps in the kubelet's order, each its own
function below it) with its range checks (``_in_range``), and :func:`build`, the model of a policy set, whose pools
share their equal values (:class:`Shared`). The rules themselves (the commit rule, eviction thresholds) are in
``renderer.capacity.model``; formulas and platform reservations in ``renderer.capacity.reservations``.

Cost: O(pools × resources) after matching (``renderer.capacity.matching``), plus a formula evaluation per distinct
(formula, machine shape).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from itertools import chain
from typing import Any, Concatenate, ParamSpec, TypeVar

from renderer.capacity import kubelet_dropins
from renderer.capacity.cpuset import cpuset_size, parse_cpuset
from renderer.capacity.formulas import Formula, FormulaError, FormulaResult
from renderer.capacity.karpenter import karpenter_evaluates, round_as_karpenter
from renderer.capacity.matching import match_all
from renderer.capacity.model import (
    EVICTION_RESOURCE,
    RESOURCES,
    ZERO,
    CapacityModel,
    OutOfRange,
    OverheadFigures,
    PoolCapacity,
    Reserved,
    _reserved_sum,
    commit_rule,
    commit_value,
    effective_max_pods,
    eviction_reservation,
    out_of_range,
)
from renderer.capacity.platform import PlatformDefault, formula_inputs, platform_default
from renderer.capacity.reservations import (
    _effective_kubelet,
    _explicit,
    _formula,
    _parse_map,
    formula_notes,
    policy_formula,
)
from renderer.models import validators
from renderer.models.commitclass import CommitClass
from renderer.models.inventory import Pool
from renderer.models.kubelet_fields import KUBELET_DEFAULT_EVICTION_HARD
from renderer.models.reservationpolicy import ReservationPolicy, ReservationPolicySpec
from renderer.models.runtimeclass import RuntimeClass
from renderer.models.settings import Settings
from renderer.quantity import Quantity, QuantityError
from renderer.resourcenames import is_extended
from renderer.validation.validate import Loaded, PolicySet

_V = TypeVar("_V")


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

    The steps, each its own function, in the kubelet's order: the commit class and the policy in effect, the
    reserved slices (a formula's, then the policy's own, then ``reservedSystemCPUs``), hard eviction, the drop-in
    merge with the platform's file, then allocatable and committed per resource.

    Raises :class:`OutOfRange` when a figure of the pool, or of its nodes together, leaves the range of a Kubernetes
    quantity (see ``_in_range``)."""
    settings = settings if settings is not None else validators.new("Settings")
    notes: list[str] = []
    percent = _commit_percents(commit_classes, notes)
    policy = _policy_in_effect(policies, notes)
    spec = policy.spec if policy else None
    max_pods = effective_max_pods(pool, policy)

    # No policy selects the pool: its platform still reserves what it always does.
    if policies:
        default = None
    elif default is None:
        default = platform_default(pool, settings)
    chosen: Formula | None = policy_formula(policies[0]) if len(policies) == 1 else None
    if default is not None:
        chosen = default.formula
        notes.append(f"no ReservationPolicy selects this pool: {default.source} applies ({default.reason})")
    system: dict[str, Reserved] = {}
    kube: dict[str, Reserved] = {}
    formula = None
    if chosen is not None:
        formula = _formula_reserved(pool, chosen, spec, default, settings, max_pods, notes, system, kube)
    _policy_reserved(spec, system, kube)
    cpu_override = _cpu_override(spec, notes)
    eviction, eviction_source = _eviction_hard(spec, default, formula)

    # The pool's file is a drop-in beside the platform's own: the kubelet merges them, map keys one by one, so
    # keys the policy leaves out keep the platform's values, and those count (kubelet_dropins).
    files = kubelet_dropins.pool_files(pool, settings) if len(policies) == 1 else None
    effective = None
    if files is not None and spec is not None:
        effective = _effective_kubelet(files, pool, settings, system, kube, eviction_source, eviction, spec)
        eviction = _merged(effective, system, kube, eviction, notes)

    capacity = pool.capacity  # read only, as every map here
    eviction_reserved = _eviction_reserved(eviction, capacity)
    hugepages = _hugepages(capacity)
    rules = {r: commit_rule(percent[r], under_commit_scales_reserved) for r in RESOURCES}
    reserved_totals = {
        r: _reserved_sum(r, system, kube, eviction_reserved, cpu_override) for r in RESOURCES if r in capacity
    }
    allocatable, committed = _advertised(capacity, reserved_totals, hugepages, percent, rules, max_pods)
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


def _commit_percents(commit_classes: list[Loaded[CommitClass]], notes: list[str]) -> dict[str, int]:
    """The percent per resource of the one CommitClass selecting the pool (100 without one, or with several: a note
    says so)."""
    cc = commit_classes[0].model if len(commit_classes) == 1 else None
    if len(commit_classes) > 1:
        notes.append(
            f"{len(commit_classes)} CommitClasses select this pool ({', '.join(c.name for c in commit_classes)}); "
            "none is applied until one remains"
        )
    return cc.percents() if cc else {r: 100 for r in RESOURCES}


def _policy_in_effect(policies: list[Loaded[ReservationPolicy]], notes: list[str]) -> ReservationPolicy | None:
    """The one ReservationPolicy selecting the pool (none with several: a note says so)."""
    if len(policies) > 1:
        notes.append(
            f"{len(policies)} ReservationPolicies select this pool ({', '.join(p.name for p in policies)}); "
            "none is applied until one remains"
        )
    return policies[0].model if len(policies) == 1 else None


def _fallback_storage(spec: ReservationPolicySpec | None, chosen: Formula, notes: list[str]) -> str | None:
    """The ephemeral-storage of ``autoSizing.fallback`` for a formula that reads it; the other fallbacks, unused
    with auto sizing on, get a note."""
    fallback = spec.autoSizing.fallback if spec is not None and spec.autoSizing is not None else None
    if not fallback or "fallback" not in chosen.inputs():
        return None
    unused = sorted(k for k in fallback if k != "ephemeral-storage")
    if unused:
        notes.append(
            f"autoSizing.fallback {', '.join(unused)} not used: with auto sizing on the script computes "
            "cpu and memory itself (fallbacks apply only when it is off)"
        )
    return str(fallback["ephemeral-storage"]) if "ephemeral-storage" in fallback else None


def _formula_reserved(
    pool: Pool,
    chosen: Formula,
    spec: ReservationPolicySpec | None,
    default: PlatformDefault | None,
    settings: Settings,
    max_pods: int,
    notes: list[str],
    system: dict[str, Reserved],
    kube: dict[str, Reserved],
) -> FormulaResult | None:
    """The ``chosen`` formula computed for the pool's shape, its reserved values put into ``system`` and ``kube``
    (rounded as Karpenter's expressions round them where the pool is delivered through it), its notes into
    ``notes``; None when the shape is unknown or the formula cannot run (a note says why)."""
    es = _fallback_storage(spec, chosen, notes)
    shape, input_notes = formula_inputs(pool, chosen, settings, max_pods, es)
    # an input note ("memory: ...") about values the policy states itself in every map says nothing the table shows
    explicit = _explicit(spec)
    replaced = {r for r in chosen.resources if all((p, r) in explicit for p, m in chosen.terms.items() if r in m)}
    notes.extend(n for n in input_notes if n.split(":", 1)[0] not in replaced)
    if shape is None:
        return None
    try:
        formula = _formula(chosen, shape)
    except FormulaError as exc:
        notes.append(f"formula {chosen.name} not applied: {exc}")
        return None
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
    return formula


def _policy_reserved(
    spec: ReservationPolicySpec | None, system: dict[str, Reserved], kube: dict[str, Reserved]
) -> None:
    """The values the policy states itself replace a formula's."""
    if spec is None:
        return
    for k, q in (spec.systemReserved or {}).items():
        system[k] = Reserved(q, "explicit")
    for k, q in (spec.kubeReserved or {}).items():
        kube[k] = Reserved(q, "explicit")


def _cpu_override(spec: ReservationPolicySpec | None, notes: list[str]) -> Quantity | None:
    """The cpu reservation ``reservedSystemCPUs`` makes, replacing both maps' cpu in the arithmetic.

    The kubelet: "Option --reserved-cpus is specified, it will overwrite the cpu setting in KubeReserved and
    SystemReserved": systemReserved cpu becomes the set's size and kubeReserved cpu is dropped
    (kubernetes/kubernetes@293a53f2:cmd/kubelet/app/server.go). The policy's own values stay as written (they are
    what gets rendered); only the arithmetic uses the override."""
    reserved_cpus = _reserved_system_cpus(spec.reservedSystemCPUs if spec is not None else None)
    if not reserved_cpus:
        return None
    notes.append(
        f"cpu: reservedSystemCPUs {spec.reservedSystemCPUs if spec else ''} ({reserved_cpus} CPUs) replaces the "
        "cpu of systemReserved and kubeReserved, as the kubelet does"
    )
    return Quantity.from_value(reserved_cpus)


def _eviction_hard(
    spec: ReservationPolicySpec | None, default: PlatformDefault | None, formula: FormulaResult | None
) -> tuple[dict[str, str], str]:
    """The hard-eviction signals in effect and where they come from: the policy's, the platform default's, the
    formula's (not a custom one's), else the kubelet's defaults."""
    if spec is not None and spec.evictionHard is not None:
        return dict(spec.evictionHard), "explicit"
    if default is not None and default.eviction_hard is not None:
        return dict(default.eviction_hard), default.source
    if formula is not None and default is None and not (formula.spec is not None and formula.spec.custom):
        return dict(formula.eviction_hard), f"formula:{formula.formula}"
    return dict(KUBELET_DEFAULT_EVICTION_HARD), "kubelet default"


def _merged(
    effective: kubelet_dropins.EffectiveConfig,
    system: dict[str, Reserved],
    kube: dict[str, Reserved],
    eviction: dict[str, str],
    notes: list[str],
) -> dict[str, str]:
    """The platform's values the kubelet keeps beside the pool's drop-in put into ``system`` and ``kube``; the
    merged hard eviction returned (its source stays the policy's: its keys win)."""
    for part, target in (("systemReserved", system), ("kubeReserved", kube)):
        for k, v in (effective.get(part) or {}).items():
            winner = effective.winner(part, k)
            if winner is not None and kubelet_dropins.kept(effective, part, k):
                target[k] = Reserved(Quantity.parse(v), kubelet_dropins.label(winner))
    notes.extend(effective.notes)
    return dict(effective.get("evictionHard") or eviction)


def _eviction_reserved(eviction: dict[str, str], capacity: dict[str, Quantity]) -> dict[str, Quantity]:
    """What the hard thresholds that reduce allocatable (``EVICTION_RESOURCE``) keep free, per resource."""
    out: dict[str, Quantity] = {}
    for signal, resource in EVICTION_RESOURCE.items():
        if signal in eviction and resource in capacity:
            got = eviction_reservation(eviction[signal], capacity[resource])
            if got is not None:
                out[resource] = got
    return out


def _hugepages(capacity: dict[str, Quantity]) -> Quantity:
    """Every page size's hugepages together (taken from memory's allocatable)."""
    hugepages = ZERO
    for k, v in capacity.items():
        if k.startswith("hugepages-"):
            hugepages = hugepages + v
    return hugepages


def _advertised(
    capacity: dict[str, Quantity],
    reserved: dict[str, Quantity],
    hugepages: Quantity,
    percent: dict[str, int],
    rules: dict[str, str],
    max_pods: int,
) -> tuple[dict[str, Quantity], dict[str, Quantity]]:
    """Allocatable and committed allocatable per resource (``commit_value``), pods, and extended resources as the
    node reports them."""
    allocatable: dict[str, Quantity] = {}
    committed: dict[str, Quantity] = {}
    for resource in RESOURCES:
        if resource not in capacity:
            continue
        cap = capacity[resource]
        hp = hugepages if resource == "memory" else ZERO
        allocatable[resource] = commit_value(resource, cap, reserved[resource], hp, 100, True)
        committed[resource] = commit_value(
            resource, cap, reserved[resource], hp, percent[resource], rules[resource] != "unscaled"
        )
    allocatable["pods"] = committed["pods"] = Quantity.from_value(max_pods)
    for resource, cap in capacity.items():
        # Extended resources (nvidia.com/gpu): the kubelet reserves none, and no CommitClass scales them.
        if is_extended(resource):
            allocatable[resource] = committed[resource] = cap
    return allocatable, committed


def _reserved_system_cpus(text: str | None) -> int:
    if not text:
        return 0
    ranges, _ = parse_cpuset(text.strip())
    return cpuset_size(ranges) if ranges else 0


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
