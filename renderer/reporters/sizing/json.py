"""``allocatable sizing -o json``: the formula, what it fills, the reserved values and eviction thresholds as the
platform writes them, and the notes."""

from __future__ import annotations

from typing import TextIO

from renderer.reporters.jsonout import write_json
from renderer.reporters.sizing import Sizing, as_json


def write(sizing: Sizing, out: TextIO) -> None:
    write_json(as_json(sizing), out)
