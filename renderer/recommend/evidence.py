"""Evidence beside the statistics, per node-day of a pool: OOM kills and memory stalls (PSI). They change no number;
they say whether the window's peaks already hurt (docs/recommend.md, "Evidence").

- **OOM kills** (query ``oom_kills``): cAdvisor counts a kill on the killed process' own cgroup, so its kills are
  split by scope. A kill in the reserved slices (``system``) on a day their memory exceeded the current reservation
  is strong evidence that the reservation is too small: the daemons it protects were killed. A kill in the pods
  (``pods``) is evidence against memory over-commit: the pods already meet their limits or the node's. ``all`` is
  node-exporter's count of every kill on the node (``/proc/vmstat`` ``oom_kill``), whatever the cgroup. The
  counts come from ``increase()`` over a day, which extrapolates to the day's edges (a kill is at most ×
  86400 / the sampled span, 1.0035 at 5-minute scrapes): they are rounded to the nearest whole kill.
- **Memory stalls** (query ``memory_stall``): the largest 5-minute share of a day some task waited for memory (PSI
  "some") and all tasks were stalled on it (PSI "full"). Node-days at or above ``STALL_LIMIT`` are listed:
  systemd-oomd's default ``DefaultMemoryPressureLimit=60%`` over ``DefaultMemoryPressureDurationSec=30s``
  (oomd.conf(5)), the point where systemd's userspace OOM killer acts. A 5-minute average at or above 60 % means
  at least one of its ten 30-second spans was too, so a listed node-day crossed systemd-oomd's limit.

Optional series: a pool whose nodes have none of these series says so (``absent``), as no evidence, never as
evidence of no harm.

Cost: O(nodes × days).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from renderer.recommend.nodes import OOM_SCOPES, STALL_KINDS, NodeDays

__all__ = ["STALL_LIMIT", "OomKill", "Stall", "absent", "oom_kills", "stalls"]

#: systemd-oomd's default memory pressure limit (oomd.conf(5), DefaultMemoryPressureLimit=, systemd 247).
STALL_LIMIT = 0.6


@dataclass(frozen=True)
class OomKill:
    node: str
    day: int
    #: "system" (the reserved slices), "pods", "all" (node-exporter: any process on the node)
    scope: str
    kills: int
    #: a system kill on a node-day whose reserved slices' memory peak exceeded the current total memory reservation
    over_reservation: bool = False


@dataclass(frozen=True)
class Stall:
    node: str
    day: int
    some: float | None
    full: float | None


def oom_kills(nodes: list[NodeDays], current_memory: float | None) -> list[OomKill]:
    """Every node-day with at least one kill (rounded), per scope; ``current_memory``: the current total memory
    reservation (kube + system), None when the model has none."""
    out: list[OomKill] = []
    for nd in nodes:
        for scope in OOM_SCOPES:
            for day, value in nd.oom.get(scope, {}).items():
                kills = math.floor(value + 0.5)
                if kills < 1:
                    continue
                peak = nd.total.get("memory", {}).get(day)
                over = scope == "system" and current_memory is not None and peak is not None and peak > current_memory
                out.append(OomKill(nd.name, day, scope, kills, over))
    out.sort(key=lambda k: (OOM_SCOPES.index(k.scope), k.node, k.day))
    return out


def stalls(nodes: list[NodeDays], limit: float = STALL_LIMIT) -> list[Stall]:
    """Every node-day whose memory stall share, "some" or "full", reached ``limit``."""
    out: list[Stall] = []
    for nd in nodes:
        some, full = (nd.stall.get(kind, {}) for kind in STALL_KINDS)
        for day in sorted(set(some) | set(full)):
            s, f = some.get(day), full.get(day)
            if max(s or 0.0, f or 0.0) >= limit:
                out.append(Stall(nd.name, day, s, f))
    out.sort(key=lambda x: (x.node, x.day))
    return out


#: Per optional query: the NodeDays attribute it fills, and what its absence usually means.
_OPTIONAL = (
    ("memory_pressure", "pressure", "kube-state-metrics' kube_node_status_condition"),
    (
        "oom_kills",
        "oom",
        "cAdvisor's container_oom_events_total (cAdvisor 0.40, the kubelet exposes it) or node-exporter's "
        "node_vmstat_oom_kill",
    ),
    (
        "memory_stall",
        "stall",
        "PSI: the kubelet's cAdvisor with KubeletPSI (Kubernetes 1.34, beta) on cgroup v2, or node-exporter's "
        "pressure collector",
    ),
)


def absent(nodes: list[NodeDays]) -> list[str]:
    """The optional queries with no series on some of ``nodes``, in words (no evidence, never evidence of none)."""
    out: list[str] = []
    for query, attr, source in _OPTIONAL:
        without = sorted(nd.name for nd in nodes if not getattr(nd, attr))
        if not without:
            continue
        shown = ", ".join(without[:5]) + (f" and {len(without) - 5} more" if len(without) > 5 else "")
        out.append(
            f"{query}: no series on {len(without)} of {len(nodes)} node{'s' if len(nodes) != 1 else ''} ({shown}); "
            f"no evidence either way there (needs {source})"
        )
    return out
