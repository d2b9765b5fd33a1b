"""Issue 21, class 8: findings are capped per rule and file as they are added, with a count of what was left out, so
memory grows with what is shown, not with the input (a 570,000-Node List of one name made 556,765 findings, 4.9 GB)."""

from __future__ import annotations

import json
from pathlib import Path

from renderer.findings import MAX_PER_RULE_AND_FILE, CappedFindings, Finding
from renderer.pipeline import load
from support.factory import item_list, node


def test_a_list_of_one_duplicated_name_keeps_the_cap_plus_one(tmp_path: Path) -> None:
    n = MAX_PER_RULE_AND_FILE + 500
    one = node("same", labels={"kubernetes.io/os": "linux"}, capacity={"cpu": "4", "memory": "16Gi", "pods": "110"})
    (tmp_path / "nodes.json").write_text(json.dumps(item_list(*[one] * (n + 1))), encoding="utf-8")  # one line
    result = load([tmp_path])
    duplicates = [f for f in result.findings if f.code == "AL005"]
    assert len(duplicates) == MAX_PER_RULE_AND_FILE + 1
    last = duplicates[-1]
    assert last.message.startswith(f"500 more AL005 findings in this file left out (at most {MAX_PER_RULE_AND_FILE}")
    result.finish(duplicates)
    assert (last.line, last.column) > (1, 1)  # located at the first one left out (one JSON line: a column)


def test_the_cap_counts_per_rule_and_file() -> None:
    capped = CappedFindings(limit=2)
    for path in ("a.yaml", "b.yaml"):
        for code in ("AL001", "AL002"):
            for i in range(5):
                capped.append(Finding(code, "error", f"m{i}", path, 1, 1))
    assert len(capped) == 8 and capped.left_out == 12
    closed = capped.close()
    assert len(closed) == 12
    assert [f.message.split(" ")[0] for f in closed[8:]] == ["3"] * 4
    assert CappedFindings([Finding("X", "info", "m", "p")], limit=2).close() == [Finding("X", "info", "m", "p")]
