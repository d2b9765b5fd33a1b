"""Every rule's pass/fail cases (tests/rules/cases/ALnnn.yaml) through `allocatable lint`, by code and position.

A case lists the findings of its rule it expects as ``file:line:col`` (optionally with a severity, or as a
mapping with ``at``, ``severity``, ``text`` — the source text at that position — and ``message`` — a substring of
the message). Findings of other rules are ignored; an empty ``expect`` is a passing case.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_support import Case, build_repo, lint_json, load_cases, position_text

CASES = load_cases()


@pytest.mark.parametrize("case", CASES, ids=[f"{c.code}-{c.name}" for c in CASES])
def test_rule_case(case: Case, tmp_path: Path) -> None:
    build_repo(tmp_path, case)
    args = list(case.args)
    if case.base is not None:
        args += ["--base", "main"]
    res, findings = lint_json(tmp_path, *args)
    assert res.exit_code in (0, 1), (res.stdout, res.stderr)
    mine = [f for f in findings if f["code"] == case.code]
    got = sorted(f"{f['path'].removeprefix('policies/')}:{f['line']}:{f['column']}" for f in mine)
    assert got == sorted(e["at"] for e in case.expect), "\n".join(f["message"] for f in mine)
    for e in case.expect:
        matches = [f for f in mine if f"{f['path'].removeprefix('policies/')}:{f['line']}:{f['column']}" == e["at"]]
        if "severity" in e:
            assert {f["severity"] for f in matches} == {e["severity"]}, matches
        if "message" in e:
            assert any(e["message"] in f["message"] for f in matches), [f["message"] for f in matches]
        if "text" in e:
            assert position_text(tmp_path, matches[0]).startswith(e["text"]), position_text(tmp_path, matches[0])
