"""Test modules have unique file names: the suite has no packages (pytest's default ``prepend`` import mode), so two
``test_x.py`` in different folders are one module name, and whichever a worker imports second fails to collect
("import file mismatch") — only when ``--dist loadfile`` happens to send both to the same worker."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_every_test_module_name_is_used_once() -> None:
    names = Counter(p.name for p in TESTS.rglob("test_*.py"))
    assert [name for name, n in names.items() if n > 1] == []


def test_the_check_sees_a_repeated_name(tmp_path: Path) -> None:
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "test_same.py").write_text("", encoding="utf-8")
    names = Counter(p.name for p in tmp_path.rglob("test_*.py"))
    assert [name for name, n in names.items() if n > 1] == ["test_same.py"]
