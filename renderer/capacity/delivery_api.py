"""What the API modules of ``renderer/capacity/deliveries/`` share: the translation of a pool's ReservationPolicy
into a platform's own kubelet API, and the problems found on the way.

One module per API (``renderer/capacity/deliveries/<name>.py``), found by its name, each declaring ``WAY`` (the
``NodePool.spec.delivery`` field that chooses it), ``API`` (what it is, for messages) and ``translate(pc, settings)``
→ :class:`Translation`: the document to deliver and the :class:`Problem` list (a setting the API has no place for, a
value it refuses), each located in the ReservationPolicy. Lint rule AL327 reports the problems before anything is
rendered; the render targets of the same names write the documents (and report the problems again, as AL809, when
the rule is turned off). Both stages read this one translation, so they never disagree.

A reservation or hard-eviction threshold an API cannot carry is a problem only where it differs from what the
platform does by itself (:func:`kept_by_platform`): a policy that names the platform's own formula asks for nothing
to be delivered.

Cost: O(fields of the pool's policy) per pool; the platform's own values are one formula evaluation per pool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import TYPE_CHECKING, Any, NamedTuple

from renderer.capacity.kubeletfields import kubelet_fields
from renderer.models.kubelet_fields import SPEC_FIELDS
from renderer.models.kubelet_validation import go_duration
from renderer.quantity import Quantity, QuantityError
from renderer.reprs import fields_repr

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity
    from renderer.findings import FieldPath, Severity
    from renderer.models.settings import Settings

__all__ = [
    "Problem",
    "Translation",
    "duration_seconds",
    "eviction_path",
    "field_path",
    "kept_by_platform",
    "percent",
    "pool_fields",
    "quantity",
    "reserved_path",
    "undeliverable_reservations",
]


class Problem(NamedTuple):
    """One setting of the policy the API cannot take as it is (``severity`` error: refused or allocatable would differ
    from the model; warning: left out, nothing the model counts changes)."""

    severity: Severity
    message: str
    field_path: FieldPath  # in the ReservationPolicy
    hint: str


@dataclass(eq=False, repr=False)
class Translation:
    """What one pool's policy becomes in an API: ``document`` (None: nothing to deliver) and its problems."""

    __repr__ = fields_repr

    api: str
    document: Any | None
    problems: list[Problem] = field(default_factory=list)
    #: values the file cannot hold (NOT_RENDERABLE: a date, a non-string key in spec.kubelet)
    unrenderable: list[tuple[str, FieldPath]] = field(default_factory=list)

    def problem(self, severity: Severity, message: str, where: FieldPath, hint: str) -> None:
        self.problems.append(Problem(severity, message, where, hint))


def field_path(name: str, *rest: str | int) -> FieldPath:
    """Where a KubeletConfiguration field is written in a ReservationPolicy: its own spec field, else spec.kubelet."""
    head: tuple[str | int, ...] = ("spec", name) if name in SPEC_FIELDS else ("spec", "kubelet", name)
    return (*head, *rest)


def reserved_path(pc: PoolCapacity, part: str, key: str) -> FieldPath:
    """The policy field a reserved value comes from: the explicit key, else the formula that computed it."""
    values = pc.system_reserved if part == "systemReserved" else pc.kube_reserved
    r = values.get(key)
    if r is not None and r.source == "explicit":
        return ("spec", part, key)
    return ("spec", "autoSizing")


def eviction_path(pc: PoolCapacity, signal: str) -> FieldPath:
    if pc.eviction_source == "explicit":
        return ("spec", "evictionHard", signal)
    return ("spec", "autoSizing")


def pool_fields(pc: PoolCapacity, translation: Translation) -> dict[str, Any]:
    """The pool's KubeletConfiguration fields (what kubelet/<pool>.yaml would hold); values that cannot be rendered
    are collected in ``translation.unrenderable``."""
    policy = pc.policy
    assert policy is not None

    def problem(message: str, where: FieldPath) -> None:
        translation.unrenderable.append((message, where))

    return kubelet_fields(pc, policy.model.spec, problem)


def kept_by_platform(pc: PoolCapacity, settings: Settings) -> tuple[dict[str, str], dict[str, str], dict[str, str]]:
    """What the pool's platform reserves by itself (systemReserved, kubeReserved, evictionHard as strings), computed
    for its size: what a node keeps where the API cannot carry the policy's value."""
    from renderer.capacity.reservations import platform_reservation

    system, kube, eviction = platform_reservation(pc, settings)
    return {k: str(q) for k, q in system.items()}, {k: str(q) for k, q in kube.items()}, dict(eviction)


def undeliverable_reservations(
    pc: PoolCapacity,
    settings: Settings,
    fields: dict[str, Any],
    translation: Translation,
    *,
    takes: Callable[[str, str], bool],
    takes_signal: Callable[[str], bool],
    api: str,
    hint: str,
) -> None:
    """An error for every reserved value and hard-eviction threshold of ``fields`` that the API cannot carry
    (``takes(part, key)``, ``takes_signal(signal)`` false) and that differs from what the platform does by itself."""
    kept_system, kept_kube, kept_eviction = kept_by_platform(pc, settings)
    for part, kept in (("systemReserved", kept_system), ("kubeReserved", kept_kube)):
        for key, value in (fields.get(part) or {}).items():
            if takes(part, key) or _same_quantity(kept.get(key), value):
                continue
            node = kept.get(key)
            translation.problem(
                "error",
                f"{api} has no place for {part}.{key} ({value}): the nodes keep "
                + (f"the platform's {node}" if node is not None else "none"),
                reserved_path(pc, part, key),
                hint,
            )
    for signal, value in (fields.get("evictionHard") or {}).items():
        if takes_signal(signal) or kept_eviction.get(signal) == value:
            continue
        node = kept_eviction.get(signal)
        translation.problem(
            "error",
            f"{api} has no place for evictionHard {signal} ({value}): the nodes keep "
            + (f"the platform's {node}" if node is not None else "no threshold"),
            eviction_path(pc, signal),
            hint,
        )


def _same_quantity(a: str | None, b: str) -> bool:
    if a is None:
        return False
    try:
        return Quantity.parse(a) == Quantity.parse(b)
    except QuantityError:
        return a == b


def quantity(value: Any) -> Quantity | None:
    try:
        return Quantity.parse(str(value))
    except QuantityError:
        return None


def percent(value: Any) -> Decimal | None:
    """``"10%"`` → 10; None for anything else."""
    text = str(value)
    if not text.endswith("%"):
        return None
    try:
        return Decimal(text[:-1])
    except ArithmeticError:
        return None


def duration_seconds(value: Any) -> Decimal | None:
    """A Go duration in seconds (``"1m30s"`` → 90), None where Go's time.ParseDuration fails."""
    if not isinstance(value, str):
        return None
    ns = go_duration(value)
    return None if ns is None else Decimal(ns) / Decimal(1_000_000_000)
