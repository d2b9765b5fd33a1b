"""The external tools the tests run, found one way: on PATH or beside the running Python (a registry package of the
test extra installs its binary into the venv's bin/, which ``.venv/bin/python -m pytest`` does not put on PATH).

A test whose tool is missing is skipped with the reason and how to get it; where a skip would hide a gap (``.ci/run``
sets ``ALLOCATABLE_REQUIRE_TOOLS=1``, and GitHub Actions sets ``CI=true``) it fails instead, so CI never passes with
a tool's checks left out. Tests that need one are marked ``external`` (``pytest -m "not external"`` leaves them out).
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path
from typing import NoReturn

import pytest


def required() -> bool:
    """True where every external tool must be present (CI and ``.ci/run``)."""
    return os.environ.get("ALLOCATABLE_REQUIRE_TOOLS") == "1" or os.environ.get("CI", "").lower() == "true"


def missing(what: str, how: str) -> NoReturn:
    """Skip (or, where tools are required, fail) a test whose tool ``what`` is not installed; ``how``: how to get it."""
    if required():
        pytest.fail(f"{what} is not installed ({how}); CI installs it and must not skip this check")
    pytest.skip(f"{what} is not installed ({how}; .ci/run installs it)")


def which(*names: str) -> str | None:
    """The first of ``names`` on PATH or in the running Python's bin directory."""
    beside = str(Path(sys.executable).parent)
    for name in names:
        found = shutil.which(name) or shutil.which(name, path=beside)
        if found:
            return found
    return None


def find(*names: str, how: str) -> str:
    """The path of the first of ``names`` found (see ``which``); skipped or failed with ``how`` when none is."""
    found = which(*names)
    if found is None:
        missing(names[0], how)
    return found
