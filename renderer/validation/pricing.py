"""A loaded repo's prices: the ``pricing:`` block of its settings (docs/cost.md) with its price file read, loaded only
when the block is there: a run without it never imports ``renderer.cost``.

Cost: ``renderer.cost.resolve.load_pricing``'s (one price file read).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from renderer.cost.resolve import Pricing
    from renderer.validation.load import LoadResult


def repo_pricing(result: LoadResult) -> Pricing | None:
    """``result``'s prices, or None without a ``pricing:`` block. The staleness of builtin prices is measured at
    SOURCE_DATE_EPOCH when set (a reproducible build's clock), else today. Raises ``PricingError`` for a price file
    that cannot be used."""
    settings = result.policies.settings.pricing
    if settings is None:
        return None
    import os
    from datetime import date, datetime, timezone

    from renderer.cost.resolve import load_pricing

    epoch = os.environ.get("SOURCE_DATE_EPOCH", "")
    today = datetime.fromtimestamp(int(epoch), timezone.utc).date() if epoch.isdigit() else date.today()
    source = result.policies.settings_source
    shown = source.path if source is not None else ".allocatable.yaml"
    root = result.settings_path.parent if result.settings_path is not None else Path()
    return load_pricing(settings, root, shown, today=today.isoformat())


def check_unpriced(result: LoadResult) -> None:
    """For a repo without prices: raise ``UsageError`` when its settings set a cost limit
    (``impact.maxMonthlyCostIncrease`` needs prices to compare with)."""
    if result.policies.settings.impact.maxMonthlyCostIncrease is None:
        return
    from renderer.loading.files import UsageError

    source = result.policies.settings_source
    shown = f"{source.path}:{source.line}:{source.column}" if source is not None else ".allocatable.yaml"
    raise UsageError(
        f"{shown}: impact.maxMonthlyCostIncrease needs prices: add a pricing block (pricing: {{region: ...}}; "
        "docs/cost.md)"
    )
