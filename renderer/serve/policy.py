"""The policy directory serve evaluates: loaded when it changes, and which commit it is.

A change is seen from the directory itself, at the start of every cycle: the real path of PATH (a git-sync
checkout swaps its ``current`` symlink to a new worktree; a ConfigMap volume swaps its ``..data`` symlink) and the
name, size, modification time and inode of every file below it (``.git`` left out), plus the settings file the last
load read. Only then is the directory loaded again (``renderer.pipeline.load``). A load with errors is refused: the
last good policies stay the ones evaluated, the error is counted and logged once per change, and
``allocatable_policy_stale`` says so until a good one comes.

Which commit: ``git rev-parse HEAD`` of the checkout (``-c safe.directory=*``: the checkout may belong to the
git-sync user), else the 40-hex name of a git-sync worktree in the path, else none; the content digest (SHA-256 of
the loaded files, in order) names it either way. The time of the change is the commit's time when git tells it,
else when serve first saw it.

Cost: a ``stat`` per file per cycle; a load and a digest per change.
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from renderer.errors import UserError
from renderer.escaping import plain

if TYPE_CHECKING:
    from renderer.validation.load import LoadResult

__all__ = ["Policy", "PolicyError", "PolicyWatch", "Reserved"]

_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_GIT_TIMEOUT = 10


class PolicyError(UserError):
    """The policy directory at its newest state does not load: one line."""


@dataclass(frozen=True)
class Reserved:
    """One pool's reservation of one resource in one slice (``system``, ``kube``, ``eviction``), in base units."""

    pool: str
    slice: str
    resource: str
    value: float


@dataclass(eq=False)
class Policy:
    """A good load and what identifies it."""

    load: LoadResult
    commit: str
    digest: str
    #: Seconds since the epoch: the commit's time, or when serve first saw this state.
    changed_at: float
    #: (name, spec.labels) of the repo's NodePools: which pool a node belongs to.
    nodepools: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    reserved: list[Reserved] = field(default_factory=list)

    @property
    def label(self) -> str:
        """How the log names it: the short commit, else the short digest."""
        return self.commit[:12] if self.commit else self.digest[:19]


class PolicyWatch:
    """Polls ``path`` and keeps the newest good policy and the one before it (the base of a rollout)."""

    def __init__(self, path: Path, max_file_bytes: int | None = None) -> None:
        self.path = path
        self.max_file_bytes = max_file_bytes
        self.current: Policy | None = None
        self.previous: Policy | None = None
        #: True while the newest state of the directory does not load (the current policy is an older one).
        self.stale = False
        self._seen: tuple[object, ...] | None = None
        self._settings: Path | None = None

    def poll(self) -> bool:
        """Load the directory if it changed since the last poll. True when a new good policy replaced the current
        one. Raises ``PolicyError`` once for a state that does not load (the current policy stays)."""
        mark = self._fingerprint()
        if mark == self._seen:
            return False
        self._seen = mark
        try:
            policy = self._load()
        except PolicyError:
            self.stale = self.current is not None
            raise
        self.stale = False
        if self.current is not None and self.current.digest == policy.digest:
            self.current.commit = policy.commit  # the same files under another commit: no new base
            return False
        self.previous, self.current = self.current, policy
        return True

    def _fingerprint(self) -> tuple[object, ...]:
        real = os.path.realpath(self.path)
        entries: list[tuple[str, int, int, int]] = []
        if os.path.isdir(real):
            for top, dirs, files in os.walk(real):
                dirs[:] = sorted(d for d in dirs if d != ".git")
                for name in sorted(files):
                    entries.append(_stat(os.path.join(top, name)))
        else:
            entries.append(_stat(real))
        if self._settings is not None:
            entries.append(_stat(os.path.realpath(self._settings)))
        return (real, tuple(entries))

    def _load(self) -> Policy:
        from renderer.pipeline import load

        try:
            result: LoadResult = load([self.path], max_file_bytes=self.max_file_bytes)
        except Exception as exc:  # a UsageError (no such directory) or an unreadable tree: one line, counted
            raise PolicyError(f"{plain(str(self.path))}: {plain(str(exc))}") from None
        self._settings = result.settings_path
        if not result.ok:
            findings = result.finish([f for f in result.findings if f.severity == "error"])
            first = findings[0]
            where = f"{first.path}:{first.line}:{first.column}" if first.line else first.path
            more = f" (and {len(findings) - 1} more)" if len(findings) > 1 else ""
            raise PolicyError(f"{plain(where)}: {first.code} {plain(first.message)}{more}")
        real = os.path.realpath(self.path)
        commit, when = _commit(Path(real))
        files = [pf.abspath for pf in result.files]
        if result.settings_path is not None:
            files.append(result.settings_path)
        top = real if os.path.isdir(real) else os.path.dirname(real)
        policy = Policy(result, commit, _digest([Path(os.path.realpath(f)) for f in files], top), when or time.time())
        policy.nodepools = [(p.name, dict(p.labels)) for p in result.policies.pools if p.origin == "NodePool"]
        policy.reserved = _reserved(result)
        return policy


def _stat(path: str) -> tuple[str, int, int, int]:
    try:
        st = os.stat(path)
    except OSError:
        return (path, -1, -1, -1)
    return (path, st.st_size, st.st_mtime_ns, st.st_ino)


def _digest(files: list[Path], root: str) -> str:
    """SHA-256 of each file's path below ``root`` and its bytes: the same policies give the same digest wherever
    they are checked out."""
    h = hashlib.sha256()
    for p in files:
        h.update(os.path.relpath(p, root).encode("utf-8", "surrogateescape") + b"\0")
        try:
            h.update(p.read_bytes())
        except OSError:
            h.update(b"\0unreadable")
    return "sha256:" + h.hexdigest()


def _commit(real: Path) -> tuple[str, float | None]:
    """(commit, commit time) of the checkout holding ``real``; ("", None) when it is none."""
    top = real if real.is_dir() else real.parent
    probe = top
    while True:
        if (probe / ".git").exists():
            break
        if probe.parent == probe:
            return _worktree_name(real), None
        probe = probe.parent
    try:
        done = subprocess.run(
            ["git", "-c", "safe.directory=*", "-C", str(top), "log", "-1", "--format=%H %ct", "HEAD"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=_GIT_TIMEOUT,
            env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_OPTIONAL_LOCKS": "0"},
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired):
        return _worktree_name(real), None
    parts = done.stdout.decode("ascii", "replace").split()
    if done.returncode != 0 or len(parts) != 2 or not _HEX40.match(parts[0]) or not parts[1].isdigit():
        return _worktree_name(real), None
    return parts[0], float(parts[1])


def _worktree_name(real: Path) -> str:
    """A git-sync worktree is named by its commit (``.worktrees/<sha>``)."""
    return next((part for part in reversed(real.parts) if _HEX40.match(part)), "")


def _reserved(result: LoadResult) -> list[Reserved]:
    """Per NodePool of the repo, its system-reserved, kube-reserved and hard-eviction figures in base units."""
    from renderer.capacity.pools import build

    model = build(result.policies)
    out: list[Reserved] = []
    for pc in sorted(model.pools, key=lambda p: p.pool.name):
        if pc.pool.origin != "NodePool":
            continue
        for slice_name, reservations in (("system", pc.system_reserved), ("kube", pc.kube_reserved)):
            for resource, r in sorted(reservations.items()):
                out.append(Reserved(pc.pool.name, slice_name, resource, float(r.quantity.value)))
        for resource, q in sorted(pc.eviction_reserved.items()):
            out.append(Reserved(pc.pool.name, "eviction", resource, float(q.value)))
    return out
