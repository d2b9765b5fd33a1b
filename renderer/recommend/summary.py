"""Kubelet Summary API dumps as measured usage: ``kubectl get --raw /api/v1/nodes/NODE/proxy/stats/summary``.

One dump is one instant of one node (``node.nodeName``): its ``systemContainers`` named ``kubelet``, ``runtime`` and
``misc`` (the processes of the kubelet's ``--system-cgroups``, when set) give the reserved slices' working set
(``memory.workingSetBytes``, or ``rssBytes`` with ``memoryMetric: container_memory_rss``) and cpu
(``cpu.usageNanoCores``, the kubelet's own rate), each at its own ``time``; ``pods`` counts the pods running. Many
dumps per node over time are booked as the queries' answers are: each day keeps its largest value. The Summary API
has no requests, so these dumps advise reservations only, never commit percents (the report says the ratio series
are missing). ``pods`` entries without stats are counted all the same: the kubelet lists the pods it runs.

Memory PSI, where the kubelet reports it (``node.memory.psi``: the KubeletPSI feature, Kubernetes 1.33 alpha, 1.34
beta, KEP-4205's ``PSIStats``, ``some``/``full`` each with ``total`` and the kernel's running averages ``avg10``,
``avg60``, ``avg300`` in percent): the one-minute average at ``node.memory.time`` is booked as the ``memory_stall``
answer (``some``, ``full``, as a share), one instant per dump — a weak peak, as the memory is: dump often.

Cost: one bounded read and one ``json.loads`` per dump (a dump is tens of kilobytes a node; bounded at 64 MiB).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from renderer.recommend.usage import LAST_TIME, Usage

__all__ = ["MAX_BYTES", "book", "is_summary"]

MAX_BYTES = 64 << 20
_ROLES = ("kubelet", "runtime", "misc")


def is_summary(doc: Any) -> bool:
    node = doc.get("node") if isinstance(doc, dict) else None
    return isinstance(node, dict) and isinstance(node.get("nodeName"), str) and "systemContainers" in node


def _time(text: Any) -> float | None:
    if not isinstance(text, str):
        return None
    try:
        stamp = datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()
    except ValueError:
        return None
    # Go's zero time (0001-01-01T00:00:00Z: a stat the kubelet has not taken) and anything before 1970 is no time of
    # a measurement: missing, said, never a sample the reader refuses
    return stamp if 0 < stamp <= LAST_TIME else None


def book(usage: Usage, doc: dict[str, Any], memory_field: str = "workingSetBytes") -> list[str]:
    """Book one dump into ``usage`` (the ``reserved_memory``, ``reserved_cpu`` and ``running_pods`` answers); what
    could not be used, in words."""
    node = doc["node"]
    name = node["nodeName"]
    problems: list[str] = []
    for container in node.get("systemContainers") or []:
        role = container.get("name") if isinstance(container, dict) else None
        if role not in _ROLES:
            continue
        for query, section, key, scale in (
            ("reserved_memory", "memory", memory_field, 1.0),
            ("reserved_cpu", "cpu", "usageNanoCores", 1e-9),
        ):
            stats = container.get(section)
            if not isinstance(stats, dict):
                continue
            value, t = stats.get(key), _time(stats.get("time"))
            if not isinstance(value, int | float) or isinstance(value, bool) or t is None:
                problems.append(f"{name}: systemContainers {role} {section}.{key} or its time is missing")
                continue
            usage.add(query, {"node": name, "id": role}, [[t, str(value * scale)]])
    problems.extend(_psi(usage, name, node.get("memory")))
    t = _time((node.get("memory") or {}).get("time")) or _time((node.get("cpu") or {}).get("time"))
    pods = doc.get("pods")
    if t is not None and isinstance(pods, list):
        usage.add("running_pods", {"node": name}, [[t, str(len(pods))]])
    return problems


def _psi(usage: Usage, name: str, memory: Any) -> list[str]:
    """The node's memory PSI (``memory.psi.some|full.avg60``, percent) as ``memory_stall`` shares; nothing when the
    kubelet reports none."""
    psi = memory.get("psi") if isinstance(memory, dict) else None
    if psi is None:
        return []
    t = _time(memory.get("time"))
    problems = []
    for kind in ("some", "full"):
        line = psi.get(kind) if isinstance(psi, dict) else None
        value = line.get("avg60") if isinstance(line, dict) else None
        if not isinstance(value, int | float) or isinstance(value, bool) or t is None or not 0 <= value <= 100:
            problems.append(f"{name}: node memory.psi.{kind}.avg60 (a percent) or memory.time is missing or invalid")
            continue
        usage.add("memory_stall", {"node": name, "id": kind}, [[t, str(value / 100)]])
    return problems
