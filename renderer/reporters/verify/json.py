"""``-o json``: the result as the versioned JSON document (``renderer.verify.result``)."""

from __future__ import annotations

import json
from typing import TextIO

from renderer.verify.result import VerifyResult


def write(result: VerifyResult, out: TextIO) -> None:
    # One write of the whole text: json.dump writes every token separately.
    out.write(json.dumps(result.as_json(), indent=2) + "\n")
