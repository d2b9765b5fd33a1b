"""``-o json``: the result as the versioned JSON document (``renderer.verify.result``)."""

from __future__ import annotations

from typing import TextIO

from renderer.reporters.jsonout import write_json
from renderer.verify.result import VerifyResult


def write(result: VerifyResult, out: TextIO) -> None:
    doc = result.as_json()
    if result.impact is not None:  # --nodes with --pods: the simulation (docs/impact.md)
        from renderer.reporters.impact.json import as_json

        doc["impact"] = as_json(result.impact)
    write_json(doc, out)
