"""``-o json``: the result as the versioned JSON document (``renderer.verify.result``)."""

from __future__ import annotations

from typing import TextIO

from renderer.reporters.jsonout import write_json
from renderer.verify.result import VerifyResult


def write(result: VerifyResult, out: TextIO) -> None:
    write_json(result.as_json(), out)
