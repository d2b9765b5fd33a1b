"""Karpenter's side of the arithmetic: any formula (a platform's or a user's) as CEL over Karpenter's instance-type
variables, and the rounding Karpenter applies to what such an expression returns.

Karpenter (aws/karpenter-provider-aws, alpha AWS feature gate ``NodeClassCEL``) accepts a CEL expression instead of
a quantity in ``EC2NodeClass.spec.kubelet.kubeReserved``/``systemReserved`` and evaluates it once per instance type
(``pkg/cel/environment.go``; ``website/content/en/preview/concepts/nodeclasses.md``):

- variables, all 64-bit integers except ``instance_type`` (a string): ``vcpus`` (the instance type's default vCPUs),
  ``memory_mib`` (its nominal memory in MiB, as EC2 describes the type, not the kernel's MemTotal), ``max_pods``
  (the resolved maxPods), ``default_enis``, ``ips_per_eni``;
- functions: the standard arithmetic, comparison and logical operators, ``?:``, ``in``, ``int()``, ``double()`` and
  Karpenter's own two-argument ``max(a, b)``/``min(a, b)`` (int/int gives int; there is no three-argument form);
- the result must be an int or a double (a double is truncated toward zero); a negative result drops the entry;
- the unit comes from the key: ``cpu`` millicores, ``memory`` MiB, ``ephemeral-storage`` GiB, ``pid`` a count;
- rounding, always up: cpu to a multiple of 10m, memory to a multiple of 16Mi; ephemeral-storage and pid are not
  rounded.

:func:`cel_form` compiles a :class:`~renderer.capacity.formulas.Formula` term by term with integer arithmetic only
(every sub-expression type-checks as int under CEL's no-coercion rules): the input (``vcpus``, or ``memory_mib`` for
machine memory) truncated as the term says, each tier as ``min(max(x - lower, 0), width)`` times its fraction, the
per-pod amount times ``max_pods`` (or the ENI limit ``default_enis * (ips_per_eni - 1) + 2``), the base, the clamps and
the rounding, all over one common denominator so that the integer result is exactly the model's. A term over an
input Karpenter does not have (MemTotal, a disk) is left out with the reason; ``tests/capacity/test_karpenter_cel.py``
evaluates every expression with a CEL implementation over a grid of shapes. :func:`rounded_up` is the one place
Karpenter's rounding lives; the capacity model applies it to formula values of pools delivered through Karpenter with
expressions on, so ``explain`` and ``verify`` predict what such nodes really reserve.

Pure domain code: no I/O, no third-party imports. Cost: O(tiers) per term.
"""

from __future__ import annotations

from decimal import ROUND_CEILING, Decimal
from fractions import Fraction
from math import lcm
from typing import Any, NamedTuple, Protocol, TypeAlias

from renderer.capacity.cel_bounds import Overflow, bounds
from renderer.capacity.formulas import GIB, MIB, PARTS, Formula, Term, Tier, fmt_number
from renderer.quantity import Quantity


class _Delivered(Protocol):
    """A pool, as far as Karpenter delivery goes (``renderer.models.inventory.Pool``)."""

    @property
    def delivery(self) -> Any: ...


#: Karpenter rounds cpu results up to this many millicores and memory results up to this many MiB
#: (``cpuRoundingMilliCores`` and ``memoryRoundingMiB`` in pkg/cel/environment.go).
CPU_ROUNDING_MILLI = 10
MEMORY_ROUNDING_MIB = 16

#: The unit Karpenter attaches to an expression's result, per reserved resource.
RESULT_UNIT: dict[str, str] = {"cpu": "m", "memory": "Mi", "ephemeral-storage": "Gi", "pid": ""}
#: The size of that unit in the model's units (cores for cpu, bytes otherwise).
_OUT: dict[str, Fraction] = {
    "cpu": Fraction(1, 1000),
    "memory": Fraction(MIB),
    "ephemeral-storage": Fraction(GIB),
    "pid": Fraction(1),
}
#: The model inputs Karpenter has a variable for: (variable, size of one unit of it in the model's units).
_VARS: dict[str, tuple[str, Fraction]] = {"cpu": ("vcpus", Fraction(1)), "machineMemory": ("memory_mib", Fraction(MIB))}
_ENI_PODS = "(default_enis * (ips_per_eni - 1) + 2)"


class NotExpressible(ValueError):
    """A formula that has no faithful CEL form over Karpenter's variables (the message says why)."""


class TooLarge(NotExpressible):
    """A term whose CEL form would leave int64 for an instance within the bounds (the message says what to change).
    Raised by :func:`cel_form` when no resource has a form and some are too large: ``which`` holds those, by
    (part, resource), with the reason."""

    def __init__(self, message: str, which: dict[tuple[str, str], str] | None = None) -> None:
        super().__init__(message)
        self.which = which or {}


class CelForm(NamedTuple):
    """A formula's reserved values for Karpenter: per map, CEL expressions, or quantities where the value is constant;
    ``missing`` holds the resources that have no CEL form, with the reason."""

    formula: str
    parts: dict[str, dict[str, str]]
    expressions: frozenset[tuple[str, str]]  # (part, resource) whose value is an expression
    missing: dict[tuple[str, str], str]  # always given: a default map would be shared
    #: the resources of ``missing`` whose expression would leave CEL's 64-bit integers (render refuses them)
    too_large: frozenset[tuple[str, str]] = frozenset()

    @property
    def fills(self) -> str:
        return " and ".join(p for p in PARTS if self.parts.get(p))

    @property
    def values(self) -> dict[str, str]:
        """The values of the map the formula fills (for formulas that fill one)."""
        out: dict[str, str] = {}
        for p in PARTS:
            out.update(self.parts.get(p, {}))
        return out

    def expression(self, part: str, resource: str) -> bool:
        return (part, resource) in self.expressions


def _num(x: Fraction) -> str:
    if x.denominator != 1:
        raise AssertionError(f"{x} is not an integer")  # pragma: no cover - callers scale first
    return str(x.numerator)


def _times(coefficient: Fraction, expr: str) -> str | None:
    """``coefficient * expr`` for an integer coefficient (None when it is 0)."""
    if coefficient == 0:
        return None
    return expr if coefficient == 1 else f"{_num(coefficient)} * {expr}"


def _portion(var: str, lower: Fraction, upper: Fraction | None) -> str:
    """The part of ``var`` between ``lower`` and ``upper`` (integers in the variable's unit)."""
    low = _num(lower)
    above = var if lower == 0 else f"max({var} - {low}, 0)"
    if upper is None:
        return above
    return f"min({above}, {_num(upper - lower)})"


def _integral(x: Fraction, what: str) -> Fraction:
    if x.denominator != 1:
        raise NotExpressible(f"{what} is not a whole number of the Karpenter variable's unit")
    return x


def _atomic(expr: str) -> bool:
    """No operator outside parentheses: ``expr`` can be multiplied without parentheses of its own."""
    depth = 0
    for i, ch in enumerate(expr):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and ch == " " and expr[i + 1 : i + 3] in ("+ ", "- ", "* ", "/ ", "? ", "<=", "> ", "in"):
            return False
    return True


def _scaled(expr: str, c: Fraction) -> str:
    """``floor(c * expr)`` for a non-negative integer-valued ``expr``, as Karpenter's integer arithmetic writes it."""
    if c != 1 and not _atomic(expr):
        expr = f"({expr})"
    if c.denominator == 1:
        return expr if c == 1 else f"{c.numerator} * {expr}"
    if c.numerator == 1:
        return f"{expr} / {c.denominator}"
    return f"{expr} * {c.numerator} / {c.denominator}"


def _rounded(expr: str, c: Fraction, mode: str) -> str:
    """``c * expr`` rounded to an integer as ``mode`` says, for a non-negative integer-valued ``expr``."""
    if c.denominator == 1 or mode == "down":
        return _scaled(expr, c)
    if c.numerator != 1 and not _atomic(expr):
        expr = f"({expr})"
    inner = expr if c.numerator == 1 else f"{c.numerator} * {expr}"
    if mode == "up":
        return f"({inner} + {c.denominator - 1}) / {c.denominator}"
    return f"(2 * {inner} + {c.denominator}) / {2 * c.denominator}"


def best_below(x: Fraction, n: int) -> Fraction:
    """The largest fraction p/q <= x with 1 <= q <= n (a descent of the Stern-Brocot tree, many steps at a time)."""
    if x.denominator <= n:
        return x
    lp, lq = x.numerator // x.denominator, 1
    hp, hq = lp + 1, 1
    while lq + hq <= n:
        if Fraction(lp + hp, lq + hq) <= x:
            # as many steps toward x as stay at or below it: (lp + k hp) / (lq + k hq) <= x
            k = min(int((x * lq - lp) / (hp - x * hq)), (n - lq) // hq)
            lp, lq = lp + k * hp, lq + k * hq
        else:
            # as many steps toward x as stay above it: (hp + k lp) / (hq + k lq) > x
            k = min(-(-(hp - x * hq) // (x * lq - lp)) - 1, (n - hq) // lq)
            hp, hq = hp + k * lp, hq + k * lq
    return Fraction(lp, lq)


def lossless(c: Fraction, expr: str, mode: str) -> Fraction:
    """``c`` with the smallest denominator that rounds ``c * expr`` (``mode``) to the same integer for every value
    ``expr`` can take (0 to n, :mod:`renderer.capacity.cel_bounds`): exact, not an approximation.

    floor(c x) is the largest m with m/x <= c, and m/x has a denominator of at most n, so every fraction between the
    largest fraction of denominator <= n at or below c and c itself gives the same floor; ceil mirrors it from
    above; half up is floor(c x + 1/2), the largest m with (2m - 1)/(2x) <= c: denominators up to 2n. A fraction of
    many digits (``0.123456789123456789`` of memory) becomes one whose products stay far inside int64."""
    if c.denominator == 1 or c < 0:
        return c
    try:
        n = bounds(expr).hi
    except Overflow:
        return c
    if mode == "up":
        return -best_below(-c, n)
    return best_below(c, 2 * n if mode == "half-up" else n)


def _term(term: Term, resource: str) -> str:
    """:func:`_compiled`, checked: every literal and every intermediate value within int64 for every instance within
    :data:`~renderer.capacity.cel_bounds.VARIABLES` (or :class:`NotExpressible` with what to change)."""
    expr = _compiled(term, resource)
    try:
        bounds(expr)
    except Overflow:
        pass
    else:
        return expr
    expr = _compiled(term, resource, split=True)  # whole items outside the common denominator: smaller products
    try:
        bounds(expr)
    except Overflow as exc:
        raise TooLarge(f"{resource}: {exc}{_fewer_digits(term, resource)}") from None
    return expr


def _fewer_digits(term: Term, resource: str) -> str:
    """The advice for a term whose expression overflows: the most decimal places its fractions can keep."""
    long = [t.fraction for t in term.tiers if (t.fraction * 10**6).denominator != 1]
    if not long:
        return "; lower perPod, base or the clamps, or write them in whole units"
    for places in range(17, 0, -1):
        q = Decimal(1).scaleb(-places)
        tiers = tuple(Tier(t.up_to, _places(t.fraction, q), t.add) for t in term.tiers)
        try:
            bounds(_compiled(term._replace(tiers=tiers), resource, split=True))
        except (Overflow, NotExpressible):
            continue
        return f"; write the tier fractions with at most {places} decimal places"
    return "; write the tier fractions with fewer decimal places"


def _places(x: Fraction, q: Decimal) -> Fraction:
    return Fraction((Decimal(x.numerator) / Decimal(x.denominator)).quantize(q))


#: The model inputs Karpenter has no variable for, and how a message names them.
_NO_VARIABLE: dict[str, str] = {
    "memory": "the node's MemTotal",
    "ephemeralStorage": "the ephemeral-storage capacity",
    "bootDisk": "the boot disk size",
    "localSsds": "the local SSD count",
    "fallback": "a value handed to the node",
}

#: A term's value as items: (coefficient in Karpenter's unit per unit of the expression, expression; None: a
#: constant).
_Items: TypeAlias = list[tuple[Fraction, str | None]]


def _compiled(term: Term, resource: str, *, split: bool = False) -> str:
    """One term as a CEL expression whose integer value is the term's value in Karpenter's unit for ``resource``:
    the input (:func:`_input`), the term's items (:func:`_items`), their sum rounded (:func:`_summed` or
    :func:`_over_denominator`), then the fixed values (:func:`_with_steps`)."""
    out = _OUT.get(resource)
    if out is None:
        raise NotExpressible(f"Karpenter has no unit for {resource}")
    var, scale, x = _input(term, resource)
    items = _items(term, resource, x, scale, out)
    fraction_cap = term.maximum.fraction * scale / out if term.maximum and term.maximum.fraction is not None else None
    clamps = [c.amount / out for c in (term.minimum, term.maximum) if c is not None and c.amount is not None]
    mode = term.rounding.mode
    step = term.rounding.step / out
    fractional = [c for c, _ in items if c.denominator != 1]
    simple = mode in ("down", "none") and step == 1 and not clamps and all(c >= 0 for c, _ in items)
    if simple and len(fractional) <= 1 and (fraction_cap is None or not fractional):
        expr = _summed(items, resource, mode, x, fraction_cap)
    else:
        expr = _over_denominator(term, resource, items, x, fraction_cap, clamps, out, split=split)
    return _with_steps(term, resource, var, scale, x, out, expr)


def _input(term: Term, resource: str) -> tuple[str, Fraction, str]:
    """(Karpenter variable, size of its unit in the model's units, the input as CEL: truncated to whole steps and
    raised to its minimum as the term says); the variable is empty for a term without an input."""
    what = _NO_VARIABLE.get(term.input)
    if what is not None:
        raise NotExpressible(f"{resource} is computed from {what}, which is not a Karpenter variable")
    var, scale = _VARS.get(term.input, ("", Fraction(1)))
    x = var
    if var:
        if term.whole is not None:
            k = term.whole / scale
            if k.denominator != 1:
                if (1 / k).denominator != 1:
                    raise NotExpressible(f"{resource}: its input is taken in steps Karpenter's {var} cannot express")
            elif k != 1:
                x = f"({var} / {_num(k)} * {_num(k)})"
        if term.at_least is not None:
            a = _integral(term.at_least / scale, f"{resource}: the input minimum")
            if a > (1 if var == "vcpus" else 0):  # an instance has at least one vCPU
                x = f"max({x}, {_num(a)})"
    return var, scale, x


def _items(term: Term, resource: str, x: str, scale: Fraction, out: Fraction) -> _Items:
    """The term's value as items: each tier's portion of the input (rounded per tier when the term says so) and
    its addend, the per-pod amount, the base."""
    items: _Items = []
    lower = Fraction(0)
    for tier in term.tiers:
        upper = None if tier.up_to is None else _integral(tier.up_to / scale, f"{resource}: a tier bound")
        portion = _portion(x, lower, upper)
        c = tier.fraction * scale / out
        if c:
            if term.each_tier is not None:
                each = _integral(term.each_tier.step / out, f"{resource}: the per-tier rounding step")
                mode_each = term.each_tier.mode
                items.append((each, _rounded(portion, lossless(c / each, portion, mode_each), mode_each)))
            else:
                items.append((c, portion))
        if tier.add:
            items.append((tier.add / out, f"({x} > {_num(lower)} ? 1 : 0)"))
        if upper is None:
            break
        lower = upper
    if term.per_pod:
        items.append((term.per_pod / out, "max_pods" if term.pods == "maxPods" else _ENI_PODS))
    if term.base:
        items.append((term.base / out, None))
    return items


def _summed(items: _Items, resource: str, mode: str, x: str, fraction_cap: Fraction | None) -> str:
    """Items rounded down (or not at all) without clamps, at most one of them fractional: each item on its own."""
    # floor(integer parts + c*e) = integer parts + floor(c*e): each fractional item divides on its own
    parts = [_scaled(e, lossless(c, e, "down")) if e is not None else _num(_integral(c, resource)) for c, e in items]
    if mode == "none" and any(c.denominator != 1 for c, _ in items):
        raise NotExpressible(f"{resource}: the value is not rounded to a whole {RESULT_UNIT[resource]}")
    expr = " + ".join(parts) if parts else "0"
    if fraction_cap is not None:
        expr = f"min({expr}, {_scaled(x, fraction_cap)})"
    return expr


def _over_denominator(
    term: Term,
    resource: str,
    items: _Items,
    x: str,
    fraction_cap: Fraction | None,
    clamps: list[Fraction],
    out: Fraction,
    *,
    split: bool,
) -> str:
    """Items over one common denominator, clamped, then divided back with the term's rounding; with ``split``, whole
    items stay outside the denominator."""
    mode = term.rounding.mode
    step = term.rounding.step / out
    outside: list[str] = []
    if (
        split
        and not clamps
        and fraction_cap is None
        and step == 1
        and mode != "none"
        and all(c >= 0 for c, _ in items)
        and any(c.denominator != 1 for c, _ in items)
    ):
        # (d*I + F) / d = I + F / d for a whole I >= 0 and F >= 0 (truncating division), and likewise rounded up
        # or half up: whole items stay outside the common denominator, which keeps the products small
        outside = [_scaled(e, c) if e is not None else _num(c) for c, e in items if c.denominator == 1]
        items = [(c, e) for c, e in items if c.denominator != 1]
    dens = [c.denominator for c, _ in items] + [c.denominator for c in clamps]
    if fraction_cap is not None:
        dens.append(fraction_cap.denominator)
    d = Fraction(lcm(*dens) if dens else 1)
    parts = [_scaled(e, d * c) if e is not None else _num(d * c) for c, e in items]
    total = " + ".join(parts) if parts else "0"
    if term.minimum is not None and term.minimum.amount is not None:
        total = f"max({total}, {_num(d * term.minimum.amount / out)})"
    if term.maximum is not None:
        if fraction_cap is not None:
            total = f"min({total}, {_scaled(x, d * fraction_cap)})"
        elif term.maximum.amount is not None:
            total = f"min({total}, {_num(d * term.maximum.amount / out)})"
    expr = _divided(total, d, resource, mode, step)
    if outside:
        expr = " + ".join([*outside, expr])
    return expr


def _divided(total: str, d: Fraction, resource: str, mode: str, step: Fraction) -> str:
    """``total / d`` rounded as ``mode`` says to a multiple of ``step`` (Karpenter's unit), in integer CEL."""
    if mode == "none":
        if d != 1:
            raise NotExpressible(f"{resource}: the value is not rounded to a whole {RESULT_UNIT[resource]}")
        return total
    s = _integral(step, f"{resource}: the rounding step")
    ds = d * s
    if ds == 1:
        expr = total
    elif mode == "down":
        expr = f"({total}) / {_num(ds)}"
    elif mode == "up":
        expr = f"({total} + {_num(ds - 1)}) / {_num(ds)}"
    else:
        expr = f"(2 * ({total}) + {_num(ds)}) / {_num(2 * ds)}"
    if s != 1:
        expr = f"{expr} * {_num(s)}"
    return expr


def _with_steps(term: Term, resource: str, var: str, scale: Fraction, x: str, out: Fraction, expr: str) -> str:
    """``expr`` behind the term's fixed values (``x <= bound ? value : ...``), the first step outermost."""
    for st in reversed(term.steps):
        if not var:  # pragma: no cover - a step needs an input
            raise NotExpressible(f"{resource}: fixed values need an input")
        bound = _integral(st.at_most / scale, f"{resource}: a fixed value's bound")
        value = _integral(st.value / out, f"{resource}: a fixed value")
        expr = f"{x} <= {_num(bound)} ? {_num(value)} : {expr}"
    return expr


def _constant_text(term: Term, resource: str) -> str:
    if term.text is not None:
        return term.text
    value = term.base
    if resource == "cpu":
        return f"{fmt_number(value * 1000)}m"
    return str(Quantity.from_value(Decimal(value.numerator) / Decimal(value.denominator), "BinarySI"))


def cel_form(formula: Formula) -> CelForm:
    """The formula as Karpenter reserved values. Raises :class:`NotExpressible` (with the reason) when no resource
    of it has a CEL form, or the platform says it has none."""
    if formula.not_expressible is not None:
        raise NotExpressible(formula.not_expressible)
    parts: dict[str, dict[str, str]] = {}
    expressions: set[tuple[str, str]] = set()
    missing: dict[tuple[str, str], str] = {}
    too_large: set[tuple[str, str]] = set()
    overridden = [o for o in formula.overrides if o.machine_types and o.karpenter]
    for part in PARTS:
        for resource, term in formula.terms.get(part, {}).items():
            try:
                if term.constant and not overridden:
                    parts.setdefault(part, {})[resource] = _constant_text(term, resource)
                    continue
                expr = (
                    _term(term, resource)
                    if not term.constant
                    else _num(_integral(term.base / _OUT[resource], resource))
                )
                for o in overridden:
                    alt = o.terms.get(part, {}).get(resource)
                    if alt is None:
                        continue
                    alt_expr = (
                        _term(alt, resource)
                        if not alt.constant
                        else _num(_integral(alt.base / _OUT[resource], resource))
                    )
                    listed = ", ".join(f'"{t}"' for t in sorted(o.machine_types))
                    expr = f"instance_type in [{listed}] ? {alt_expr} : {expr}"
                _check(expr, resource)
                parts.setdefault(part, {})[resource] = expr
                expressions.add((part, resource))
            except NotExpressible as exc:
                missing[(part, resource)] = str(exc)
                if isinstance(exc, TooLarge):
                    too_large.add((part, resource))
    if not expressions and missing:
        reason = "; ".join(dict.fromkeys(missing.values()))
        if too_large:
            raise TooLarge(reason, {k: missing[k] for k in sorted(too_large)})
        raise NotExpressible(reason)
    return CelForm(formula.name, parts, frozenset(expressions), missing, frozenset(too_large))


def _check(expr: str, resource: str) -> None:
    try:
        bounds(expr)
    except Overflow as exc:
        raise TooLarge(f"{resource}: {exc}") from None


def not_expressible(formula: Formula) -> str | None:
    """Why ``formula`` has no CEL form (None: it has one)."""
    try:
        cel_form(formula)
    except NotExpressible as exc:
        return str(exc)
    return None


def expressible(formula: Formula) -> bool:
    return not_expressible(formula) is None


def _ceil(value: Decimal) -> int:
    return int(value.to_integral_value(rounding=ROUND_CEILING))


def rounded_up(resource: str, quantity: Quantity) -> Quantity:
    """What Karpenter reserves for an expression whose exact result is ``quantity``: cpu rounded up to 10m, memory
    up to 16Mi, everything else unchanged. The only implementation of Karpenter's rounding."""
    if resource == "cpu":
        milli = _ceil(quantity.value * 1000)
        return Quantity.parse(f"{_ceil(Decimal(milli) / CPU_ROUNDING_MILLI) * CPU_ROUNDING_MILLI}m")
    if resource == "memory":
        mib = _ceil(quantity.value / MIB)
        return Quantity.parse(f"{_ceil(Decimal(mib) / MEMORY_ROUNDING_MIB) * MEMORY_ROUNDING_MIB}Mi")
    return quantity


def rounding_note(resource: str, before: Quantity, after: Quantity) -> str | None:
    if before.value == after.value:
        return None
    step = f"{CPU_ROUNDING_MILLI}m" if resource == "cpu" else f"{MEMORY_ROUNDING_MIB}Mi"
    return f"{resource}: Karpenter rounds the expression's result {before} up to a multiple of {step} -> {after}"


def karpenter_evaluates(pool: _Delivered, formula: Formula) -> bool:
    """True when Karpenter evaluates the pool's formula itself: the pool is delivered through an EC2NodeClass and
    the formula has a CEL form (the caller checks that ``render.karpenter.expressions`` is on)."""
    return pool.delivery is not None and pool.delivery.karpenter is not None and expressible(formula)


def round_as_karpenter(values: dict[str, Quantity]) -> list[str]:
    """Round formula values in place as Karpenter rounds an expression's result; one note per value it changed."""
    notes: list[str] = []
    for key, before in values.items():
        after = rounded_up(key, before)
        note = rounding_note(key, before, after)
        if note is not None:
            values[key] = after
            notes.append(note)
    return notes
