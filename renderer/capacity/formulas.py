"""Reservation formulas evaluated: what a node of a given shape reserves, as the platform writes it, with the
arithmetic.

The formula model (the data) is ``renderer.platforms`` (``_formula``): every platform formula and every user's own
(``autoSizing.custom``) is an instance of it, and this module is the one arithmetic that evaluates them, in the order
input -> fixed values or (tiers + base + per pod) -> clamps -> rounding -> text, noting each step so ``explain``
and ``sizing`` can show it. All arithmetic is exact (``fractions.Fraction``); every rounding a platform performs is an
explicit step. Cost: O(tiers) per term.
"""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from renderer.platforms import (
    DEFAULT_MAX_PODS,
    GIB,
    KIB,
    KUBELET_DEFAULTS,
    MIB,
    PARTS,
    Clamp,
    Formula,
    FormulaError,
    FormulaResult,
    Input,
    MachineShape,
    Override,
    Rounding,
    Step,
    Term,
    Tier,
    Unit,
    constant,
    cpu_tiers,
    fmt_number,
    memory_tiers,
    parse_amount,
)

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
    "Override",
    "Rounding",
    "Step",
    "Term",
    "Tier",
    "compute",
    "constant",
    "cpu_tiers",
    "evaluated",
    "fmt_number",
    "memory_tiers",
    "parse_amount",
]

_ONE = Fraction(1)
_ZERO = Fraction(0)


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


Attributed = list[tuple[str | None, str | None, str]]


def _evaluate(
    formula: Formula, shape: MachineShape, notes: Attributed | None
) -> dict[str, dict[str, tuple[Fraction, str]]]:
    """Every term's value; ``notes`` (when given) gets each step, with the (part, resource) it explains. A formula
    that fills both maps names the map in its notes ("kubeReserved memory: ...")."""
    general: list[str] | None = None if notes is None else []
    out: dict[str, dict[str, tuple[Fraction, str]]] = {p: {} for p in PARTS}
    terms = _terms_for(formula, shape, general)
    if notes is not None:
        notes.extend((None, None, n) for n in general or ())
    both = sum(1 for resources in terms.values() if resources) > 1
    for part, resources in terms.items():
        for resource, term in resources.items():
            sink: list[str] = []
            got = _term(term, resource, shape, sink)
            if got is not None:
                out[part][resource] = got
            if notes is not None:
                for n in sink:
                    notes.append((part, resource, f"{part} {n}" if both and n.startswith(f"{resource}:") else n))
    return out


def _attribute(formula: Formula, note: str) -> tuple[str | None, str | None, str]:
    """A formula's own note (``Formula.notes``), written "resource: ...", with the term it explains when the
    formula fills one map."""
    parts = [p for p in PARTS if formula.terms.get(p)]
    resource = note.split(":", 1)[0]
    if len(parts) == 1 and resource in formula.terms[parts[0]]:
        return parts[0], resource, note
    return None, None, note


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
    return shape._replace(cpus=Decimal(shape.cpus))


def evaluated(formula: Formula, shape: MachineShape) -> dict[str, dict[str, Fraction]]:
    """The exact reserved amounts (cores / bytes) per map and resource, without notes."""
    values = _evaluate(formula, _normalized(shape), None)
    return {p: {r: v for r, (v, _) in vals.items()} for p, vals in values.items()}


def compute(formula: Formula | str, shape: MachineShape) -> FormulaResult:
    """The reservation ``formula`` (one, or a name of ``allocatable platforms``) gives a machine of ``shape``, as the
    platform writes it, with the arithmetic. Raises FormulaError for an unknown name or an impossible shape."""
    if isinstance(formula, str):
        from renderer import platforms

        formula = platforms.formula(formula)
    shape = _normalized(shape)
    attributed: Attributed = []
    values = _evaluate(formula, shape, attributed)
    if shape.max_pods is not None and not formula.uses_pods():
        attributed.append((None, None, f"max_pods ({shape.max_pods}) is not an input to this formula and was ignored"))
    if formula.notes is not None:
        exact = {p: {r: v for r, (v, _) in vals.items()} for p, vals in values.items()}
        attributed.extend(_attribute(formula, n) for n in formula.notes(shape, formula, exact))
    notes = list(dict.fromkeys(n for _, _, n in attributed))
    return FormulaResult(
        formula=formula.name,
        fills=formula.fills,
        system_reserved={r: t for r, (_, t) in values["systemReserved"].items()},
        kube_reserved={r: t for r, (_, t) in values["kubeReserved"].items()},
        eviction_hard=dict(formula.eviction_hard),
        notes=tuple(notes),
        spec=formula,
        attributed=tuple(attributed),
    )
