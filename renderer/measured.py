"""Measured usage as the lint stage reads it: per pool, every node-day's peak of the reserved slices.

Built by the composer from ``allocatable recommend``'s reader (``renderer.recommend``) when ``lint`` is given
``--usage`` or ``--prometheus``; read by rule AL216 (a reservation below what was measured). It lives here, below
both, because the lint stage may not import the recommend package above it.

Cost: O(pools × nodes × days) held.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

__all__ = ["Measured", "NodeDay"]


class NodeDay(NamedTuple):
    """One node's peak of one day (``day``: days since 1970-01-01, UTC): bytes for memory, cores for cpu."""

    node: str
    day: int
    value: float


@dataclass
class Measured:
    """Pool name → resource ("memory", "cpu") → the kube + system slices' daily peak on each node-day."""

    pools: dict[str, dict[str, list[NodeDay]]] = field(default_factory=dict)
    #: What could not be used, in words (nodes in no pool, values left out, the server's warnings): said by ``lint``.
    notes: list[str] = field(default_factory=list)
