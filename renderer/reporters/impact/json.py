"""``-o json``: the simulation as a versioned document (docs/impact.md), never cut."""

from __future__ import annotations

from typing import TextIO

from renderer.impact.report import ImpactReport
from renderer.reporters.impact._common import headline
from renderer.reporters.jsonout import write_json

__all__ = ["as_json", "write"]


def as_json(report: ImpactReport) -> dict[str, object]:
    """``{"version": 1, "headline", "mode", "before", "after", "summary", ...}``: ``ImpactReport.as_dict`` with the
    headline the other formats print."""
    doc: dict[str, object] = {"version": 1, "headline": headline(report), **report.as_dict()}
    if report.cost is not None:
        from renderer.capacity.cost import change_json

        doc["cost"] = change_json(report.cost)
    return doc


def write(result: ImpactReport, out: TextIO) -> None:
    write_json(as_json(result), out)
