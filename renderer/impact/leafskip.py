"""Leaves of a room tree that a filter other than the room rejects (PodTopologySpread, InterPodAffinity): some
excluded one by one (a few hostnames), the others because their value of one topology key is banned (a zone), counted
per subtree so that a subtree's rejected leaves are known without reading them.

The per-value counts are static (labels do not change during a simulation): ``DomainIndex`` builds them once per
(tree, key) for keys with at most ``MAX_VALUES`` distinct values among the tree's nodes — O(nodes × values), about
what one of the tree's own arrays costs for three zones. A descent then asks ``LeafSkip.count`` per subtree it
reaches (O(excluded leaves' bisect + banned values)) and ``LeafSkip.leaf`` per leaf.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Mapping, Sequence

__all__ = ["MAX_VALUES", "DomainIndex", "LeafSkip"]

#: Keys with more distinct values among a tree's nodes are not indexed (hostname-like keys: excluded one by one).
MAX_VALUES = 16


class DomainIndex:
    """Per value of one label key: how many leaves of each subtree carry it (``counts[value id][tree node]``), and each
    leaf's value id (-1: no such label)."""

    __slots__ = ("counts", "leaf_value", "value_ids")

    def __init__(self, size: int, labels: Sequence[Mapping[str, str]], key: str) -> None:
        self.value_ids: dict[str, int] = {}
        self.leaf_value: list[int] = []
        for node_labels in labels:
            value = node_labels.get(key)
            self.leaf_value.append(-1 if value is None else self.value_ids.setdefault(value, len(self.value_ids)))
        self.counts: list[list[int]] = [[0] * (2 * size) for _ in self.value_ids]
        for k, vid in enumerate(self.leaf_value):
            if vid >= 0:
                row, x = self.counts[vid], size + k
                while x:
                    row[x] += 1
                    x //= 2


class LeafSkip:
    """The leaves one query may not use: ``excluded`` (sorted leaf indexes, none of a banned value) and those whose
    value id is in ``banned`` (``index`` counts them)."""

    __slots__ = ("_banned", "_counts", "_ex", "_ex_set", "_leaf_value", "_size")

    def __init__(self, size: int, excluded: list[int], index: DomainIndex | None, banned: frozenset[int]) -> None:
        self._size = size
        self._banned = banned if index is not None else frozenset()
        self._leaf_value = index.leaf_value if index is not None else []
        self._counts = [index.counts[v] for v in sorted(self._banned)] if index is not None else []
        self._ex = [k for k in excluded if not self._banned or self._leaf_value[k] not in self._banned]
        self._ex_set = frozenset(self._ex)

    def count(self, x: int, width: int) -> int:
        """Skipped leaves under tree node ``x`` (whose subtree is ``width`` leaves wide)."""
        n = 0
        ex = self._ex
        if ex:
            first = x * width - self._size
            n = bisect_left(ex, first + width) - bisect_left(ex, first)
        for row in self._counts:
            n += row[x]
        return n

    def leaf(self, k: int) -> bool:
        """Whether leaf ``k`` is skipped."""
        return k in self._ex_set or (bool(self._banned) and self._leaf_value[k] in self._banned)
