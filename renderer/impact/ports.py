"""The NodePorts filter: two pods on one node cannot bind the same host port.

A container port with a ``hostPort`` occupies (protocol, hostIP, port) on its node; protocol defaults to TCP and an
empty hostIP means ``0.0.0.0``. Two uses conflict when protocol and port are equal and either IP is ``0.0.0.0`` or
the IPs are equal (kube-scheduler framework ``HostPortInfo.CheckConflict``; plugin nodeports). Only the regular
containers' ports are read, as the plugin's ``getContainerPorts`` does. The cluster autoscaler's estimator runs this
filter too (its "hostport conflict forces pod-per-node" case).

Cost: O(host ports of the pod), times the node's ports for a wildcard IP, per (pod, node).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["HostPort", "conflicts", "host_ports"]

HostPort = tuple[str, str, int]  # (protocol, host IP, port)
_ANY_IP = "0.0.0.0"


def host_ports(containers: Any) -> tuple[HostPort, ...]:
    """The host ports ``spec.containers`` binds (entries without a positive ``hostPort`` bind none)."""
    if not isinstance(containers, list):
        return ()
    out: list[HostPort] = []
    for c in containers:
        ports = c.get("ports") if isinstance(c, dict) else None
        if not isinstance(ports, list):
            continue
        for p in ports:
            if not isinstance(p, dict):
                continue
            port = p.get("hostPort")
            if isinstance(port, int) and not isinstance(port, bool) and port > 0:
                out.append((str(p.get("protocol") or "TCP"), str(p.get("hostIP") or _ANY_IP), port))
    return tuple(sorted(set(out)))


def conflicts(wanted: Iterable[HostPort], taken: set[HostPort]) -> bool:
    """Whether any of ``wanted`` collides with the node's ``taken`` ports."""
    for protocol, ip, port in wanted:
        if (protocol, ip, port) in taken:
            return True
        if ip == _ANY_IP:
            if any(t[0] == protocol and t[2] == port for t in taken):
                return True
        elif (protocol, _ANY_IP, port) in taken:
            return True
    return False
