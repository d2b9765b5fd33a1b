"""What the recommendation buys on a real cluster: the snapshot's pods re-packed under the recommended documents.

``apply`` is the repo with the documents written over the ones of the same kind and name (new ones added): what a
team has after committing ``recommend -o yaml``. The composer (``renderer.pipeline``) runs the impact simulation of
that against the repo as it is (``renderer.impact``: the scheduler's filters, the cluster autoscaler's scale-down
rules) and ``nodes_freed`` books, per advised pool, the nodes the autoscaler could remove afterwards beyond those it
could remove anyway, the pods newly Pending and the nodes it would add. Pricing them is the cost feature's work.

Cost: O(documents + policies); the simulation's own cost is ``renderer.impact``'s.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any

from renderer.findings import SourceRef
from renderer.validation.validate import Loaded, PolicySet, validated

if TYPE_CHECKING:
    from renderer.impact.report import ImpactReport
    from renderer.recommend.result import Recommendation

__all__ = ["apply", "nodes_freed"]


def _merged(existing: list[Any], kind: str, docs: list[dict[str, Any]]) -> list[Any]:
    new = {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}
    out = []
    for loaded in existing:
        doc = new.pop(loaded.name, None)
        out.append(loaded if doc is None else Loaded(validated(kind, doc), loaded.source))
    for k, (name, doc) in enumerate(sorted(new.items())):
        out.append(Loaded(validated(kind, doc), SourceRef(path=f"<recommended {kind}/{name}>", doc=k)))
    return out


def apply(policies: PolicySet, docs: list[dict[str, Any]]) -> PolicySet:
    """``policies`` with ``docs`` (plain ReservationPolicy and CommitClass documents) in place of their namesakes."""
    return replace(
        policies,
        commit_classes=_merged(policies.commit_classes, "CommitClass", docs),
        reservation_policies=_merged(policies.reservation_policies, "ReservationPolicy", docs),
    )


def nodes_freed(advice: Recommendation, report: ImpactReport) -> None:
    """Book the simulation's outcome on each advised pool (``PoolAdvice.repack``)."""
    by_pool = {p.pool: p for p in report.result.pools}
    for pool in advice.pools:
        impact = by_pool.get(pool.pool)
        if impact is not None and (pool.reservations or pool.commits):
            pool.repack = (impact.nodes, impact.nodes_freed, impact.new_pending, impact.nodes_to_add)
    advice.repacked = True
