"""Colour decisions for terminal output, shared by every command (standard library only: ``--help`` imports it).

``--color auto`` (the default) colours a stream only when it is a terminal, in this order of precedence:

1. ``NO_COLOR`` set and not empty → plain (https://no-color.org);
2. ``FORCE_COLOR`` set and not empty (https://force-color.org), or ``CLICOLOR_FORCE`` set and not ``0``
   (https://bixense.com/clicolors/) → coloured, even when the stream is a file or a pipe;
3. ``CLICOLOR=0`` or ``TERM=dumb`` → plain;
4. otherwise coloured only when the stream is a TTY.

``--color always`` and ``--color never`` override all of these (a command-line flag beats the environment).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TextIO

CHOICES = ("auto", "always", "never")

_mode = "auto"


def set_mode(mode: str) -> None:
    """Set the process-wide ``--color`` choice (the CLI calls this once, before a command runs)."""
    global _mode
    if mode not in CHOICES:
        raise ValueError(f"--color must be one of {', '.join(CHOICES)}, got {mode!r}")
    _mode = mode


def mode() -> str:
    return _mode


def _isatty(stream: TextIO) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except ValueError:  # a closed stream
        return False


def colour_enabled(stream: TextIO, *, mode: str | None = None, env: Mapping[str, str] | None = None) -> bool:
    """Whether to write ANSI colour to ``stream`` (cost: a few dictionary look-ups)."""
    chosen = _mode if mode is None else mode
    if chosen == "always":
        return True
    if chosen == "never":
        return False
    e = os.environ if env is None else env
    if e.get("NO_COLOR", ""):
        return False
    if e.get("FORCE_COLOR", "") or e.get("CLICOLOR_FORCE", "0") not in ("", "0"):
        return True
    if e.get("CLICOLOR") == "0" or e.get("TERM") == "dumb":
        return False
    return _isatty(stream)
