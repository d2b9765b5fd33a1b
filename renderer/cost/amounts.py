"""Reading one price: a decimal string or number, checked for sign, size and unit (shared by every price reader)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation

from renderer.cost.errors import PricingError

#: Above these, a price is not an hourly price of anything a Kubernetes node runs on: the largest AWS instance of the
#: builtin snapshot (u7in-32tb.224xlarge) lists $360.99 an hour; a vCPU-hour is cents, a GiB-hour a fraction of a cent.
MAX_NODE_HOURLY = Decimal(1000)
MAX_CORE_HOURLY = Decimal(5)
MAX_GIB_HOURLY = Decimal(1)
MAX_GPU_HOURLY = Decimal(100)


def amount(value: object, where: str, what: str, ceiling: Decimal) -> Decimal:
    """``value`` (a string such as OpenCost's "0.031611", or a JSON number) as a non-negative Decimal of at most
    ``ceiling``; a PricingError naming ``what`` otherwise. A price above the ceiling is most often a monthly figure
    where an hourly one belongs (OpenCost's 730x file): the message says so."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise PricingError(where, f'{what} must be a number written as a string, e.g. "0.031611"; got {value!r}')
    try:
        number = Decimal(str(value).strip())
    except InvalidOperation:
        raise PricingError(where, f"{what} is {value!r}, not a number") from None
    if not number.is_finite():
        raise PricingError(where, f"{what} is {value!r}, not a finite number")
    if number < 0:
        raise PricingError(where, f"{what} is negative ({value}); a price is 0 or more")
    if number > ceiling:
        raise PricingError(
            where,
            f"{what} is {value} an hour, more than {ceiling} — an hourly price is expected; a monthly price "
            "divided by hoursPerMonth (730) gives it",
        )
    return number


def per_core(hourly: Decimal, cores: Decimal | int, where: str, what: str) -> None:
    """A node price that is more than :data:`MAX_CORE_HOURLY` per core is not hourly (a monthly figure, most often:
    $248.20 for a c6i.2xlarge is its month at $0.34 an hour): a PricingError saying so."""
    if cores and hourly / Decimal(cores) > MAX_CORE_HOURLY:
        raise PricingError(
            where,
            f"{what}: {hourly} an hour for {cores} cores is {(hourly / Decimal(cores)).quantize(Decimal('0.01'))} a "
            f"core-hour, more than {MAX_CORE_HOURLY} — an hourly price is expected; a monthly price divided by "
            "hoursPerMonth (730) gives it",
        )
