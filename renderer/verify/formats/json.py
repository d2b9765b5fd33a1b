"""``-o json``: the result as the versioned JSON document (``renderer.verify.result``)."""

from __future__ import annotations

import json
from typing import TextIO

from renderer.verify.formats import fmt
from renderer.verify.result import VerifyResult


@fmt("json")
def write_json(result: VerifyResult, out: TextIO) -> None:
    json.dump(result.as_json(), out, indent=2)
    out.write("\n")
