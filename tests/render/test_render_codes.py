"""The render stage's codes (AL8xx) are first-class: one class each with its documentation, listed by
``allocatable rules`` and in SARIF, configured under ``rules:`` in ``.allocatable.yaml`` like a lint rule — or refused
there (AL904) with the reason when a code cannot be configured."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import REPO_ROOT, run_cli
from renderer.codes import DOC_HEADINGS
from renderer.lint.registry import all_rules
from renderer.render.codes import all_codes
from support.factory import Content, Document, node_pool, node_selector, reservation_policy, settings, write_repo

CODES = all_codes()


def _no_mcp(**policy_metadata: Any) -> list[Document]:
    """An OpenShift pool a policy selects, without a MachineConfigPool: AL806 (a warning) at spec.platform."""
    pool = node_pool("ocp", tier=None, labels={"tier": "b"}, capacity={"pods": "250"}, count=2, platform="openshift")
    policy = reservation_policy("ocp", selector=node_selector("tier", ["b"]), kubeReserved={"cpu": "100m"})
    policy["metadata"].update(policy_metadata)
    return [pool, policy]


def test_codes_are_well_formed_and_share_no_code_or_name_with_a_lint_rule() -> None:
    assert [c for c in CODES] == [f"AL8{n:02d}" for n in range(1, len(CODES) + 1)], "AL801 upwards, no gap"
    rules = all_rules()
    names = [cls.name for cls in (*rules.values(), *CODES.values())]
    assert len(names) == len(set(names)), "a name `allocatable rules NAME` finds twice"
    for code, cls in CODES.items():
        assert code not in rules
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", cls.name), cls.name
        assert cls.severity in ("error", "warning"), code
        assert cls.summary == cls.summary.strip() and len(cls.summary) <= 120, code
        # an error render cannot go past cannot be re-graded; a warning can be
        assert (cls.fixed is not None) == (cls.severity == "error"), code


@pytest.mark.parametrize("code", sorted(CODES))
def test_every_code_is_documented_and_reported_somewhere(code: str) -> None:
    cls = CODES[code]
    doc = cls.doc()
    assert [line[3:] for line in doc.splitlines() if line.startswith("## ")] == list(DOC_HEADINGS), code
    assert doc.count("```") % 2 == 0, code
    sources = [p.read_text(encoding="utf-8") for p in (REPO_ROOT / "renderer" / "render").rglob("*.py")]
    used = [s for s in sources if re.search(rf"\b{cls.__name__}\b", s) and "class " + cls.__name__ not in s]
    assert used, f"{code} ({cls.__name__}) is reported nowhere"


def test_rules_lists_and_documents_render_codes() -> None:
    listing = run_cli("rules")
    for code, cls in CODES.items():
        assert re.search(rf"^  {code}  {cls.severity}\s+{cls.name}\s+", listing.stdout, re.M), code
    one = run_cli("rules", "AL801")
    assert one.exit_code == 0 and one.stdout.startswith("AL801 ")
    assert "Not configurable in .allocatable.yaml:" in one.stdout
    warning = run_cli("rules", "al806")
    assert warning.exit_code == 0 and "Not configurable" not in warning.stdout
    doc = {d["code"]: d for d in json.loads(run_cli("rules", "-o", "json").stdout)}
    assert doc["AL806"]["configurable"] is True and doc["AL801"]["configurable"] is False
    assert doc["AL806"]["group"] == "render"
    assert doc["AL004"]["configurable"] is False and doc["AL203"]["configurable"] is True
    markdown = (REPO_ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert "## Render (AL8xx)" in markdown and "### AL813 nothing-to-deliver" in markdown


def test_sarif_lists_render_codes(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "policies", {"a.yaml": _no_mcp()})
    res = run_cli("lint", str(repo), "-o", "sarif")
    ids = [r["id"] for r in json.loads(res.stdout)["runs"][0]["tool"]["driver"]["rules"]]
    assert set(CODES) <= set(ids)


def _render(tmp_path: Path, rules: dict[str, Any] | None) -> tuple[int, str]:
    files: dict[str, Content] = {"a.yaml": _no_mcp()}
    if rules is not None:
        files[".allocatable.yaml"] = settings(rules=rules)
    repo = write_repo(tmp_path / "policies", files)
    res = run_cli("render", str(repo), "--stdout")
    return res.exit_code, res.stderr


def test_a_render_warning_is_configured_like_a_lint_rule(tmp_path: Path) -> None:
    code, err = _render(tmp_path / "default", None)
    assert code == 0 and "warning: " in err and "[AL806]" in err
    code, err = _render(tmp_path / "off", {"AL806": {"enabled": False}})
    assert code == 0 and "AL806" not in err
    code, err = _render(tmp_path / "error", {"AL806": {"severity": "error"}})
    assert code == 1 and "error: " in err and "[AL806]" in err, err
    code, err = _render(tmp_path / "info", {"AL806": {"severity": "info"}})
    assert code == 0 and "info: " in err and "[AL806]" in err


@pytest.mark.parametrize("code", ["AL801", "AL809", "AL004"])
def test_a_code_that_cannot_be_configured_is_refused_with_the_reason(tmp_path: Path, code: str) -> None:
    repo = write_repo(
        tmp_path / "policies",
        {"a.yaml": _no_mcp(), ".allocatable.yaml": settings(rules={code: {"enabled": False}})},
    )
    res = run_cli("lint", str(repo), "-o", "json")
    (finding,) = [f for f in json.loads(res.stdout)["findings"] if f["code"] == "AL904"]
    reason = CODES[code].fixed if code in CODES else "validation errors stop every command before any rule runs"
    assert finding["message"] == f"rules.{code} cannot be configured: {reason}"
    assert "did you mean" not in str(finding.get("hint"))
    assert run_cli("render", str(repo), "--stdout").exit_code == 1, "lint's error stops the render"


def test_a_suppression_naming_a_render_code_says_where_it_is_configured(tmp_path: Path) -> None:
    annotated = _no_mcp(annotations={"allocatable.dev/ignore": "AL806: known"})
    repo = write_repo(tmp_path / "policies", {"a.yaml": annotated})
    res = run_cli("lint", str(repo), "-o", "json")
    (finding,) = [f for f in json.loads(res.stdout)["findings"] if f["code"] == "AL903"]
    assert "AL806, a render finding" in finding["message"] and "rules in .allocatable.yaml" in finding["hint"]
