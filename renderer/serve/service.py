"""The serve loop: every interval, poll the policy directory, read the fleet, verify, keep the result.

A cycle either replaces the kept evaluation (``Evaluation``: the exposition bytes and a few figures) or leaves the
last good one in place and counts the failure by stage: ``policy`` (the newest state of the directory does not load:
the last good policies are still evaluated against fresh nodes), ``nodes`` (the fleet could not be read), ``evaluate``
(anything else: never a crash loop). After a failed cycle the next one comes sooner (a doubling backoff from 1 s,
never later than the interval). ``stop`` ends the loop between cycles or while a source waits to retry.

Memory: nothing of a cycle outlives it but the evaluation's bytes (the pools, the verify result and the metric
families are dropped before the next cycle starts), so memory is flat over cycles.

Cost: a cycle is a verify of the fleet (``renderer.pipeline.verify_nodes``) plus O(nodes × resources) to serialise.
"""

from __future__ import annotations

import gc
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from renderer.escaping import plain
from renderer.serve.metrics import Evaluation, evaluate
from renderer.serve.policy import Policy, PolicyError, PolicyWatch
from renderer.serve.sources import NodeSource, SourceError

if TYPE_CHECKING:
    from collections.abc import Callable

    from renderer.serve.configz import Reader

__all__ = ["STAGES", "Service"]

STAGES = ("policy", "nodes", "evaluate")
_FIRST_RETRY = 1.0
_LIBC: list[object] = []


def _trim() -> None:
    """Hand the heap pages a cycle freed back to the system (glibc's ``malloc_trim``): the objects of a 20,000-node
    cycle are freed all over the heap, and without it the allocator keeps the pages, so the resident set creeps up
    while fragments move. Nothing where the C library has no ``malloc_trim`` (musl, macOS)."""
    if not _LIBC:
        import ctypes
        import ctypes.util

        name = ctypes.util.find_library("c")
        try:
            _LIBC.append(ctypes.CDLL(name).malloc_trim if name else None)
        except (OSError, AttributeError):
            _LIBC.append(None)
    trim = _LIBC[0]
    if trim is not None:
        trim(0)  # type: ignore[operator]


@dataclass(eq=False)
class Service:
    """The state ``/metrics``, ``/healthz`` and ``/readyz`` read, and the loop that updates it."""

    watch: PolicyWatch
    source: NodeSource
    interval: float
    log: TextIO = field(default_factory=lambda: sys.stderr)
    evaluation: Evaluation | None = None
    last_success: float = 0.0
    last_duration: float = 0.0
    cycles: int = 0
    #: The last failure's line (``--once`` prints it).
    last_error: str | None = None
    errors: dict[str, int] = field(default_factory=lambda: dict.fromkeys(STAGES, 0))
    #: When the loop last started a cycle (monotonic seconds): ``/healthz`` fails when it stops moving.
    heartbeat: float = field(default_factory=time.monotonic)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: Called after every cycle (tests and the benchmark count cycles with it).
    after_cycle: Callable[[Service], None] | None = None
    #: ``--configz``: where each node's kubelet configuration is read (``renderer.serve.configz``); None: not read.
    configz: Reader | None = None

    @classmethod
    def of(cls, path: Path, source: NodeSource, interval: float, max_file_bytes: int | None = None) -> Service:
        return cls(PolicyWatch(path, max_file_bytes), source, interval)

    # -- what the endpoints read --------------------------------------------------------------------------------

    @property
    def policy(self) -> Policy | None:
        return self.watch.current

    @property
    def stale(self) -> bool:
        return self.watch.stale

    @property
    def ready(self) -> bool:
        return self.evaluation is not None

    def healthy(self, now: float | None = None) -> bool:
        """The loop is alive: a cycle started within twice the interval plus 10 minutes (a slow list included)."""
        now = time.monotonic() if now is None else now
        return now - self.heartbeat <= 2 * self.interval + 600

    # -- the loop -----------------------------------------------------------------------------------------------

    def cycle(self, stop: threading.Event | None = None) -> bool:
        """One cycle; True when it produced a new evaluation."""
        stop = stop or threading.Event()
        started = time.monotonic()
        self.heartbeat = started
        self.cycles += 1  # counted as it starts: a scrape never sees a result of a cycle not counted yet
        try:
            return self._cycle(stop)
        finally:
            self.last_duration = time.monotonic() - started
            if self.after_cycle is not None:
                self.after_cycle(self)

    def _cycle(self, stop: threading.Event) -> bool:
        from renderer.pipeline import verify_nodes

        try:
            if self.watch.poll():
                assert self.watch.current is not None
                self._say(f"policy {self.watch.current.label} loaded")
        except PolicyError as exc:
            self._fail("policy", str(exc))
            if self.watch.current is None:
                return False
            self._say(f"still evaluating policy {self.watch.current.label}")
        policy = self.watch.current
        if policy is None:
            return False
        try:
            nodes, pods = self.source.read(stop)
        except SourceError as exc:
            self._fail("nodes", str(exc))
            return False
        had_pods = pods is not None
        try:
            previous = self.watch.previous
            result = verify_nodes(
                policy.load,
                nodes,
                pods=pods,
                base=previous.load.policies if previous is not None else None,
                base_ref=previous.label if previous is not None else None,
            )
            outcome = None
            if self.configz is not None and result.model is not None:
                from renderer.serve.configz import check

                outcome = check(self.configz, result.model, stop)
            done = evaluate(result, nodes, policy, time.time(), outcome)
        except Exception as exc:  # one bad cycle never ends the process; the error is counted and logged
            self._fail("evaluate", f"{type(exc).__name__}: {exc}")
            return False
        finally:
            nodes = []
            pods = None
        with self.lock:
            self.evaluation = done
            self.last_success = done.at
        del result
        gc.collect()  # the cycle's pools and checks are garbage now: give their memory back before the next
        _trim()
        t = done.tally
        pods_text = f", pods on nodes not fitting {t.pods_not_fitting}" if had_pods else ""
        configz_text = f"; {outcome.summary()}" if outcome is not None else ""
        self._say(
            f"{t.nodes} node{'s' if t.nodes != 1 else ''}: {t.drift} drift, {t.awaiting} await the rollout"
            f"{pods_text}{configz_text}; policy {policy.label}"
        )
        return True

    def run(self, stop: threading.Event) -> None:
        """Cycles until ``stop`` is set; a failed cycle is followed by a sooner one (doubling from 1 s)."""
        retry = _FIRST_RETRY
        while not stop.is_set():
            good = self.cycle(stop)
            if good:
                retry = _FIRST_RETRY
                wait = self.interval
            else:
                wait = min(retry, self.interval)
                retry *= 2
            if stop.wait(wait):
                return

    def _fail(self, stage: str, message: str) -> None:
        self.errors[stage] = self.errors.get(stage, 0) + 1
        self.last_error = message
        self._say(f"error ({stage}): {message}")

    def _say(self, message: str) -> None:
        self.log.write(f"serve: {plain(message)}\n")
        self.log.flush()
