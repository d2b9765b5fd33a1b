"""``{"version": 1, "files": N, "objects": N, "findings": [...]}``: the finding shape every command reuses."""

from __future__ import annotations

import json
from typing import TextIO

from renderer.reporters.findings import Report


def write(report: Report, out: TextIO) -> None:
    doc = {
        "version": 1,
        "files": report.files,
        "objects": report.objects,
        "findings": [f.as_dict() for f in report.findings],
    }
    # One write of the whole text: json.dump writes every token separately (0.6 s for 10,000 findings).
    out.write(json.dumps(doc, indent=2, sort_keys=False) + "\n")
