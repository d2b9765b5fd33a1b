"""KubeletConfiguration fields of one pool, as the kubelet and OpenShift targets render them.

Reserved values come from the capacity model (explicit values, or a formula computed for the pool's size), so the
rendered file and ``allocatable explain`` always agree. Everything else is what the pool's ReservationPolicy says;
nothing is added that the policy does not ask for (the platform's defaults stay in charge of unset fields).
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from renderer.capacity.kubelet_dropins import kept
from renderer.findings import FieldPath
from renderer.models.kubelet_fields import SPEC_FIELDS

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity, Reserved
    from renderer.models.reservationpolicy import ReservationPolicySpec

_SURROGATE = re.compile("[\ud800-\udfff]")  # a "\ud800" escape: no character, no encoder writes it
RESERVED_ORDER = ("cpu", "memory", "ephemeral-storage", "pid")
# The fields ReservationPolicy.spec carries itself that are copied as they are (reserved values and evictionHard
# come from the capacity model), in the order we copy them.
SIMPLE_FIELDS = tuple(f for f in SPEC_FIELDS if f not in ("systemReserved", "kubeReserved", "evictionHard"))

Problem = Callable[[str, FieldPath], None]


def reserved_map(values: dict[str, Reserved], *, skip: Callable[[Reserved], bool] | None = None) -> dict[str, str]:
    out: dict[str, str] = {}
    for key in sorted(values, key=lambda k: (RESERVED_ORDER.index(k) if k in RESERVED_ORDER else 99, k)):
        r = values[key]
        if skip is not None and skip(r):
            continue
        out[key] = str(r.quantity)
    return out


def plain(value: Any, where: FieldPath, problem: Problem) -> Any:
    """A deep copy of passthrough data with mapping keys sorted; only JSON types survive (others are reported)."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for k in sorted(value, key=str):
            if not isinstance(k, str):
                problem(f"mapping key {k!r} is not a string; quote it", where)
                continue
            out[k] = plain(value[k], (*where, k), problem)
        return out
    if isinstance(value, (list, tuple)):
        return [plain(v, (*where, i), problem) for i, v in enumerate(value)]
    if isinstance(value, str) and _SURROGATE.search(value):
        problem(
            f"{value.encode('utf-8', 'backslashreplace').decode()!r} holds a lone surrogate; write the character itself",
            where,
        )
        return None
    if value is None or isinstance(value, (str, bool, int)):
        return value
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            problem(f"{value!r} is not a finite number", where)
            return None
        return value
    if isinstance(value, (datetime.date, datetime.datetime)):
        problem(f"{value.isoformat()} was read as a date; quote it if the kubelet expects a string", where)
        return None
    problem(f"a value of type {type(value).__name__} cannot be rendered", where)
    return None


def eviction_hard(pc: PoolCapacity, *, platform_formula_ok: bool) -> dict[str, str] | None:
    """evictionHard to render: the policy's own, or a formula's when ``platform_formula_ok``; None to leave it."""
    if pc.eviction_source == "explicit" or (platform_formula_ok and pc.eviction_source.startswith("formula:")):
        eff = pc.effective_kubelet  # thresholds the kubelet keeps from the platform's file are not the policy's
        return {k: v for k, v in sorted(pc.eviction_hard.items()) if not kept(eff, "evictionHard", k)}
    return None


def kubelet_fields(
    pc: PoolCapacity,
    spec: ReservationPolicySpec,
    problem: Problem,
    *,
    system_reserved: bool = True,
    formula_eviction: bool = True,
) -> dict[str, Any]:
    """The KubeletConfiguration fields of the pool (no apiVersion/kind), keys in alphabetical order."""
    fields: dict[str, Any] = {}
    # values the kubelet keeps from the platform's own file (a drop-in merge, kubelet_dropins) are not the policy's
    eff = pc.effective_kubelet
    if system_reserved:
        sr = reserved_map({k: r for k, r in pc.system_reserved.items() if not kept(eff, "systemReserved", k)})
        if sr:
            fields["systemReserved"] = sr
    kr = reserved_map({k: r for k, r in pc.kube_reserved.items() if not kept(eff, "kubeReserved", k)})
    if kr:
        fields["kubeReserved"] = kr
    eh = eviction_hard(pc, platform_formula_ok=formula_eviction)
    if eh is not None:
        fields["evictionHard"] = eh
    for name in SIMPLE_FIELDS:
        value = getattr(spec, name)
        if value is None:
            continue
        if isinstance(value, dict):
            value = dict(sorted(value.items()))
        elif isinstance(value, list):
            value = list(value)
        fields[name] = value
    for name, value in (spec.kubelet or {}).items():
        fields[name] = plain(value, ("spec", "kubelet", name), problem)
    return dict(sorted(fields.items()))
