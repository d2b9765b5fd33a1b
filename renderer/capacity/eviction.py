"""Hard-eviction reservations exactly as the kubelet computes them, 32-bit float percentages included.

The kubelet parses a percentage threshold with ``strconv.ParseFloat(s, 32)`` and keeps ``float32(value) / 100``
(a float32 division) — kubernetes/kubernetes@008b3652:pkg/kubelet/eviction/helpers.go ``parsePercentage`` — and
turns it into bytes with ``int64(float64(capacity.Value()) * float64(percentage))`` —
kubernetes/kubernetes@0ca319ff:pkg/kubelet/eviction/api/types.go ``GetThresholdQuantity``. The float32 is not
exactly p/100, so the result differs from exact arithmetic: a real AKS node with 129886128Ki of disk and
``nodefs.available<10%`` reports allocatable 119703055367 (exact integer arithmetic would give 119703055565).

Only the literal strings ``0%`` and ``100%`` disable a threshold (``parseThresholdStatement``); ``100.0%`` keeps the
whole capacity. Everything here is exact integer/Fraction arithmetic that emulates IEEE 754 round-to-nearest-even,
so the result never depends on the platform's float behaviour. Cost: O(digits of the inputs).
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import lru_cache

from renderer.quantity import Quantity, QuantityError

__all__ = ["DISABLED", "float32_percent", "percent_of", "threshold_bytes"]

#: Threshold values the kubelet drops (``parseThresholdStatement``: "ignore 0% and 100%").
DISABLED = ("0%", "100%")

_F32_MANTISSA_BITS = 24
_F32_MIN_EXP = -149  # the smallest subnormal float32 is 2**-149
_F64_MANTISSA_BITS = 53
_F64_MIN_EXP = -1074


def _round_binary(x: Fraction, mantissa_bits: int, min_exp: int) -> Fraction:
    """``x`` rounded to the nearest binary float with ``mantissa_bits`` of precision, ties to even (IEEE 754)."""
    if x == 0:
        return Fraction(0)
    sign = -1 if x < 0 else 1
    x = abs(x)
    num, den = x.numerator, x.denominator
    exp = num.bit_length() - den.bit_length()  # 2**exp <= x < 2**(exp+2)
    if (num << max(0, -exp)) < (den << max(0, exp)):
        exp -= 1  # now 2**exp <= x < 2**(exp+1)
    ulp_exp = max(exp - (mantissa_bits - 1), min_exp)
    scaled = x / (Fraction(2) ** ulp_exp)
    q, r = divmod(scaled.numerator, scaled.denominator)
    twice = 2 * r
    if twice > scaled.denominator or (twice == scaled.denominator and q & 1):
        q += 1
    return sign * q * Fraction(2) ** ulp_exp


def _f32(x: Fraction) -> Fraction:
    return _round_binary(x, _F32_MANTISSA_BITS, _F32_MIN_EXP)


def _f64(x: Fraction) -> Fraction:
    return _round_binary(x, _F64_MANTISSA_BITS, _F64_MIN_EXP)


@lru_cache(maxsize=1024)
def float32_percent(percent: Decimal) -> Fraction:
    """The kubelet's threshold fraction for ``percent`` %: ``float32(ParseFloat(percent, 32)) / 100`` in float32."""
    return _f32(_f32(Fraction(percent)) / 100)


def percent_of(capacity: int, percent: Decimal) -> int:
    """``int64(float64(capacity) * float64(float32 fraction))``: the bytes a percentage threshold keeps free."""
    # An integer up to 2**53 is a float64 already (the common case: skip the rounding, same result).
    as_f64 = Fraction(capacity) if abs(capacity) <= 2**_F64_MANTISSA_BITS else _f64(Fraction(capacity))
    product = _f64(as_f64 * float32_percent(percent))
    return int(product)  # int64() truncates toward zero


def threshold_bytes(value: str, capacity: Quantity) -> Quantity | None:
    """What a hard threshold keeps free of ``capacity``: a quantity as written, or a percentage as the kubelet
    resolves it (``0%``/``100%`` disable it: zero). None when the value cannot be read (lint reports that)."""
    text = str(value).strip()
    if text.endswith("%"):
        if text in DISABLED:
            return Quantity.from_value(0, capacity.format)
        try:
            pct = Decimal(text.rstrip("%"))
        except InvalidOperation:
            return None
        if not pct.is_finite() or pct < 0 or float32_percent(pct) > 1:
            return None
        return Quantity.from_value(percent_of(capacity.int_value(), pct), capacity.format)
    try:
        return Quantity.parse(text)
    except QuantityError:
        return None
