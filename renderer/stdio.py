"""Standard streams that are closed, full or failing: one line and exit 2, never a traceback or a wrong exit code.

A process started with ``>&-`` or ``2>&-`` has no file descriptor 1 or 2 (Python sets ``sys.stdout``/``sys.stderr``
to None); one writing to ``/dev/full`` or to a disk that fills up gets ``ENOSPC`` when the buffer is flushed, often
only at exit. ``closed_stream`` is checked before a command runs (nothing is done that could not be reported);
``guard`` wraps the streams so a failed write raises ``StreamError`` naming the stream, which the command line turns
into its one error line on whichever stream still works; ``silence`` points a failed stream's descriptor at
``/dev/null`` so the interpreter's last flush cannot fail again. A closed pipe (``| head``) stays what it was: the
reader has what it wanted (``BrokenPipeError`` propagates untouched). Standard input closed (``<&-``) or failing
is ``InputError`` from ``read_input``, which every reader of ``-`` uses. Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import sys

from renderer.errors import UserError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a cold `--help` never needs it)

if TYPE_CHECKING:
    from typing import Any, TextIO

__all__ = ["InputError", "StreamError", "closed_stream", "guard", "read_input", "silence", "write_line"]


class InputError(UserError):
    """Standard input cannot be read: closed (``<&-``: Python sets ``sys.stdin`` to None) or failing (a descriptor
    open for writing only, an I/O error). The message says which and what to do."""


def read_input(size: int) -> bytes:
    """Up to ``size`` bytes of standard input (``b""`` at its end): the one way every reader of ``-`` reads it.
    Raises ``InputError`` when standard input is closed or fails."""
    stream = sys.stdin
    buffer = getattr(stream, "buffer", None) if stream is not None else None
    if buffer is None:
        raise InputError("standard input is closed, so `-` has nothing to read: pipe the input in, or name a file")
    try:
        data: bytes = buffer.read(size)
    except OSError as exc:
        raise InputError(
            f"cannot read standard input: {exc.strerror or exc}; pipe the input in, or name a file"
        ) from None
    return data


class StreamError(Exception):
    """Writing to a standard stream failed (not a closed pipe): ``name`` is "standard output" or "standard error"."""

    def __init__(self, name: str, fd: int, exc: OSError) -> None:
        super().__init__(f"cannot write to {name}: {exc.strerror or exc}")
        self.name = name
        self.fd = fd


class _Guarded:
    """A text stream whose failed writes raise ``StreamError`` (a closed pipe raises ``BrokenPipeError`` as before);
    everything else is the wrapped stream's."""

    def __init__(self, inner: TextIO, name: str, fd: int) -> None:
        self._inner = inner
        self._name = name
        self._fd = fd

    def write(self, text: str) -> int:
        try:
            return self._inner.write(text)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StreamError(self._name, self._fd, exc) from None

    def flush(self) -> None:
        try:
            self._inner.flush()
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise StreamError(self._name, self._fd, exc) from None

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._inner, attr)


_NAMES = {1: "standard output", 2: "standard error"}


def closed_stream() -> str | None:
    """The one line to print when standard output or standard error is closed (``>&-``, ``2>&-``), else None."""
    for fd, stream in ((1, sys.stdout), (2, sys.stderr)):
        if stream is None or _fd_closed(fd):
            return (
                f"allocatable: error: {_NAMES[fd]} is closed; run it with {_NAMES[fd]} open (redirect it to a file "
                "or to /dev/null instead of closing it)"
            )
    return None


def _fd_closed(fd: int) -> bool:
    try:
        os.fstat(fd)
    except OSError:
        return True
    return False


def guard() -> None:
    """Wrap ``sys.stdout`` and ``sys.stderr`` (once) so a failed write raises ``StreamError``."""
    for attr, fd in (("stdout", 1), ("stderr", 2)):
        stream = getattr(sys, attr)
        if stream is not None and not isinstance(stream, _Guarded):
            setattr(sys, attr, _Guarded(stream, _NAMES[fd], fd))


def silence(fd: int) -> None:
    """Point ``fd`` at /dev/null and drop what its stream still buffers, so no later flush (the interpreter's, at
    exit) fails on it again."""
    with contextlib.suppress(OSError):
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    stream = sys.stdout if fd == 1 else sys.stderr
    with contextlib.suppress(Exception):
        if stream is not None:
            stream.flush()  # now into /dev/null


def write_line(line: str, *, prefer: int = 2) -> None:
    """Write ``line`` to the stream ``prefer`` (2: stderr), else the other one, else nowhere: the caller exits 2 either
    way, and a report that cannot be written must not become a traceback."""
    for fd in (prefer, 3 - prefer):
        stream = sys.stderr if fd == 2 else sys.stdout
        if stream is None or _fd_closed(fd):
            continue
        try:
            stream.write(line + "\n")
            stream.flush()
            return
        except (OSError, StreamError):
            silence(fd)
