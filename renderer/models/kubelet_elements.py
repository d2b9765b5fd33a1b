"""The elements of the KubeletConfiguration's lists and maps, checked as the kubelet reads them, and the fields a
render target joins into one kubelet flag (issue 30, class 5).

A list or map value is one YAML value but many kubelet values; where a target writes it as a flag
(``--feature-gates=A=true,B=false``, ``--cluster-dns=10.0.0.10,fd00::10``), a separator inside one element turns
it into two. Each check quotes the kubelet (kubernetes/kubernetes, files named beside them):

- ``featureGates``: ``component-base/featuregate/feature_gate.go`` ``SetFromMap`` refuses a name it does not know
  ("unrecognized feature gate: NAME") and the kubelet stops; every gate name is letters and digits
  (``pkg/features/kube_features.go``), so a name with anything else is unknown to every release;
- ``clusterDNS``: ``pkg/kubelet/kubelet.go`` parses each entry with ``netutils.ParseIPSloppy`` and drops one that is
  not an IP address with the log line "Invalid clusterDNS IP": the node starts, and its pods lose that server;
- ``allowedUnsafeSysctls``: ``pkg/kubelet/sysctl/allowlist.go`` ``NewAllowlist`` refuses a pattern that does not
  match ``SysctlContainSlashPatternFmt`` (``pkg/apis/policy/validation``) or is longer than 253 characters, and the
  kubelet stops;
- ``qosReserved``: ``pkg/kubelet/cm/container_manager.go`` ``ParseQOSReserved`` takes only ``memory`` ("cannot
  reserve "cpu" resource") and a percentage ("percentage expected, got '50'", "invalid number in percentage
  '50%,cpu=100%'", "percentage must be between 0 and 100"), and the kubelet stops.

:data:`JOINED` is the one table of the fields joined into a flag, with the flag syntax (Cluster API's
``kubeletExtraArgs`` reads it; a separator inside an element is refused there, whatever the field). Pure data and
functions (standard library only). Cost: O(elements).
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable
from typing import Any, NamedTuple

__all__ = [
    "GATE_PATTERN",
    "JOINED",
    "QOS_PERCENT_PATTERN",
    "SEPARATORS",
    "SYSCTL_PATTERN",
    "ElementProblem",
    "element_problems",
    "is_ip",
    "separator_problems",
]

#: Field -> how a flag writes it: "=" (``k=v,k=v``), "<" (``signal<threshold,...``), "list" (``a,b``).
JOINED: dict[str, str] = {
    "systemReserved": "=",
    "kubeReserved": "=",
    "evictionHard": "<",
    "evictionSoft": "<",
    "evictionSoftGracePeriod": "=",
    "evictionMinimumReclaim": "=",
    "enforceNodeAllocatable": "list",
    "qosReserved": "=",
    "featureGates": "=",
    "clusterDNS": "list",
    "allowedUnsafeSysctls": "list",
}
#: What splits an element of each syntax: (in keys, in values). The kubelet's map flags split pairs on "," and a
#: pair on its first "=" (``cliflag.ConfigurationMap``, ``cliflag.MapStringBool``), eviction flags on "<".
SEPARATORS: dict[str, tuple[str, str]] = {"=": (",=", ","), "<": (",<", ","), "list": ("", ",")}

#: A feature gate name (``pkg/features/kube_features.go``: letters and digits).
GATE_PATTERN = r"[A-Za-z][A-Za-z0-9]*"
_GATE = re.compile(GATE_PATTERN)
#: What ``parsePercentage`` accepts: a decimal integer (leading zeros, a sign) from 0 to 100, then one or more "%"
#: (it trims every trailing "%" before ``strconv.ParseInt``).
QOS_PERCENT_PATTERN = r"(\+?0*([0-9]{1,2}|100)|-0+)%+"
_SYSCTL_SEGMENT = r"[a-z0-9]([-_a-z0-9]*[a-z0-9])?"
_SYSCTL_PATTERN_SEGMENT = r"([a-z0-9][-_a-z0-9]*)?[a-z0-9*]"
SYSCTL_PATTERN = rf"({_SYSCTL_SEGMENT}[\./])*{_SYSCTL_PATTERN_SEGMENT}"
_SYSCTL = re.compile(SYSCTL_PATTERN)
_SLOPPY_V4 = re.compile(r"([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})\.([0-9]{1,3})")


class ElementProblem(NamedTuple):
    field: str
    at: tuple[str | int, ...]  # the element: a map key or a list index
    message: str
    hint: str


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:57] + "…")


def is_ip(text: str) -> bool:
    """Go's ``netutils.ParseIPSloppy``: IPv4 dotted quads (leading zeros allowed, read as decimal), IPv6 (an
    embedded IPv4 tail too), no zone, no prefix, no spaces."""
    m = _SLOPPY_V4.fullmatch(text)
    if m is not None:
        return all(int(g) <= 255 for g in m.groups())
    if "%" in text or ":" not in text or not text.isascii():
        return False
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _gates(value: Any) -> list[ElementProblem]:
    out: list[ElementProblem] = []
    for name, enabled in value.items():
        if not isinstance(name, str) or not _GATE.fullmatch(name):
            out.append(
                ElementProblem(
                    "featureGates",
                    (name,),
                    f"the kubelet refuses to start: unrecognized feature gate: {name} (a gate name is letters and "
                    "digits)",
                    "write one key per gate, e.g. {A: true, B: false}",
                )
            )
        elif not isinstance(enabled, bool):
            out.append(
                ElementProblem(
                    "featureGates",
                    (name,),
                    f"featureGates.{name} is {_shown(str(enabled))}, but the kubelet reads it as a boolean",
                    "write true or false, without quotes",
                )
            )
    return out


def _dns(value: Any) -> list[ElementProblem]:
    return [
        ElementProblem(
            "clusterDNS",
            (i,),
            f'clusterDNS {_shown(ip)} is not an IP address: the kubelet drops it ("Invalid clusterDNS IP") and '
            "pods get no DNS server from it",
            "write one IP address per list item",
        )
        for i, ip in enumerate(value)
        if isinstance(ip, str) and not is_ip(ip)
    ]


def _sysctls(value: Any) -> list[ElementProblem]:
    return [
        ElementProblem(
            "allowedUnsafeSysctls",
            (i,),
            f"the kubelet refuses to start: sysctl {json.dumps(s)} must have at most 253 characters and match regex "
            f"{SYSCTL_PATTERN}",
            'write one sysctl or pattern per list item, e.g. ["kernel.msg*", "net.core.somaxconn"]',
        )
        for i, s in enumerate(value)
        if isinstance(s, str) and (len(s) > 253 or not _SYSCTL.fullmatch(s))
    ]


def _percentage(text: str) -> str | None:
    """``parsePercentage``'s refusal of ``text``, or None."""
    if not text.endswith("%"):
        return f"percentage expected, got '{text}'"
    digits = text.rstrip("%")
    if not re.fullmatch(r"[+-]?[0-9]+", digits) or not -(1 << 63) <= int(digits) <= (1 << 63) - 1:
        return f"invalid number in percentage '{text}'"
    if not 0 <= int(digits) <= 100:
        return "percentage must be between 0 and 100"
    return None


def _qos(value: Any) -> list[ElementProblem]:
    out: list[ElementProblem] = []
    for resource, text in value.items():
        if resource != "memory":
            why, at = f'cannot reserve "{resource}" resource', (resource,)
        elif isinstance(text, str) and (refused := _percentage(text)) is not None:
            why, at = refused, (resource,)
        else:
            continue
        out.append(
            ElementProblem(
                "qosReserved",
                at,
                f"the kubelet refuses to start: qosReserved: {why}",
                'qosReserved takes memory only, as a percentage from 0% to 100%: {memory: "50%"}',
            )
        )
    return out


_CHECKS: dict[str, tuple[type, Callable[[Any], list[ElementProblem]]]] = {
    "featureGates": (dict, _gates),
    "clusterDNS": (list, _dns),
    "allowedUnsafeSysctls": (list, _sysctls),
    "qosReserved": (dict, _qos),
}


def element_problems(field: str, value: Any) -> list[ElementProblem]:
    """What the kubelet says of the elements of ``field`` (a value of the right container type; anything else is
    a type problem, reported elsewhere)."""
    check = _CHECKS.get(field)
    if check is None or not isinstance(value, check[0]):
        return []
    return check[1](value)


def separator_problems(field: str, value: Any) -> list[tuple[tuple[str | int, ...], str, str]]:
    """The elements of a field joined into one flag that hold that flag's separator: (element, the element as a
    message shows it, the separators it holds)."""
    style = JOINED.get(field)
    if style is None:
        return []
    in_keys, in_values = SEPARATORS[style]
    out: list[tuple[tuple[str | int, ...], str, str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            held = [c for c in in_keys if isinstance(key, str) and c in key]
            if held:
                out.append(((key,), f"key {_shown(str(key))}", " and ".join(f'"{c}"' for c in held)))
                continue
            held = [c for c in in_values if isinstance(item, str) and c in item]
            if held:
                out.append(((key,), f"{key}: {_shown(item)}", " and ".join(f'"{c}"' for c in held)))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            held = [c for c in in_values if isinstance(item, str) and c in item]
            if held:
                out.append(((i,), f"item {i + 1} {_shown(item)}", " and ".join(f'"{c}"' for c in held)))
    return out
