"""Rule settings in .allocatable.yaml: switch off, change severity, thresholds, unknown codes."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from lint_support import BATCH_POOL as POOL
from lint_support import lint_json

from support.factory import Document, commit_class, settings, write_repo


def _class(percent: int) -> Document:
    return commit_class("batch", tier="batch", percents={"cpu": percent})


def _run(tmp_path: Path, **fields: Any) -> tuple[int, list[tuple[str, str]]]:
    """Lint the 500% class with these settings; the repo delivers it through Koordinator (no AL214)."""
    files = {
        "pool.yaml": POOL,
        "cc.yaml": _class(500),
        ".allocatable.yaml": settings(render={"koordinator": True}, **fields),
    }
    write_repo(tmp_path / "policies", files)
    res, findings = lint_json(tmp_path)
    return res.exit_code, [(str(f["code"]), str(f["severity"])) for f in findings]


def test_defaults(tmp_path: Path) -> None:
    assert _run(tmp_path) == (0, [("AL203", "warning")])


def test_disable_a_rule(tmp_path: Path) -> None:
    assert _run(tmp_path, rules={"AL203": {"enabled": False}}) == (0, [])


def test_change_severity(tmp_path: Path) -> None:
    assert _run(tmp_path, rules={"AL203": {"severity": "error"}}) == (1, [("AL203", "error")])
    assert _run(tmp_path, rules={"AL203": {"severity": "info"}}) == (0, [("AL203", "info")])


def test_threshold(tmp_path: Path) -> None:
    assert _run(tmp_path, thresholds={"cpuCommitCeilingPercent": 500}) == (0, [])
    assert _run(tmp_path, thresholds={"cpuCommitCeilingPercent": 499}) == (0, [("AL203", "warning")])


def test_under_commit_rule_setting_changes_the_message(tmp_path: Path) -> None:
    write_repo(
        tmp_path / "policies",
        {
            "pool.yaml": POOL,
            "cc.yaml": _class(90),
            ".allocatable.yaml": settings(commit={"underCommitScalesReserved": False}, render={"koordinator": False}),
        },
    )
    _, findings = lint_json(tmp_path)
    (info,) = [f for f in findings if f["code"] == "AL204"]
    assert "reserved slices do not scale" in str(info["message"])


def test_unknown_code_is_an_error_finding(tmp_path: Path) -> None:
    code, findings = _run(tmp_path, rules={"AL230": {"enabled": False}})
    assert code == 1
    assert ("AL904", "error") in findings and ("AL203", "warning") in findings


def test_malformed_code_is_a_validation_error(tmp_path: Path) -> None:
    files = {"pool.yaml": POOL, ".allocatable.yaml": settings(rules={"cpu-ceiling": {"enabled": False}})}
    write_repo(tmp_path / "policies", files)
    res, findings = lint_json(tmp_path)
    assert res.exit_code == 2
    assert [f["code"] for f in findings] == ["AL004"]
    assert "is not a rule code" in str(findings[0]["message"])


def test_a_mistyped_code_gets_a_guess_only_when_few_codes_are_that_close(tmp_path: Path) -> None:
    # Hand-worked from the code list: AL091 has its 0 and 9 swapped from AL901 only; AL230 swaps two digits of
    # both AL203 and AL320 (both named); AL815 is one digit from AL805, AL810-AL814, AL215 and AL315 (no guess).
    rules = {code: {"enabled": False} for code in ("AL091", "AL230", "AL815")}
    write_repo(tmp_path / "policies", {"pool.yaml": POOL, ".allocatable.yaml": settings(rules=rules)})
    _, findings = lint_json(tmp_path)
    hints = {str(f["message"]).split(" ")[0]: f.get("hint") for f in findings if f["code"] == "AL904"}
    assert hints == {
        "rules.AL091": 'did you mean "AL901"?',
        "rules.AL230": 'did you mean "AL203" or "AL320"?',
        "rules.AL815": "see `allocatable rules` for the codes",
    }
