"""The one input error of pricing: a price file or setting that cannot be used, located, exit 2."""

from __future__ import annotations

from renderer.loading.files import UsageError


class PricingError(UsageError):
    """``<file>[:line[:col]]: <what is wrong>; <what to do>`` — the commands print it as one line and exit 2."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message, where)
