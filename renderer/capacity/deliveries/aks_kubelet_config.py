"""AKS agent pool ``kubeletConfig``: the JSON file of ``az aks nodepool add|update --kubelet-config`` (camelCase REST
property names, assigned as-is to the agent pool by azure-cli), for the api-version the pool names.

Sources (restated, not copied):

- [SPEC] Azure/azure-rest-api-specs @ 0227e50b696364940d51f18e7df35a2e8350a2b3,
  ``specification/containerservice/resource-manager/Microsoft.ContainerService/aks/preview/2026-08-02-preview/
  managedClusters.json``, definitions ``KubeletConfig`` and ``KubeReserved``: ``kubeReserved.cpuMillicores`` "must be
  greater than or equal to 140", ``kubeReserved.memoryMB`` "in MiB. Must be greater than or equal to 750" (both in the
  descriptions only: the swagger has no ``minimum`` for them, so a schema validator does not enforce them), no
  systemReserved; ``containerLogMaxFiles`` minimum 2; ``evictionMaxPodGracePeriodInSeconds`` minimum 0;
- [PYSDK] azure-mgmt-containerservice 41.9.0b1 (api-version 2026-08-02-preview): ``HardEvictionThreshold``,
  ``SoftEvictionThreshold``, ``SoftEvictionGracePeriod`` with three signals each (memoryAvailable: at least 100Mi or
  2%; nodeFsAvailable: at least the system default 10%; nodeFsInodesFree: a percentage at least 5%; grace periods at
  least 30s; a soft threshold and its grace period set together);
- [GA] the 2026-06-01 KubeletConfig (@azure/arm-containerservice 25.5.0): none of kubeReserved, hardEvictionThreshold,
  softEvictionThreshold, softEvictionGracePeriod, evictionMaxPodGracePeriodInSeconds, seccompDefault.
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
    reserved_path,
    undeliverable_reservations,
)
from renderer.quantity import Quantity

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity
    from renderer.models.settings import Settings

WAY = "aksKubeletConfig"
API = "the AKS agent pool kubeletConfig"
PREVIEW = "2026-08-02-preview"
#: [SPEC] descriptions of KubeReserved
MIN_CPU_MILLICORES = 140
MIN_MEMORY_MIB = 750
_MIB = 1024 * 1024
SIGNALS = {
    "memory.available": "memoryAvailable",
    "nodefs.available": "nodeFsAvailable",
    "nodefs.inodesFree": "nodeFsInodesFree",
}
_PREVIEW_ONLY = ("seccompDefault", "evictionSoft", "evictionSoftGracePeriod", "evictionMaxPodGracePeriod")
_FIX = "change the value, or select this pool with another ReservationPolicy"


def _one_of(*values: str) -> Callable[[Any], str | None]:
    return lambda v: None if v in values else f"must be one of {', '.join(values)}"


def _boolean(v: Any) -> str | None:
    return None if isinstance(v, bool) else "must be true or false"


def _integer(lo: int | None = None, hi: int | None = None) -> Callable[[Any], str | None]:
    def check(v: Any) -> str | None:
        if isinstance(v, bool) or not isinstance(v, int):
            return "must be an integer"
        if lo is not None and v < lo:
            return f"must be at least {lo}"
        if hi is not None and v > hi:
            return f"must be at most {hi}"
        return None

    return check


def _duration(v: Any) -> str | None:
    return None if duration_seconds(v) is not None else "must be a duration such as 100ms"


def _sysctls(v: Any) -> str | None:
    return None if isinstance(v, list) and all(isinstance(s, str) for s in v) else "must be a list of sysctl names"


# KubeletConfiguration field -> (AKS property, check) [SPEC], [GA]
SIMPLE: dict[str, tuple[str, Callable[[Any], str | None]]] = {
    "cpuManagerPolicy": ("cpuManagerPolicy", _one_of("none", "static")),
    "cpuCFSQuota": ("cpuCfsQuota", _boolean),
    "cpuCFSQuotaPeriod": ("cpuCfsQuotaPeriod", _duration),
    "imageGCHighThresholdPercent": ("imageGcHighThreshold", _integer(0, 100)),
    "imageGCLowThresholdPercent": ("imageGcLowThreshold", _integer(0, 100)),
    "topologyManagerPolicy": (
        "topologyManagerPolicy",
        _one_of("none", "best-effort", "restricted", "single-numa-node"),
    ),
    "allowedUnsafeSysctls": ("allowedUnsafeSysctls", _sysctls),
    "failSwapOn": ("failSwapOn", _boolean),
    "containerLogMaxFiles": ("containerLogMaxFiles", _integer(2)),
    "podPidsLimit": ("podMaxPids", _integer()),
    "evictionMaxPodGracePeriod": ("evictionMaxPodGracePeriodInSeconds", _integer(0)),
}
HANDLED_ELSEWHERE = (
    "kubeReserved",
    "systemReserved",
    "evictionHard",
    "evictionSoft",
    "evictionSoftGracePeriod",
    "containerLogMaxSize",
    "seccompDefault",
)
_NOT_TAKEN_HINT = {"maxPods": "AKS sets the pods per node on the agent pool itself (az aks nodepool add --max-pods)"}


def translate(pc: PoolCapacity, settings: Settings) -> Translation:
    """The pool's ``kubeletConfig`` for its api-version, and what AKS cannot take."""
    delivery = pc.pool.delivery
    assert delivery is not None and delivery.aksKubeletConfig is not None
    version = delivery.aksKubeletConfig.apiVersion
    preview = version == PREVIEW
    api = f"{API} (api-version {version})"
    out = Translation(api=api, document=None)
    fields = pool_fields(pc, out)
    config: dict[str, Any] = {}

    def refuse(name: str, message: str, *rest: str | int) -> None:
        out.problem("error", f"{api}: {name} {message}", field_path(name, *rest), _FIX)

    def not_in_version(name: str) -> None:
        out.problem(
            "warning",
            f"{api} has no {name}: it is left out and the node keeps AKS's value",
            field_path(name),
            f"use apiVersion {PREVIEW}, which has it",
        )

    for name, value in fields.items():
        if name in HANDLED_ELSEWHERE:
            continue
        mapped = SIMPLE.get(name)
        if mapped is None:
            out.problem(
                "warning",
                f"{api} has no field for {name}: it is left out and the node keeps AKS's value",
                field_path(name),
                _NOT_TAKEN_HINT.get(name, "remove it from the policy, or select this pool with another policy"),
            )
            continue
        if name in _PREVIEW_ONLY and not preview:
            not_in_version(name)
            continue
        key, check = mapped
        bad = check(value)
        if bad is not None:
            refuse(name, bad)
            continue
        config[key] = value
    high, low = fields.get("imageGCHighThresholdPercent"), fields.get("imageGCLowThresholdPercent")
    if isinstance(high, int) and isinstance(low, int) and low > high:
        refuse("imageGCLowThresholdPercent", f"({low}) cannot be higher than imageGCHighThresholdPercent ({high})")
    if "containerLogMaxSize" in fields:
        q = quantity(fields["containerLogMaxSize"])
        if q is None or q.value % _MIB or q.is_zero():
            refuse("containerLogMaxSize", "must be a whole number of Mi (AKS takes containerLogMaxSizeMB)")
        else:
            config["containerLogMaxSizeMB"] = int(q.value // _MIB)
    if "seccompDefault" in fields:
        if not preview:
            not_in_version("seccompDefault")
        elif isinstance(fields["seccompDefault"], bool):
            config["seccompDefault"] = "RuntimeDefault" if fields["seccompDefault"] else "Unconfined"
        else:
            refuse("seccompDefault", "must be true or false")
    if preview:
        _kube_reserved(pc, fields, config, out)
        _eviction(pc, fields, config, out, refuse)
    elif fields.get("evictionSoft") or fields.get("evictionSoftGracePeriod"):
        for name in ("evictionSoft", "evictionSoftGracePeriod"):
            if fields.get(name):
                not_in_version(name)
    undeliverable_reservations(
        pc,
        settings,
        fields,
        out,
        takes=lambda part, key: preview and part == "kubeReserved" and key in ("cpu", "memory"),
        takes_signal=lambda signal: preview and signal in SIGNALS,
        api=api,
        hint=(
            "use autoSizing.formula aks"
            + ("" if preview else f", or apiVersion {PREVIEW} (kubeReserved and hard eviction)")
        ),
    )
    if config:
        out.document = dict(sorted(config.items()))
    return out


def _kube_reserved(pc: PoolCapacity, fields: dict[str, Any], config: dict[str, Any], out: Translation) -> None:
    kube = fields.get("kubeReserved") or {}
    reserved: dict[str, int] = {}
    cpu = kube.get("cpu")
    if cpu is not None:
        milli = Quantity.parse(cpu).value * 1000
        where = reserved_path(pc, "kubeReserved", "cpu")
        if milli != int(milli):
            out.problem("error", f"{out.api}: kubeReserved cpu {cpu} is not a whole number of millicores", where, _FIX)
        elif milli < MIN_CPU_MILLICORES:
            out.problem(
                "error",
                f"{out.api}: kubeReserved.cpuMillicores must be at least {MIN_CPU_MILLICORES}; the policy gives "
                f"{cpu} ({int(milli)})",
                where,
                f"reserve at least {MIN_CPU_MILLICORES}m cpu for kube daemons on AKS",
            )
        else:
            reserved["cpuMillicores"] = int(milli)
    memory = kube.get("memory")
    if memory is not None:
        q = Quantity.parse(memory)
        where = reserved_path(pc, "kubeReserved", "memory")
        if q.value % _MIB:
            out.problem(
                "error", f"{out.api}: kubeReserved memory {memory} is not a whole number of MiB (memoryMB)", where, _FIX
            )
        elif q.value // _MIB < MIN_MEMORY_MIB:
            out.problem(
                "error",
                f"{out.api}: kubeReserved.memoryMB (MiB) must be at least {MIN_MEMORY_MIB}; the policy gives {memory} "
                f"({int(q.value // _MIB)} MiB)",
                where,
                f"reserve at least {MIN_MEMORY_MIB}Mi memory for kube daemons on AKS",
            )
        else:
            reserved["memoryMB"] = int(q.value // _MIB)
    if reserved:
        config["kubeReserved"] = reserved


def _eviction(
    pc: PoolCapacity, fields: dict[str, Any], config: dict[str, Any], out: Translation, refuse: Callable[..., None]
) -> None:
    hard: dict[str, str] = {}
    for signal, value in (fields.get("evictionHard") or {}).items():
        key = SIGNALS.get(signal)
        if key is None:
            continue  # undeliverable_reservations reports it where it matters
        bad = _hard_value(pc, signal, value)
        if bad is not None:
            out.problem("error", f"{out.api}: hardEvictionThreshold {key} {bad}", _eviction_path(pc, signal), _FIX)
            continue
        hard[key] = str(value)
    if hard:
        config["hardEvictionThreshold"] = {k: hard[k] for k in SIGNALS.values() if k in hard}
    soft = fields.get("evictionSoft") or {}
    grace = fields.get("evictionSoftGracePeriod") or {}
    soft_out: dict[str, str] = {}
    grace_out: dict[str, str] = {}
    for signal in sorted(set(soft) | set(grace)):
        key = SIGNALS.get(signal)
        name = "evictionSoft" if signal in soft else "evictionSoftGracePeriod"
        if key is None:
            refuse(name, f"has no signal {signal} (AKS: {', '.join(SIGNALS)})", signal)
            continue
        if signal not in soft or signal not in grace:
            missing = "evictionSoftGracePeriod" if signal in soft else "evictionSoft"
            refuse(name, f"{signal} needs {missing} {signal} too (AKS sets them in pairs)", signal)
            continue
        s = duration_seconds(grace[signal])
        if s is None or s < 30:
            refuse("evictionSoftGracePeriod", f"{signal} must be a duration of at least 30s", signal)
            continue
        bad = _hard_value(pc, signal, soft[signal])
        if bad is not None:
            refuse("evictionSoft", f"{signal} {bad}", signal)
            continue
        soft_out[key], grace_out[key] = str(soft[signal]), str(grace[signal])
    if soft_out:
        config["softEvictionThreshold"] = {k: soft_out[k] for k in SIGNALS.values() if k in soft_out}
        config["softEvictionGracePeriod"] = {k: grace_out[k] for k in SIGNALS.values() if k in grace_out}


def _eviction_path(pc: PoolCapacity, signal: str) -> tuple[str, ...]:
    return ("spec", "evictionHard", signal) if pc.eviction_source == "explicit" else ("spec", "autoSizing")


def _hard_value(pc: PoolCapacity, signal: str, value: Any) -> str | None:
    """The [PYSDK] minimum a threshold breaks, or None."""
    p = percent(value)
    if signal == "memory.available":
        if p is not None:
            return None if p >= 2 else "must be at least 2%"
        q = quantity(value)
        return None if q is not None and q >= Quantity.parse("100Mi") else "must be at least 100Mi or 2%"
    if signal == "nodefs.available":
        if p is not None:
            return None if p >= 10 else "must be at least the system default 10%"
        q = quantity(value)
        disk = pc.capacity.get("ephemeral-storage")
        if q is None:
            return "must be a quantity or a percentage"
        if disk is not None and q.value * 10 < disk.value:
            return f"must be at least the system default 10% ({value} is less than 10% of {disk})"
        return None
    if p is not None:
        return None if p >= 5 else "must be at least the system default 5%"
    return None if str(value).isdigit() else "must be an inode count or a percentage"


__all__ = ["API", "MIN_CPU_MILLICORES", "MIN_MEMORY_MIB", "PREVIEW", "WAY", "Decimal", "translate"]
