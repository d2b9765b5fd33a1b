"""The one base class of the errors a user fixes: bad usage or bad input, said in one line (standard library only).

Every such error — a usage mistake (``renderer.loading.files.UsageError``), standard input that cannot be read
(``renderer.stdio.InputError``), a dump, export or price file that cannot be used (``SnapshotError``,
``UsageInputError``, ``ExportError``, ``PricingError``), a figure out of a quantity's range (``OutOfRange``), an
output directory that cannot be written (``OutputError``), serve's sources and policy (``SourceError``,
``PolicyError``, ``ApiError``, ``ConfigzError``) — is a :class:`UserError`, so the command line's top level (``renderer.cli``) catches
one type and prints it one way: ``allocatable: error: <where>: <message>`` on one line (control characters shown
escaped), exit 2. Errors of this tool itself are not :class:`UserError` and are reported as internal errors.
"""

from __future__ import annotations

__all__ = ["UserError"]


class UserError(Exception):
    """Bad usage or input, said in one line. ``message``: what is wrong, and what to do; ``where``: the input it is
    about — ``path:line:col``, a path, or the input's name — when the raiser knows it apart from the message (None
    when the message names it itself). ``str()`` of the error is the line: ``where: message``, or ``message``."""

    def __init__(self, message: str, where: str | None = None) -> None:
        super().__init__(message if where is None else f"{where}: {message}")
        self.message = message
        self.where = where
