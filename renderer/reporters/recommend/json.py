"""``-o json``: the report as a versioned document (docs/recommend.md), every node-day that exceeded a reservation
included."""

from __future__ import annotations

from typing import TextIO

from renderer.recommend.result import Recommendation
from renderer.reporters.jsonout import write_json
from renderer.reporters.recommend import document

__all__ = ["write"]


def write(result: Recommendation, out: TextIO) -> None:
    write_json(document(result), out)
