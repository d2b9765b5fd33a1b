"""The reservation formula model: the data every platform formula, and every user's own, is written in.

A :class:`Formula` says, per reserved map (systemReserved, kubeReserved) and per resource, how a node's size turns
into a reservation (:class:`Term`):

1. an **input**: the node's cpu, its memory capacity (MemTotal), its machine memory (the size the machine type is
   sold as), its ephemeral-storage capacity, a GKE boot disk or local SSD count, or none; optionally truncated to
   a multiple (whole CPUs, whole GiB as ``free -g`` reads it) and raised to a minimum (at least one CPU);
2. **fixed values for small inputs** (``steps``: "at most 1000 MiB: 255Mi"), else
3. **tiers** over the input, a fraction per bracket (25% of the first 4 GiB, 20% of the next 4, ...), each bracket
   optionally truncated on its own (EKS's integer millicores), plus a **base** and a **per-pod** amount times maxPods
   (the configured maxPods, or the ENI-limited one a platform computes before any override);
4. **clamps** (a minimum such as OpenShift's 0.5-core floor, a maximum such as AKS's 25% of memory);
5. **rounding** (down, up, half up or none, to a step such as 1m, 10m, 1Mi or 1Gi) and how the value is written.

Order: input -> steps or (tiers + base + per pod) -> clamps -> rounding -> text. A clamp that states its own text
(``0.5``) is written as given. Overrides replace terms for named machine types (GKE's shared-core E2) or when an
input is present (GKE's local SSDs).

Data only, below every stage that uses it (the platforms write their formulas in it, the schemas check users'); the
arithmetic that evaluates it, with notes, is ``renderer.capacity.formulas``. No third-party imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Final, Literal, NamedTuple

from renderer.reprs import fields_repr

__all__ = [
    "DEFAULT_MAX_PODS",
    "GIB",
    "KIB",
    "KUBELET_DEFAULTS",
    "MIB",
    "PARTS",
    "Clamp",
    "Formula",
    "FormulaError",
    "FormulaResult",
    "Input",
    "MachineShape",
    "NoteHook",
    "Override",
    "Rounding",
    "Step",
    "Term",
    "Tier",
    "constant",
    "cpu_tiers",
    "fmt_number",
    "memory_tiers",
    "parse_amount",
]

#: The kubelet's own evictionHard on Linux (kubernetes/kubernetes pkg/kubelet/eviction/defaults_linux.go
#: DefaultEvictionHard); a platform that sets none, and a formula without eviction of its own, get these.
KUBELET_DEFAULTS: Final[Mapping[str, str]] = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
}

KIB: Final = 1024
MIB: Final = 1024**2
GIB: Final = 1024**3

#: max pods assumed when the shape does not say (kubelet default; nodeadm's fallback for unknown types).
DEFAULT_MAX_PODS: Final = 110

#: The reserved maps a formula fills, in the order they are written.
PARTS: Final = ("systemReserved", "kubeReserved")

Input = Literal["none", "cpu", "memory", "machineMemory", "ephemeralStorage", "bootDisk", "localSsds", "fallback"]
RoundMode = Literal["down", "up", "half-up", "none"]
Unit = Literal["m", "cores", "cores.2", "Mi", "Gi", "GiMi", "bytes", "count"]

_ONE = Fraction(1)
_ZERO = Fraction(0)


class FormulaError(ValueError):
    """An unknown formula or an impossible machine shape (one-line message)."""


# ----------------------------------------------------------------------------------------------------
# the model


class Tier(NamedTuple):
    """One bracket: ``fraction`` of the part of the input up to ``up_to`` (None: no upper bound) above the previous
    bracket's bound; ``add`` is added once the input is above that lower bound (a step, in output units)."""

    up_to: Fraction | None
    fraction: Fraction
    add: Fraction = _ZERO


class Step(NamedTuple):
    """An input of at most ``at_most`` reserves exactly ``value`` (written as ``text`` when given)."""

    at_most: Fraction
    value: Fraction
    text: str | None = None


class Clamp(NamedTuple):
    """A bound: an amount (output units), or a fraction of the input; written as ``text`` when it applies."""

    amount: Fraction | None = None
    fraction: Fraction | None = None
    text: str | None = None


class Rounding(NamedTuple):
    mode: RoundMode
    step: Fraction = _ONE  # in output units: cores for cpu, bytes otherwise


class Term(NamedTuple):
    """How one resource of one reserved map is computed (see the module docstring for the order of the steps).

    Units: cpu in cores, every other resource in bytes (pid: a count); fractions are dimensionless, so tiers map the
    input to the output in the same unit (cpu tiers over cpu, memory tiers over memory).
    """

    input: Input = "none"
    whole: Fraction | None = None  # the input is truncated to a multiple of this
    at_least: Fraction | None = None  # ... and raised to at least this
    steps: tuple[Step, ...] = ()
    tiers: tuple[Tier, ...] = ()
    each_tier: Rounding | None = None  # every tier's contribution rounded on its own
    base: Fraction = _ZERO
    per_pod: Fraction = _ZERO
    pods: Literal["maxPods", "eniMaxPods"] = "maxPods"
    minimum: Clamp | None = None
    maximum: Clamp | None = None
    rounding: Rounding = Rounding("none")
    unit: Unit = "Mi"
    #: who reads the input, for the notes ("`free -g`", "nodeadm (number of CPUs x 1000)")
    reader: str = ""
    #: the input as the brackets are quoted in notes: (divisor, unit name), e.g. (1000 MiB, "MiB") for GKE's "GB"
    shown_in: tuple[Fraction, str] | None = None
    #: a constant (or the fallback's default) written exactly as given
    text: str | None = None

    @property
    def constant(self) -> bool:
        return (
            self.input in ("none", "fallback")
            and not self.tiers
            and not self.per_pod
            and not self.steps
            and self.minimum is None
            and self.maximum is None
            and (self.rounding.mode == "none" or (self.base / self.rounding.step).denominator == 1)
        )

    @property
    def uses_pods(self) -> bool:
        return bool(self.per_pod)


class Override(NamedTuple):
    """Terms that replace the formula's for some machines: named machine types, or when an input is present."""

    terms: Mapping[str, Mapping[str, Term]]  # part -> resource -> term
    machine_types: frozenset[str] = frozenset()
    when_input: Input | None = None
    note: str = ""
    #: part of the formula's CEL form (False: the machine types never occur among Karpenter's instance types)
    karpenter: bool = True


NoteHook = Callable[["MachineShape", "Formula", "dict[str, dict[str, Fraction]]"], "list[str]"]


@dataclass(frozen=True, eq=False, repr=False)
class Formula:
    """A reservation formula: terms per reserved map and resource, the eviction thresholds it comes with, notes.

    Compared and hashed by identity: built-ins are module constants, a user's formula is built once per policy."""

    __repr__ = fields_repr

    name: str
    summary: str
    terms: Mapping[str, Mapping[str, Term]]  # part (systemReserved/kubeReserved) -> resource -> term
    eviction_hard: Mapping[str, str] = field(default_factory=lambda: dict(KUBELET_DEFAULTS))
    doc: str = ""
    overrides: tuple[Override, ...] = ()
    notes: NoteHook | None = None
    #: the platform computes it on the node itself when switched on (rendered as that switch, not as values)
    on_node: str | None = None
    #: why there is no CEL form, when the platform knows better than the generic reason
    not_expressible: str | None = None
    #: a delivery that computes exactly this itself when the reservation is left out ("karpenter")
    delivery_default: str | None = None
    platform: str | None = None  # the module that defines it; None for a user's formula
    custom: bool = False
    sources: tuple[str, ...] = ()

    @property
    def fills(self) -> str:
        parts = [p for p in PARTS if self.terms.get(p)]
        return " and ".join(parts) if parts else "nothing"

    @property
    def resources(self) -> frozenset[str]:
        return frozenset(r for part in self.terms.values() for r in part)

    def inputs(self) -> frozenset[str]:
        """Every input a term (or an override) reads."""
        found = {t.input for part in self.terms.values() for t in part.values()}
        for o in self.overrides:
            found |= {t.input for part in o.terms.values() for t in part.values()}
        return frozenset(found)

    def uses_pods(self) -> frozenset[str]:
        return frozenset(t.pods for part in self.terms.values() for t in part.values() if t.uses_pods)

    def without(self, resource: str) -> Formula:
        """The same formula without one resource in any map (a release that did not reserve it)."""
        terms = {p: {r: t for r, t in m.items() if r != resource} for p, m in self.terms.items()}
        return replace(self, terms=terms)


class MachineShape(NamedTuple):
    """The machine a reservation is computed for.

    cpus: logical CPUs; may be fractional (``Decimal("3.5")``); must be > 0.
    memory_bytes: the node's memory capacity (MemTotal); must be > 0.
    max_pods: the node's maxPods; None means 110 where a formula needs it.
    machine_type: the instance type (overrides by machine type, e.g. GKE's shared-core E2).
    boot_disk_bytes / local_ssd_count: GKE's ephemeral-storage inputs.
    system_reserved_es: the ``fallback`` input (OpenShift passes SYSTEM_RESERVED_ES through).
    machine_memory_bytes: the memory the machine type is sold as (GKE, AKS read it); None: ``memory_bytes``.
    eni_max_pods: the ENI-limited maxPods EKS computes before any override; None: ``max_pods``.
    ephemeral_storage_bytes: the ephemeral-storage capacity, for terms over it.
    """

    cpus: Decimal
    memory_bytes: int
    max_pods: int | None = None
    machine_type: str | None = None
    boot_disk_bytes: int | None = None
    local_ssd_count: int | None = None
    system_reserved_es: str | None = None
    machine_memory_bytes: int | None = None
    eni_max_pods: int | None = None
    ephemeral_storage_bytes: int | None = None


class FormulaResult(NamedTuple):
    formula: str
    fills: str
    system_reserved: dict[str, str]
    kube_reserved: dict[str, str]
    eviction_hard: dict[str, str]
    notes: tuple[str, ...]
    spec: Formula | None = None
    #: ``notes`` again, each with the value it explains: (part, resource, note), or (None, None, note) for a note
    #: about the formula as a whole, so a view can drop the notes of a value something else replaced.
    attributed: tuple[tuple[str | None, str | None, str], ...] = ()


# ----------------------------------------------------------------------------------------------------
# building blocks the platforms share (schedules, not platforms)


def parse_amount(text: str | int | Fraction, resource: str) -> Fraction:
    """A quantity as the model's unit: cores for cpu (``500m`` -> 1/2), bytes otherwise (``1Gi``), a count for pid."""
    if isinstance(text, Fraction):
        return text
    if isinstance(text, int):
        return Fraction(text)
    s = text.strip()
    suffixes = {"Ki": KIB, "Mi": MIB, "Gi": GIB, "Ti": 1024**4, "Pi": 1024**5, "Ei": 1024**6}
    decimal = {"n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "k": Fraction(1000)}
    decimal |= {"M": Fraction(10**6), "G": Fraction(10**9), "T": Fraction(10**12), "P": Fraction(10**15)}
    decimal |= {"E": Fraction(10**18)}
    scale = _ONE
    for suffix, size in suffixes.items():
        if s.endswith(suffix):
            s, scale = s[: -len(suffix)], Fraction(size)
            break
    else:
        if s and s[-1] in decimal:
            s, scale = s[:-1], decimal[s[-1]]
    try:
        number = Fraction(Decimal(s))
    except (InvalidOperation, ValueError):
        raise FormulaError(f"{text!r} is not a quantity") from None
    return number * scale


def cpu_tiers(*rates: tuple[int | None, str]) -> tuple[Tier, ...]:
    """Tiers over cores: ``(upper bound in cores or None, fraction)``."""
    return tuple(Tier(None if up is None else Fraction(up), Fraction(rate)) for up, rate in rates)


def memory_tiers(unit: int, rates: tuple[str, ...] = ("0.25", "0.20", "0.10", "0.06", "0.02")) -> tuple[Tier, ...]:
    """25% of the first 4 units, 20% of the next 4, 10% of the next 8, 6% of the next 112, 2% above 128."""
    bounds: tuple[int | None, ...] = (4, 8, 16, 128, None)
    return tuple(
        Tier(None if b is None else Fraction(b * unit), Fraction(r)) for b, r in zip(bounds, rates, strict=True)
    )


def constant(resource: str, text: str) -> Term:
    """A fixed reservation, written as given."""
    unit: Unit = "m" if resource == "cpu" else "count" if resource == "pid" else "Mi"
    return Term(base=parse_amount(text, resource), unit=unit, text=text)


def fmt_number(x: Fraction | Decimal | int, digits: int | None = None) -> str:
    """Plain decimal notation without exponent or trailing zeros (``digits``: at most that many significant)."""
    if isinstance(x, Fraction):
        d = Decimal(x.numerator) / Decimal(x.denominator) if x.denominator != 1 else Decimal(x.numerator)
    else:
        d = Decimal(x)
    if digits is not None and d != 0:
        d = Decimal(format(d, f".{digits}g"))
    text = format(d, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"
