"""Selector checks shared by AL101-AL104 for the two kinds that select pools by node selector terms.

AL103's symbolic overlap search is here too; see ``overlapping_pairs`` for how it avoids comparing all pairs.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from heapq import heappop, heappush
from itertools import product
from typing import Literal

from renderer.capacity.matching import to_terms
from renderer.capacity.model import PoolCapacity
from renderer.capacity.selectors import (
    INT64_MAX,
    INT64_MIN,
    NAME_WITNESS_KEY,
    Term,
    overlap_witness,
    parse_int64,
    unsatisfiable_reason,
)
from renderer.lint.helpers import why_selected
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


@dataclass(frozen=True)
class Conflict:
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
# AL103: symbolic overlap without comparing all pairs


@dataclass(frozen=True)
class _TermInfo:
    policy: int  # index of the policy
    index: int  # index of the term in the policy's selector
    term: Term
    ins: dict[str, frozenset[str]]  # per key with In requirements: the values all of them allow
    keys: frozenset[str]  # every key the term constrains (In or not)
    ranges: dict[str, tuple[int, int]]  # per key with Gt/Lt requirements: the integer interval they allow


def _term_info(policy: int, index: int, term: Term) -> _TermInfo:
    ins: dict[str, frozenset[str]] = {}
    keys: set[str] = set()
    ranges: dict[str, tuple[int, int]] = {}
    for reqs, is_field in ((term.expressions, False), (term.fields, True)):
        for req in reqs:
            key = NAME_WITNESS_KEY if is_field else req.key
            keys.add(key)
            if req.operator == "In":
                values = frozenset(req.values)
                ins[key] = values if key not in ins else ins[key] & values
            elif req.operator in ("Gt", "Lt") and not is_field and len(req.values) == 1:
                bound = parse_int64(req.values[0])
                if bound is None:
                    continue
                low, high = ranges.get(key, (INT64_MIN, INT64_MAX))
                ranges[key] = (max(low, bound + 1), high) if req.operator == "Gt" else (low, min(high, bound - 1))
    return _TermInfo(policy, index, term, ins, frozenset(keys), ranges)


def _sweep(ranged: list[tuple[int, int, int]]) -> Iterator[tuple[int, int]]:
    """Pairs of positions whose intervals ``(low, high, position)`` intersect: a sweep by ``low`` with the open
    intervals in a heap by ``high``. O(n log n + pairs), whatever the intervals are."""
    ranged.sort()
    open_: list[tuple[int, int]] = []  # (high, position)
    for low, high, position in ranged:
        while open_ and open_[0][0] < low:
            heappop(open_)
        for _, other in open_:
            yield other, position
        heappush(open_, (high, position))


def _bucket_pairs(infos: Sequence[_TermInfo], left: list[int], right: list[int] | None) -> Iterator[tuple[int, int]]:
    """Pairs (one term from ``left``, one from ``right``; any two of ``left`` when ``right`` is None) that are not
    ruled out by an integer range: terms that bound the same key with Gt/Lt only pair when the intervals meet.

    The key bounded by the most terms is used; terms without a range on it pair with every term. Cost
    O(n log n + pairs produced)."""
    members = left if right is None else left + right
    side = {} if right is None else {**{p: 0 for p in left}, **{p: 1 for p in right}}
    counts: dict[str, int] = {}
    for p in members:
        for bounded in infos[p].ranges:
            counts[bounded] = counts.get(bounded, 0) + 1
    key = max(counts, key=lambda k: (counts[k], k)) if counts else None
    if key is None or counts[key] < 2:
        if right is None:
            for i, a in enumerate(left):
                for b in left[i + 1 :]:
                    yield a, b
        else:
            for a in left:
                for b in right:
                    yield a, b
        return
    ranged = [(*infos[p].ranges[key], p) for p in members if key in infos[p].ranges]
    free = [p for p in members if key not in infos[p].ranges]
    for a, b in _sweep(ranged):
        if right is None or side[a] != side[b]:
            yield a, b
    seen_free: set[int] = set()
    for f in free:
        seen_free.add(f)
        for other in members:
            if other != f and other not in seen_free and (right is None or side[other] != side[f]):
                yield f, other


def _projections(info: _TermInfo, shared: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
    """Every combination of allowed In values on the ``shared`` keys."""
    yield from product(*(sorted(info.ins[k]) for k in shared))


@dataclass(frozen=True)
class Overlap:
    first: Selecting
    second: Selecting
    first_term: int
    second_term: int
    witness: dict[str, str]


def candidate_pairs(infos: Sequence[_TermInfo]) -> set[tuple[int, int]]:
    """Pairs of term positions (of different policies) worth an exact overlap check.

    A pair can only be reported when the two terms constrain a common key and can be satisfied together; in
    particular, on every key that *both* constrain with In, their allowed values must meet. Terms are grouped by
    the set of keys they constrain with In. For two groups with shared In keys S, the second group is indexed by
    its terms' values on S and the first group looks its own values up, so only pairs that agree on all of S are
    produced (1,500 classes keyed on distinct ``tier`` values, all also carrying ``kubernetes.io/os In
    [linux]``, give no candidate at all). For two groups without a shared In key, a pair needs a common key
    constrained without In on at least one side (NotIn, Exists, DoesNotExist, Gt, Lt), found through an index
    by key. Inside each bucket, terms that bound a common key with Gt/Lt are paired only when their integer
    intervals meet (a sweep over the intervals, ``_bucket_pairs``): classes that each cover their own range of a
    ``slot`` label give no candidate either. The cost grows with the number of candidate pairs, which is bounded
    by the pairs that genuinely overlap plus those rejected on a key constrained without In (or a second range
    key), not with all pairs: O(terms × log terms + candidate pairs).
    """
    groups: dict[frozenset[str], list[int]] = {}
    for pos, info in enumerate(infos):
        groups.setdefault(frozenset(info.ins), []).append(pos)
    out: set[tuple[int, int]] = set()

    def add(a: int, b: int) -> None:
        if infos[a].policy != infos[b].policy:
            out.add((a, b) if a < b else (b, a))

    keysets = sorted(groups, key=lambda ks: sorted(ks))
    for i, k1 in enumerate(keysets):
        for k2 in keysets[i:]:
            g1, g2 = groups[k1], groups[k2]
            same = k1 == k2
            shared = tuple(sorted(k1 & k2))
            if shared:
                buckets: dict[tuple[str, ...], tuple[list[int], list[int]]] = {}
                for a in g1:
                    for proj in _projections(infos[a], shared):
                        buckets.setdefault(proj, ([], []))[0].append(a)
                if not same:
                    for b in g2:
                        for proj in _projections(infos[b], shared):
                            if proj in buckets:
                                buckets[proj][1].append(b)
                for lefts, rights in buckets.values():
                    for a, b in _bucket_pairs(infos, lefts, None if same else rights):
                        if a != b:
                            add(a, b)
                continue
            # No shared In key: a pair needs a common key constrained without In on at least one side.
            by_key: dict[str, tuple[list[int], list[int]]] = {}
            for a in g1:
                for key in infos[a].keys:
                    by_key.setdefault(key, ([], []))[0].append(a)
            for b in g2:
                for key in infos[b].keys:
                    if key in by_key:
                        by_key[key][1].append(b)
            for key, (lefts, rights) in by_key.items():
                for a, b in _bucket_pairs(infos, lefts, None if same else rights):
                    if a != b and (key not in infos[a].ins or key not in infos[b].ins):
                        add(a, b)
    return out


def overlapping_pairs(policies: Sequence[Selecting], skip: set[tuple[int, int]]) -> Iterator[Overlap]:
    """Pairs of policies whose selectors can both match one node, found symbolically (see ``candidate_pairs``).

    Each candidate term pair is checked once with the exact ``overlap_witness``; a policy pair stops at its first
    overlapping term pair. Pairs in ``skip`` (already reported as concrete conflicts) are not reported again.
    Output is in source order of the second policy, then the first.
    """
    infos: list[_TermInfo] = []
    for pi, loaded in enumerate(policies):
        for ti, term in enumerate(to_terms(loaded.model.spec.selector)):
            if unsatisfiable_reason(term) is None:
                infos.append(_term_info(pi, ti, term))
    reported: set[tuple[int, int]] = set()
    found: list[Overlap] = []
    for a, b in sorted(candidate_pairs(infos)):
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
