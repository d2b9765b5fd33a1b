"""A stage builds many long-lived objects and no reference cycles worth collecting: ``stage`` runs a function with the
cyclic garbage collector paused, then restores it (``renderer.pipeline`` wraps each of its stages).

Policy data has no reference cycles worth collecting mid-run, but the collector still scans every live object each
time a generation fills up; on 10,000-document repos that made load and lint grow faster than linearly.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from functools import wraps
from typing import ParamSpec, TypeVar

_P = ParamSpec("_P")
_R = TypeVar("_R")


def stage(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    """``fn`` with the cyclic collector paused while it runs (restored as it was, also when ``fn`` raises)."""

    @wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            return fn(*args, **kwargs)
        finally:
            if was_enabled:
                gc.enable()

    return run
