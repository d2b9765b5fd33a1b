"""The rule registry: one module per rule, named after its code; documented; covered by pass and fail cases."""

from __future__ import annotations

import importlib
import pkgutil
import re
import sys
from pathlib import Path

import pytest
from lint_support import load_cases

import renderer.lint.rules as rules_pkg
from conftest import REPO_ROOT, run_cli
from renderer.lint.registry import all_rules
from renderer.lint.rule import DOC_HEADINGS, Rule

RULES = all_rules()
CASES = load_cases()


def _module_rules() -> dict[str, list[type[Rule]]]:
    out: dict[str, list[type[Rule]]] = {}
    for info in pkgutil.iter_modules(rules_pkg.__path__):
        mod = importlib.import_module(f"{rules_pkg.__name__}.{info.name}")
        out[info.name] = [
            obj
            for obj in vars(mod).values()
            if isinstance(obj, type) and issubclass(obj, Rule) and obj is not Rule and obj.__module__ == mod.__name__
        ]
    return out


def test_one_registered_rule_per_module_named_after_its_code_and_name() -> None:
    modules = _module_rules()
    assert modules, "no rule modules found"
    for module, classes in modules.items():
        assert len(classes) == 1, f"{module} defines {len(classes)} rules"
        cls = classes[0]
        assert RULES.get(cls.code) is cls, f"{module}: {cls.code} is not registered"
        assert module == f"{cls.code.lower()}_{cls.name.replace('-', '_')}", module
    assert len(RULES) == len(modules)


def test_codes_are_unique_and_well_formed() -> None:
    codes = [cls.code for cls in RULES.values()]
    assert len(codes) == len(set(codes))
    names = [cls.name for cls in RULES.values()]
    assert len(names) == len(set(names)), "rule names must be unique too"
    for cls in RULES.values():
        assert re.fullmatch(r"AL[1-9][0-9]{2}", cls.code), cls.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", cls.name), cls.name
        assert cls.severity in ("error", "warning", "info"), cls.code
        assert cls.phase in ("model", "after"), cls.code


@pytest.mark.parametrize("code", sorted(RULES))
def test_docstring_has_every_heading_in_order_and_a_summary(code: str) -> None:
    cls = RULES[code]
    doc = cls.doc()
    headings = [line[3:].strip() for line in doc.splitlines() if line.startswith("## ")]
    assert headings == list(DOC_HEADINGS), f"{code}: {headings}"
    for heading in DOC_HEADINGS:
        body = doc.split(f"## {heading}", 1)[1].split("\n## ", 1)[0]
        assert body.strip(), f"{code}: empty section {heading}"
    assert doc.count("```") % 2 == 0, f"{code}: unbalanced code fence"
    assert cls.summary and cls.summary == cls.summary.strip() and "\n" not in cls.summary, code
    assert len(cls.summary) <= 120, f"{code}: summary longer than 120 characters"


@pytest.mark.parametrize("code", sorted(RULES))
def test_every_rule_has_a_failing_and_a_passing_case(code: str) -> None:
    mine = [c for c in CASES if c.code == code]
    assert mine, f"no tests/rules/cases/{code}.yaml"
    assert any(c.failing for c in mine), f"{code}: no case where the rule fires"
    assert any(not c.failing for c in mine), f"{code}: no case where the rule stays quiet"


def test_case_files_name_existing_rules() -> None:
    for path in (Path(__file__).parent / "cases").glob("AL*.yaml"):
        assert path.stem in RULES, f"{path.name} has no rule"


def test_docs_rules_md_is_current() -> None:
    res = run_cli("rules", "--markdown")
    assert res.exit_code == 0, res.stderr
    current = (REPO_ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert res.stdout == current, "docs/rules.md is out of date: run `allocatable rules --markdown > docs/rules.md`"


def test_rules_listing_and_one_rule() -> None:
    res = run_cli("rules")
    assert res.exit_code == 0
    for code, cls in RULES.items():
        assert re.search(rf"^  {code}  {cls.severity}\s+{cls.name}\s+", res.stdout, re.M), code
    one = run_cli("rules", "al201")
    assert one.exit_code == 0
    assert one.stdout.startswith("AL201 memory-over-commit (error)\n")
    assert "What it does" in one.stdout and "```" not in one.stdout and "\033[" not in one.stdout
    by_name = run_cli("rules", "memory-over-commit")
    assert by_name.stdout == one.stdout


def test_unknown_rule_is_a_usage_error() -> None:
    res = run_cli("rules", "AL999")
    assert res.exit_code == 2
    assert res.stdout == ""
    assert res.stderr.count("\n") == 1 and "AL999" in res.stderr


def test_rules_json() -> None:
    import json

    res = run_cli("rules", "-o", "json")
    doc = json.loads(res.stdout)
    assert {d["code"] for d in doc} >= set(RULES)
    assert all(set(d) == {"code", "name", "severity", "group", "summary", "configurable"} for d in doc)


def test_help_does_not_import_the_linter() -> None:
    import subprocess

    code = (
        "import sys, contextlib, io\n"
        "from renderer.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n        main(['lint', '--help'])\n    except SystemExit:\n        pass\n"
        "heavy = [m for m in ('renderer.lint.engine', 'renderer.capacity.model', 'pydantic') if m in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


_COMPLEXITY = re.compile(r"^\s*#?\s*Complexity: O\(", re.MULTILINE)


@pytest.mark.parametrize("module", sorted(m.name for m in pkgutil.iter_modules(rules_pkg.__path__)))
def test_every_rule_module_states_its_complexity(module: str) -> None:
    """A rule says what its cost grows with ("Complexity: O(...)"); none may grow faster than
    (pools × policies that select them) + findings (tests/rules/test_scale.py runs a repo that would show it)."""
    source = Path(importlib.import_module(f"{rules_pkg.__name__}.{module}").__file__ or "").read_text()
    assert _COMPLEXITY.search(source), f"{module} has no 'Complexity: O(...)' comment"
