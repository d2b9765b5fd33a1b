"""Koordinator's resource amplification, as a CommitClass delivers it: which resources, what ratio, which classes.

Koordinator amplifies cpu and memory only, and rejects ratios below 1; a CommitClass whose percents are all at least
100 with cpu or memory above is delivered (``skip_reason`` says why another is not) with ratio percent / 100, two
decimals (``ratio``). Used by the ``koordinator`` render target, which writes the ratios, and by verify, which
predicts the amplified allocatable a node reports.
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from renderer.models.commitclass import CommitClass

#: The resources Koordinator amplifies.
AMPLIFIED = ("cpu", "memory")
_CENT = Decimal("0.01")


def ratio(percent: int) -> Decimal:
    return (Decimal(percent) / 100).quantize(_CENT)


def skip_reason(cc: CommitClass) -> str | None:
    pct = cc.percents()
    below = [f"{r} {pct[r]}%" for r in ("cpu", "memory", "ephemeral-storage") if pct[r] < 100]
    if below:
        return f"{', '.join(below)}: Koordinator cannot advertise less than a node has (ratios below 1 are rejected)"
    if all(pct[r] == 100 for r in AMPLIFIED):
        return "cpu and memory at 100%: nothing to amplify"
    return None
