"""Formats of the ``findings`` report (lint, validate, render, explain/verify on invalid input): one module per
format, each with ``write(report, out)``; the :class:`Report` they take."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from renderer.findings import Finding
from renderer.reprs import fields_repr

if TYPE_CHECKING:
    from renderer.loading.git import Revision

__all__ = ["Report"]


@dataclass(eq=False, repr=False)
class Report:
    """What a command found: its name, the findings (positions resolved, sorted) and what it read; ``base``: the
    commit a ``--base`` compared with (every format says which)."""

    __repr__ = fields_repr

    command: str
    findings: list[Finding]
    files: int = 0
    objects: int = 0
    base: Revision | None = None
