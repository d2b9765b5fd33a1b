"""Reservation formulas as data: one model every platform formula, and every user's own, is an instance of.

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

All arithmetic is exact (``fractions.Fraction``); every rounding a platform performs is an explicit step, so
``explain`` can show it and CEL (``renderer.capacity.karpenter``) can reproduce it with integer arithmetic. Pure
domain code: no I/O, no third-party imports, no platform names (the built-in formulas live in
``renderer/platforms/``). Cost: O(tiers) per term.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Final, Literal

from renderer.models.kubelet_fields import KUBELET_DEFAULT_EVICTION_HARD

__all__ = [
    "DEFAULT_MAX_PODS",
    "GIB",
    "KIB",
    "MIB",
    "PARTS",
    "Clamp",
    "Formula",
    "FormulaError",
    "FormulaResult",
    "Input",
    "MachineShape",
    "Override",
    "Rounding",
    "Step",
    "Term",
    "Tier",
    "compute",
    "constant",
    "cpu_tiers",
    "fmt_number",
    "memory_tiers",
    "parse_amount",
]

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


@dataclass(frozen=True)
class Tier:
    """One bracket: ``fraction`` of the part of the input up to ``up_to`` (None: no upper bound) above the previous
    bracket's bound; ``add`` is added once the input is above that lower bound (a step, in output units)."""

    up_to: Fraction | None
    fraction: Fraction
    add: Fraction = _ZERO


@dataclass(frozen=True)
class Step:
    """An input of at most ``at_most`` reserves exactly ``value`` (written as ``text`` when given)."""

    at_most: Fraction
    value: Fraction
    text: str | None = None


@dataclass(frozen=True)
class Clamp:
    """A bound: an amount (output units), or a fraction of the input; written as ``text`` when it applies."""

    amount: Fraction | None = None
    fraction: Fraction | None = None
    text: str | None = None


@dataclass(frozen=True)
class Rounding:
    mode: RoundMode
    step: Fraction = _ONE  # in output units: cores for cpu, bytes otherwise


@dataclass(frozen=True)
class Term:
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
        )

    @property
    def uses_pods(self) -> bool:
        return bool(self.per_pod)


@dataclass(frozen=True)
class Override:
    """Terms that replace the formula's for some machines: named machine types, or when an input is present."""

    terms: Mapping[str, Mapping[str, Term]]  # part -> resource -> term
    machine_types: frozenset[str] = frozenset()
    when_input: Input | None = None
    note: str = ""
    #: part of the formula's CEL form (False: the machine types never occur among Karpenter's instance types)
    karpenter: bool = True


NoteHook = Callable[["MachineShape", "Formula", "dict[str, dict[str, Fraction]]"], "list[str]"]


@dataclass(frozen=True, eq=False)
class Formula:
    """A reservation formula: terms per reserved map and resource, the eviction thresholds it comes with, notes.

    Compared and hashed by identity: built-ins are module constants, a user's formula is built once per policy."""

    name: str
    summary: str
    terms: Mapping[str, Mapping[str, Term]]  # part (systemReserved/kubeReserved) -> resource -> term
    eviction_hard: Mapping[str, str] = field(default_factory=lambda: dict(KUBELET_DEFAULT_EVICTION_HARD))
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

    def evaluated(self, shape: MachineShape) -> dict[str, dict[str, Fraction]]:
        """The exact reserved amounts (cores / bytes), without notes."""
        return {
            p: {r: v for r, (v, _) in vals.items()} for p, vals in _evaluate(self, _normalized(shape), None).items()
        }


@dataclass(frozen=True)
class MachineShape:
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


@dataclass(frozen=True)
class FormulaResult:
    formula: str
    fills: str
    system_reserved: dict[str, str]
    kube_reserved: dict[str, str]
    eviction_hard: dict[str, str]
    notes: tuple[str, ...]
    spec: Formula | None = None


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


# ----------------------------------------------------------------------------------------------------
# arithmetic helpers (exact)


def _floor(x: Fraction) -> int:
    return x.numerator // x.denominator


def _ceil(x: Fraction) -> int:
    return -((-x.numerator) // x.denominator)


def _round(x: Fraction, r: Rounding) -> Fraction:
    if r.mode == "none":
        return x
    q = x / r.step
    n = _floor(q) if r.mode == "down" else _ceil(q) if r.mode == "up" else _floor(q + Fraction(1, 2))
    return n * r.step


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


def _is_int(x: Fraction) -> bool:
    return x.denominator == 1


def _text(value: Fraction, unit: Unit, resource: str) -> str:
    """The value as the platform writes it."""
    if unit == "m":
        milli = value * 1000
        return f"{milli.numerator}m" if _is_int(milli) else fmt_number(value)
    if unit == "cores":
        return fmt_number(value, 6)
    if unit == "cores.2":
        hundredths = _floor(value * 100 + Fraction(1, 2))
        return f"{hundredths // 100}.{hundredths % 100:02d}"
    if unit in ("Mi", "Gi", "GiMi"):
        if unit == "GiMi" or unit == "Gi":
            g = value / GIB
            if _is_int(g):
                return f"{g.numerator}Gi"
            if unit == "Gi":
                return f"{fmt_number(g, 6)}Gi"
        m = value / MIB
        if _is_int(m):
            return f"{m.numerator}Mi"
        k = value / KIB
        if _is_int(k):
            return f"{k.numerator}Ki"
        return fmt_number(value)
    if unit == "count":
        return fmt_number(value)
    return fmt_number(value)


def _gib_display(n: Fraction) -> str:
    hundredths = _floor(n * 100 / GIB)
    return f"{hundredths // 100}.{hundredths % 100:02d}"


def _shown(x: Fraction, resource: str, term: Term) -> str:
    """A value in the unit the notes quote this term in."""
    if term.shown_in is not None:
        return fmt_number(x / term.shown_in[0])
    if resource == "cpu":
        return f"{fmt_number(x * 1000)}m" if term.unit == "m" else fmt_number(x)
    if resource == "pid" or term.input == "localSsds":
        return fmt_number(x)
    if x and _is_int(x / GIB) and term.unit in ("Gi", "GiMi"):
        return f"{fmt_number(x / GIB)} GiB"
    return f"{fmt_number(x / MIB)} MiB"


def _unit_name(term: Term, resource: str) -> str:
    if term.shown_in is not None:
        return f" ({term.shown_in[1]})"
    return ""


# ----------------------------------------------------------------------------------------------------
# evaluation


def _input_value(term: Term, shape: MachineShape) -> Fraction | None:
    source = term.input
    if source == "cpu":
        return Fraction(shape.cpus)
    if source == "memory":
        return Fraction(shape.memory_bytes)
    if source == "machineMemory":
        return Fraction(shape.machine_memory_bytes if shape.machine_memory_bytes is not None else shape.memory_bytes)
    if source == "ephemeralStorage":
        return None if shape.ephemeral_storage_bytes is None else Fraction(shape.ephemeral_storage_bytes)
    if source == "bootDisk":
        return None if not shape.boot_disk_bytes else Fraction(shape.boot_disk_bytes)
    if source == "localSsds":
        return None if not shape.local_ssd_count else Fraction(shape.local_ssd_count)
    return _ZERO


def _describe_input(term: Term, resource: str, raw: Fraction, taken: Fraction, notes: list[str]) -> None:
    who = term.reader or "the formula"
    if term.input == "cpu" and term.whole is not None and term.whole >= 1:
        if taken != raw:
            notes.append(f"cpu: {who} counts whole online CPUs; {fmt_number(raw)} CPUs taken as {fmt_number(taken)}")
    elif term.input in ("memory", "machineMemory") and term.whole == GIB:
        if taken != raw:
            notes.append(
                f"memory: {who} truncates {_gib_display(raw)} GiB to {fmt_number(taken / GIB)} GiB before the formula "
                "is applied"
            )
        else:
            notes.append(f"memory: {who} reports {fmt_number(taken / GIB)} GiB")
    elif term.whole is not None and taken != raw:
        notes.append(
            f"{resource}: the input {_shown(raw, resource, term)} is taken in whole steps as {_shown(taken, resource, term)}"
        )


def _pods(term: Term, shape: MachineShape, notes: list[str], resource: str) -> int:
    if term.pods == "eniMaxPods":
        if shape.eni_max_pods is not None:
            return shape.eni_max_pods
        if shape.max_pods is None:
            notes.append(f"maxPods not given: assumed {DEFAULT_MAX_PODS} (the ENI limit of the instance is not known)")
            return DEFAULT_MAX_PODS
        notes.append(
            f"{resource}: the instance's ENI-limited maxPods is not known; computed from maxPods {shape.max_pods}, "
            "which is the same unless maxPods was overridden (set machineTypes.<type>.eniMaxPods)"
        )
        return shape.max_pods
    if shape.max_pods is None:
        notes.append(f"maxPods not given: assumed {DEFAULT_MAX_PODS}")
        return DEFAULT_MAX_PODS
    return shape.max_pods


def _tiers_sum(term: Term, x: Fraction, resource: str, parts: list[str]) -> Fraction:
    total = _ZERO
    lower = _ZERO
    for tier in term.tiers:
        if x <= lower:
            break
        top = x if tier.up_to is None else min(x, tier.up_to)
        part = (top - lower) * tier.fraction
        if term.each_tier is not None:
            part = _round(part, term.each_tier)
        if tier.fraction:
            parts.append(f"{fmt_number(tier.fraction * 100)}% x {_shown(top - lower, resource, term)}")
        total += part
        if tier.add:
            total += tier.add
            parts.append(("+ " if tier.add > 0 else "- ") + _shown(abs(tier.add), resource, term))
        if tier.up_to is None:
            break
        lower = tier.up_to
    return total


def _term(term: Term, resource: str, shape: MachineShape, notes: list[str]) -> tuple[Fraction, str] | None:
    raw = _input_value(term, shape)
    if raw is None:
        what = {"bootDisk": "boot disk size", "localSsds": "local SSD count", "ephemeralStorage": "capacity"}
        notes.append(f"{resource}: {what.get(term.input, term.input)} unknown, nothing reserved")
        return None
    x = raw
    if term.whole is not None:
        x = _floor(x / term.whole) * term.whole
    if term.at_least is not None and x < term.at_least:
        x = term.at_least
    if term.input != "none":
        _describe_input(term, resource, raw, x, notes)
    if term.constant and term.text is not None and term.input == "none":
        notes.append(f"{resource}: fixed {term.text}")
        return term.base, term.text
    if term.input == "fallback":
        text = shape.system_reserved_es or term.text or _text(term.base, term.unit, resource)
        given = shape.system_reserved_es is not None
        notes.append(
            f"{resource}: SYSTEM_RESERVED_ES passed through unchanged ({text}" + (")" if given else ", the default)")
        )
        return parse_amount(text, resource), text
    for step in term.steps:
        if x <= step.at_most:
            text = step.text or _text(step.value, term.unit, resource)
            notes.append(
                f"{resource}: {_shown(x, resource, term)} is at most {_shown(step.at_most, resource, term)}: "
                f"fixed {text}"
            )
            return step.value, text
    parts: list[str] = []
    value = term.base
    if term.base and (term.tiers or term.per_pod):
        parts.append(_shown(term.base, resource, term))
    value += _tiers_sum(term, x, resource, parts)
    if term.per_pod:
        pods = _pods(term, shape, notes, resource)
        value += term.per_pod * pods
        parts.append(f"{_shown(term.per_pod, resource, term)} x {pods} pods")
    computed = " + ".join(parts).replace("+ - ", "- ").replace("+ + ", "+ ")
    line = f"{computed}{_unit_name(term, resource)} = {_shown(value, resource, term)}" if computed else ""
    if term.minimum is not None:
        bound = _bound(term.minimum, x)
        if value < bound:
            if term.minimum.text is not None:
                notes.append(
                    f"{resource}: {line}; below the floor {term.minimum.text} -> {term.minimum.text}".replace(
                        ": ; ", ": "
                    )
                )
                return bound, term.minimum.text
            line += f"; below the minimum, raised to {_shown(bound, resource, term)}"
            value = bound
    if term.maximum is not None:
        bound = _bound(term.maximum, x)
        if value > bound:
            if term.maximum.fraction is not None:
                cap = f"{fmt_number(term.maximum.fraction * 100)}% of {_shown(x, resource, term)}"
                line += f"; capped at {cap} = {_shown(bound, resource, term)}"
            else:
                line += f"; capped at the maximum {_shown(bound, resource, term)}"
            if term.maximum.text is not None:
                notes.append(f"{resource}: {line} -> {term.maximum.text}".replace(": ; ", ": "))
                return bound, term.maximum.text
            value = bound
    rounded = _round(value, term.rounding)
    text = _text(rounded, term.unit, resource)
    if term.rounding.mode != "none" and rounded != value:
        how = {"down": "truncated", "up": "rounded up", "half-up": "rounded half up"}[term.rounding.mode]
        line += f", {how}" if line else f"{_shown(value, resource, term)} {how}"
    if not line:
        notes.append(f"{resource}: fixed {text}")
    elif rounded == value and line.endswith(f"= {text}"):
        notes.append(f"{resource}: {line}".replace(": ; ", ": "))
    else:
        notes.append(f"{resource}: {line} -> {text}".replace(": ; ", ": "))
    return rounded, text


def _bound(clamp: Clamp, x: Fraction) -> Fraction:
    if clamp.fraction is not None:
        return clamp.fraction * x
    return clamp.amount if clamp.amount is not None else _ZERO


def _terms_for(formula: Formula, shape: MachineShape, notes: list[str] | None) -> dict[str, dict[str, Term]]:
    terms = {p: dict(formula.terms.get(p, {})) for p in PARTS}
    for override in formula.overrides:
        applies = (shape.machine_type in override.machine_types) if override.machine_types else False
        if override.when_input is not None:
            probe = Term(input=override.when_input)
            applies = applies or _input_value(probe, shape) is not None
        if applies:
            for part, resources in override.terms.items():
                terms[part].update(resources)
            if notes is not None and override.note:
                notes.append(override.note.format(machine_type=shape.machine_type))
    return terms


def _evaluate(
    formula: Formula, shape: MachineShape, notes: list[str] | None
) -> dict[str, dict[str, tuple[Fraction, str]]]:
    sink: list[str] = [] if notes is None else notes
    out: dict[str, dict[str, tuple[Fraction, str]]] = {p: {} for p in PARTS}
    for part, resources in _terms_for(formula, shape, notes).items():
        for resource, term in resources.items():
            got = _term(term, resource, shape, sink)
            if got is not None:
                out[part][resource] = got
    return out


# ----------------------------------------------------------------------------------------------------
# entry point


def _validate(shape: MachineShape) -> None:
    cpus: object = shape.cpus
    if isinstance(cpus, bool) or not isinstance(cpus, (Decimal, int)):
        raise FormulaError(f"cpus must be a Decimal or an integer, got {type(cpus).__name__} {cpus!r}")
    if not Decimal(cpus).is_finite() or cpus <= 0:
        raise FormulaError(f"cpus must be a finite number greater than 0, got {cpus}")
    if isinstance(cpus, Decimal) and (len(cpus.as_tuple().digits) > 40 or abs(cpus.adjusted()) > 30):
        raise FormulaError(f"machine shape cpus={cpus} is too large or too precise to compute exactly")
    for name in ("memory_bytes",):
        memory: object = getattr(shape, name)
        if isinstance(memory, bool) or not isinstance(memory, int):
            raise FormulaError(f"{name} must be an integer, got {type(memory).__name__} {memory!r}")
        if memory <= 0:
            raise FormulaError(f"{name} must be greater than 0, got {memory}")
    for name in ("max_pods", "eni_max_pods"):
        pods: object = getattr(shape, name)
        if pods is not None and (isinstance(pods, bool) or not isinstance(pods, int)):
            raise FormulaError(f"{name} must be an integer, got {type(pods).__name__} {pods!r}")
        if isinstance(pods, int) and pods < 1:
            raise FormulaError(f"{name} must be at least 1, got {pods}")


def _normalized(shape: MachineShape) -> MachineShape:
    _validate(shape)
    return replace(shape, cpus=Decimal(shape.cpus))


def compute(formula: Formula, shape: MachineShape) -> FormulaResult:
    """The reservation ``formula`` gives a machine of ``shape``, as the platform writes it, with the arithmetic.

    Raises FormulaError for an impossible shape."""
    shape = _normalized(shape)
    notes: list[str] = []
    values = _evaluate(formula, shape, notes)
    if shape.max_pods is not None and not formula.uses_pods():
        notes.append(f"max_pods ({shape.max_pods}) is not an input to this formula and was ignored")
    if formula.notes is not None:
        exact = {p: {r: v for r, (v, _) in vals.items()} for p, vals in values.items()}
        notes.extend(formula.notes(shape, formula, exact))
    return FormulaResult(
        formula=formula.name,
        fills=formula.fills,
        system_reserved={r: t for r, (_, t) in values["systemReserved"].items()},
        kube_reserved={r: t for r, (_, t) in values["kubeReserved"].items()},
        eviction_hard=dict(formula.eviction_hard),
        notes=tuple(notes),
        spec=formula,
    )
