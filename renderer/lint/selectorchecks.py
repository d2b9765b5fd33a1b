"""Selector checks shared by AL101-AL104 for the two kinds that select pools by node selector terms.

AL103's symbolic overlap search is ``renderer.lint.overlapsearch``; ``overlapping_pairs`` checks its candidates
exactly. Cost: see each function.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Literal, NamedTuple

from renderer.capacity.matching import to_terms
from renderer.capacity.model import PoolCapacity
from renderer.capacity.selectors import NAME_WITNESS_KEY, overlap_witness, unsatisfiable_reason
from renderer.lint.helpers import why_selected
from renderer.lint.overlapsearch import SearchStats, TermInfo, candidate_pairs, term_info
from renderer.lint.rule import LintContext
from renderer.models.commitclass import CommitClass
from renderer.models.reservationpolicy import ReservationPolicy
from renderer.validation.validate import Loaded

Kind = Literal["CommitClass", "ReservationPolicy"]
Selecting = Loaded[CommitClass] | Loaded[ReservationPolicy]


def selecting(ctx: LintContext, kind: Kind) -> Sequence[Selecting]:
    p = ctx.load.policies
    return p.commit_classes if kind == "CommitClass" else p.reservation_policies


def selected_by(pc: PoolCapacity, kind: Kind) -> Sequence[Selecting]:
    return pc.commit_classes if kind == "CommitClass" else pc.reservation_policies


class Conflict(NamedTuple):
    pool: PoolCapacity
    policies: tuple[Selecting, ...]
    reasons: tuple[str, ...]  # per policy: the labels that make it match


def conflicts(ctx: LintContext, kind: Kind) -> Iterator[Conflict]:
    """Pools of the inventory selected by more than one policy of ``kind``."""
    for pc in ctx.model.pools:
        chosen = selected_by(pc, kind)
        if len(chosen) > 1:
            reasons = tuple(why_selected(p.model.spec.selector, pc.pool)[0] for p in chosen)
            yield Conflict(pc, tuple(chosen), reasons)


def conflicting_pairs(ctx: LintContext, kind: Kind) -> set[tuple[int, int]]:
    """Pairs (by id of the Loaded objects, smaller first) that already select a common pool.

    Cost: O(pools + Σ k² over the distinct sets of k > 1 policies that select one pool): pools selected by the
    same policies are counted once."""
    out: set[tuple[int, int]] = set()
    seen: set[tuple[int, ...]] = set()
    for pc in ctx.model.pools:
        chosen = selected_by(pc, kind)
        if len(chosen) < 2:
            continue
        ids = tuple(sorted(id(p) for p in chosen))
        if ids in seen:
            continue
        seen.add(ids)
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                out.add((a, b))
    return out


# ---------------------------------------------------------------------------------------------------------
# AL103: symbolic overlap without comparing all pairs (renderer.lint.overlapsearch)


class Overlap(NamedTuple):
    first: Selecting
    second: Selecting
    first_term: int
    second_term: int
    witness: dict[str, str]


def overlapping_pairs(
    policies: Sequence[Selecting], skip: set[tuple[int, int]], stats: SearchStats | None = None
) -> Iterator[Overlap]:
    """Pairs of policies whose selectors can both match one node, found symbolically
    (``renderer.lint.overlapsearch.candidate_pairs``: per key, no product of values, pruned by partitioning).

    Each candidate term pair is checked once with the exact ``overlap_witness``; a policy pair stops at its first
    overlapping term pair. Pairs in ``skip`` (already reported as concrete conflicts) are not reported again.
    Output is in source order of the second policy, then the first.
    """
    infos: list[TermInfo] = []
    for pi, loaded in enumerate(policies):
        for ti, term in enumerate(to_terms(loaded.model.spec.selector)):
            if unsatisfiable_reason(term) is None:
                infos.append(term_info(pi, ti, term))
    reported: set[tuple[int, int]] = set()
    found: list[Overlap] = []
    for a, b in sorted(candidate_pairs(infos, stats)):
        first, second = (infos[a], infos[b]) if infos[a].policy < infos[b].policy else (infos[b], infos[a])
        pair = (first.policy, second.policy)
        if pair in reported:
            continue
        la, lb = policies[first.policy], policies[second.policy]
        if (min(id(la), id(lb)), max(id(la), id(lb))) in skip:
            reported.add(pair)
            continue
        witness = overlap_witness(first.term, second.term)
        if witness is None:
            continue
        reported.add(pair)
        found.append(Overlap(la, lb, first.index, second.index, witness))
    index = {id(p): i for i, p in enumerate(policies)}
    found.sort(key=lambda o: (index[id(o.second)], index[id(o.first)]))
    yield from found


def format_witness(witness: dict[str, str]) -> str:
    parts = []
    for key, value in witness.items():
        if key == NAME_WITNESS_KEY:
            parts.append(f"metadata.name={value}")
        else:
            parts.append(f"{key}={value}" if value else f'{key}=""')
    return "{" + ", ".join(parts) + "}"
