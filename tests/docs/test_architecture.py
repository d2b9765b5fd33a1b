"""docs/architecture.md cannot drift: its layer table is the import test's ``LAYERS``, and every extension point it
names is a folder whose modules each have the test it names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from support import module_at

REPO_ROOT = Path(__file__).resolve().parents[2]
DOC = REPO_ROOT / "docs" / "architecture.md"

LAYERS = module_at("tests/architecture/test_imports.py").LAYERS


def _table(marker: str) -> list[list[str]]:
    text = DOC.read_text(encoding="utf-8")
    block = text.split(f"<!-- {marker}:start -->")[1].split(f"<!-- {marker}:end -->")[0]
    rows = [line for line in block.strip().splitlines() if line.startswith("|")][2:]
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def test_the_layer_table_is_the_enforced_order() -> None:
    documented = [tuple(name.strip() for name in row[1].split(",")) for row in _table("layers")]
    assert documented == list(LAYERS)


#: Every extension point: (what the doc calls it, the file pattern, the test pattern) as the doc writes them.
EXTENSION_POINTS = {
    "lint rule": ("`renderer/lint/rules/al<NNN>_<name>.py`", "`tests/rules/cases/AL<NNN>.yaml`"),
    "render target": ("`renderer/render/targets/<name>.py`", "a file it renders in `tests/render/golden/<case>/`"),
    "platform": ("`renderer/platforms/<name>.py`", "`tests/platforms/test_<name>.py`"),
    "output format": ("`renderer/reporters/<report>/<format>.py`", "`tests/reporters/golden/<report>/<format>.out`"),
    "verify cause": (
        "a `@register`ed function in `renderer/verify/causes.py`",
        "a case in `tests/verify/test_causes.py`",
    ),
    "render finding code": (
        "a `RenderCode` class in `renderer/render/codes.py`",
        "its use checked by `tests/render/test_render_codes.py`",
    ),
}


def test_the_doc_lists_every_extension_point() -> None:
    assert {row[0]: (row[1], row[2]) for row in _table("extension-points")} == EXTENSION_POINTS


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.glob("*.py") if not p.name.startswith("_"))


def test_every_rule_has_its_case_file() -> None:
    for module in _modules(REPO_ROOT / "renderer" / "lint" / "rules"):
        code = re.match(r"al(\d{3})_", module.name)
        assert code, f"{module.name}: a rule module is al<NNN>_<name>.py"
        assert (REPO_ROOT / "tests" / "rules" / "cases" / f"AL{code.group(1)}.yaml").is_file(), module.name


def test_every_render_target_renders_a_golden_file() -> None:
    golden = [
        p.relative_to(REPO_ROOT / "tests" / "render" / "golden").as_posix()
        for p in (REPO_ROOT / "tests" / "render" / "golden").rglob("*")
        if p.is_file()
    ]
    for module in _modules(REPO_ROOT / "renderer" / "render" / "targets"):
        words = module.stem.split("_")
        assert any(all(w in path for w in words) for path in golden), f"{module.stem}: no golden file it renders"


def test_every_platform_has_its_test() -> None:
    folder = REPO_ROOT / "renderer" / "platforms"
    for module in _modules(folder) if folder.is_dir() else []:
        assert (REPO_ROOT / "tests" / "platforms" / f"test_{module.stem}.py").is_file(), module.name


def test_every_output_format_has_its_golden() -> None:
    for folder in sorted(p for p in (REPO_ROOT / "renderer" / "reporters").iterdir() if p.is_dir()):
        if folder.name.startswith("_"):
            continue
        for module in _modules(folder):
            golden = REPO_ROOT / "tests" / "reporters" / "golden" / folder.name / f"{module.stem}.out"
            assert golden.is_file(), f"{folder.name}/{module.name}: no {golden.relative_to(REPO_ROOT)}"


def test_every_verify_cause_is_registered_and_tested() -> None:
    tree = ast.parse((REPO_ROOT / "renderer" / "verify" / "causes.py").read_text(encoding="utf-8"))
    causes = [
        f.name
        for f in tree.body
        if isinstance(f, ast.FunctionDef) and any(getattr(d, "id", None) == "register" for d in f.decorator_list)
    ]
    assert causes, "renderer/verify/causes.py registers no cause"
    assert (REPO_ROOT / "tests" / "verify" / "test_causes.py").is_file()
