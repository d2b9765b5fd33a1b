"""Reservations and commit percents per pool, from measured daily peaks (docs/recommend.md says why each number).

Reservations (kube-reserved, system-reserved; memory and cpu) protect a node at its worst moment, so they follow
peaks: the largest daily peak over every node and day of the pool (the VPA recommender sizes workloads from the
peak of each interval too, then takes a percentile of those peaks; a reservation takes the largest, because the
node it fails on freezes), plus the VPA recommender's 15 % safety margin (``safetyMarginFraction`` 0.15,
autoscaler/vertical-pod-autoscaler/pkg/recommender/logic), rounded up (memory to 1Mi, cpu to 10m), never below a
floor (``FLOOR``).

The kubelet's and the runtime's memory grows with the pods they run; where the pool's node-days show that (a least-
squares line of their peak against the running pods, with enough spread and a good fit: ``SLOPE_*``), the kube-
reserved memory becomes ``perPod × maxPods + base``: the line moved up to cover every node-day (the largest
residual), then the margin — an ``autoSizing.custom`` formula the repo evaluates for each pool's maxPods.

Commit percents: a pool packed to a CommitClass percent ``p`` holds requests of ``allocatable × p/100``; its pods use
``r`` times their requests, so usage is ``r × allocatable × p/100``. Cpu may follow a high percentile of ``r`` (a
busy moment is throttled, not killed): ``p = 100 × target / r`` with ``r`` the largest daily p99 of the pool's
nodes, ``target`` the utilization of allocatable to stay under (default 0.8). Memory follows peaks only — memory
over-commit ends in OOM kills: ``p = 100 / (r × 1.15)`` with ``r`` the largest daily peak ratio. Both are rounded down
to a multiple of 5, and capped (cpu at ``thresholds.cpuCommitCeilingPercent``, memory at 200).

Back-test: walk forward over the window — for each day after the first ``min_days`` (the last ``BACKTEST_DAYS``),
the recommendation made from the days before it, against that day's peaks on every node: how many node-days it would
have been exceeded on.

Cost: O(nodes × days) per pool; the back-test O(nodes × days) more, times ``BACKTEST_DAYS`` slope fits where a slope
is used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from renderer.recommend.evidence import OomKill, Stall, absent, oom_kills, stalls
from renderer.recommend.nodes import NodeDays

__all__ = [
    "FLOOR",
    "MARGIN",
    "Commit",
    "Coverage",
    "Options",
    "PoolAdvice",
    "Reservation",
    "Slope",
    "advise",
]

MI = 1 << 20
#: The VPA recommender's safety margin (recommender flag --recommendation-margin-fraction, default 0.15).
MARGIN = 0.15
#: The least a recommended reservation is, per resource (bytes, cores): a quiet window never zeroes one.
FLOOR = {"memory": 64 * MI, "cpu": 0.01}
#: A fit is used when its points span at least this many distinct pod counts ...
SLOPE_MIN_DISTINCT = 3
#: ... over at least this many pods ...
SLOPE_MIN_SPREAD = 10
#: ... and it explains at least this share of the variance (R²).
SLOPE_MIN_R2 = 0.8
#: Memory is never committed above 100 %: pods that use their requests would be OOM-killed (rule AL201 says so).
MEMORY_COMMIT_CAP = 100


@dataclass(frozen=True)
class Options:
    min_days: int = 7
    min_nodes: int = 1
    cpu_target: float = 0.8
    cpu_ceiling: int = 400


@dataclass
class Exceeded:
    node: str
    day: int
    peak: float


@dataclass
class Reservation:
    """One resource of one slice (``kube``, ``system``) or of both (``total``): in bytes or cores."""

    slice: str
    resource: str
    current: float | None
    observed: float
    node: str
    day: int
    recommended: float
    #: node-days whose peak exceeded the current reservation (largest first, every one)
    exceeded: list[Exceeded] = field(default_factory=list)
    backtest_exceeded: int = 0
    backtest_days: int = 0


@dataclass
class Slope:
    """kube memory (bytes) = per_pod × pods + base, fitted over the pool's node-days."""

    per_pod: float
    base: float
    r2: float
    points: int
    distinct: int
    used: bool
    why: str
    per_pod_recommended: int = 0  # bytes, with margin, rounded up to 1Ki
    base_recommended: int = 0  # bytes, with margin, rounded up to 1Mi
    at_max_pods: int = 0


@dataclass
class Commit:
    resource: str
    current: int
    ratio: float | None
    node: str
    day: int
    recommended: int | None
    reasoning: str


@dataclass
class Coverage:
    days: int
    nodes: int
    pool_nodes: int
    node_days: int
    missing: list[str] = field(default_factory=list)
    mixed: str = ""
    enough_reservations: bool = False
    enough_commit: bool = False
    why: list[str] = field(default_factory=list)
    #: optional series (evidence) with no series on some nodes, in words
    absent: list[str] = field(default_factory=list)


@dataclass
class PoolAdvice:
    pool: str
    nodes: list[str]
    max_pods: int
    coverage: Coverage
    reservations: list[Reservation] = field(default_factory=list)
    slope: Slope | None = None
    commits: list[Commit] = field(default_factory=list)
    #: (node, day) the node reported MemoryPressure: the kubelet was evicting pods (evidence beside the statistics)
    pressure: list[tuple[str, int]] = field(default_factory=list)
    #: node-days with OOM kills, per scope (``renderer.recommend.evidence``)
    oom_kills: list[OomKill] = field(default_factory=list)
    #: node-days whose memory stall share (PSI) reached ``evidence.STALL_LIMIT``
    stalls: list[Stall] = field(default_factory=list)
    #: with a snapshot: (the pool's nodes in it, nodes freed, pods newly Pending, nodes to add) under the documents
    repack: tuple[int, int, int, int] | None = None


def round_up(value: float, resource: str) -> float:
    if resource == "memory":
        return float(math.ceil(value / MI - 1e-9) * MI)
    return math.ceil(value * 100 - 1e-9) / 100


def _with_margin(peak: float, resource: str) -> float:
    return max(round_up(peak * (1 + MARGIN), resource), FLOOR[resource])


def _peak(
    nodes: list[NodeDays], get: str, resource: str | None, days: set[int] | None = None
) -> tuple[float, str, int]:
    best = (-1.0, "", 0)
    for nd in nodes:
        series = getattr(nd, get)
        series = series.get(resource, {}) if resource is not None else series
        for day, value in series.items():
            if days is not None and day not in days:
                continue
            if value > best[0] or (value == best[0] and (nd.name, day) < (best[1], best[2])):
                best = (value, nd.name, day)
    return best


def _coverage(nodes: list[NodeDays], pool_nodes: int, opts: Options) -> Coverage:
    days = {d for nd in nodes for d in nd.total.get("memory", {})}
    node_days = sum(len(nd.total.get("memory", {})) for nd in nodes)
    with_reserved = [nd for nd in nodes if nd.total.get("memory")]
    cov = Coverage(days=len(days), nodes=len(with_reserved), pool_nodes=pool_nodes, node_days=node_days)
    missing: dict[str, list[str]] = {}
    for nd in nodes:
        for what in nd.missing:
            missing.setdefault(what, []).append(nd.name)
        for attr, label in (
            ("pods", "running_pods"),
            ("memory_ratio", "pods_memory_ratio"),
            ("cpu_ratio", "pods_cpu_ratio"),
        ):
            if not getattr(nd, attr):
                missing.setdefault(label, []).append(nd.name)
        if not nd.total.get("cpu"):
            missing.setdefault("reserved_cpu", []).append(nd.name)
    for what in sorted(missing):
        names = sorted(missing[what])
        shown = ", ".join(names[:5]) + (f" and {len(names) - 5} more" if len(names) > 5 else "")
        cov.missing.append(
            f"{what}: no series on {len(names)} of {len(nodes)} node{'s' if len(nodes) != 1 else ''} ({shown})"
        )
    layouts = {nd.layout for nd in nodes if nd.layout}
    if len(layouts) > 1:
        nested = sorted(nd.name for nd in nodes if nd.layout == "nested")
        beside = sorted(nd.name for nd in nodes if nd.layout == "beside")
        cov.mixed = (
            f"mixed cgroup layouts: kubelet/runtime under /system.slice on {len(nested)} node(s) ({', '.join(nested[:3])}), "
            f"beside it on {len(beside)} ({', '.join(beside[:3])}); each node is counted its own way"
        )
    need_nodes = min(opts.min_nodes, pool_nodes) if pool_nodes else opts.min_nodes
    if len(days) < opts.min_days:
        cov.why.append(f"{len(days)} day{'s' if len(days) != 1 else ''} of data, {opts.min_days} needed (--min-days)")
    if len(with_reserved) < max(need_nodes, 1):
        cov.why.append(
            f"{len(with_reserved)} node(s) with reserved-slice data, {max(need_nodes, 1)} needed (--min-nodes)"
        )
    cov.enough_reservations = not cov.why
    ratio_days = {d for nd in nodes for d in nd.memory_ratio} & {d for nd in nodes for d in nd.cpu_ratio}
    cov.enough_commit = len(ratio_days) >= opts.min_days and len(with_reserved) >= 1
    if not cov.enough_commit:
        cov.why.append(
            f"{len(ratio_days)} day(s) with both pods_memory_ratio and pods_cpu_ratio, {opts.min_days} needed for "
            "commit percents"
        )
    return cov


def advise(
    pool: str,
    nodes: list[NodeDays],
    pool_nodes: int,
    max_pods: int,
    current: dict[tuple[str, str], float | None],
    percents: dict[str, int],
    opts: Options,
) -> PoolAdvice:
    """The advice for one pool: ``current`` (slice, resource) → the model's reservation (bytes, cores);
    ``percents``: the model's commit percents."""
    nodes = sorted(nodes, key=lambda nd: nd.name)
    cov = _coverage(nodes, pool_nodes, opts)
    out = PoolAdvice(pool, [nd.name for nd in nodes], max_pods, cov)
    out.pressure = sorted((nd.name, d) for nd in nodes for d, v in nd.pressure.items() if v >= 1)
    out.oom_kills = oom_kills(nodes, current.get(("total", "memory")))
    out.stalls = stalls(nodes)
    cov.absent = absent(nodes)
    if cov.enough_reservations:
        out.slope = _slope(nodes, max_pods)
        use_slope = out.slope.used
        for resource in ("memory", "cpu"):
            if not any(nd.total.get(resource) for nd in nodes):
                query = "reserved_memory" if resource == "memory" else "reserved_cpu"
                cov.why.append(f"no {query} series on any node: no {resource} reservation")
                continue
            for slice_ in ("kube", "system", "total"):
                r = _reservation(nodes, slice_, resource, current.get((slice_, resource)), max_pods, use_slope)
                _backtest(nodes, r, opts, max_pods, use_slope)
                out.reservations.append(r)
    if cov.enough_commit:
        out.commits = [
            _cpu_commit(nodes, percents.get("cpu", 100), opts),
            _memory_commit(nodes, percents.get("memory", 100)),
        ]
        killed = {(k.node, k.day) for k in out.oom_kills if k.scope == "pods"}
        if killed:  # the evidence, in the memory percent's own reasoning
            out.commits[1].reasoning += (
                f"; pods were OOM-killed on {len(killed)} node-day(s) of the window (oom_kills): they already meet "
                "their memory limits or the node's, no room for a memory over-commit"
            )
    return out


def _limit(
    nodes: list[NodeDays], slice_: str, resource: str, days: set[int] | None, max_pods: int, use_slope: bool
) -> float:
    """The reservation recommended from ``days`` (None: all): the total is the sum of the slices'."""
    if slice_ == "total":
        return sum(_limit(nodes, s, resource, days, max_pods, use_slope) for s in ("kube", "system"))
    if use_slope and (slice_, resource) == ("kube", "memory"):
        fit = _slope(nodes, max_pods, days)
        if fit.used:
            return float(fit.at_max_pods)
    return _with_margin(_peak(nodes, slice_, resource, days)[0], resource)


def _reservation(
    nodes: list[NodeDays], slice_: str, resource: str, current: float | None, max_pods: int, use_slope: bool
) -> Reservation:
    observed, node, day = _peak(nodes, slice_, resource)
    r = Reservation(
        slice_, resource, current, observed, node, day, _limit(nodes, slice_, resource, None, max_pods, use_slope)
    )
    if current is not None:
        for nd in nodes:
            for d, value in getattr(nd, slice_).get(resource, {}).items():
                if value > current:
                    r.exceeded.append(Exceeded(nd.name, d, value))
        r.exceeded.sort(key=lambda e: (-e.peak, e.node, e.day))
    return r


#: The walk-forward back-test replays at most the last this many days of the window: its cost is that many
#: recommendations (a slope fit each is O(node-days)), so it grows with the data, not with its square.
BACKTEST_DAYS = 30


def _daily_peaks(nodes: list[NodeDays], slice_: str, resource: str) -> dict[int, float]:
    out: dict[int, float] = {}
    for nd in nodes:
        for day, value in getattr(nd, slice_).get(resource, {}).items():
            if value > out.get(day, -1.0):
                out[day] = value
    return out


def _backtest(nodes: list[NodeDays], r: Reservation, opts: Options, max_pods: int, use_slope: bool) -> None:
    """Walk forward: each day after the first ``min_days`` (the last ``BACKTEST_DAYS`` of them), the recommendation
    made from the days before it against that day's peak on every node. A static recommendation follows the running
    maximum of the daily peaks (O(1) a day); a slope is fitted again on each day's history."""
    slices = ("kube", "system") if r.slice == "total" else (r.slice,)
    peaks = {s: _daily_peaks(nodes, s, r.resource) for s in slices}
    days = sorted({d for nd in nodes for d in getattr(nd, r.slice).get(r.resource, {})})
    first = max(opts.min_days, len(days) - BACKTEST_DAYS)
    running = (
        {s: max((v for d, v in peaks[s].items() if d < days[first]), default=0.0) for s in slices}
        if (first < len(days))
        else {}
    )
    exceeded = tested = 0
    for k in range(first, len(days)):
        limit = 0.0
        for s in slices:
            if use_slope and (s, r.resource) == ("kube", "memory"):
                fit = _slope(nodes, max_pods, set(days[:k]))
                if fit.used:
                    limit += float(fit.at_max_pods)
                    continue
            limit += _with_margin(running[s], r.resource)
        for nd in nodes:
            value = getattr(nd, r.slice).get(r.resource, {}).get(days[k])
            if value is None:
                continue
            tested += 1
            if value > limit:
                exceeded += 1
        for s in slices:
            running[s] = max(running[s], peaks[s].get(days[k], 0.0))
    r.backtest_exceeded, r.backtest_days = exceeded, tested


def _slope(nodes: list[NodeDays], max_pods: int, days: set[int] | None = None) -> Slope:
    xs: list[float] = []
    ys: list[float] = []
    for nd in nodes:
        kube = nd.kube.get("memory", {})
        for day, pods in nd.pods.items():
            if day in kube and (days is None or day in days):
                xs.append(pods)
                ys.append(kube[day])
    n = len(xs)
    distinct = len(set(xs))
    if n < 3 or distinct < 2:
        return Slope(
            0.0, 0.0, 0.0, n, distinct, False, f"{n} node-days with running pods and kube memory: too few to fit"
        )
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    syy = sum((y - my) ** 2 for y in ys)
    a = sxy / sxx if sxx else 0.0
    b = my - a * mx
    r2 = (sxy * sxy / (sxx * syy)) if sxx and syy else 0.0
    fit = Slope(a, b, r2, n, distinct, False, "")
    spread = max(xs) - min(xs)
    if distinct < SLOPE_MIN_DISTINCT or spread < SLOPE_MIN_SPREAD:
        fit.why = (
            f"running pods span {distinct} distinct counts over {spread:g} pods; a slope needs {SLOPE_MIN_DISTINCT} "
            f"over {SLOPE_MIN_SPREAD}: static value"
        )
    elif a <= 0:
        fit.why = "kube memory does not grow with running pods: static value"
    elif r2 < SLOPE_MIN_R2:
        fit.why = f"R² {r2:.2f} below {SLOPE_MIN_R2}: the pods explain too little of kube memory; static value"
    else:
        fit.used = True
        fit.why = f"R² {r2:.2f} over {n} node-days, {distinct} distinct pod counts"
        envelope = max(y - a * x for x, y in zip(xs, ys, strict=True))  # the line moved up to cover every point
        fit.per_pod_recommended = math.ceil(a * (1 + MARGIN) / 1024 - 1e-9) * 1024
        fit.base_recommended = max(math.ceil(envelope * (1 + MARGIN) / MI - 1e-9) * MI, 0)
        fit.at_max_pods = fit.per_pod_recommended * max_pods + fit.base_recommended
        fit.at_max_pods = math.ceil(fit.at_max_pods / MI) * MI
    return fit


def _five_down(value: float) -> int:
    return int(math.floor(value / 5 + 1e-9) * 5)


def _cpu_commit(nodes: list[NodeDays], current: int, opts: Options) -> Commit:
    ratio, node, day = _peak(nodes, "cpu_ratio", None)
    if ratio <= 0:
        return Commit("cpu", current, ratio, node, day, opts.cpu_ceiling, "the pods used no cpu in the window")
    raw = 100 * opts.cpu_target / ratio
    p = min(_five_down(raw), opts.cpu_ceiling)
    p = max(p, 5)
    why = (
        f"the pods' p99 cpu usage reached {ratio:.0%} of their requests (largest daily p99, {node}); packed to "
        f"{p}%, usage stays under {opts.cpu_target:.0%} of allocatable (100 × {opts.cpu_target:g} / {ratio:.3f} = "
        f"{raw:.1f}, down to a multiple of 5"
    )
    why += f", capped at thresholds.cpuCommitCeilingPercent {opts.cpu_ceiling})" if raw > opts.cpu_ceiling else ")"
    if p < 100:
        why += "; the pods use more cpu than their requests allow at this target: under-commit"
    elif p == 100:
        why += ": keep 100%"
    return Commit("cpu", current, ratio, node, day, p, why)


def _memory_commit(nodes: list[NodeDays], current: int) -> Commit:
    ratio, node, day = _peak(nodes, "memory_ratio", None)
    if ratio <= 0:
        return Commit("memory", current, ratio, node, day, 100, "no memory usage measured: keep 100%")
    raw = 100 / (ratio * (1 + MARGIN))
    p = max(min(_five_down(raw), MEMORY_COMMIT_CAP), 5)
    why = (
        f"the pods' peak memory reached {ratio:.0%} of their requests ({node}); memory follows peaks, never "
        f"percentiles (over-commit ends in OOM kills): 100 / ({ratio:.3f} × 1.15) = {raw:.1f}"
    )
    if p < 100:
        why += ", down to a multiple of 5; the pods' peaks come too close to or exceed their requests: under-commit"
    else:
        why += (
            ", but memory is never over-committed (AL201: pods that use their requests would be OOM-killed): keep 100%"
        )
    return Commit("memory", current, ratio, node, day, p, why)
