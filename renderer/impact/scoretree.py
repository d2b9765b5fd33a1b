"""A segment tree over the nodes one pod shape may use: which are feasible and what each scores, for one scheduling
cycle in O(log nodes) instead of a walk over ``numFeasibleNodesToFind`` nodes.

A scheduling cycle (``scheduler.py``) walks the shape's nodes from a rotating start, collects the first ``want``
feasible ones and binds the pod to the highest-scoring of them (the first of equals in walk order). When every score
plugin but NodeResourcesFit and BalancedAllocation gives all candidates the same score — the pod has no preferred
node affinity and no eligible node has a PreferNoSchedule taint the pod does not tolerate — a node's score depends on
that node alone, so it can be kept per node: each leaf holds the node's score, or -1 while the pod does not fit there.
Then the walk is two descents: the position of the ``want``-th feasible node after the start (counts of feasible
leaves per subtree) and the first maximum in that window (maxima per subtree). Same node, same next start, as the walk.

Leaves go stale when their node's usage changes; :class:`~renderer.impact.cluster.ClusterState` logs the positions it
changes (``changes``) and a tree re-reads the nodes logged since it last looked (``refresh``).

Cost: building O(nodes of the shape); a cycle O(log nodes) plus O(log nodes) per node changed since the tree's last
cycle; memory O(nodes of the shape) per tree, in flat arrays of 32-bit integers.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence

__all__ = ["ScoreTree", "changed_leaves"]


def changed_leaves(positions: Sequence[int], changes: Sequence[int], start: int) -> list[int]:
    """The leaves (indices into the sorted ``positions``) of the nodes ``changes`` logged from index ``start`` on, each
    once, in log order; positions the tree does not hold are left out. Shared by the trees that read the cluster's
    change log (this one and ``renderer.impact.roomtree``)."""
    n = len(positions)
    seen: set[int] = set()
    leaves: list[int] = []
    for at in range(start, len(changes)):  # by index: islice would walk the log from its start
        p = changes[at]
        if p in seen:
            continue
        seen.add(p)
        k = bisect_left(positions, p)
        if k < n and positions[k] == p:
            leaves.append(k)
    return leaves


class ScoreTree:
    """Leaves ``0..len(positions)-1`` are the node positions ``positions`` (sorted); ``value(i)`` gives node ``i``'s
    score, -1 when the pod does not fit."""

    def __init__(self, positions: Sequence[int], value: Callable[[int], int], log_at: int) -> None:
        self.positions = array("i", positions)
        self._value = value
        n = len(self.positions)
        size = 1
        while size < max(n, 1):
            size *= 2
        self._size = size
        self._max = array("i", [-1]) * (2 * size)
        self._count = array("i", [0]) * (2 * size)
        mx, cnt = self._max, self._count
        for k, p in enumerate(self.positions):
            v = value(p)
            mx[size + k] = v
            cnt[size + k] = 1 if v >= 0 else 0
        for x in range(size - 1, 0, -1):
            a, b = mx[2 * x], mx[2 * x + 1]
            mx[x] = a if a >= b else b
            cnt[x] = cnt[2 * x] + cnt[2 * x + 1]
        #: How far into the cluster's change log this tree has read.
        self.log_at = log_at
        #: Leaves computed (an operation count).
        self.computed = n

    def __len__(self) -> int:
        return len(self.positions)

    def refresh(self, changes: Sequence[int]) -> None:
        """Re-read the nodes logged in ``changes`` since :attr:`log_at`."""
        positions, mx, cnt, value = self.positions, self._max, self._count, self._value
        for k in changed_leaves(positions, changes, self.log_at):
            v = value(positions[k])
            self.computed += 1
            x = self._size + k
            if mx[x] == v:
                continue
            mx[x] = v
            cnt[x] = 1 if v >= 0 else 0
            x //= 2
            while x:
                a, b = mx[2 * x], mx[2 * x + 1]
                mx[x] = a if a >= b else b
                cnt[x] = cnt[2 * x] + cnt[2 * x + 1]
                x //= 2
        self.log_at = len(changes)

    # -- queries ---------------------------------------------------------------------------------------------------

    def _prefix(self, k: int) -> int:
        """Feasible leaves before leaf ``k``."""
        total = 0
        lo, hi = self._size, self._size + k
        cnt = self._count
        while lo < hi:
            if lo & 1:
                total += cnt[lo]
                lo += 1
            if hi & 1:
                hi -= 1
                total += cnt[hi]
            lo //= 2
            hi //= 2
        return total

    def _kth(self, k: int) -> int:
        """The leaf of the ``k``-th feasible leaf (1-based; ``k`` <= the total)."""
        cnt = self._count
        x = 1
        while x < self._size:
            left = cnt[2 * x]
            if k <= left:
                x = 2 * x
            else:
                k -= left
                x = 2 * x + 1
        return x - self._size

    def _range_max(self, lo: int, hi: int) -> int:
        """The largest leaf value in ``[lo, hi)`` (-1 when empty)."""
        best = -1
        mx = self._max
        lo += self._size
        hi += self._size
        while lo < hi:
            if lo & 1:
                if mx[lo] > best:
                    best = mx[lo]
                lo += 1
            if hi & 1:
                hi -= 1
                if mx[hi] > best:
                    best = mx[hi]
            lo //= 2
            hi //= 2
        return best

    def _first_at_least(self, lo: int, target: int) -> int:
        """The first leaf at or after ``lo`` whose value is ``target`` or more (one exists)."""
        mx, size = self._max, self._size
        # climb from lo's leaf, looking right, until a subtree to the right holds the target
        x = lo + size
        if mx[x] >= target:
            return lo
        while True:
            while x & 1:  # a right child: go up until we are a left child
                x //= 2
            x += 1  # the right sibling's subtree: every leaf in it is after lo
            if mx[x] >= target:
                break
        while x < size:
            x = 2 * x if mx[2 * x] >= target else 2 * x + 1
        return x - size

    def first(self, start: int, exclude: int = -1) -> int:
        """The first node with value >= 0 in walk order from node position ``start`` (wrapping round), other than
        ``exclude``; -1 when there is none."""
        total = self._count[1]
        n = len(self.positions)
        if total == 0:
            return -1
        s = bisect_left(self.positions, start)
        before = self._prefix(s) if s < n else total
        for k in range(min(2, total)):  # the excluded node can be one of them only
            position = self.positions[self._kth((before + k) % total + 1)]
            if position != exclude:
                return position
        return -1

    def choose(self, start: int, want: int) -> tuple[int, int, int]:
        """One cycle's choice from node position ``start`` on: (node chosen or -1 when none fits, the node where the
        walk stopped after ``want`` feasible ones or -1 when it went all the way round, feasible nodes collected)."""
        n = len(self.positions)
        total = self._count[1]
        if total == 0 or n == 0:
            return -1, -1, 0
        s = bisect_left(self.positions, start)
        if s == n:
            s = 0
        before = self._prefix(s)
        after = total - before
        if want <= after:
            end = self._kth(before + want)
            best = self._range_max(s, end + 1)
            chosen = self._first_at_least(s, best)
            return self.positions[chosen], self.positions[end], want
        if want <= total:
            end = self._kth(want - after)
            windows = ((s, n), (0, end + 1))
            last = self.positions[end]
            found = want
        else:
            windows = ((s, n), (0, s))
            last = -1
            found = total
        (a, b), (c, d) = windows
        first, second = self._range_max(a, b), self._range_max(c, d)
        chosen = self._first_at_least(a, first) if first >= second else self._first_at_least(c, second)
        return self.positions[chosen], last, found
