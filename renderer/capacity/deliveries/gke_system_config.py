"""GKE node pool system configuration: the ``kubeletConfig`` of ``gcloud container node-pools create|update
--system-config-from-file`` (``format: gcloud``), or the REST ``NodeKubeletConfig`` (``format: rest``).

Sources (restated, not copied):

- [P] googleapis ``google/container/v1/cluster_service.proto`` @ f8291d2b89f0017ab078a4c7378069bae5686f6f
  (2026-08-22), messages ``NodeKubeletConfig``, ``EvictionSignals``, ``EvictionGracePeriod``,
  ``EvictionMinimumReclaim``, ``TopologyManager``, ``MemoryManager``, ``CrashLoopBackOffConfig``: the fields and their
  documented ranges;
- [D] the container v1 discovery document, revision 20261027: the REST JSON names and types (``podPidsLimit`` an
  int64 sent as a string), and ``reservedSystemCpus``, ``containerLogMaxWorkers``, ``containerLogMonitorInterval`` and
  ``reservedResourcesConfig`` (``cpuReservedMillicore``, ``memoryReservedMib``), which [P] does not have;
- [G] gcloud 578.0.0 ``googlecloudsdk/api_lib/container/util.py`` (``LoadSystemConfigFromYAML``): the keys the file
  may hold, their YAML types, and ``cpuCFSQuota``/``cpuCFSQuotaPeriod`` spelt with upper-case CFS; it refuses any
  other key, ``reservedResourcesConfig`` included.

GKE has no hard eviction setting at all, and gcloud no reservation: a policy that asks for either where the values
differ from GKE's own is refused for the pool (the nodes would keep GKE's values). The REST
``reservedResourcesConfig`` is one combined reservation "for system daemons" (cpu and memory only), so
``format: rest`` carries kubeReserved + systemReserved summed, in whole millicores and MiB.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import TYPE_CHECKING, Any

from renderer.capacity.delivery_api import (
    Translation,
    duration_seconds,
    field_path,
    percent,
    pool_fields,
    quantity,
    undeliverable_reservations,
)
from renderer.quantity import Quantity

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity
    from renderer.models.settings import Settings

WAY = "gkeSystemConfig"
API = "the GKE node pool system config"

# KubeletConfiguration eviction signal -> GKE EvictionSignals key, with the documented range of a soft threshold [P]
SIGNALS = {
    "memory.available": "memoryAvailable",
    "nodefs.available": "nodefsAvailable",
    "nodefs.inodesFree": "nodefsInodesFree",
    "imagefs.available": "imagefsAvailable",
    "imagefs.inodesFree": "imagefsInodesFree",
    "pid.available": "pidAvailable",
}
SOFT_PERCENT_RANGE = {
    "nodefs.available": (10, 50),
    "nodefs.inodesFree": (5, 50),
    "imagefs.available": (15, 50),
    "imagefs.inodesFree": (5, 50),
    "pid.available": (10, 50),
}
_MIB = 1024 * 1024
_FIX = "change the value, or select this pool with another ReservationPolicy"
_RESERVED_HINT = "use autoSizing.formula gke"
_GCLOUD_HINT = ", or format: rest (it carries cpu and memory reservations)"


def _int_range(lo: int, hi: int) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, int):
            return "must be an integer"
        return None if lo <= v <= hi else f"must be between {lo} and {hi}"

    return check


def _duration_range(lo: Decimal, hi: Decimal, shown: str) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        s = duration_seconds(v)
        if s is None:
            return "must be a duration such as 30s"
        return None if lo <= s <= hi else f"must be {shown}"

    return check


def _one_of(*values: str) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        return None if v in values else f"must be one of {', '.join(values)}"

    return check


def _boolean(v: Any) -> str | None:
    return None if isinstance(v, bool) else "must be true or false"


def _pids(v: Any) -> str | None:
    if isinstance(v, bool) or not isinstance(v, int):
        return "must be an integer"
    return None if 1024 <= v < 4194304 else "must be at least 1024 and less than 4194304"


def _log_size(v: Any) -> str | None:
    q = quantity(v)
    text = str(v)
    if q is None or not text.endswith(("Ki", "Mi", "Gi")):
        return "must be a quantity in Ki, Mi or Gi"
    return None if Quantity.parse("10Mi") <= q <= Quantity.parse("500Mi") else "must be between 10Mi and 500Mi"


_SYSCTL_GROUPS = ("kernel.shm", "kernel.msg", "fs.mqueue.", "net.")


def _sysctls(v: Any) -> str | None:
    if not isinstance(v, list) or not all(isinstance(s, str) for s in v):
        return "must be a list of sysctl names"
    bad = [s for s in v if not (s == "kernel.sem" or s.startswith(_SYSCTL_GROUPS))]
    return (
        None
        if not bad
        else f"{', '.join(bad)} not in GKE's groups kernel.shm*, kernel.msg*, kernel.sem, fs.mqueue.*, net.*"
    )


# KubeletConfiguration field -> (gcloud key, REST key, check); a key None: that form has no such field [P], [D], [G]
SIMPLE: dict[str, tuple[str | None, str, Callable[[Any], str | None]]] = {
    "cpuManagerPolicy": ("cpuManagerPolicy", "cpuManagerPolicy", _one_of("none", "static")),
    "cpuCFSQuota": ("cpuCFSQuota", "cpuCfsQuota", _boolean),
    "cpuCFSQuotaPeriod": (
        "cpuCFSQuotaPeriod",
        "cpuCfsQuotaPeriod",
        _duration_range(Decimal("0.001"), Decimal(1), "between 1ms and 1s"),
    ),
    "podPidsLimit": ("podPidsLimit", "podPidsLimit", _pids),
    "imageGCHighThresholdPercent": ("imageGcHighThresholdPercent", "imageGcHighThresholdPercent", _int_range(10, 85)),
    "imageGCLowThresholdPercent": ("imageGcLowThresholdPercent", "imageGcLowThresholdPercent", _int_range(10, 85)),
    "imageMinimumGCAge": (
        "imageMinimumGcAge",
        "imageMinimumGcAge",
        _duration_range(Decimal(0), Decimal(120), "at most 2m"),
    ),
    "imageMaximumGCAge": (
        "imageMaximumGcAge",
        "imageMaximumGcAge",
        _duration_range(Decimal(0), Decimal(10**12), "a duration"),
    ),
    "containerLogMaxSize": ("containerLogMaxSize", "containerLogMaxSize", _log_size),
    "containerLogMaxFiles": ("containerLogMaxFiles", "containerLogMaxFiles", _int_range(2, 10)),
    "allowedUnsafeSysctls": ("allowedUnsafeSysctls", "allowedUnsafeSysctls", _sysctls),
    "evictionMaxPodGracePeriod": (
        "evictionMaxPodGracePeriodSeconds",
        "evictionMaxPodGracePeriodSeconds",
        _int_range(0, 300),
    ),
    "maxParallelImagePulls": ("maxParallelImagePulls", "maxParallelImagePulls", _int_range(2, 5)),
    "singleProcessOOMKill": ("singleProcessOomKill", "singleProcessOomKill", _boolean),
    "reservedSystemCPUs": (None, "reservedSystemCpus", lambda v: None if isinstance(v, str) else "must be a cpuset"),
    "containerLogMaxWorkers": (None, "containerLogMaxWorkers", _int_range(1, 10)),
    "containerLogMonitorInterval": (
        None,
        "containerLogMonitorInterval",
        _duration_range(Decimal(3), Decimal(300), "between 3s and 300s"),
    ),
}
# Fields with a form of their own, handled below.
NESTED = (
    "topologyManagerPolicy",
    "topologyManagerScope",
    "memoryManagerPolicy",
    "crashLoopBackOff",
    "shutdownGracePeriod",
    "shutdownGracePeriodCriticalPods",
    "readOnlyPort",
    "evictionSoft",
    "evictionSoftGracePeriod",
    "evictionMinimumReclaim",
)
HANDLED_ELSEWHERE = ("kubeReserved", "systemReserved", "evictionHard")
_NOT_TAKEN_HINT = {
    "maxPods": "GKE sets the pods per node when the pool is created (--max-pods-per-node), not in the system config",
}


def translate(pc: PoolCapacity, settings: Settings) -> Translation:
    """The pool's ``kubeletConfig`` in the chosen format, and what GKE cannot take."""
    delivery = pc.pool.delivery
    assert delivery is not None and delivery.gkeSystemConfig is not None
    rest = delivery.gkeSystemConfig.format == "rest"
    api = "the GKE REST NodeKubeletConfig" if rest else "the GKE node pool system config (gcloud)"
    out = Translation(api=api, document=None)
    fields = pool_fields(pc, out)
    config: dict[str, Any] = {}

    def refuse(name: str, message: str, *rest_path: str | int) -> None:
        out.problem("error", f"{api}: {name} {message}", field_path(name, *rest_path), _FIX)

    for name, value in fields.items():
        if name in HANDLED_ELSEWHERE or name in NESTED:
            continue
        mapped = SIMPLE.get(name)
        if mapped is None or (not rest and mapped[0] is None):
            out.problem(
                "warning",
                f"{api} has no field for {name}: it is left out and the node keeps GKE's value",
                field_path(name),
                _NOT_TAKEN_HINT.get(name, "remove it from the policy, or select this pool with another policy")
                + ("" if mapped is None or rest else "; format: rest carries it"),
            )
            continue
        gcloud_key, rest_key, check = mapped
        bad = check(value)
        if bad is not None:
            refuse(name, bad)
            continue
        if rest and name == "podPidsLimit":
            value = str(value)  # [D]: int64, sent as a JSON string
        config[rest_key if rest else gcloud_key] = value  # type: ignore[index]
    _image_gc(fields, refuse)
    _nested(fields, config, out, refuse, rest)
    _eviction(pc, fields, config, out, refuse)
    undeliverable_reservations(
        pc,
        settings,
        fields,
        out,
        takes=lambda part, key: rest and key in ("cpu", "memory"),
        takes_signal=lambda signal: False,
        api=api,
        hint=_RESERVED_HINT + ("" if rest else _GCLOUD_HINT),
    )
    if rest:
        _reserved_resources(pc, settings, fields, config, out)
    if config:
        body = dict(sorted(config.items()))
        out.document = body if rest else {"kubeletConfig": body}
    return out


def _image_gc(fields: dict[str, Any], refuse: Callable[..., None]) -> None:
    high, low = fields.get("imageGCHighThresholdPercent"), fields.get("imageGCLowThresholdPercent")
    if isinstance(high, int) and isinstance(low, int) and not low < high:
        refuse("imageGCLowThresholdPercent", f"({low}) must be lower than imageGCHighThresholdPercent ({high})")


def _nested(
    fields: dict[str, Any], config: dict[str, Any], out: Translation, refuse: Callable[..., None], rest: bool
) -> None:
    topology: dict[str, Any] = {}
    if "topologyManagerPolicy" in fields:
        v = fields["topologyManagerPolicy"]
        bad = _one_of("none", "restricted", "best-effort", "single-numa-node")(v)
        if bad:
            refuse("topologyManagerPolicy", bad)
        else:
            topology["policy"] = v
    if "topologyManagerScope" in fields:
        v = fields["topologyManagerScope"]
        bad = _one_of("container", "pod")(v)
        if bad:
            refuse("topologyManagerScope", bad)
        else:
            topology["scope"] = v
    if topology:
        config["topologyManager"] = topology
    if "memoryManagerPolicy" in fields:
        v = fields["memoryManagerPolicy"]
        # the kubelet spells them None / Static; GKE none / static [P]
        if isinstance(v, str) and v.lower() in ("none", "static"):
            config["memoryManager"] = {"policy": v.lower()}
        else:
            refuse("memoryManagerPolicy", "must be None or Static")
    crash = fields.get("crashLoopBackOff")
    if crash is not None:
        period = crash.get("maxContainerRestartPeriod") if isinstance(crash, dict) else None
        extra = sorted(set(crash) - {"maxContainerRestartPeriod"}) if isinstance(crash, dict) else []
        bad = _duration_range(Decimal(1), Decimal(300), "between 1s and 300s")(period)
        if bad or extra:
            refuse(
                "crashLoopBackOff",
                f"maxContainerRestartPeriod {bad}" if bad else f"takes only maxContainerRestartPeriod, not {extra}",
            )
        else:
            config["crashLoopBackOff"] = {"maxContainerRestartPeriod": period}
    grace = None
    if "shutdownGracePeriod" in fields:
        s = duration_seconds(fields["shutdownGracePeriod"])
        if s is None or s not in (0, 30, 120):
            refuse("shutdownGracePeriod", "must be 0s, 30s or 120s (GKE takes it on Spot VMs only)")
        else:
            grace = int(s)
            config["shutdownGracePeriodSeconds"] = grace
    if "shutdownGracePeriodCriticalPods" in fields:
        s = duration_seconds(fields["shutdownGracePeriodCriticalPods"])
        limit = 120 if grace is None else min(120, grace)
        if s is None or s != int(s) or not 0 <= s <= limit:
            refuse("shutdownGracePeriodCriticalPods", f"must be whole seconds between 0s and {limit}s")
        else:
            config["shutdownGracePeriodCriticalPodsSeconds"] = int(s)
    if "readOnlyPort" in fields:
        port = fields["readOnlyPort"]
        if port in (0, 10255) and not isinstance(port, bool):
            config["insecureKubeletReadonlyPortEnabled"] = port == 10255
        else:
            refuse("readOnlyPort", "can only be 0 (off) or 10255 (on): GKE turns the port on or off")


def _eviction(
    pc: PoolCapacity, fields: dict[str, Any], config: dict[str, Any], out: Translation, refuse: Callable[..., None]
) -> None:
    memory = pc.capacity.get("memory")
    for name, target in (
        ("evictionSoft", "evictionSoft"),
        ("evictionSoftGracePeriod", "evictionSoftGracePeriod"),
        ("evictionMinimumReclaim", "evictionMinimumReclaim"),
    ):
        values = fields.get(name)
        if not values:
            continue
        mapped: dict[str, str] = {}
        for signal, value in values.items():
            key = SIGNALS.get(signal)
            if key is None:
                refuse(name, f"has no signal {signal} (GKE: {', '.join(SIGNALS)})", signal)
                continue
            bad = _signal_value(name, signal, value, memory)
            if bad is not None:
                refuse(name, f"{signal} {bad}", signal)
                continue
            mapped[key] = str(value)
        if mapped:
            config[target] = {k: mapped[k] for k in SIGNALS.values() if k in mapped}


def _signal_value(name: str, signal: str, value: Any, memory: Quantity | None) -> str | None:
    """The documented constraint a soft-eviction value breaks [P], or None."""
    if name == "evictionSoftGracePeriod":
        s = duration_seconds(value)
        return None if s is not None and s >= 0 else "must be a duration such as 30s"
    if name == "evictionMinimumReclaim":
        p = percent(value)
        return None if p is not None and 0 <= p <= 10 else "must be a percentage of at most 10%"
    if signal == "memory.available":
        q = quantity(value)
        if q is None or not str(value).endswith(("Ki", "Mi", "Gi")):
            return "must be a quantity in Ki, Mi or Gi"
        if q < Quantity.parse("100Mi"):
            return "must be at least 100Mi"
        if memory is not None and q.value * 2 > memory.value:
            return f"must be at most 50% of the node's memory ({memory})"
        return None
    p = percent(value)
    lo, hi = SOFT_PERCENT_RANGE[signal]
    return None if p is not None and lo <= p <= hi else f"must be a percentage between {lo}% and {hi}%"


def _reserved_resources(
    pc: PoolCapacity, settings: Settings, fields: dict[str, Any], config: dict[str, Any], out: Translation
) -> None:
    """reservedResourcesConfig [D]: kubeReserved + systemReserved cpu (whole millicores) and memory (whole MiB)."""
    totals: dict[str, Quantity] = {}
    for part in ("kubeReserved", "systemReserved"):
        for key in ("cpu", "memory"):
            value = (fields.get(part) or {}).get(key)
            if value is None:
                continue
            q = Quantity.parse(value)
            totals[key] = totals[key] + q if key in totals else q
    if not totals:
        return
    reserved: dict[str, str] = {}
    cpu = totals.get("cpu")
    if cpu is not None:
        milli = cpu.value * 1000
        if milli != int(milli):
            out.problem(
                "error",
                f"{out.api}: reservedResourcesConfig takes whole millicores; kubeReserved + systemReserved cpu is {cpu}",
                ("spec", "kubeReserved", "cpu") if "cpu" in (fields.get("kubeReserved") or {}) else ("spec",),
                "round the cpu reservation to whole millicores",
            )
        else:
            reserved["cpuReservedMillicore"] = str(int(milli))
    memory = totals.get("memory")
    if memory is not None:
        if memory.value % _MIB:
            out.problem(
                "error",
                f"{out.api}: reservedResourcesConfig takes whole MiB; kubeReserved + systemReserved memory is {memory}",
                ("spec", "kubeReserved", "memory") if "memory" in (fields.get("kubeReserved") or {}) else ("spec",),
                "round the memory reservation to whole MiB",
            )
        else:
            reserved["memoryReservedMib"] = str(int(memory.value // _MIB))
    if reserved:
        config["reservedResourcesConfig"] = reserved
