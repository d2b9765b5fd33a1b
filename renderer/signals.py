"""Interruption: SIGTERM, SIGHUP and SIGINT raise ``Interrupted`` in the main thread, so every ``finally`` and
rollback runs and temporary state is removed on the way out (exit 128 + the signal's number); inside
``deferred_signals`` (a rollback, the last steps of a commit) a signal waits until the section is done. Only SIGKILL
cannot be handled. Part of the safe-path layer (``renderer.safepath``), in its own module because every command
installs it first, ``--help`` included: standard library only, nothing else imported. Cost: constant.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Iterator

__all__ = ["Interrupted", "deferred_signals", "install_signal_handlers"]


class Interrupted(KeyboardInterrupt):
    """A handled signal (SIGTERM, SIGHUP, SIGINT): unwinds like Ctrl-C, so rollbacks and clean-ups run.

    A subclass of KeyboardInterrupt, so code that already undoes its work on an interrupt does so for every one."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum

    @property
    def exit_code(self) -> int:
        return 128 + self.signum

    @property
    def name(self) -> str:
        try:
            return signal.Signals(self.signum).name
        except ValueError:  # pragma: no cover - only the three handled signals are raised
            return f"signal {self.signum}"


_HANDLED = tuple(s for s in (getattr(signal, n, None) for n in ("SIGTERM", "SIGHUP", "SIGINT")) if s is not None)
_critical_depth = 0
_pending: list[int] = []


def _on_signal(signum: int, _frame: object) -> None:
    if _critical_depth:
        _pending.append(signum)  # raised when the critical section ends
        return
    raise Interrupted(signum)


def install_signal_handlers() -> None:
    """SIGTERM, SIGHUP and SIGINT raise ``Interrupted`` from now on (main thread only; a signal the parent set to
    be ignored, as ``nohup`` does, stays ignored)."""
    for sig in _HANDLED:
        with contextlib.suppress(OSError, ValueError):  # ValueError: not the main thread (signal.signal refuses)
            if signal.getsignal(sig) is signal.SIG_IGN:
                continue
            signal.signal(sig, _on_signal)


@contextlib.contextmanager
def deferred_signals() -> Iterator[None]:
    """A section that a handled signal does not cut short: the signal is raised (as ``Interrupted``) when the
    outermost such section ends. For rollbacks and for the steps after a commit point."""
    global _critical_depth
    _critical_depth += 1
    try:
        yield
    finally:
        _critical_depth -= 1
        if _critical_depth == 0 and _pending:
            signum = _pending[0]
            _pending.clear()
            raise Interrupted(signum)
