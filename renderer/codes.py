"""What a finding code is, for every stage that reports one: validation (AL0xx), the lint rules (AL1xx-AL3xx,
AL9xx) and the render stage (AL8xx). Each stage keeps its own codes next to the code that reports them
(``renderer.lint.rules``, ``renderer.render.codes``); ``allocatable rules``, docs/rules.md and SARIF list them all.
"""

from __future__ import annotations

from typing import NamedTuple

from renderer.findings import Severity

#: The headings of a code's documentation, in this order (``allocatable rules CODE``, docs/rules.md, SARIF help).
DOC_HEADINGS: tuple[str, ...] = ("What it does", "Why is this bad?", "Example", "Use instead", "Fix")


class CodeInfo(NamedTuple):
    code: str
    name: str
    severity: Severity
    summary: str
    doc: str  # markdown
    group: str
    #: Why ``rules: {CODE: ...}`` in ``.allocatable.yaml`` cannot switch it off or re-grade it; None when it can.
    fixed: str | None = None


GROUPS = {
    "AL0": "validation",
    "AL1": "selectors",
    "AL2": "capacity",
    "AL3": "kubelet",
    "AL8": "render",
    "AL9": "suppressions",
}


def group_of(code: str) -> str:
    return GROUPS.get(code[:3], "other")
