"""Matching selectors against many pools at once: :class:`LabelIndex`, pools indexed by label key, value, node name
and integer value, so that a term costs its most selective requirement, not the number of pools.

The terms are compiled and checked by ``renderer.capacity.selectors`` (the same compiled form and the same checks as
:func:`~renderer.capacity.selectors.term_matches`), so the index returns exactly what brute-force evaluation would.
Pure domain code (stdlib only).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping, Sequence

from renderer.capacity.selectors import (
    _EXISTS,
    _GT,
    _IN,
    _LT,
    Term,
    _Check,
    _compile,
    _run_checks,
    labels_match,
)
from renderer.labels import INT64_MAX, INT64_MIN, parse_int64

__all__ = ["LabelIndex"]


class LabelIndex:
    """Pools indexed by label key, (key, value), name and, for ``Gt``/``Lt``, integer value (sorted): a term's
    candidates come from its most selective requirement, so matching costs O(smallest posting list or range of the
    term), not O(pools). The pools' label maps are referenced, not copied: they must not change while the index is
    in use.

    Cost: building O(labels of all pools) for the positions per key; the values of a key (and its sorted integers)
    are indexed when a requirement first asks for that key, O(pools that carry it) once, O(p log p) for the
    integers, so keys no selector names cost no index; each term O(log p + candidates × requirements).
    """

    __slots__ = ("_all_ids", "_by_key", "_by_name", "_ints", "_pools", "_values")

    def __init__(self, pools: Iterable[tuple[int, Mapping[str, str], str | None]]) -> None:
        self._pools: list[tuple[int, Mapping[str, str], str | None]] = []
        self._by_key: dict[str, list[int]] = {}
        self._values: dict[str, dict[str, list[int]]] = {}
        self._by_name: dict[str, list[int]] = {}
        self._ints: dict[str, tuple[list[int], list[int]]] = {}
        for position, (pool_id, labels, name) in enumerate(pools):
            self._pools.append((pool_id, labels, name))
            for key in labels:
                positions = self._by_key.get(key)
                if positions is None:
                    self._by_key[key] = [position]
                else:
                    positions.append(position)
            if name is not None:  # a NodePool's node names are unknown: matchFields never selects it
                self._by_name.setdefault(name, []).append(position)
        self._all_ids = sorted({pool_id for pool_id, _, _ in self._pools})

    def __len__(self) -> int:
        return len(self._pools)

    def _by_value(self, key: str) -> dict[str, list[int]]:
        """Positions of the pools carrying ``key``, by its value (built on first use)."""
        got = self._values.get(key)
        if got is None:
            got = {}
            pools = self._pools
            for position in self._by_key.get(key, ()):
                value = pools[position][1][key]
                positions = got.get(value)
                if positions is None:
                    got[value] = [position]
                else:
                    positions.append(position)
            self._values[key] = got
        return got

    def _sorted_ints(self, key: str) -> tuple[list[int], list[int]]:
        """(values, positions) of the pools whose ``key`` label is an int64, sorted by value."""
        got = self._ints.get(key)
        if got is None:
            pairs = sorted(
                (number, position)
                for position in self._by_key.get(key, ())
                if (number := parse_int64(self._pools[position][1][key])) is not None
            )
            got = ([number for number, _ in pairs], [position for _, position in pairs])
            self._ints[key] = got
        return got

    def _candidates(self, checks: tuple[_Check, ...]) -> Iterable[int]:
        """Positions of the smallest posting source among the term's positive checks (all pools if none).

        Sources: the (key, value) lists of an ``In``, the key list of ``Exists``, and for ``Gt``/``Lt`` the slice of
        the key's sorted integer index between the term's bounds (both bounds on one key make one range)."""
        best: list[Sequence[int]] | None = None
        best_size = len(self._pools) + 1
        ranges: dict[str, list[int]] = {}
        for code, key, values, bound in checks:
            if code == _IN:
                if key is None:
                    lists: list[Sequence[int]] = [self._by_name.get(value, []) for value in values]
                else:
                    by_value = self._by_value(key)
                    lists = [by_value.get(value, []) for value in values]
            elif code == _EXISTS and key is not None:
                lists = [self._by_key.get(key, [])]
            elif code in (_GT, _LT) and key is not None:
                low_high = ranges.setdefault(key, [INT64_MIN, INT64_MAX])
                if code == _GT:
                    low_high[0] = max(low_high[0], bound + 1)
                else:
                    low_high[1] = min(low_high[1], bound - 1)
                continue
            else:
                continue
            size = sum(len(positions) for positions in lists)
            if size < best_size:
                best, best_size = lists, size
                if size == 0:
                    return ()
        for key, (low, high) in ranges.items():
            numbers, positions = self._sorted_ints(key)
            start, stop = bisect_left(numbers, low), bisect_right(numbers, high)
            if stop - start < best_size:
                best, best_size = [positions[start:stop]], max(stop - start, 0)
        if best is None:
            return range(len(self._pools))
        return (position for positions in best for position in positions)

    def match(self, terms: Sequence[Term]) -> list[int]:
        """Sorted ids of the pools the selector (ORed terms) matches; equals brute-force evaluation."""
        found: set[int] = set()
        for term in terms:
            compiled = _compile(term)
            if compiled.problem is not None:
                continue
            for position in self._candidates(compiled.checks):
                pool_id, labels, name = self._pools[position]
                if pool_id not in found and _run_checks(compiled.checks, labels, name):
                    found.add(pool_id)
        return sorted(found)

    def match_labels(self, selector: Mapping[str, str]) -> list[int]:
        """Sorted ids of the pools a plain ``nodeSelector`` map matches (an empty map matches all pools)."""
        if not selector:
            return list(self._all_ids)
        smallest: list[int] | None = None
        for key, value in selector.items():
            positions = self._by_value(key).get(value)
            if positions is None:
                return []
            if smallest is None or len(positions) < len(smallest):
                smallest = positions
        assert smallest is not None
        return sorted({self._pools[p][0] for p in smallest if labels_match(selector, self._pools[p][1])})
