"""The reserved slices a formula or a platform gives a pool: the formula a policy names or writes
(``policy_formula``), computed once per (formula, machine shape); its notes as the explain table shows them
(``formula_notes``); what a pool's platform reserves by itself (``platform_reservation``); and the platform's
kubelet file merged with the one rendered for the policy (``_effective_kubelet``, ``renderer.capacity.kubelet_dropins``).

Cost: one formula evaluation per distinct (formula, shape) in a run (at most 4,096 kept); the rest O(notes) or
O(resources).
"""

from __future__ import annotations

import weakref
from functools import lru_cache
from typing import Any

from renderer.capacity import kubelet_dropins
from renderer.capacity.formulas import Formula, FormulaError, FormulaResult, MachineShape, compute
from renderer.capacity.model import PoolCapacity, Reserved, effective_max_pods
from renderer.capacity.platform import PlatformDefault, formula_inputs, platform_default
from renderer.loading.files import UsageError
from renderer.models.inventory import Pool
from renderer.models.kubelet_fields import KUBELET_DEFAULT_EVICTION_HARD
from renderer.models.reservationpolicy import ReservationPolicy, ReservationPolicySpec
from renderer.models.settings import Settings
from renderer.platforms import KubeletFiles
from renderer.quantity import Quantity, QuantityError
from renderer.validation.validate import Loaded, PolicySet


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
