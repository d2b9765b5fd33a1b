"""Money as the reports write it: Decimal amounts (never floats: a price sheet's "0.0416" stays 0.0416), hours per
month, and one currency per run.

Units are part of every figure: an amount is *per hour* or *per month*, and :func:`per_month` / :func:`per_hour` are
the only conversions (``hoursPerMonth``, 730 unless set: 365 days × 24 hours / 12 months). OpenCost ships a default
price file multiplied by 730 to work around prices read in the wrong unit (configs/opencost-pricing-730x.json); the
unit checks of :mod:`renderer.cost.opencost` catch that file class instead of compensating for it.
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

#: 365 × 24 / 12, the month AWS, Azure and GCP price pages and OpenCost use.
HOURS_PER_MONTH = Decimal(730)
CENT = Decimal("0.01")
#: Hourly prices are shown to the hundredth of a cent (AWS lists $0.0052 for a t3.nano).
HOURLY_PLACES = Decimal("0.0001")
_SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£"}


def per_month(hourly: Decimal, hours: Decimal = HOURS_PER_MONTH) -> Decimal:
    """An hourly amount over a month of ``hours``."""
    return hourly * hours


def per_hour(monthly: Decimal, hours: Decimal = HOURS_PER_MONTH) -> Decimal:
    """A monthly amount as an hourly one."""
    return monthly / hours


def rounded(amount: Decimal, places: Decimal = CENT) -> Decimal:
    return amount.quantize(places, rounding=ROUND_HALF_UP)


def fmt(amount: Decimal, currency: str, *, places: Decimal = CENT, signed: bool = False) -> str:
    """``$1,234.56`` (``+$1,234.56`` / ``-$1,234.56`` when ``signed``); a currency without a symbol is written
    before the number (``CHF 12.00``)."""
    value = rounded(amount, places)
    if value == 0:
        value = abs(value)  # no "-$0.00"
    sign = "-" if value < 0 else ("+" if signed and value > 0 else "")
    digits = f"{abs(value):,f}"
    symbol = _SYMBOLS.get(currency)
    return f"{sign}{symbol}{digits}" if symbol else f"{sign}{currency} {digits}"


def text(amount: Decimal, places: Decimal = CENT) -> str:
    """The JSON form of an amount: a string with fixed places (byte-stable, no float)."""
    value = rounded(amount, places)
    return f"{abs(value):f}" if value == 0 else f"{value:f}"
