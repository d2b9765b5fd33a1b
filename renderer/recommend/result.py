"""What ``allocatable recommend`` found: the advice per pool, what it could not use, the policy documents it writes.

Below the reporters (they read it) and the composer (``renderer.pipeline.recommend`` builds it). Cost: O(pools).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from renderer.recommend.advice import Options, PoolAdvice

if TYPE_CHECKING:
    from renderer.recommend.pricing import RecommendCost

__all__ = ["Recommendation"]


@dataclass(eq=False, repr=False)
class Recommendation:
    """Per pool, the advice (``pools``); the policy documents replacing those that select the advised pools
    (``documents``: plain JSON values, in order) and the command that reviews them (``review``)."""

    pools: list[PoolAdvice]
    options: Options
    #: the first and last day of the window (Unix day numbers), None without data
    window: tuple[int, int] | None
    sources: list[str] = field(default_factory=list)
    #: nodes with usage that no pool of the repo holds (name → why), and how many
    unplaced: list[str] = field(default_factory=list)
    unplaced_count: int = 0
    notes: list[str] = field(default_factory=list)
    documents: list[dict[str, Any]] = field(default_factory=list)
    #: (document ref, the file it replaces or "" for a new one)
    replaces: list[tuple[str, str]] = field(default_factory=list)
    review: str = ""
    #: live: what was asked (queries, bytes and series of the answers), said on stderr
    asked: str = ""
    #: a snapshot's pods were re-packed under the documents (``PoolAdvice.repack``)
    repacked: bool = False
    #: with ``pricing:`` in the repo's settings: the advice priced (``renderer.recommend.pricing``)
    cost: RecommendCost | None = None

    @property
    def below_coverage(self) -> list[str]:
        return [p.pool for p in self.pools if not (p.coverage.enough_reservations and p.coverage.enough_commit)]
