"""Kubernetes ``resource.Quantity`` semantics with exact arithmetic.

This module follows the behaviour of ``k8s.io/apimachinery/pkg/api/resource``.
It never uses floats: values are held as whole nanos (units of 1e-9) and are
exposed as :class:`decimal.Decimal`.

Grammar (the same as upstream)::

    <quantity> ::= <sign>? <number> <suffix>?
    <number>   ::= <digits> | <digits> "." | <digits> "." <digits> | "." <digits>
    <suffix>   ::= Ki | Mi | Gi | Ti | Pi | Ei                  (BinarySI, powers of 1024)
                 | n | u | m | k | M | G | T | P | E            (DecimalSI, "" is allowed too)
                 | (e | E) <sign>? <digits>                     (DecimalExponent, e.g. 1e3, 1E-3)

``1E`` means 10^18 (exa) and ``1E3`` means 1000: an ``E`` is an exponent only
when digits follow it. Whitespace is not allowed anywhere.

Semantics:

* Precision. On parsing, a value is rounded to nano precision by rounding its
  magnitude up (away from zero), as upstream does: ``0.1n`` becomes ``1n`` and
  ``-0.1n`` becomes ``-1n``. :meth:`Quantity.scale` and
  :meth:`Quantity.from_value` round the same way.
* Range. Upstream silently caps BinarySI values at 2^63-1 and keeps larger
  decimal values in a form that Kubernetes cannot store as int64. This module
  rejects any value whose magnitude is above 2^63-1 after rounding, for
  example ``8Ei``, ``10E`` or ``1e19``, and raises :class:`QuantityError`.
  Arithmetic that goes past that range raises it too. Exponents must be within
  the int32 range, as upstream requires.
* Format. A quantity remembers how it was written (``DecimalSI``, ``BinarySI``
  or ``DecimalExponent``). ``str()`` gives the canonical form in that format:
  no fractional digits and the largest suffix that loses no precision, with
  decimal exponents in multiples of 3. Examples: ``1.5`` -> ``1500m``,
  ``1.5Gi`` -> ``1536Mi``, ``1000m`` -> ``1``, ``12e6`` -> ``12e6``. A
  BinarySI value with magnitude below 1024, or with a fractional part, is
  written as DecimalSI (``0.5Ki`` -> ``512``, ``.001Ki`` -> ``1024m``). A
  BinarySI value that is not a multiple of 1024 is written as a bare integer
  (``1.5Ki`` -> ``1536``). Zero is always written as ``0``. Upstream has a
  quirk that this module keeps: such a bare integer reads back as DecimalSI, so
  a BinarySI 2000 is written ``2000`` but ``2000`` is written again as ``2k``.
* Equality, hashing and ordering use only the numeric value, not the format.
* ``a + b`` and ``a - b`` keep the format of ``a``. If ``a`` is zero they take
  the format of ``b``, so sums that start from zero keep the operands' format.
"""

from __future__ import annotations

import functools
import json
import re
from decimal import MAX_EMAX, MAX_PREC, MIN_EMIN, Context, Decimal
from typing import TYPE_CHECKING, Literal, NoReturn, cast, final

__all__ = ["Format", "Quantity", "QuantityError", "Sum"]

Format = Literal["DecimalSI", "BinarySI", "DecimalExponent"]

_FORMATS: frozenset[str] = frozenset({"DecimalSI", "BinarySI", "DecimalExponent"})

_NANO = 10**9
_MAX_UNITS = 2**63 - 1
_MAX_NANOS = _MAX_UNITS * _NANO
_MAX_NANOS_DIGITS = len(str(_MAX_NANOS))  # 28: any magnitude with more digits is out of range
_OUT_OF_RANGE = _MAX_NANOS + 1  # sentinel magnitude, always rejected by the range check
_MAX_EXPONENT = 2**31 - 1  # upstream stores exponents in int32 (and negates them)
_BINARY_MIN_NANOS = 1024 * _NANO
# In a binary mantissa, fraction digits past this point can only decide whether a
# remainder exists (see _binary_nanos), so the rest is folded into one sticky digit.
_STICKY_DIGITS = 100

_BINARY_POWER: dict[str, int] = {"K": 10, "M": 20, "G": 30, "T": 40, "P": 50, "E": 60}
_BINARY_SUFFIX: tuple[str, ...] = ("", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei")
_DECIMAL_EXPONENT: dict[str, int] = {
    "n": -9,
    "u": -6,
    "m": -3,
    "": 0,
    "k": 3,
    "M": 6,
    "G": 9,
    "T": 12,
    "P": 15,
    "E": 18,
}
_DECIMAL_SUFFIX: dict[int, str] = {exp: suffix for suffix, exp in _DECIMAL_EXPONENT.items()}

# Groups: sign, integer digits, fraction digits (after "<digits>."), fraction digits
# (for ".<digits>"), binary letter, exponent, decimal letter. The exponent
# alternative comes before the decimal letters so that "1E3" is an exponent. Because
# the pattern is used with fullmatch, "1E" falls back to the exa suffix.
_QUANTITY_RE = re.compile(
    r"([+-]?)(?:([0-9]+)(?:\.([0-9]*))?|\.([0-9]+))"
    r"(?:([KMGTPE])i|[eE]([+-]?[0-9]+)|([numkMGTPE]))?"
)
_NUMBER_PREFIX_RE = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)")

_EXAMPLES = "like 100m, 1.5Gi or 1e3"
_SUFFIX_HELP = "use Ki, Mi, Gi, Ti, Pi, Ei, or n, u, m, k, M, G, T, P, E, or an exponent like 1e3"
_RANGE_HELP = f"its magnitude exceeds 2^63-1 ({_MAX_UNITS}), the largest quantity Kubernetes can store"

# Multiplication in this context is exact: the precision and exponent limits are the maxima.
_EXACT = Context(prec=MAX_PREC, Emax=MAX_EMAX, Emin=MIN_EMIN)


class QuantityError(ValueError):
    """A string or value that is not a valid Kubernetes quantity."""


def _quote(text: str) -> str:
    if len(text) > 64:
        text = text[:61] + "..."
    return json.dumps(text, ensure_ascii=False)


def _invalid(text: str, reason: str) -> QuantityError:
    return QuantityError(f"invalid quantity {_quote(text)}: {reason}")


def _diagnose(text: str) -> QuantityError:
    """Explain why ``text`` does not match the grammar."""
    if not text:
        return _invalid(text, f"the string is empty (expected a number with an optional suffix, {_EXAMPLES})")
    if any(ch.isspace() for ch in text):
        return _invalid(text, f"whitespace is not allowed (expected a number with an optional suffix, {_EXAMPLES})")
    number = _NUMBER_PREFIX_RE.match(text)
    if number is None:
        return _invalid(
            text,
            "expected a number (an optional sign, then digits with at most one decimal point) "
            f"before any suffix, {_EXAMPLES}",
        )
    rest = text[number.end() :]
    if rest.startswith("."):
        return _invalid(text, "it has more than one decimal point (a number has at most one, as in 1.5Gi)")
    if rest[0] in "eE" and (len(rest) == 1 or rest[1] in "+-0123456789"):
        return _invalid(
            text,
            f"malformed exponent {_quote(rest)} (an exponent is e or E followed by an optional sign "
            "and digits, like 1e3 or 1E-3)",
        )
    guess = _suffix_guess(number.group(), rest)
    return _invalid(text, f"unknown suffix {_quote(rest)}" + (f"; {guess}" if guess else f" ({_SUFFIX_HELP})"))


#: Suffixes people write for bytes, by their first letter: the binary and the decimal Kubernetes spellings.
_BYTE_SUFFIXES = {
    "k": ("Ki", "k"),
    "m": ("Mi", "M"),
    "g": ("Gi", "G"),
    "t": ("Ti", "T"),
    "p": ("Pi", "P"),
    "e": ("Ei", "E"),
}


def _suffix_guess(number: str, rest: str) -> str:
    """``did you mean "32Gi" (2^30) or "32G" (10^9)?`` for ``32gb``, ``32GB``, ``32gib``, ``32Gb``...: a unit
    written the way other tools write it. Empty when the suffix looks like nothing known."""
    low = rest.lower()
    if len(low) > 3 or low[:1] not in _BYTE_SUFFIXES or low[1:] not in ("", "b", "i", "ib"):
        return ""
    binary, decimal = _BYTE_SUFFIXES[low[0]]
    power = "kmgtpe".index(low[0]) + 1
    if low[1:] in ("i", "ib"):  # gib, GiB: clearly binary
        return f'did you mean "{number}{binary}" (2^{10 * power})?'
    return f'did you mean "{number}{binary}" (2^{10 * power}) or "{number}{decimal}" (10^{3 * power})?'


def _round_up_nanos(digits: str, shift: int) -> int:
    """Return ceil(int(digits) * 10**shift), or _OUT_OF_RANGE if that exceeds the limit.

    ``digits`` is a non-negative decimal digit string of any length; only strings short
    enough to be in range are converted to int.
    """
    digits = digits.lstrip("0")
    if not digits:
        return 0
    if shift >= 0:
        if len(digits) + shift > _MAX_NANOS_DIGITS:
            return _OUT_OF_RANGE
        return int(digits + "0" * shift)
    cut = len(digits) + shift
    if cut <= 0:  # 0 < value < 1 nano
        return 1
    if cut > _MAX_NANOS_DIGITS:
        return _OUT_OF_RANGE
    nanos = int(digits[:cut])
    if digits[cut:].strip("0"):
        nanos += 1
    return nanos


def _binary_nanos(integer: str, fraction: str, power: int) -> int:
    """Return ceil(integer.fraction * 2**power * 1e9), or _OUT_OF_RANGE."""
    integer = integer.lstrip("0")
    if len(integer) > 19:  # >= 10**19 > 2**63
        return _OUT_OF_RANGE
    fraction = fraction.rstrip("0")
    if len(fraction) > _STICKY_DIGITS:
        # The true value lies strictly between a point on a grid of step 2**power * 1e-91
        # and the next grid point, and every integer is on that grid (power <= 60). So a
        # nonzero tail and a single trailing 1 give the same ceiling.
        fraction = fraction[:_STICKY_DIGITS] + "1"
    mantissa = int(integer + fraction) if integer or fraction else 0
    return _round_up_nanos(str(mantissa << power), 9 - len(fraction))


def _parse(text: str) -> Quantity:
    match = _QUANTITY_RE.fullmatch(text)
    if match is None:
        raise _diagnose(text)
    sign, integer, fraction_a, fraction_b, binary, exponent_text, decimal = match.groups()
    integer = integer or ""
    fraction = fraction_a or fraction_b or ""
    fmt: Format
    if binary is not None:
        fmt = "BinarySI"
        nanos = _binary_nanos(integer, fraction, _BINARY_POWER[binary])
        if 0 < nanos < _NANO:
            # Upstream: BinarySI cannot show values between 0 and 1, use DecimalSI.
            fmt = "DecimalSI"
    else:
        if exponent_text is not None:
            fmt = "DecimalExponent"
            body = exponent_text.lstrip("+-").lstrip("0")
            exponent = int(exponent_text) if len(body) <= 10 else _MAX_EXPONENT + 1
            if abs(exponent) > _MAX_EXPONENT:
                raise _invalid(
                    text,
                    f"the exponent is out of range (it must be between -{_MAX_EXPONENT} and {_MAX_EXPONENT})",
                )
        else:
            fmt = "DecimalSI"
            exponent = _DECIMAL_EXPONENT[decimal or ""]
        nanos = _round_up_nanos(integer + fraction, exponent - len(fraction) + 9)
    if nanos > _MAX_NANOS:
        raise _invalid(text, _RANGE_HELP)
    return _new_quantity(-nanos if sign == "-" else nanos, fmt)


_parse_cached = functools.lru_cache(maxsize=16384)(_parse)


def _check_format(fmt: object) -> Format:
    if isinstance(fmt, str) and fmt in _FORMATS:
        return cast(Format, fmt)
    raise QuantityError(f"invalid quantity format {fmt!r}: use 'DecimalSI', 'BinarySI' or 'DecimalExponent'")


def _check_decimal(value: Decimal, what: str) -> None:
    if not value.is_finite():
        raise QuantityError(f"invalid {what} {value}: it must be a finite number")


def _decimal_to_nanos(value: Decimal, shift: int) -> int:
    """Signed ceil-away-from-zero of value * 10**shift (value finite); range is not checked."""
    sign, digit_tuple, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    magnitude = _round_up_nanos("".join(map(str, digit_tuple)), exponent + shift)
    return -magnitude if sign else magnitude


def _nanos_to_decimal(nanos: int) -> Decimal:
    units, rest = divmod(abs(nanos), _NANO)
    sign = "-" if nanos < 0 else ""
    if rest == 0:
        return Decimal(f"{sign}{units}")
    return Decimal(f"{sign}{units}.{rest:09d}".rstrip("0"))


def _canonical(nanos: int, fmt: Format) -> str:
    if nanos == 0:
        return "0"
    sign = "-" if nanos < 0 else ""
    magnitude = -nanos if nanos < 0 else nanos
    if fmt == "BinarySI" and magnitude >= _BINARY_MIN_NANOS:
        units, rest = divmod(magnitude, _NANO)
        if rest == 0:
            power = 0
            while not units & 1023 and power < len(_BINARY_SUFFIX) - 1:
                units >>= 10
                power += 1
            return f"{sign}{units}{_BINARY_SUFFIX[power]}"
        # A fractional BinarySI value is written as DecimalSI to keep every digit.
    digits = str(magnitude)
    groups = (len(digits) - len(digits.rstrip("0"))) // 3
    if groups:
        digits = digits[: -3 * groups]
    exponent = 3 * groups - 9  # magnitude == int(digits) * 10**exponent
    if fmt == "DecimalExponent":
        return f"{sign}{digits}e{exponent}" if exponent else sign + digits
    return sign + digits + _DECIMAL_SUFFIX[exponent]  # the range limit keeps exponent <= 18


@final
class Quantity:
    """An immutable Kubernetes quantity: an exact value at nano precision, plus a format.

    Create one with :meth:`parse` or :meth:`from_value`. ``Quantity(value, format)``
    is the same as :meth:`from_value`.
    """

    __slots__ = ("_format", "_nanos", "_text", "_value")

    # _text and _value are caches, filled on first use.
    _nanos: int
    _format: Format
    _text: str
    _value: Decimal

    def __init__(self, value: Decimal | int, format: Format = "DecimalSI") -> None:
        fmt = _check_format(format)
        if isinstance(value, bool) or not isinstance(value, (int, Decimal)):
            raise TypeError(f"a quantity value must be an int or a Decimal, not {type(value).__name__}")
        if isinstance(value, int):
            nanos = value * _NANO
        else:
            _check_decimal(value, "quantity value")
            nanos = _decimal_to_nanos(value, 9)
        if abs(nanos) > _MAX_NANOS:
            raise QuantityError(f"invalid quantity value {value}: {_RANGE_HELP}")
        _set_nanos(self, nanos)
        _set_format(self, fmt)

    @classmethod
    def parse(cls, text: str) -> Quantity:
        """Parse a quantity string such as ``"100m"``, ``"1.5Gi"`` or ``"1e3"``.

        Raises :class:`QuantityError` if ``text`` is not a valid quantity.
        """
        if not isinstance(text, str):
            raise TypeError(f"a quantity to parse must be a str, not {type(text).__name__}")
        return _parse_cached(text)

    @classmethod
    def from_value(cls, value: Decimal | int, format: Format = "DecimalSI") -> Quantity:
        """Build a quantity from a number. Its magnitude is rounded up to nano precision."""
        return cls(value, format)

    # -- accessors -----------------------------------------------------------------

    @property
    def value(self) -> Decimal:
        """The exact value, already rounded to nano precision (no trailing fraction zeros)."""
        try:
            return self._value
        except AttributeError:
            value = _nanos_to_decimal(self._nanos)
            _set_value(self, value)
            return value

    @property
    def format(self) -> Format:
        """The format that :meth:`canonical` uses."""
        return self._format

    def canonical(self) -> str:
        """Return the canonical string, the same as Kubernetes ``Quantity.String()``."""
        try:
            return self._text
        except AttributeError:
            text = _canonical(self._nanos, self._format)
            _set_text(self, text)
            return text

    def to_json(self) -> str:
        """Return the value to store in JSON or YAML: the canonical string."""
        return self.canonical()

    def is_zero(self) -> bool:
        return self._nanos == 0

    def is_negative(self) -> bool:
        return self._nanos < 0

    def int_value(self) -> int:
        """Return the value in whole units, rounded away from zero (upstream ``Value()``)."""
        return _div_away_from_zero(self._nanos, _NANO)

    def milli_value(self) -> int:
        """Return the value in thousandths, rounded away from zero (upstream ``MilliValue()``)."""
        return _div_away_from_zero(self._nanos, 10**6)

    def floor_milli_value(self) -> int:
        """The value in thousandths, rounded toward minus infinity (never more than the quantity)."""
        return self._nanos // 10**6

    def floor_div(self, other: Quantity) -> int:
        """How many times ``other`` fits in this quantity, rounded toward minus infinity; exact (integers)."""
        return self._nanos // other._nanos

    # -- arithmetic ----------------------------------------------------------------

    def _result(self, nanos: int, fmt: Format, op: str, other: object) -> Quantity:
        if abs(nanos) > _MAX_NANOS:
            # The message is built only here: formatting both operands on every operation was the hot spot.
            raise _range_error(self, op, other)
        return _new_quantity(nanos, fmt)

    def __add__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        fmt = self._format if self._nanos else other._format
        return self._result(self._nanos + other._nanos, fmt, "+", other)

    def __sub__(self, other: Quantity) -> Quantity:
        if not isinstance(other, Quantity):
            return NotImplemented
        fmt = self._format if self._nanos else other._format
        return self._result(self._nanos - other._nanos, fmt, "-", other)

    def scale(self, factor: Decimal | int) -> Quantity:
        """Multiply exactly by ``factor``, then round the magnitude up to nano precision.

        The format is kept. Raises :class:`QuantityError` if the result is out of range.
        """
        if isinstance(factor, bool) or not isinstance(factor, (int, Decimal)):
            raise TypeError(f"a scale factor must be an int or a Decimal, not {type(factor).__name__}")
        if isinstance(factor, int):
            nanos = self._nanos * factor
        else:
            _check_decimal(factor, "scale factor")
            nanos = _decimal_to_nanos(_EXACT.multiply(Decimal(self._nanos), factor), 0)
        return self._result(nanos, self._format, "*", factor)

    def scale_fraction(self, numerator: int, denominator: int) -> Quantity:
        """Multiply exactly by ``numerator / denominator`` (``denominator`` > 0), then round the magnitude up to nano
        precision, as :meth:`scale` does; in integers (``scale(Decimal(p) / 100)`` without Decimal's cost).

        The format is kept. Raises :class:`QuantityError` if the result is out of range."""
        if denominator <= 0:
            raise ValueError(f"a scale denominator must be positive, not {denominator}")
        nanos = _div_away_from_zero(self._nanos * numerator, denominator)
        return self._result(nanos, self._format, "*", f"{numerator}/{denominator}")

    def floor_to(self, places: int) -> Quantity:
        """Round toward minus infinity to a whole number of ``10**-places`` units (0: whole units, 3: thousandths;
        0 <= places <= 9). The format is kept."""
        if not 0 <= places <= 9:
            raise ValueError(f"places must be between 0 and 9, not {places}")
        step = 10 ** (9 - places)
        return self._result(self._nanos // step * step, self._format, "floor", places)

    def canonical_times(self, n: int) -> str:
        """``scale(n).canonical()`` (an int ``n``), without the quantity in between. Raises as ``scale`` does."""
        nanos = self._nanos * n
        if abs(nanos) > _MAX_NANOS:
            raise _range_error(self, "*", n)
        return _canonical(nanos, self._format)

    def fits_times(self, n: int) -> bool:
        """Whether ``scale(n)`` (an int) stays in range. Cost: one multiplication."""
        return abs(self._nanos * n) <= _MAX_NANOS

    def interned(self, table: dict[tuple[int, str], Quantity]) -> Quantity:
        """The quantity ``table`` holds for this one's value and format (what its text and arithmetic depend on):
        this one, put there, when it holds none yet. Equal values of a model become one object this way; the key
        needs no call of ``__hash__`` or ``__eq__``. Cost: one dict operation."""
        return table.setdefault((self._nanos, self._format), self)

    def clamp_min_zero(self) -> Quantity:
        """Return this quantity, or a zero in the same format if it is negative."""
        return _new_quantity(0, self._format) if self._nanos < 0 else self

    # -- comparison, hashing, immutability -----------------------------------------

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos == other._nanos

    def __hash__(self) -> int:
        return hash(self._nanos)

    def __lt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos < other._nanos

    def __le__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos <= other._nanos

    def __gt__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos > other._nanos

    def __ge__(self, other: Quantity) -> bool:
        if not isinstance(other, Quantity):
            return NotImplemented
        return self._nanos >= other._nanos

    def __str__(self) -> str:
        return self.canonical()

    def __repr__(self) -> str:
        return f"<Quantity {self.canonical()} value={self.value} format={self._format}>"

    if not TYPE_CHECKING:  # hidden from type checkers so that they still flag assignments

        def __setattr__(self, name: str, value: object) -> NoReturn:
            raise AttributeError(f"Quantity is immutable; cannot set {name!r}")

        def __delattr__(self, name: str) -> NoReturn:
            raise AttributeError(f"Quantity is immutable; cannot delete {name!r}")

    def __reduce__(self) -> tuple[object, tuple[int, Format]]:
        return (_new_quantity, (self._nanos, self._format))

    def __copy__(self) -> Quantity:
        return self

    def __deepcopy__(self, memo: object) -> Quantity:
        return self


def _range_error(left: Quantity, op: str, right: object) -> QuantityError:
    return QuantityError(f"the result of {left} {op} {right} is out of range: {_RANGE_HELP}")


class Sum:
    """A running total of quantities, each times a count, exact: what adding ``q.scale(n)`` one after another with
    ``+`` gives (the same format rule: the first non-zero term's format; the same range errors, raised where ``+``
    or ``scale`` would raise them), without a quantity object per step. Cost: O(1) per term."""

    __slots__ = ("_format", "_nanos")

    def __init__(self) -> None:
        self._nanos = 0
        self._format: Format | None = None

    def add(self, q: Quantity, times: int = 1) -> None:
        nanos = q._nanos * times
        if abs(nanos) > _MAX_NANOS:
            raise _range_error(q, "*", times)
        if self._format is None:
            self._nanos, self._format = nanos, q._format
            return
        total = self._nanos + nanos
        if abs(total) > _MAX_NANOS:
            raise _range_error(self.total(), "+", _new_quantity(nanos, q._format))
        if not self._nanos:
            self._format = q._format
        self._nanos = total

    def total(self) -> Quantity:
        """The sum so far (a zero in DecimalSI when nothing was added)."""
        return _new_quantity(self._nanos, self._format or "DecimalSI")


_set_nanos = Quantity.__dict__["_nanos"].__set__
_set_format = Quantity.__dict__["_format"].__set__
_set_text = Quantity.__dict__["_text"].__set__
_set_value = Quantity.__dict__["_value"].__set__


def _new_quantity(nanos: int, fmt: Format) -> Quantity:
    """Build a quantity from a magnitude already rounded and range-checked."""
    quantity = _object_new(Quantity)
    _set_nanos(quantity, nanos)
    _set_format(quantity, fmt)
    return quantity


_object_new = object.__new__


def _div_away_from_zero(nanos: int, divisor: int) -> int:
    quotient, rest = divmod(abs(nanos), divisor)
    if rest:
        quotient += 1
    return -quotient if nanos < 0 else quotient
