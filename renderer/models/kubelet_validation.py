"""What the kubelet refuses in a KubeletConfiguration, so ``render`` never writes one (issue 21, class 10).

The facts come from kubernetes/kubernetes at commit 001332b0422071acf4860769f18e34b5e9b7c1bc:

- ``staging/src/k8s.io/kubelet/config/v1beta1/types.go``: each field's Go type. The kubelet decodes its configuration
  file strictly (YAML to JSON, then ``encoding/json`` into these types), so a value of another type (``'yes'`` for a
  ``*bool``), an integer beyond its field's width (``maxPods: 99999999999`` for an ``int32``), a number written with a
  fraction or an exponent for an integer field (``podPidsLimit: 1e23`` for an ``*int64``), or a ``metav1.Duration``
  that is not a string ``time.ParseDuration`` reads, stops the kubelet before any rule runs;
- ``pkg/kubelet/apis/config/validation/validation.go`` (``ValidateKubeletConfiguration``): the ranges and relations
  checked after defaulting, quoted below with the kubelet's own flag names.

The same values reach every target (the KubeletConfiguration files, OpenShift's KubeletConfig, Karpenter's
EC2NodeClass kubelet block, Cluster API's kubeletExtraArgs, nodeadm's NodeConfig), so checking the policy once covers
them all. Pure data and functions (standard library only); the lint rule AL326 reports what ``problems`` returns.
Cost: O(fields) per policy.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from renderer.models.kubelet_elements import element_problems
from renderer.models.kubelet_kinds import KIND

__all__ = ["INT32", "INT64", "KIND", "Problem", "go_duration", "problems"]

INT32 = (-(1 << 31), (1 << 31) - 1)
INT64 = (-(1 << 63), (1 << 63) - 1)

#: validation.go's unconditional ranges of integer fields: name → (low, high, flag), inclusive; None: no bound.
#: Fields whose zero means "use the default" (types.go: ``omitempty`` non-pointer, or validation exempting 0) say
#: so with ``zero_ok``.
RANGES: dict[str, tuple[int | None, int | None, str, bool]] = {
    "eventBurst": (0, None, "--event-burst", False),
    "eventRecordQPS": (0, None, "--event-qps", False),
    "healthzPort": (1, 65535, "--healthz-port", True),
    "iptablesDropBit": (0, 31, "--iptables-drop-bit", False),
    "iptablesMasqueradeBit": (0, 31, "--iptables-masquerade-bit", False),
    "kubeAPIBurst": (0, None, "--kube-api-burst", False),
    "kubeAPIQPS": (0, None, "--kube-api-qps", False),
    "nodeStatusMaxImages": (-1, None, "--node-status-max-images", False),
    "maxOpenFiles": (0, None, "--max-open-files", False),
    "oomScoreAdj": (-1000, 1000, "--oom-score-adj", False),
    "port": (1, 65535, "--port", True),  # 0 is defaulted to 10250 (omitempty int32)
    "readOnlyPort": (1, 65535, "--read-only-port", True),
    "registryBurst": (0, None, "--registry-burst", False),
    "registryPullQPS": (0, None, "--registry-qps", False),
    "maxParallelImagePulls": (1, None, "", False),
    "nodeLeaseDurationSeconds": (1, None, "", True),  # 0 is defaulted to 40
    "containerLogMaxFiles": (2, None, "", False),
    "containerLogMaxWorkers": (1, None, "", False),
}
#: validation.go's own words for the fields that have no command-line flag.
_WANT = {
    "maxParallelImagePulls": "must be a positive number",
    "nodeLeaseDurationSeconds": "must be greater than 0",
    "containerLogMaxFiles": "must be greater than 1",
    "containerLogMaxWorkers": "must be greater than or equal to 1",
}

#: validation.go's enumerations: name → allowed values.
ENUMS: dict[str, tuple[str, ...]] = {
    "topologyManagerPolicy": ("none", "best-effort", "restricted", "single-numa-node"),
    "topologyManagerScope": ("container", "pod"),
    "hairpinMode": ("none", "hairpin-veth", "promiscuous-bridge"),
}

#: Fields other rules check already (so one problem is one finding): AL317 (negative maxPods/podsPerCore), AL324
#: (image GC thresholds), AL301-AL307 (enforcement, cgroups, reserved CPUs), AL308-AL316 (reserved and eviction
#: maps), AL323 (systemCgroups without cgroupRoot), AL325 (reservedMemory).
ELSEWHERE = frozenset(
    [
        "imageGCHighThresholdPercent",
        "imageGCLowThresholdPercent",
        "enforceNodeAllocatable",
        "systemReservedCgroup",
        "kubeReservedCgroup",
        "cgroupsPerQOS",
        "reservedSystemCPUs",
        "systemReserved",
        "kubeReserved",
        "evictionHard",
        "evictionSoft",
        "evictionSoftGracePeriod",
        "evictionMinimumReclaim",
        "systemCgroups",
        "cgroupRoot",
        "reservedMemory",
    ]
)


class Problem(NamedTuple):
    field: str  # the KubeletConfiguration field it is about
    message: str
    hint: str
    at: tuple[str | int, ...] = ()  # the element of a list or map field it is about (a key or an index)


# --- Go's time.ParseDuration ------------------------------------------------------------------------------------

_UNITS = {
    "ns": 1,
    "us": 1_000,
    "\u00b5s": 1_000,  # µs, MICRO SIGN
    "\u03bcs": 1_000,  # μs, GREEK SMALL LETTER MU
    "ms": 1_000_000,
    "s": 10**9,
    "m": 60 * 10**9,
    "h": 3600 * 10**9,
}
_LIMIT = 1 << 63


def _leading_int(s: str) -> tuple[int, str] | None:
    x, i = 0, 0
    while i < len(s) and "0" <= s[i] <= "9":
        if x > _LIMIT // 10:
            return None
        x = x * 10 + ord(s[i]) - 48
        if x > _LIMIT:
            return None
        i += 1
    return x, s[i:]


def _leading_fraction(s: str) -> tuple[int, float, str]:
    x, scale, i, overflow = 0, 1.0, 0, False
    while i < len(s) and "0" <= s[i] <= "9":
        if not overflow:
            if x > (_LIMIT - 1) // 10:
                overflow = True
            else:
                y = x * 10 + ord(s[i]) - 48
                if y > _LIMIT:
                    overflow = True
                else:
                    x, scale = y, scale * 10
        i += 1
    return x, scale, s[i:]


def go_duration(text: str) -> int | None:
    """Nanoseconds of ``text`` as Go's ``time.ParseDuration`` reads it, step for step (its fraction arithmetic in
    float64 included, so ``"0.3333333333333333333h"`` is 20m as in Go's own tests), or None where Go returns an
    error. Cost: O(len(text))."""
    s, neg = text, False
    if s and s[0] in "+-":
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if not s:
        return None
    total = 0
    while s:
        if not (s[0] == "." or "0" <= s[0] <= "9"):
            return None
        before = len(s)
        got = _leading_int(s)
        if got is None:
            return None
        v, s = got
        pre = before != len(s)
        post, f, scale = False, 0, 1.0
        if s and s[0] == ".":
            s = s[1:]
            before = len(s)
            f, scale, s = _leading_fraction(s)
            post = before != len(s)
        if not pre and not post:
            return None
        i = 0
        while i < len(s) and not (s[i] == "." or "0" <= s[i] <= "9"):
            i += 1
        unit = _UNITS.get(s[:i]) if i else None
        if unit is None:
            return None
        s = s[i:]
        if v > _LIMIT // unit:
            return None
        v *= unit
        if f > 0:
            v += int(float(f) * (float(unit) / scale))
            if v > _LIMIT:
                return None
        total += v
        if total > _LIMIT:
            return None
    if neg:
        return -total
    return None if total > _LIMIT - 1 else total


def _shown(value: Any) -> str:
    text = repr(value) if isinstance(value, str) else str(value).lower() if isinstance(value, bool) else str(value)
    return text if len(text) <= 40 else text[:37] + "…"


# --- types ------------------------------------------------------------------------------------------------------


def _type_problem(name: str, value: Any) -> Problem | None:
    """What the kubelet's strict decoder says of ``value`` in field ``name`` (types.go), or None."""
    kind = KIND.get(name, "object")
    shown = _shown(value)
    if kind == "bool" and not isinstance(value, bool):
        return Problem(
            name,
            f"{name} is {shown}, but the kubelet reads it as a boolean (true or false) and refuses anything else",
            "write true or false, without quotes",
        )
    if kind in ("int32", "int64"):
        low, high = INT32 if kind == "int32" else INT64
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return Problem(
                name,
                f"{name} is {shown}, but the kubelet reads it as an integer ({kind})",
                "write a whole number without quotes",
            )
        if isinstance(value, float):
            return Problem(
                name,
                f"{name} is {shown}, a number with a fraction or exponent, which the kubelet cannot read as an integer ({kind})",
                "write the whole number in digits",
            )
        if not low <= value <= high:
            return Problem(
                name,
                f"{name} {shown} does not fit the kubelet's {kind} field ({low} to {high})",
                "use a value the kubelet can hold",
            )
    if kind == "float" and (isinstance(value, bool) or not isinstance(value, (int, float))):
        return Problem(
            name, f"{name} is {shown}, but the kubelet reads it as a number", "write a number without quotes"
        )
    if kind == "duration":
        if not isinstance(value, str):
            return Problem(
                name,
                f"{name} is {shown}, but the kubelet reads it as a duration string",
                'write it quoted with a unit, e.g. "30s"',
            )
        if go_duration(value) is None:
            return Problem(
                name,
                f"{name} {shown} is not a duration the kubelet reads (Go's time.ParseDuration)",
                'write a number with a unit, e.g. "100ms", "1m30s"',
            )
    if kind == "string" and not isinstance(value, str):
        return Problem(name, f"{name} is {shown}, but the kubelet reads it as a string", "quote it")
    if kind == "strings" and not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
        return Problem(name, f"{name} must be a list of strings", "write a list of quoted strings")
    if kind == "string-map" and not (isinstance(value, dict) and all(isinstance(v, str) for v in value.values())):
        return Problem(name, f"{name} must be a mapping of strings to strings", "quote each value")
    return None


# --- validation.go ----------------------------------------------------------------------------------------------


def _feature(fields: Mapping[str, Any], gate: str, default: bool) -> bool:
    gates = fields.get("featureGates")
    if isinstance(gates, dict) and isinstance(gates.get(gate), bool):
        return bool(gates[gate])
    return default


def _rules(fields: Mapping[str, Any], typed: Callable[[str], Any]) -> list[Problem]:
    """validation.go's checks on the fields that decoded (``typed(name)``: the value, or None when unset or of the
    wrong type), after defaulting where a check depends on a default."""
    out: list[Problem] = []
    for name, (low, high, flag, zero_ok) in RANGES.items():
        value = typed(name)
        if value is None or (zero_ok and value == 0):
            continue
        if (low is not None and value < low) or (high is not None and value > high):
            if name in _WANT:
                want = _WANT[name]
            elif high is None:
                want = "must not be a negative number" if low == 0 else f"must be {low} or greater"
            else:
                want = f"must be between {low} and {high}, inclusive"
            what = f"{name} ({flag})" if flag else name
            out.append(
                Problem(
                    name,
                    f"the kubelet refuses to start: {what} {value} {want}",
                    "change it to a value in that range",
                )
            )
    serialize = typed("serializeImagePulls")
    parallel = typed("maxParallelImagePulls")
    if (
        parallel is not None and parallel > 1 and (serialize is None or serialize)
    ):  # types.go: serializeImagePulls defaults to true
        out.append(
            Problem(
                "maxParallelImagePulls",
                "the kubelet refuses to start: maxParallelImagePulls cannot be larger than 1 unless serializeImagePulls is set to false (it defaults to true)",
                "set serializeImagePulls: false",
            )
        )
    if typed("runOnce") is True:
        out.append(
            Problem(
                "runOnce",
                "the kubelet refuses to start: runOnce mode has been deprecated and should not be set",
                "remove runOnce",
            )
        )
    factor = typed("memoryThrottlingFactor")
    if factor is not None and not 0 < factor <= 1:
        out.append(
            Problem(
                "memoryThrottlingFactor",
                f"the kubelet refuses to start: memoryThrottlingFactor {factor} must be greater than 0 and less than or equal to 1.0",
                "use a factor in (0, 1]",
            )
        )
    for name, allowed in ENUMS.items():
        value = typed(name)
        if value is not None and value not in allowed:
            out.append(
                Problem(
                    name,
                    f"the kubelet refuses to start: {name} {value!r} must be one of {', '.join(allowed)}",
                    "use one of those values",
                )
            )
    swap = fields.get("memorySwap")
    if isinstance(swap, dict) and swap.get("swapBehavior") not in (None, "", "NoSwap", "LimitedSwap"):
        out.append(
            Problem(
                "memorySwap",
                f'the kubelet refuses to start: memorySwap.swapBehavior {swap.get("swapBehavior")!r} must be "", NoSwap or LimitedSwap',
                "use NoSwap or LimitedSwap",
            )
        )
    out.extend(_duration_rules(fields, typed))
    logs = typed("podLogsDir")
    if logs is not None:
        clean = logs.startswith("/") and re.fullmatch(r"/|(/[^/]+)+", logs) and not re.search(r"/\.\.?(/|$)", logs)
        if not clean or not logs.isascii():
            out.append(
                Problem(
                    "podLogsDir",
                    f"the kubelet refuses to start: pod logs path {logs!r} must be an absolute, normalized path of ASCII characters",
                    'write it like "/var/log/pods"',
                )
            )
    return out


#: Durations validation.go checks itself (its messages are quoted for them, negative values included).
_CHECKED_DURATIONS = frozenset(
    [
        "imageMinimumGCAge",
        "imageMaximumGCAge",
        "cpuCFSQuotaPeriod",
        "shutdownGracePeriod",
        "shutdownGracePeriodCriticalPods",
        "containerLogMonitorInterval",
    ]
)


def _duration_rules(fields: Mapping[str, Any], typed: Callable[[str], Any]) -> list[Problem]:
    out: list[Problem] = []
    ns = {
        name: go_duration(v) for name, kind in KIND.items() if kind == "duration" and isinstance(v := typed(name), str)
    }
    for name in ("imageMinimumGCAge", "imageMaximumGCAge"):
        value = ns.get(name)
        if value is not None and value < 0:
            out.append(
                Problem(
                    name,
                    f"the kubelet refuses to start: {name} {fields[name]!r} must not be negative",
                    "use 0s or more",
                )
            )
    for name, value in ns.items():
        if value is not None and value < 0 and name not in _CHECKED_DURATIONS:
            out.append(
                Problem(
                    name,
                    f"{name} {fields[name]!r} is negative: the kubelet's periods and timeouts cannot be",
                    "use a positive duration",
                )
            )
    period = ns.get("cpuCFSQuotaPeriod")
    if period is not None:
        if not _feature(fields, "CustomCPUCFSQuotaPeriod", False) and period != 100_000_000:
            out.append(
                Problem(
                    "cpuCFSQuotaPeriod",
                    f"the kubelet refuses to start: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {fields['cpuCFSQuotaPeriod']!r} requires feature gate CustomCPUCFSQuotaPeriod",
                    "set featureGates: {CustomCPUCFSQuotaPeriod: true}, or leave it at 100ms",
                )
            )
        elif _feature(fields, "CustomCPUCFSQuotaPeriod", False) and not 1_000_000 <= period <= 1_000_000_000:
            out.append(
                Problem(
                    "cpuCFSQuotaPeriod",
                    f"the kubelet refuses to start: cpuCFSQuotaPeriod (--cpu-cfs-quota-period) {fields['cpuCFSQuotaPeriod']!r} must be between 1ms and 1sec, inclusive",
                    "use a period from 1ms to 1s",
                )
            )
    min_age, max_age = ns.get("imageMinimumGCAge"), ns.get("imageMaximumGCAge")
    if max_age is not None and max_age > 0 and max_age <= max(min_age if min_age is not None else 120 * 10**9, 0):
        out.append(
            Problem(
                "imageMaximumGCAge",
                f"the kubelet refuses to start: imageMaximumGCAge {fields['imageMaximumGCAge']!r} must be greater than imageMinimumGCAge ({fields.get('imageMinimumGCAge', '2m, the default')})",
                "raise imageMaximumGCAge",
            )
        )
    if _feature(fields, "GracefulNodeShutdown", True):
        grace, critical = ns.get("shutdownGracePeriod"), ns.get("shutdownGracePeriodCriticalPods")
        for name, value in (("shutdownGracePeriod", grace), ("shutdownGracePeriodCriticalPods", critical)):
            if value is not None and (value < 0 or 0 < value < 10**9):
                out.append(
                    Problem(
                        name,
                        f"the kubelet refuses to start: {name} {fields[name]!r} must be either zero or otherwise >= 1 sec",
                        "use 0s or at least 1s",
                    )
                )
        if critical is not None and critical > (grace or 0):
            out.append(
                Problem(
                    "shutdownGracePeriodCriticalPods",
                    f"the kubelet refuses to start: shutdownGracePeriodCriticalPods {fields['shutdownGracePeriodCriticalPods']!r} must be <= shutdownGracePeriod {fields.get('shutdownGracePeriod', '0s')!r}",
                    "make it at most shutdownGracePeriod",
                )
            )
    interval = ns.get("containerLogMonitorInterval")
    if interval is not None and interval < 3 * 10**9:
        out.append(
            Problem(
                "containerLogMonitorInterval",
                f"the kubelet refuses to start: containerLogMonitorInterval {fields['containerLogMonitorInterval']!r} must be a positive time duration greater than or equal to 3s",
                "use 3s or more",
            )
        )
    return out


def problems(fields: Mapping[str, Any]) -> list[Problem]:
    """Every reason the kubelet would refuse these KubeletConfiguration fields (name → value as rendered), one per
    field at most (but one per element of a list or map, located by ``at``), type problems first. Fields in ``ELSEWHERE`` are left to their own rules."""
    out: list[Problem] = []
    bad: set[str] = set()
    for name, value in fields.items():
        if name in ELSEWHERE or value is None:
            continue
        problem = _type_problem(name, value)
        if problem is not None:
            out.append(problem)
            bad.add(name)

    def typed(name: str) -> Any:
        return None if name in bad or name in ELSEWHERE else fields.get(name)

    for problem in _rules(fields, typed):
        if problem.field not in bad:
            out.append(problem)
            bad.add(problem.field)
    for name in sorted(fields):
        if name not in bad and name not in ELSEWHERE:
            out.extend(Problem(e.field, e.message, e.hint, e.at) for e in element_problems(name, fields[name]))
    return out
