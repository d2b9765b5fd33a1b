"""Bottlerocket user data: ``[settings.kubernetes]`` TOML (kube-reserved, system-reserved, eviction-hard, ...).

Sources (restated, not copied):

- [MODEL] bottlerocket-os/bottlerocket-settings-sdk @ 2363566c96136664fd8c143a57c7f245af7f6714,
  ``bottlerocket-settings-models/settings-extensions/kubernetes/src/lib.rs`` (``KubernetesSettingsV1``): the keys;
- [TYPES] the same repository @ 25e4241f2d9546b275735826cff57c8905fa265e, ``modeled-types/src/kubernetes.rs``: what
  the API accepts — eviction signals a closed set of six; a threshold ``N%`` with N in [0, 100) or a quantity; a
  reserved value a quantity only (no percentage); durations only h, m, s, ms, in that order; no cross-field checks;
- [TPL] bottlerocket-os/bottlerocket-core-kit @ a10182f974abd19de803bb7a324b5a0bdeab4ced,
  ``packages/kubernetes-1.31/kubelet-config`` and ``sources/api/schnauzer/src/helpers/mod.rs``: kubeReserved is always
  written, a key left unset gets Bottlerocket's value (cpu from the core count, memory max-pods × 11 + 255 Mi,
  ephemeral-storage 1Gi); kubeReservedCgroup /runtime and systemReservedCgroup /system are Bottlerocket's own;
- [DOCS] bottlerocket-project-website @ 610209648110feaf61e5ce9996f1ad19887230eb ``data/settings/1.50.x/kubernetes.toml``:
  ``pid`` as a reserved key in 1.50.x.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from renderer.capacity.delivery_api import Translation, field_path, pool_fields, reserved_path

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity
    from renderer.models.settings import Settings

WAY = "bottlerocket"
API = "Bottlerocket settings.kubernetes"
EVICTION_SIGNALS = (
    "memory.available",
    "nodefs.available",
    "nodefs.inodesFree",
    "imagefs.available",
    "imagefs.inodesFree",
    "pid.available",
)
RESERVED_KEYS = ("cpu", "memory", "ephemeral-storage", "pid")
#: [TYPES] KubernetesQuantityValue: a plain number, an exponent form, or a number with a binary/decimal suffix
QUANTITY = r"^(?:[0-9]+e[0-9]+|[+-]?[0-9.]+(?:[EPTGMK]i?|[numk])?)$"
#: [TYPES] KubernetesThresholdValue percentages: a float in [0, 100)
PERCENT = r"^([0-9]+(?:\.[0-9]+)?)%$"
#: [TYPES] KubernetesDurationValue
DURATION = r"^((\d+\.)?\d+h)?((\d+\.)?\d+m)?((\d+\.)?\d+s)?((\d+\.)?\d+ms)?$"
_FIX = "change the value, or select this pool with another ReservationPolicy"


def threshold_problem(value: Any) -> str | None:
    text = str(value)
    m = re.match(PERCENT, text)
    if m:
        return None if float(m.group(1)) < 100 else "must be a percentage below 100%"
    return None if re.match(QUANTITY, text) else "must be a percentage below 100% or a quantity such as 100Mi"


def reserved_problem(value: Any) -> str | None:
    text = str(value)
    if text.endswith("%"):
        return "must be a quantity (Bottlerocket takes no percentage for a reservation)"
    return None if re.match(QUANTITY, text) else "must be a quantity such as 100Mi"


def duration_problem(value: Any) -> str | None:
    text = str(value)
    return None if text and re.match(DURATION, text) else "must be a duration in h, m, s and ms (such as 1m30s)"


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


def _one_of(*values: str) -> Callable[[Any], str | None]:
    return lambda v: None if v in values else f"must be one of {', '.join(values)}"


def _boolean(v: Any) -> str | None:
    return None if isinstance(v, bool) else "must be true or false"


def _string(v: Any) -> str | None:
    return None if isinstance(v, str) and "\n" not in v else "must be a single-line string"


def _sysctls(v: Any) -> str | None:
    ok = isinstance(v, list) and all(isinstance(s, str) and "\n" not in s for s in v)
    return None if ok else "must be a list of single-line strings"


def _quantity(v: Any) -> str | None:
    return reserved_problem(v)


# KubeletConfiguration field -> (settings.kubernetes key, check) [MODEL], [TYPES]
SIMPLE: dict[str, tuple[str, Callable[[Any], str | None]]] = {
    "maxPods": ("max-pods", _integer(0, 2**32 - 1)),
    "podPidsLimit": ("pod-pids-limit", _integer(-(2**63), 2**63 - 1)),
    "evictionMaxPodGracePeriod": ("eviction-max-pod-grace-period", _integer(0)),
    "cpuManagerPolicy": ("cpu-manager-policy", _one_of("static", "none")),
    "cpuManagerReconcilePeriod": ("cpu-manager-reconcile-period", duration_problem),
    "topologyManagerPolicy": (
        "topology-manager-policy",
        _one_of("none", "restricted", "best-effort", "single-numa-node"),
    ),
    "topologyManagerScope": ("topology-manager-scope", _one_of("container", "pod")),
    "reservedSystemCPUs": ("reserved-cpus", _string),
    "memoryManagerPolicy": ("memory-manager-policy", _one_of("Static", "None")),
    "imageGCHighThresholdPercent": ("image-gc-high-threshold-percent", _integer(0, 100)),
    "imageGCLowThresholdPercent": ("image-gc-low-threshold-percent", _integer(0, 100)),
    "containerLogMaxSize": ("container-log-max-size", _quantity),
    "containerLogMaxFiles": ("container-log-max-files", _integer(-(2**31), 2**31 - 1)),
    "containerLogMaxWorkers": ("container-log-max-workers", _integer(-(2**31), 2**31 - 1)),
    "cpuCFSQuota": ("cpu-cfs-quota-enforced", _boolean),
    "allowedUnsafeSysctls": ("allowed-unsafe-sysctls", _sysctls),
    "shutdownGracePeriod": ("shutdown-grace-period", duration_problem),
    "shutdownGracePeriodCriticalPods": ("shutdown-grace-period-for-critical-pods", duration_problem),
}
MAPS: dict[str, tuple[str, Callable[[Any], str | None]]] = {
    "kubeReserved": ("kube-reserved", reserved_problem),
    "systemReserved": ("system-reserved", reserved_problem),
    "evictionHard": ("eviction-hard", threshold_problem),
    "evictionSoft": ("eviction-soft", threshold_problem),
    "evictionSoftGracePeriod": ("eviction-soft-grace-period", duration_problem),
}
#: [TPL]: Bottlerocket writes these itself
_OWN = {
    "kubeReservedCgroup": "Bottlerocket sets kubeReservedCgroup /runtime itself",
    "systemReservedCgroup": "Bottlerocket sets systemReservedCgroup /system itself",
}
_KUBE_RESERVED_DEFAULTS = {
    "cpu": "a value from the core count (60m for one core, 80m for four, +2.5m per further core)",
    "memory": "max-pods x 11 + 255 Mi",
    "ephemeral-storage": "1Gi",
}


def translate(pc: PoolCapacity, settings: Settings) -> Translation:
    """The pool's ``settings.kubernetes``, and what Bottlerocket cannot take."""
    out = Translation(api=API, document=None)
    fields = pool_fields(pc, out)
    kubernetes: dict[str, Any] = {}

    def refuse(name: str, message: str, *rest: str | int, where: tuple[str | int, ...] | None = None) -> None:
        out.problem("error", f"{API}: {name} {message}", where or field_path(name, *rest), _FIX)

    for name, value in fields.items():
        if name in MAPS:
            key, check = MAPS[name]
            table: dict[str, str] = {}
            for sub, v in value.items():
                if name in ("kubeReserved", "systemReserved"):
                    where = reserved_path(pc, name, sub)
                elif name == "evictionHard" and pc.eviction_source != "explicit":
                    where = ("spec", "autoSizing")
                else:
                    where = field_path(name, sub)
                if name in ("kubeReserved", "systemReserved") and sub not in RESERVED_KEYS:
                    refuse(name, f"has no key {sub} ({', '.join(RESERVED_KEYS)})", where=where)
                    continue
                if name not in ("kubeReserved", "systemReserved") and sub not in EVICTION_SIGNALS:
                    refuse(name, f"has no signal {sub} (Bottlerocket: {', '.join(EVICTION_SIGNALS)})", where=where)
                    continue
                bad = check(v)
                if bad is not None:
                    refuse(name, f"{sub} {bad}", where=where)
                    continue
                table[sub] = str(v)
            if table:
                kubernetes[key] = table
            continue
        mapped = SIMPLE.get(name)
        if mapped is None:
            out.problem(
                "warning",
                f"{API} has no setting for {name}"
                + (f" ({_OWN[name]})" if name in _OWN else "")
                + ": it is left out and the node keeps Bottlerocket's value",
                field_path(name),
                "remove it from the policy, or select this pool with another policy",
            )
            continue
        setting, check_value = mapped
        bad = check_value(value)
        if bad is not None:
            refuse(name, bad)
            continue
        kubernetes[setting] = value
    kube = kubernetes.get("kube-reserved", {})
    missing = [k for k in _KUBE_RESERVED_DEFAULTS if k not in kube]
    if missing and pc.policy is not None:
        spec = pc.policy.model.spec
        at: tuple[str, ...] = (
            ("spec", "kubeReserved")
            if spec.kubeReserved is not None
            else ("spec", "autoSizing")
            if spec.autoSizing is not None
            else ("spec",)
        )
        out.problem(
            "warning",
            f"{API}: kube-reserved {', '.join(missing)} not set: Bottlerocket writes its own ("
            + "; ".join(f"{k}: {_KUBE_RESERVED_DEFAULTS[k]}" for k in missing)
            + "), which explain does not count",
            at,
            "set every kubeReserved key, or use autoSizing.formula eks",
        )
    if kubernetes:
        out.document = {"settings": {"kubernetes": dict(sorted(kubernetes.items()))}}
    return out
