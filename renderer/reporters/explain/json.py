"""``allocatable explain -o json``: the document ``renderer.capacity.explain_document.as_json`` builds, in large
pieces."""

from __future__ import annotations

from typing import TextIO

from renderer.capacity.explain import Explained
from renderer.capacity.explain_document import as_json
from renderer.reporters.jsonout import write_json


def write(explained: Explained, out: TextIO) -> None:
    doc = as_json(explained.model, explained.pools)
    if explained.cost is not None:
        from renderer.capacity.cost import explain_json

        doc["cost"] = explain_json(explained.cost)
    write_json(doc, out)
