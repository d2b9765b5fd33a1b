"""``allocatable explain -o json``: the document ``renderer.capacity.explain_document.as_json`` builds, in large
pieces."""

from __future__ import annotations

from typing import TextIO

from renderer.capacity.explain import Explained
from renderer.capacity.explain_document import as_json
from renderer.reporters.jsonout import write_json


def write(explained: Explained, out: TextIO) -> None:
    write_json(as_json(explained.model, explained.pools), out)
