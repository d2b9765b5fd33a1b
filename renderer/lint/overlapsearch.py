"""Which pairs of node selector terms can both match one node — found without comparing all pairs, and without
ever building a product of selector values (AL103's search; issue 21, classes 6 and 7).

Decided per key, as the algebra it is. Requirements on different label keys never interact (a label's value is
constrained only by the requirements on that key), so two terms overlap exactly when they constrain a common key and,
on every key both constrain, their requirements leave a value (or absence) in common. Each term is compiled into one
``KeyConstraint`` per key: whether the label must be present, absent or either; the values ``In`` allows (minus
``NotIn``); the integer interval ``Gt``/``Lt`` allow. On one key, two constraints are compatible when:

- absence meets absence, or a key that may be absent (``NotIn`` alone);
- two value sets intersect (each already without its own ``NotIn`` values, and none in the other's);
- a value set meets an interval in one of its integer values; two intervals intersect (a sweep finds the pairs);
- a bare presence (``Exists``) meets any presence.

**The search** partitions instead of pairing. A task holds terms (or two sides of terms) whose pairs are still
possible; it picks the key most of them constrain and splits them by their class on it (absent, present, each value,
integer ranges, no constraint): only classes that are compatible are paired further, each on the remaining keys,
so pairs that disagree on a key are never formed. Value classes with the same members are one class (a term
allowing ten values is not split ten times), and terms that share no key with any other term are dropped first
(connected components over keys). Small tasks are finished pair by pair. Every pair that comes out is checked on
every shared key (``compatible``) before the exact check (``renderer.capacity.selectors.overlap_witness``).

Cost: O(Σ over tasks of the constraints in them + candidate pairs). The tasks form a tree whose levels each split
on one key, and each term is in a bounded number of classes per level, so inputs that find nothing stay near
linear: 1,000 ``Exists`` plus 1,000 ``DoesNotExist`` classes, 3,000 ReservationPolicies keyed by node group, 2,000
classes each covering its own ``Gt``/``Lt`` range, a class with seven ``In`` expressions of ten values (where a
product of values would be 10^7). ``SearchStats`` counts the work, so tests can bound it.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass, field
from heapq import heappop, heappush
from typing import NamedTuple

from renderer.capacity.selectors import INT64_MAX, NAME_WITNESS_KEY, Term, parse_int64
from renderer.reprs import fields_repr

__all__ = ["KeyConstraint", "SearchStats", "TermInfo", "candidate_pairs", "compatible", "term_info"]

PRESENT, ABSENT, EITHER = 0, 1, 2
#: Finished pair by pair below this many pairs: partitioning would cost more.
_SMALL = 24
#: A task: terms (one side, or two sides whose cross pairs are wanted), the keys already split on, and whether the
#: pairs in it are already known to share a key.
Stack = list[tuple[list[int], "list[int] | None", frozenset[str], bool]]


class KeyConstraint(NamedTuple):
    """What one term allows for one key."""

    presence: int  # PRESENT, ABSENT or EITHER
    allowed: frozenset[str] | None  # the values In allows (all In of the key intersected, NotIn removed); None: any
    excluded: frozenset[str]  # the values NotIn rules out
    low: int  # the integer interval Gt/Lt allow (label values are never negative: low >= 0)
    high: int
    ranged: bool  # Gt or Lt present

    @property
    def kind(self) -> str:
        if self.presence == ABSENT:
            return "absent"
        if self.allowed is not None:
            return "values"
        if self.ranged:
            return "range"
        if self.presence == PRESENT:
            return "present"
        return "either"  # NotIn alone: the label may be absent or hold any other value


class TermInfo(NamedTuple):
    policy: int  # index of the policy
    index: int  # type: ignore[assignment]  # the term's index in its policy's selector (shadows tuple.index)
    term: Term
    keys: dict[str, KeyConstraint]


def term_info(policy: int, index: int, term: Term) -> TermInfo:
    """``term`` compiled per key (``matchFields`` on the node name under ``NAME_WITNESS_KEY``). Cost: O(values)."""
    grouped: dict[str, list[tuple[str, tuple[str, ...]]]] = {}
    for requirements, is_field in ((term.expressions, False), (term.fields, True)):
        for req in requirements:
            grouped.setdefault(NAME_WITNESS_KEY if is_field else req.key, []).append((req.operator, tuple(req.values)))
    keys: dict[str, KeyConstraint] = {}
    for key, reqs in grouped.items():
        presence = EITHER
        allowed: frozenset[str] | None = None
        excluded: set[str] = set()
        low, high, ranged = 0, INT64_MAX, False
        for op, values in reqs:
            if op == "In":
                presence = PRESENT if presence != ABSENT else ABSENT
                allowed = frozenset(values) if allowed is None else allowed & frozenset(values)
            elif op == "NotIn":
                excluded.update(values)
            elif op == "Exists":
                presence = PRESENT if presence != ABSENT else ABSENT
            elif op == "DoesNotExist":
                presence = ABSENT
            elif op in ("Gt", "Lt") and len(values) == 1:
                bound = parse_int64(values[0])
                if bound is None:
                    continue
                ranged = True
                presence = PRESENT if presence != ABSENT else ABSENT
                if op == "Gt":
                    low = max(low, bound + 1)
                else:
                    high = min(high, bound - 1)
        if allowed is not None:
            allowed = allowed - excluded
            if ranged:
                allowed = frozenset(v for v in allowed if (n := parse_int64(v)) is not None and low <= n <= high)
        keys[key] = KeyConstraint(presence, allowed, frozenset(excluded), low, high, ranged)
    return TermInfo(policy, index, term, keys)


def _values_meet_range(values: frozenset[str], excluded: frozenset[str], low: int, high: int) -> bool:
    return any(v not in excluded and (n := parse_int64(v)) is not None and low <= n <= high for v in values)


def key_compatible(a: KeyConstraint, b: KeyConstraint) -> bool:
    """False when no node can satisfy both constraints on one key (sound: True may still fail the exact check on
    a corner such as a NotIn list that spells out every integer of an interval). Cost: O(values)."""
    if (a.presence == ABSENT and b.presence == PRESENT) or (a.presence == PRESENT and b.presence == ABSENT):
        return False
    if a.presence == ABSENT or b.presence == ABSENT:
        return True  # absent and either: a node without the label
    if a.allowed is not None and b.allowed is not None:
        small, big = (a, b) if len(a.allowed) <= len(b.allowed) else (b, a)
        assert small.allowed is not None and big.allowed is not None
        return any(v in big.allowed for v in small.allowed)  # each side's NotIn is already out of its own set
    if a.allowed is not None or b.allowed is not None:
        vals, other = (a, b) if a.allowed is not None else (b, a)
        assert vals.allowed is not None
        if other.ranged:
            return _values_meet_range(vals.allowed, other.excluded, other.low, other.high)
        return not vals.allowed <= other.excluded
    if a.ranged and b.ranged:
        return max(a.low, b.low) <= min(a.high, b.high)
    return True


def compatible(a: TermInfo, b: TermInfo) -> bool:
    """The two terms constrain a common key and are compatible on every key they share. Cost: O(shared keys)."""
    small, big = (a.keys, b.keys) if len(a.keys) <= len(b.keys) else (b.keys, a.keys)
    shared = False
    for key, ca in small.items():
        cb = big.get(key)
        if cb is None:
            continue
        shared = True
        if not key_compatible(ca, cb):
            return False
    return shared


@dataclass(eq=False, repr=False)
class SearchStats:
    """What the search did: ``work`` counts term-key visits over all tasks, ``tasks`` the tasks, ``checked`` the
    pairs that reached ``compatible``, ``candidates`` those that passed it (the exact check's input)."""

    __repr__ = fields_repr

    work: int = 0
    tasks: int = 0
    checked: int = 0
    candidates: int = 0


@dataclass(eq=False, repr=False)
class _Search:
    """One run of the candidate-pair search: the terms, its counters and the pairs found."""

    infos: Sequence[TermInfo]
    stats: SearchStats
    out: set[tuple[int, int]] = field(default_factory=set)

    def emit(self, a: int, b: int) -> None:
        if a == b or self.infos[a].policy == self.infos[b].policy:
            return
        pair = (a, b) if a < b else (b, a)
        if pair in self.out:
            return
        self.stats.checked += 1
        if compatible(self.infos[a], self.infos[b]):
            self.out.add(pair)
            self.stats.candidates += 1

    # -- choosing a key ------------------------------------------------------------------------------------------

    def _pick(self, left: list[int], right: list[int] | None, done: frozenset[str]) -> str | None:
        """The key to split on: constrained by the most terms (on both sides, for two sides), ties broken by the
        number of distinct classes it has (more classes separate more), then by name."""
        counts: dict[str, list[int]] = {}
        classes: dict[str, set[object]] = {}
        for side, members in ((0, left), (1, right or [])):
            for t in members:
                keys = self.infos[t].keys
                self.stats.work += len(keys)
                for key, c in keys.items():
                    if key in done:
                        continue
                    got = counts.setdefault(key, [0, 0])
                    got[side] += 1
                    seen = classes.setdefault(key, set())
                    if len(seen) < 64:
                        seen.add(c.allowed if c.allowed is not None else (c.kind, c.low, c.high))
        best: tuple[int, int, str] | None = None
        for key, (n_left, n_right) in counts.items():
            usable = n_left >= 1 and n_right >= 1 if right is not None else n_left >= 2
            if not usable:
                continue
            score = (n_left + n_right, len(classes[key]), key)
            if best is None or score[:2] > best[:2] or (score[:2] == best[:2] and key < best[2]):
                best = score
        return None if best is None else best[2]

    # -- splitting -----------------------------------------------------------------------------------------------

    def _split(self, members: list[int], key: str) -> dict[str, list[int]]:
        """Members by their class on ``key``: "free" (no constraint), "either", "absent", "present", "range",
        "values"."""
        parts: dict[str, list[int]] = {k: [] for k in ("free", "either", "absent", "present", "range", "values")}
        for t in members:
            c = self.infos[t].keys.get(key)
            parts["free" if c is None else c.kind].append(t)
        return parts

    def _value_classes(self, members: list[int], key: str) -> dict[frozenset[int], None]:
        """Member sets of the value classes of ``key`` (a value's class: the members allowing it), each once."""
        by_value: dict[str, list[int]] = {}
        for t in members:
            allowed = self.infos[t].keys[key].allowed
            assert allowed is not None
            self.stats.work += len(allowed)
            for v in allowed:
                by_value.setdefault(v, []).append(t)
        return {frozenset(ms): None for ms in by_value.values() if len(ms) > 1}

    # -- pairs between values and ranges, and among ranges --------------------------------------------------------

    def _ranges(self, left: list[int], right: list[int] | None, key: str) -> None:
        """Pairs whose intervals on ``key`` meet: a sweep by low end with a heap of open intervals by high end."""
        side = {t: 0 for t in left}
        if right is not None:
            side.update({t: 1 for t in right})
        ranged = sorted((self.infos[t].keys[key].low, self.infos[t].keys[key].high, t) for t in side)
        self.stats.work += len(ranged)
        open_: list[tuple[int, int]] = []
        for low, high, t in ranged:
            while open_ and open_[0][0] < low:
                heappop(open_)
            for _, other in open_:
                if right is None or side[other] != side[t]:
                    self.emit(other, t)
            heappush(open_, (high, t))

    def _values_in_ranges(self, valued: list[int], ranged: list[int], key: str) -> None:
        """Pairs of a value term and a range term where one of the values lies in the interval."""
        numbers: list[tuple[int, int]] = []
        for t in valued:
            allowed = self.infos[t].keys[key].allowed
            assert allowed is not None
            for v in allowed:
                n = parse_int64(v)
                if n is not None:
                    numbers.append((n, t))
        numbers.sort()
        keys_only = [n for n, _ in numbers]
        self.stats.work += len(numbers) + len(ranged)
        for r in ranged:
            c = self.infos[r].keys[key]
            for _, t in numbers[bisect_left(keys_only, c.low) : bisect_right(keys_only, c.high)]:
                self.emit(t, r)

    # -- the tasks ------------------------------------------------------------------------------------------------

    def run(self, members: list[int]) -> None:
        stack: list[tuple[list[int], list[int] | None, frozenset[str], bool]] = []
        for component in self._components(members):
            stack.append((component, None, frozenset(), False))
        while stack:
            left, right, done, shared = stack.pop()
            self.stats.tasks += 1
            if right is None:
                self._one_side(left, done, shared, stack)
            else:
                self._two_sides(left, right, done, shared, stack)

    def _components(self, members: list[int]) -> list[list[int]]:
        """Members grouped by sharing keys (union-find over keys); members that share no key with another dropped."""
        parent = list(range(len(members)))

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        first: dict[str, int] = {}
        for i, t in enumerate(members):
            keys = self.infos[t].keys
            self.stats.work += len(keys)
            for key in keys:
                j = first.setdefault(key, i)
                ri, rj = find(i), find(j)
                if ri != rj:
                    parent[ri] = rj
        groups: dict[int, list[int]] = {}
        for i, t in enumerate(members):
            groups.setdefault(find(i), []).append(t)
        return [g for g in groups.values() if len(g) > 1]

    def _one_side(self, members: list[int], done: frozenset[str], shared: bool, stack: Stack) -> None:
        n = len(members)
        if n < 2:
            return
        if n * (n - 1) // 2 <= _SMALL:
            for i, a in enumerate(members):
                for b in members[i + 1 :]:
                    self.emit(a, b)
            return
        key = self._pick(members, None, done)
        if key is None:  # no key constrained twice here: every pair is compatible on every key it shares
            if shared:
                for i, a in enumerate(members):
                    for b in members[i + 1 :]:
                        self.emit(a, b)
            return
        parts = self._split(members, key)
        more = done | {key}
        constrained = [t for name, ts in parts.items() if name != "free" for t in ts]
        if not shared and len(parts["free"]) > 1:
            stack.extend((c, None, more, False) for c in self._components(parts["free"]))
        elif len(parts["free"]) > 1:
            stack.append((parts["free"], None, more, True))
        stack.append((parts["free"], constrained, more, shared))
        either, absent, present = parts["either"], parts["absent"], parts["present"]
        ranged, valued = parts["range"], parts["values"]
        stack.append((either, None, more, True))
        stack.append((either, [*absent, *present, *ranged, *valued], more, True))
        stack.append((absent, None, more, True))
        stack.append((present, None, more, True))
        stack.append((present, [*ranged, *valued], more, True))
        for group in self._value_classes(valued, key):
            stack.append((sorted(group), None, more, True))
        if ranged:
            self._ranges(ranged, None, key)
            if valued:
                self._values_in_ranges(valued, ranged, key)

    def _two_sides(self, left: list[int], right: list[int], done: frozenset[str], shared: bool, stack: Stack) -> None:
        if not left or not right:
            return
        if len(left) * len(right) <= _SMALL:
            for a in left:
                for b in right:
                    self.emit(a, b)
            return
        key = self._pick(left, right, done)
        if key is None:  # no key constrained on both sides: every pair is compatible on what it shares
            if shared:
                for a in left:
                    for b in right:
                        self.emit(a, b)
            return
        lp, rp = self._split(left, key), self._split(right, key)
        more = done | {key}
        l_con = [t for name, ts in lp.items() if name != "free" for t in ts]
        stack.append((lp["free"], right, more, shared))
        stack.append((l_con, rp["free"], more, shared))
        stack.append((lp["either"], [t for name, ts in rp.items() if name != "free" for t in ts], more, True))
        stack.append(
            ([t for name, ts in lp.items() if name not in ("free", "either") for t in ts], rp["either"], more, True)
        )
        stack.append((lp["absent"], rp["absent"], more, True))
        stack.append((lp["present"], [*rp["present"], *rp["range"], *rp["values"]], more, True))
        stack.append(([*lp["range"], *lp["values"]], rp["present"], more, True))
        if lp["values"] and rp["values"]:
            right_set = set(rp["values"])
            for group in self._value_classes([*lp["values"], *rp["values"]], key):
                on_left = sorted(t for t in group if t not in right_set)
                on_right = sorted(t for t in group if t in right_set)
                if on_left and on_right:
                    stack.append((on_left, on_right, more, True))
        if lp["range"] and rp["range"]:
            self._ranges(lp["range"], rp["range"], key)
        if lp["values"] and rp["range"]:
            self._values_in_ranges(lp["values"], rp["range"], key)
        if lp["range"] and rp["values"]:
            self._values_in_ranges(rp["values"], lp["range"], key)


def candidate_pairs(infos: Sequence[TermInfo], stats: SearchStats | None = None) -> set[tuple[int, int]]:
    """Pairs of positions in ``infos`` (of different policies, smaller first) that constrain a common key and are
    compatible on every key they share: a superset of the overlapping pairs, usually equal to it. See the module
    docstring for how and at what cost."""
    search = _Search(infos, stats if stats is not None else SearchStats())
    search.run(list(range(len(infos))))
    return search.out
