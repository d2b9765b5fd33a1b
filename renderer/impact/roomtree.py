"""One segment tree per static-filter class: what each subtree of nodes has left, shared by every pod shape of the
class, so a scheduling cycle costs a few descents however many distinct requests the pods carry.

A scheduling cycle (``scheduler.py``) walks the nodes a pod may use from a rotating start, collects the first
``want`` feasible ones and binds the pod to the highest-scoring of them (the first of equals in walk order). Pods of
one static-filter class (node affinity and tolerations) share the nodes; they differ in their requests, so which
nodes are feasible and what they score differ from pod to pod. The tree keeps, per subtree, the room the pod's
requests are compared with and the figures its scores are bounded with, none of them depending on the pod:

- feasibility (NodeResourcesFit on cpu, memory and ephemeral-storage, the pod count; a removed node has no room for
  a pod): the smallest and the largest free cpu, memory and ephemeral-storage and pod slots, and a skyline of free
  (cpu, memory): at most ``SKYLINE_CORNERS`` corners such that every node with a pod slot has no more of either than
  some corner — the nodes' own Pareto front while it is that short, neighbouring corners merged past it. A subtree
  whose smallest free amounts all cover the pod's requests is feasible throughout (its leaves are counted at once);
  one where no corner covers both the cpu and the memory (or the largest ephemeral-storage is short) is infeasible
  throughout (skipped); only the others are descended. The skyline is what makes the first fit cheap on nodes full
  in one resource and not the other: per-resource maxima pass a subtree with room for the cpu on one node and for
  the memory on another, and the search would read it to the leaves;
- scores: LeastAllocated on cpu and memory is at most ``50 × (max free fraction - request × min 1/allocatable)``
  summed over both; BalancedAllocation is at most ``(1 - gap / 2) × 100`` where ``gap`` is the distance between the
  ranges the cpu and the memory fractions can take in the subtree (their smallest and largest used fractions and
  1/allocatable), or, where no fraction can reach the cap of 1, the distance from 0 of the range their difference
  can take (the smallest and largest used cpu fraction minus used memory fraction). A subtree whose bound cannot beat the best score found so far is skipped (a later node must score
  strictly more to win; the first of equals wins), the leaves are scored exactly (``scheduler.resource_scores``).

A cycle is then: the position of the ``want``-th feasible node after the start (count descent), and the first
maximum in that window (a branch-and-bound descent): same node, same next start as the walk, by construction — a
subtree is only ever skipped when none of its nodes can be feasible or win. The first fit scale-down asks for is the
first feasible leaf after the start (one descent).

Leaves go stale when their node's usage changes; ``ClusterState.changes`` logs the positions that changed and
:meth:`RoomTree.refresh` re-reads those in this class.

Cost: building O(nodes of the class × corners); a node whose usage changed O(log nodes × corners²) at the class's
next cycle (corners: ``SKYLINE_CORNERS``, a constant); a cycle O(log nodes) descents, plus a descent into each
subtree of the window that holds both nodes the pod fits and nodes it does not (so O(log nodes × (1 + nodes of the
window the pod does not fit))) and into each whose score bound is not below the best: in practice a few dozen of the
window's nodes, where the walk scores all of them. A first fit descends only where a skyline corner covers the
request: exact while a subtree's front has at most ``SKYLINE_CORNERS`` corners, so a subtree is read to its leaves
only when its front is longer and the merged corners over-cover the request. Memory O(nodes of the class ×
corners) per class, not per pod shape.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from typing import TYPE_CHECKING

from renderer.impact.leafskip import MAX_VALUES, DomainIndex, LeafSkip
from renderer.impact.resources import EPHEMERAL_STORAGE, PODS
from renderer.impact.scoretree import changed_leaves

if TYPE_CHECKING:
    from collections.abc import Callable

    from renderer.impact.cluster import ClusterState

    #: The exact NodeResourcesFit + BalancedAllocation of a node position for a pod.
    ScoreFn = Callable[[int, "Want"], int]

__all__ = ["SKYLINE_CORNERS", "RoomTree", "Want", "skyline"]

_NONE = -(1 << 62)  # a padding leaf's room: never feasible, never the largest
_ANY = -(1 << 63)  # the request a skyline compares with for a resource the pod does not request: every room passes
#: The most corners a subtree's skyline of free (cpu, memory) keeps: past it, neighbouring corners are merged into
#: one that covers both (sound, less sharp).
SKYLINE_CORNERS = 6
_NO_CORNERS: tuple[int, ...] = ()
_FAR = 1e18
_EPS = 1e-7
# Sentinels for a resource a node does not advertise (allocatable 0): its LeastAllocated part counts as the best
# possible (the scorer skips it) and its used fraction may be anything (BalancedAllocation skips it).
_LOW, _HIGH = -2.0, 3.0


class Want:
    """What a pod asks that the tree compares: requests for the filter (0: not checked) and for the scores."""

    __slots__ = ("cpu", "eph", "mem", "score_cpu", "score_mem")

    def __init__(self, cpu: int, mem: int, eph: int, score_cpu: int, score_mem: int) -> None:
        self.cpu, self.mem, self.eph = cpu, mem, eph
        self.score_cpu, self.score_mem = score_cpu, score_mem


def skyline(
    a_c: tuple[int, ...],
    a_m: tuple[int, ...],
    b_c: tuple[int, ...],
    b_m: tuple[int, ...],
    corners: int = SKYLINE_CORNERS,
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The corners covering two skylines (each: free cpu strictly descending, free memory strictly ascending): their
    Pareto front, cut to ``corners`` by merging, each time, the two neighbouring corners whose merge covers the
    least extra area — ``(cpu of the first, memory of the second)`` covers both. Every point under either input is
    under a corner of the result, so "no corner covers the request" still proves no leaf takes it."""
    if not a_c:
        return b_c, b_m
    if not b_c:
        return a_c, a_m
    cs: list[int] = []
    ms: list[int] = []
    i = j = 0
    la, lb = len(a_c), len(b_c)
    top = _ANY
    while i < la or j < lb:
        if j == lb or (i < la and (a_c[i] > b_c[j] or (a_c[i] == b_c[j] and a_m[i] >= b_m[j]))):
            c, m = a_c[i], a_m[i]
            i += 1
        else:
            c, m = b_c[j], b_m[j]
            j += 1
        if m > top:  # not under a corner with at least as much cpu
            cs.append(c)
            ms.append(m)
            top = m
    while len(cs) > corners:
        k = 0
        least = (cs[0] - cs[1]) * (ms[1] - ms[0])
        for t in range(1, len(cs) - 1):
            area = (cs[t] - cs[t + 1]) * (ms[t + 1] - ms[t])
            if area < least:
                k, least = t, area
        del cs[k + 1]
        del ms[k]
    return tuple(cs), tuple(ms)


class RoomTree:
    """Leaves ``0..len(positions)-1`` are the node positions ``positions`` (sorted) of ``state``."""

    def __init__(self, positions: Sequence[int], state: ClusterState, log_at: int) -> None:
        self.positions = list(positions)
        self.state = state
        n = len(self.positions)
        size = 1
        while size < max(n, 1):
            size *= 2
        self._size = size
        m = 2 * size
        # dynamic: free room (min and max), largest free fraction, used fraction ranges
        self.mn_c, self.mx_c = [_NONE] * m, [_NONE] * m
        self.mn_m, self.mx_m = [_NONE] * m, [_NONE] * m
        self.mn_e, self.mx_e = [_NONE] * m, [_NONE] * m
        self.mn_p, self.mx_p = [0] * m, [0] * m
        self.fc, self.fm = [-_FAR] * m, [-_FAR] * m
        self.lo_uc, self.hi_uc = [_FAR] * m, [-_FAR] * m
        self.lo_um, self.hi_um = [_FAR] * m, [-_FAR] * m
        self.lo_d, self.hi_d = [_FAR] * m, [-_FAR] * m  # used cpu fraction - used memory fraction
        # static: 1/allocatable ranges
        self.lo_ic, self.hi_ic = [_FAR] * m, [-_FAR] * m
        self.lo_im, self.hi_im = [_FAR] * m, [-_FAR] * m
        # the skyline: corners (free cpu descending, free memory ascending) covering every leaf with a pod slot
        self.sky_c: list[tuple[int, ...]] = [_NO_CORNERS] * m
        self.sky_m: list[tuple[int, ...]] = [_NO_CORNERS] * m
        self._mins = (self.mn_c, self.mn_m, self.mn_e, self.mn_p)
        self._mins_f = (self.lo_uc, self.lo_um, self.lo_d)
        self._maxes = (self.mx_c, self.mx_m, self.mx_e, self.mx_p)
        self._maxes_f = (self.fc, self.fm, self.hi_uc, self.hi_um, self.hi_d)
        for k, p in enumerate(self.positions):
            x = size + k
            a_c, a_m = state.alloc_cpu[p], state.alloc_mem[p]
            self.lo_ic[x] = self.hi_ic[x] = 1 / a_c if a_c else 0.0
            self.lo_im[x] = self.hi_im[x] = 1 / a_m if a_m else 0.0
            self._leaf(k)
        for x in range(size - 1, 0, -1):
            self._pull(x)
            self._pull_skyline(x)
            a, b = 2 * x, 2 * x + 1
            self.lo_ic[x] = min(self.lo_ic[a], self.lo_ic[b])
            self.hi_ic[x] = max(self.hi_ic[a], self.hi_ic[b])
            self.lo_im[x] = min(self.lo_im[a], self.lo_im[b])
            self.hi_im[x] = max(self.hi_im[a], self.hi_im[b])
        #: How far into the cluster's change log this tree has read.
        self.log_at = log_at
        #: Operation counts: leaves computed (built or re-read), leaves reached by a query, tree nodes visited.
        self.computed = n
        self.leaves = 0
        self.visited = 0
        self._domains: dict[str, DomainIndex | None] = {}

    def __len__(self) -> int:
        return len(self.positions)

    # -- maintenance -----------------------------------------------------------------------------------------------

    def _leaf(self, k: int) -> None:
        st, p, x = self.state, self.positions[k], self._size + k
        alloc, used = st.allocatable[p], st.used[p]
        a_c, a_m = st.alloc_cpu[p], st.alloc_mem[p]
        self.mn_c[x] = self.mx_c[x] = a_c - st.used_cpu[p]
        self.mn_m[x] = self.mx_m[x] = a_m - st.used_mem[p]
        self.mn_e[x] = self.mx_e[x] = alloc.get(EPHEMERAL_STORAGE, 0) - used.get(EPHEMERAL_STORAGE, 0)
        self.mn_p[x] = self.mx_p[x] = 0 if st.removed[p] else alloc.get(PODS, 0) - st.count[p]
        if self.mn_p[x] >= 1:
            self.sky_c[x], self.sky_m[x] = (self.mn_c[x],), (self.mn_m[x],)
        else:
            self.sky_c[x] = self.sky_m[x] = _NO_CORNERS
        if a_c:
            self.fc[x] = (a_c - st.score_cpu[p]) / a_c
            self.lo_uc[x] = self.hi_uc[x] = st.used_cpu[p] / a_c
        else:
            self.fc[x], self.lo_uc[x], self.hi_uc[x] = 1.0, _LOW, _HIGH
        if a_m:
            self.fm[x] = (a_m - st.score_memory[p]) / a_m
            self.lo_um[x] = self.hi_um[x] = st.used_mem[p] / a_m
        else:
            self.fm[x], self.lo_um[x], self.hi_um[x] = 1.0, _LOW, _HIGH
        if a_c and a_m:
            self.lo_d[x] = self.hi_d[x] = self.lo_uc[x] - self.lo_um[x]
        else:
            self.lo_d[x], self.hi_d[x] = -_FAR, _FAR

    def _pull(self, x: int) -> None:
        a, b = 2 * x, 2 * x + 1
        for mn in self._mins:
            u, v = mn[a], mn[b]
            mn[x] = u if u <= v else v
        for mnf in self._mins_f:
            f, g = mnf[a], mnf[b]
            mnf[x] = f if f <= g else g
        for mx in self._maxes:
            u, v = mx[a], mx[b]
            mx[x] = u if u >= v else v
        for mxf in self._maxes_f:
            f, g = mxf[a], mxf[b]
            mxf[x] = f if f >= g else g

    def _pull_skyline(self, x: int) -> bool:
        """Merge the children's skylines into ``x``'s; whether it changed (if not, no ancestor's does)."""
        a, b = 2 * x, 2 * x + 1
        cs, ms = skyline(self.sky_c[a], self.sky_m[a], self.sky_c[b], self.sky_m[b])
        if cs == self.sky_c[x] and ms == self.sky_m[x]:
            return False
        self.sky_c[x], self.sky_m[x] = cs, ms
        return True

    def refresh(self, changes: Sequence[int]) -> None:
        """Re-read the nodes logged in ``changes`` since :attr:`log_at`."""
        for k in changed_leaves(self.positions, changes, self.log_at):
            self.computed += 1
            self._leaf(k)
            x = (self._size + k) // 2
            skyline_moved = True
            while x:
                self._pull(x)
                if skyline_moved:
                    skyline_moved = self._pull_skyline(x)
                x //= 2
        self.log_at = len(changes)

    # -- feasibility -----------------------------------------------------------------------------------------------

    def _all(self, x: int, w: Want) -> bool:
        """Every leaf under ``x`` takes the pod (padding leaves have no room, so never)."""
        return (
            self.mn_p[x] >= 1
            and (w.cpu <= 0 or self.mn_c[x] >= w.cpu)
            and (w.mem <= 0 or self.mn_m[x] >= w.mem)
            and (w.eph <= 0 or self.mn_e[x] >= w.eph)
        )

    def _none(self, x: int, w: Want) -> bool:
        """No leaf under ``x`` takes the pod: no corner of its skyline covers both the cpu and the memory (which
        also says no leaf has a pod slot when the skyline is empty), or its largest ephemeral-storage is short."""
        if w.eph > 0 and self.mx_e[x] < w.eph:
            return True
        cs, ms = self.sky_c[x], self.sky_m[x]
        cpu = w.cpu if w.cpu > 0 else _ANY
        mem = w.mem if w.mem > 0 else _ANY
        # corners from the most memory down: the first with enough cpu decides; once memory is short, all are
        for i in range(len(cs) - 1, -1, -1):
            if ms[i] < mem:
                return True
            if cs[i] >= cpu:
                return False
        return True

    def _ranges(self, lo: int, hi: int) -> list[tuple[int, int]]:
        """The canonical subtrees covering leaves ``[lo, hi)``, in leaf order, with their leaf counts."""
        left: list[tuple[int, int]] = []
        right: list[tuple[int, int]] = []
        lo += self._size
        hi += self._size
        width = 1
        while lo < hi:
            if lo & 1:
                left.append((lo, width))
                lo += 1
            if hi & 1:
                hi -= 1
                right.append((hi, width))
            lo //= 2
            hi //= 2
            width *= 2
        return left + right[::-1]

    def _kth(self, lo: int, hi: int, k: int, w: Want, skip: LeafSkip | None = None) -> tuple[int, int]:
        """The leaf of the ``k``-th feasible leaf in ``[lo, hi)`` (1-based) and ``k``; or (-1, feasible leaves
        there) when there are fewer. ``skip``: leaves another filter rejects, never feasible."""
        found = 0
        size = self._size
        for x, width in self._ranges(lo, hi):
            self.visited += 1
            self.leaves += width == 1
            if self._none(x, w):
                continue
            if self._all(x, w):
                width_ok = width - skip.count(x, width) if skip is not None else width
                if found + width_ok < k:
                    found += width_ok
                    continue
            stack = [(x, width)]
            while stack:
                y, wd = stack.pop()
                self.visited += 1
                self.leaves += wd == 1
                if self._none(y, w):
                    continue
                if self._all(y, w):
                    skipped = skip.count(y, wd) if skip is not None else 0
                    if found + wd - skipped < k:
                        found += wd - skipped
                        continue
                    if wd == 1:
                        if skipped:
                            continue
                        return y - size, k
                elif wd == 1:  # a leaf is all or none
                    continue
                stack.append((2 * y + 1, wd // 2))
                stack.append((2 * y, wd // 2))
        return -1, found

    def first(
        self,
        start: int,
        exclude: int,
        w: Want,
        excluded: Sequence[int] = (),
        banned: tuple[str, frozenset[str]] | None = None,
    ) -> int:
        """The first node that takes the pod in walk order from node position ``start`` (wrapping round), other than
        ``exclude``, the node positions ``excluded`` (sorted) and the nodes of ``banned`` (key, values); -1 when
        there is none."""
        n = len(self.positions)
        s = bisect_left(self.positions, start)
        skip = self.skip(excluded, banned)
        for lo, hi in ((s, n), (0, s)):
            at = lo
            while at < hi:
                leaf, _ = self._kth(at, hi, 1, w, skip)
                if leaf < 0:
                    break
                if self.positions[leaf] != exclude:
                    return self.positions[leaf]
                at = leaf + 1
        return -1

    def skip(self, excluded: Sequence[int], banned: tuple[str, frozenset[str]] | None) -> LeafSkip | None:
        """The leaves of node positions ``excluded`` (sorted) and of nodes whose value of ``banned[0]`` is one of
        ``banned[1]``; None when there are none. ``banned``'s key must have at most ``leafskip.MAX_VALUES`` values
        among the tree's nodes (see ``indexes``)."""
        leaves = []
        mine = self.positions
        for p in excluded:
            k = bisect_left(mine, p)
            if k < len(mine) and mine[k] == p:
                leaves.append(k)
        index: DomainIndex | None = None
        ids: frozenset[int] = frozenset()
        if banned is not None:
            index = self.indexes(banned[0])
            if index is None:
                raise ValueError(f"{banned[0]} has more than {MAX_VALUES} values: exclude its nodes instead")
            ids = frozenset(index.value_ids[v] for v in banned[1] if v in index.value_ids)
        if not leaves and not ids:
            return None
        return LeafSkip(self._size, leaves, index, ids)

    def indexes(self, key: str) -> DomainIndex | None:
        """The per-subtree counts of ``key``'s values (made once per key), None for a key with more than
        ``MAX_VALUES`` values among the tree's nodes."""
        if key not in self._domains:
            nodes = self.state.nodes
            values = {nodes[p].labels.get(key) for p in self.positions}
            fits_index = len(values - {None}) <= MAX_VALUES
            labels = [nodes[p].labels for p in self.positions]
            self._domains[key] = DomainIndex(self._size, labels, key) if fits_index else None
        return self._domains[key]

    # -- scores ----------------------------------------------------------------------------------------------------

    def _best(self, windows: Sequence[tuple[int, int]], w: Want, score: ScoreFn, skip: LeafSkip | None = None) -> int:
        """The first leaf, in the order of ``windows``, of the highest exact score among the feasible leaves.

        ``_none`` and the score bound inlined, their arrays in locals: this is the hot loop of placement."""
        best, chosen = -1, -1
        size = self._size
        cpu, mem, eph = w.cpu, w.mem, w.eph
        s_cpu, s_mem = w.score_cpu, w.score_mem
        mx_c, mx_m, mx_e, mx_p = self.mx_c, self.mx_m, self.mx_e, self.mx_p
        fc, fm, lo_ic, lo_im, hi_ic, hi_im = self.fc, self.fm, self.lo_ic, self.lo_im, self.hi_ic, self.hi_im
        lo_uc, hi_uc, lo_um, hi_um = self.lo_uc, self.hi_uc, self.lo_um, self.hi_um
        lo_d, hi_d = self.lo_d, self.hi_d
        positions = self.positions
        visited = leaves = 0
        for lo, hi in windows:
            for x, width in self._ranges(lo, hi):
                stack = [(x, width)]
                while stack:
                    y, wd = stack.pop()
                    visited += 1
                    if (
                        mx_p[y] < 1
                        or (cpu > 0 and mx_c[y] < cpu)
                        or (mem > 0 and mx_m[y] < mem)
                        or (eph > 0 and mx_e[y] < eph)
                    ):
                        continue
                    # the score bound (see the module docstring): LeastAllocated's parts, truncated as the plugin
                    # truncates; then BalancedAllocation's, from the gap between the fractions' ranges. The margin
                    # covers floating-point rounding: a bound may be one too high, never too low
                    u = fc[y] - s_cpu * lo_ic[y]
                    part_c = (100 if u >= 1.0 else int(100.0 * u + _EPS)) if u > 0 else 0
                    u = fm[y] - s_mem * lo_im[y]
                    part_m = (100 if u >= 1.0 else int(100.0 * u + _EPS)) if u > 0 else 0
                    bound = (part_c + part_m) // 2
                    if bound + 100 <= best:
                        continue
                    lc = lo_uc[y] + cpu * lo_ic[y]
                    hc = hi_uc[y] + cpu * hi_ic[y]
                    lm = lo_um[y] + mem * lo_im[y]
                    hm = hi_um[y] + mem * hi_im[y]
                    gap = 0.0
                    if hc <= 1.0 and hm <= 1.0:  # no fraction capped here: |cpu - memory| is the difference's
                        low = lo_d[y] + cpu * lo_ic[y] - mem * hi_im[y]
                        high = hi_d[y] + cpu * hi_ic[y] - mem * lo_im[y]
                        gap = low if low > 0 else (-high if high < 0 else 0.0)
                    if lc > 1.0:
                        lc = 1.0
                    if hc > 1.0:
                        hc = 1.0
                    if lm > 1.0:
                        lm = 1.0
                    if hm > 1.0:
                        hm = 1.0
                    if lc - hm > gap:
                        gap = lc - hm
                    if lm - hc > gap:
                        gap = lm - hc
                    gap -= _EPS
                    bound += int((1.0 - gap / 2) * 100.0 + _EPS) if gap > 0 else 100
                    if bound <= best:
                        continue
                    if skip is not None and skip.count(y, wd) >= wd:
                        continue
                    if wd == 1:
                        leaves += 1
                        value = score(positions[y - size], w)
                        if value > best:
                            best, chosen = value, y - size
                        continue
                    wd //= 2
                    stack.append((2 * y + 1, wd))
                    stack.append((2 * y, wd))
        self.visited += visited
        self.leaves += leaves
        return chosen

    def choose(
        self,
        start: int,
        want: int,
        w: Want,
        score: ScoreFn,
        excluded: Sequence[int] = (),
        banned: tuple[str, frozenset[str]] | None = None,
    ) -> tuple[int, int, int]:
        """One cycle's choice from node position ``start`` on: (node chosen or -1 when none fits, the node where the
        walk stopped after ``want`` feasible ones or -1 when it went all the way round, feasible nodes collected).
        ``excluded`` (node positions, sorted) and ``banned`` (a key and values): nodes another filter rejects."""
        n = len(self.positions)
        ex = self.skip(excluded, banned) if excluded or banned else None
        if n == 0:
            return -1, -1, 0
        s = bisect_left(self.positions, start)
        if s == n:
            s = 0
        end, found = self._kth(s, n, want, w, ex)
        if end >= 0:
            windows: tuple[tuple[int, int], ...] = ((s, end + 1),)
            last = self.positions[end]
        else:
            end, more = self._kth(0, s, want - found, w, ex)
            if end >= 0:
                windows, last, found = ((s, n), (0, end + 1)), self.positions[end], want
            else:
                windows, last, found = ((s, n), (0, s)), -1, found + more
        if found == 0:
            return -1, last, 0
        chosen = self._best(windows, w, score, ex)
        return self.positions[chosen], last, found
