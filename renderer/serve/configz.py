"""Opt-in (``serve --configz``): each node's running kubelet configuration against the fields the repo renders for it.

What the kubelet runs is its ``/configz`` (``GET /api/v1/nodes/NAME/proxy/configz`` through the API server:
``{"kubeletconfig": {...}}``, the KubeletConfiguration after its file, its drop-ins and its flags are merged). What
the repo renders for a node is what the ``kubelet`` target writes for a pool of the node's own shape
(``renderer.capacity.kubeletfields.kubelet_fields`` of the node's pool of one in verify's model: reservations
computed for its capacity, evictionHard, the policy's kubelet fields and ``spec.kubelet``) — only the fields the
repo sets, nothing the platform decides. Each leaf is one ``field`` (``kubeReserved.memory``,
``evictionHard.memory.available``, ``featureGates.X``; a list is one field), so the series per node are at most the
leaves its policy sets. A node no ReservationPolicy selects has nothing to compare and is not read.

Values are compared normalised, never as text: a quantity by its value (``1Gi`` = ``1024Mi``), a Go duration by its
length (``90s`` = ``1m30s``), a CPU list by its CPUs (``0-1`` = ``0,1``), a number by its value (``10`` = ``10.0``),
an eviction percentage by its number (``10%`` = ``10.0%``), ``enforceNodeAllocatable`` as a set; a field the
kubelet does not report differs.

Where from (:class:`Reader`): the API server with the service account (``renderer.serve.kubeapi.get_one``),
``kubectl get --raw`` of a context, or a directory of saved outputs (``NODE.json`` each: offline, and the tests).
At most :data:`CONCURRENCY` reads at once, each within :data:`TIMEOUT` seconds and one try (the next cycle is the
retry), each response at most :data:`MAX_BYTES` (the reader's bound for one document) and read by the one reader
(``renderer.loading.documents.read``). A node whose read fails is counted and named in the log, never a failed
cycle.

Cost: per cycle, one request per node a policy selects; a rendering of the fields per node shape; memory O(one
response per worker) besides the figures kept.
"""

from __future__ import annotations

import json
import os
import re
import stat
import threading
import urllib.parse
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import TYPE_CHECKING, Any

from renderer.errors import UserError
from renderer.escaping import plain
from renderer.loading.bounds import DEFAULT_MAX_DOCUMENT_CHARS

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel, PoolCapacity
    from renderer.serve.kubeapi import Endpoint
    from renderer.verify.kubectl import Kubectl

__all__ = [
    "CONCURRENCY",
    "MAX_BYTES",
    "TIMEOUT",
    "ApiReader",
    "ConfigzError",
    "DirReader",
    "FieldDrift",
    "KubectlReader",
    "Outcome",
    "Reader",
    "check",
    "compare",
    "expected_fields",
    "kubelet_config",
]

#: Reads at once.
CONCURRENCY = 8
#: Seconds one read may take (the connection and each read of the API server; kubectl's --request-timeout).
TIMEOUT = 10
#: The most bytes of one response: the reader's bound for one document (a configz is a few KiB).
MAX_BYTES = DEFAULT_MAX_DOCUMENT_CHARS
#: What a node's name must look like to name a file of ``--configz-dir`` (a DNS subdomain: no ``/``, no ``..``).
_FILE_NAME = re.compile(r"^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$")
#: Fields whose values are quantities (the rest: durations, numbers, text).
_QUANTITY_MAPS = frozenset({"systemReserved", "kubeReserved", "evictionHard", "evictionSoft", "evictionMinimumReclaim"})
_SETS = frozenset({"enforceNodeAllocatable"})
_CPU_LISTS = frozenset({"reservedSystemCPUs"})
_ABSENT = object()
_SHOWN = 60


class ConfigzError(UserError):
    """One node's configz could not be read or is not a KubeletConfiguration: one line (never a credential)."""


@dataclass(frozen=True)
class FieldDrift:
    """One field the kubelet runs with another value than the repo renders."""

    node: str
    field: str
    want: str
    got: str


@dataclass
class Outcome:
    """One cycle's comparison: per node ``match``, ``drift`` or ``unread``; the differing fields; the failed reads."""

    state: dict[str, str] = field(default_factory=dict)
    drift: list[FieldDrift] = field(default_factory=list)
    #: (node, the one line saying why) of each read that failed.
    errors: list[tuple[str, str]] = field(default_factory=list)

    def summary(self) -> str:
        """The log line's words: how many compared, which fields differ, the first failure."""
        compared = sum(1 for s in self.state.values() if s != "unread")
        differ = sum(1 for s in self.state.values() if s == "drift")
        fields = sorted({d.field for d in self.drift})
        shown = ", ".join(fields[:5]) + (f" and {len(fields) - 5} more" if len(fields) > 5 else "")
        text = f"configz of {compared} node{'s' if compared != 1 else ''}: {differ} differ" + (
            f" ({shown})" if fields else ""
        )
        if self.errors:
            node, why = self.errors[0]
            text += f"; {len(self.errors)} could not be read (first: {node}: {why})"
        return text


# -- where the configz comes from ------------------------------------------------------------------------------------


class Reader:
    """Reads one node's configz body (bytes as the kubelet sent them)."""

    #: How the docs and the log name it.
    kind = ""

    def read(self, node: str, stop: threading.Event) -> tuple[bytes, str]:
        """(the body, how problems name it). Raises ``ConfigzError``."""
        raise NotImplementedError


def _path(node: str) -> str:
    return f"/api/v1/nodes/{urllib.parse.quote(node, safe='')}/proxy/configz"


class ApiReader(Reader):
    """Through the API server's node proxy, with the service account (``nodes/proxy`` get)."""

    kind = "in-cluster"

    def __init__(self, endpoint: Endpoint, timeout: float = TIMEOUT, max_bytes: int = MAX_BYTES) -> None:
        self.endpoint = replace(endpoint, timeout=float(timeout), attempts=1, max_bytes=max_bytes)

    def read(self, node: str, stop: threading.Event) -> tuple[bytes, str]:
        from renderer.serve.kubeapi import ApiError, get_one

        path = _path(node)
        try:
            return get_one(self.endpoint, path, stop), f"GET {path}"
        except ApiError as exc:
            raise ConfigzError(str(exc)) from None


class KubectlReader(Reader):
    """``kubectl get --raw /api/v1/nodes/NAME/proxy/configz`` of a context (outside a cluster)."""

    kind = "kubectl"

    def __init__(self, kubectl: Kubectl) -> None:
        self.kubectl = replace(kubectl, timeout=TIMEOUT)

    def read(self, node: str, stop: threading.Event) -> tuple[bytes, str]:
        from renderer.verify.kubectl import get_raw
        from renderer.verify.snapshot import SnapshotError

        path = _path(node)
        try:
            return get_raw(self.kubectl, path, MAX_BYTES, "save the outputs and pass --configz-dir DIR"), (
                f"kubectl get --raw {path}"
            )
        except SnapshotError as exc:
            raise ConfigzError(str(exc)) from None


class DirReader(Reader):
    """A directory of saved outputs, ``NODE.json`` each (``kubectl get --raw /api/v1/nodes/NODE/proxy/configz >
    DIR/NODE.json``), read again every cycle."""

    kind = "files"

    def __init__(self, directory: str) -> None:
        self.directory = Path(directory)

    def read(self, node: str, stop: threading.Event) -> tuple[bytes, str]:
        if not _FILE_NAME.match(node):
            raise ConfigzError(f"the node name {plain(node)[:80]!r} names no file of --configz-dir")
        path = self.directory / f"{node}.json"
        try:
            if not stat.S_ISREG(os.stat(path).st_mode):  # a FIFO would block the read
                raise ConfigzError(f"{path}: not a regular file")
            with open(path, "rb") as f:
                body = f.read(MAX_BYTES + 1)
        except FileNotFoundError:
            raise ConfigzError(f"{path}: no such file (save the node's configz there)") from None
        except OSError as exc:
            raise ConfigzError(f"{path}: cannot read: {plain(exc.strerror or str(exc))}") from None
        if len(body) > MAX_BYTES:
            raise ConfigzError(f"{path}: more than the {MAX_BYTES} bytes allowed")
        return body, str(path)


def kubelet_config(body: bytes, display: str) -> dict[str, Any]:
    """The ``kubeletconfig`` object of a configz response, read by the one reader. Raises ``ConfigzError``."""
    from renderer.loading.bounds import Bounds
    from renderer.loading.documents import Source, read

    got = read(Source.of_bytes(body, display), Bounds(MAX_BYTES, MAX_BYTES), dump=True, positions=False)
    if not got.ok:
        p = got.problems[0]
        raise ConfigzError(f"{display}:{p.line}:{p.column}: {p.message}")
    docs = got.documents
    data = docs[0].data if len(docs) == 1 else None
    config = data.get("kubeletconfig") if isinstance(data, dict) else None
    if not isinstance(config, dict):
        raise ConfigzError(f'{display}: not a kubelet configz response (an object with a "kubeletconfig" object)')
    return config


# -- what the repo renders for a node --------------------------------------------------------------------------------


Leaves = tuple[tuple[tuple[str, ...], Any], ...]


def _leaves(value: Any, path: tuple[str, ...]) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(value, dict) and value:
        for k, v in value.items():
            yield from _leaves(v, (*path, str(k)))
    elif value is not None:
        yield path, value


def expected_fields(pc: PoolCapacity) -> Leaves:
    """The leaves of the KubeletConfiguration fields the repo renders for ``pc`` (empty: no policy selects it)."""
    from renderer.capacity.kubeletfields import kubelet_fields

    policy = pc.policy
    if policy is None:
        return ()
    fields = kubelet_fields(pc, policy.model.spec, lambda message, where: None)  # unrenderable: render's finding
    return tuple(_leaves(fields, ()))


def _shape(pc: PoolCapacity) -> tuple[object, ...]:
    """What ``kubelet_fields`` reads of a pool of one, by identity (verify's model shares them per node shape)."""
    return (
        id(pc.policy),
        id(pc.system_reserved),
        id(pc.kube_reserved),
        id(pc.eviction_hard),
        id(pc.effective_kubelet),
        pc.eviction_source,
    )


# -- the comparison --------------------------------------------------------------------------------------------------


def _number(value: Any) -> Decimal | None:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return None
    try:
        d = Decimal(str(value))
    except InvalidOperation:
        return None
    return d if d.is_finite() else None


def _normal(top: str, value: Any) -> Any:
    """A value as it compares (see the module's docstring)."""
    from renderer.models.kubelet_validation import go_duration
    from renderer.quantity import Quantity, QuantityError

    if isinstance(value, bool) or value is None:
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", _number(value))
    if isinstance(value, list):
        items = [_normal(top, v) for v in value]
        return ("set", frozenset(map(repr, items))) if top in _SETS else ("list", tuple(items))
    if isinstance(value, dict):
        return ("object", tuple(sorted((str(k), _normal(top, v)) for k, v in value.items())))
    if not isinstance(value, str):
        return ("json", json.dumps(value, sort_keys=True, default=str))
    if top in _CPU_LISTS:
        from renderer.capacity.cpuset import parse_cpuset

        ranges, _ = parse_cpuset(value)
        if ranges is not None:
            return ("cpus", _merged(ranges))
    if value.endswith("%"):
        pct = _number(value[:-1])
        if pct is not None:
            return ("percent", pct)
    if top in _QUANTITY_MAPS:
        try:
            return ("quantity", Quantity.parse(value).value)
        except QuantityError:
            return ("text", value)
    nanos = go_duration(value) if any(c.isalpha() for c in value) else None
    if nanos is not None:
        return ("duration", nanos)
    number = _number(value)
    if number is not None:
        return ("number", number)
    try:
        return ("quantity", Quantity.parse(value).value)  # containerLogMaxSize: 10Mi = 10240Ki
    except QuantityError:
        return ("text", value)


def _merged(ranges: list[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """The CPUs of ``ranges`` as sorted disjoint ranges, adjacent ones joined (``0,1`` and ``0-1`` alike), never
    expanded CPU by CPU (a hostile ``0-999999999`` stays one pair)."""
    out: list[tuple[int, int]] = []
    for start, end in sorted(ranges):
        if out and start <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], end))
        else:
            out.append((start, end))
    return tuple(out)


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return "(not set)"
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)
    return plain(text)[:_SHOWN]


def _at(config: dict[str, Any], path: tuple[str, ...]) -> Any:
    here: Any = config
    for key in path:
        if not isinstance(here, dict) or key not in here:
            return _ABSENT
        here = here[key]
    return here


def compare(node: str, want: Leaves, config: dict[str, Any]) -> list[FieldDrift]:
    """The fields of ``want`` the kubelet's ``config`` holds another value of (or not at all)."""
    out = []
    for path, value in want:
        got = _at(config, path)
        if got is not _ABSENT and _normal(path[0], got) == _normal(path[0], value):
            continue
        out.append(FieldDrift(node, ".".join(path), _shown(value), _shown(got)))
    return out


def check(reader: Reader, model: CapacityModel, stop: threading.Event, concurrency: int = CONCURRENCY) -> Outcome:
    """Read the configz of every node of ``model`` a policy selects and compare it with the fields the repo renders
    for the node. Never raises for a node: a failed read is in ``errors`` and the node ``unread``."""
    shapes: dict[tuple[object, ...], Leaves] = {}
    wanted: list[tuple[str, Leaves]] = []
    for pc in model.pools:
        key = _shape(pc)
        leaves = shapes.get(key)
        if leaves is None:
            leaves = shapes[key] = expected_fields(pc)
        if leaves:
            wanted.append((pc.pool.name, leaves))
    outcome = Outcome()

    def one(item: tuple[str, Leaves]) -> tuple[str, list[FieldDrift] | str]:
        node, leaves = item
        if stop.is_set():
            return node, "not read: serve is stopping"
        try:
            body, display = reader.read(node, stop)
            return node, compare(node, leaves, kubelet_config(body, display))
        except ConfigzError as exc:
            return node, plain(str(exc))[:400]

    if not wanted:
        return outcome
    with ThreadPoolExecutor(max_workers=max(1, min(concurrency, len(wanted))), thread_name_prefix="configz") as pool:
        for node, got in pool.map(one, wanted):
            if isinstance(got, str):
                outcome.state[node] = "unread"
                outcome.errors.append((node, got))
            else:
                outcome.state[node] = "drift" if got else "match"
                outcome.drift.extend(got)
    return outcome
