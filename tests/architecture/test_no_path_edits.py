"""No test or benchmark edits ``sys.path``: helpers are one package, ``tests/support/`` (``from support import
tools``), which pytest makes importable (``pythonpath = ["tests"]``, pyproject.toml); a ``bench/`` script finds its
siblings as any script does (its folder is ``sys.path[0]``), and a test that reuses a bench script's shapes loads it
with ``support.module_at``. An edit made by one test module changes what every later module of the worker imports,
so whether a test passes would depend on which files ran before it in that worker."""

from __future__ import annotations

import re
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]

#: ``sys.path`` changed in place (insert, append, extend, item or slice assignment, ``+=``) or rebound, in code or in
#: the text of a child's ``-c`` program.
_EDIT = re.compile(r"\bsys\.path\s*(?:\.\s*(?:insert|append|extend)\s*\(|\[[^\]]*\]\s*=|\+=|=(?!=))")


def edits(text: str) -> list[int]:
    """The line numbers of ``text`` that edit ``sys.path``."""
    return [n for n, line in enumerate(text.splitlines(), 1) if _EDIT.search(line)]


def test_no_test_or_benchmark_edits_sys_path() -> None:
    found = [
        f"{path.relative_to(REPO_ROOT)}:{n}"
        for folder in ("tests", "bench")
        for path in sorted((REPO_ROOT / folder).rglob("*.py"))
        if path != Path(__file__).resolve()  # the planted edits below
        for n in edits(path.read_text(encoding="utf-8"))
    ]
    assert found == [], "import helpers from tests/support/ instead (see tests/support/__init__.py)"


def test_the_check_sees_each_kind_of_edit() -> None:
    planted = [
        'sys.path.insert(0, str(Path(__file__).parent / "hardening"))',
        "    sys.path.append(here)",
        "sys.path.extend([a, b])",
        "sys.path[:0] = [here]",
        "sys.path += [here]",
        "sys.path = [here, *sys.path]",
        'code = f"import sys; sys.path.insert(0, {here!r}); import forkrun"',
    ]
    assert edits("\n".join(planted)) == list(range(1, len(planted) + 1))
    reads = ["print(sys.path)", "if here in sys.path:", "assert sys.path == before", "paths = list(sys.path)"]
    assert edits("\n".join(reads)) == []
