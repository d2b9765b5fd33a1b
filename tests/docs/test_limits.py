"""The reader's bounds as the docs and the help state them agree with the code (``renderer/loading/bounds.py``): a
per-file limit written as "8 MiB" in one place and 256 MiB in another was issue 18's docs defect."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import run_cli
from renderer.loading.bounds import DEFAULT_MAX_DOCUMENT_CHARS, DEFAULT_MAX_FILE_BYTES

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
MIB = 1024 * 1024
FILE = re.compile(r"(\d+) MiB (?:a file|per file|by default)|files up to (\d+) MiB|default (\d+) MiB")
DOCUMENT = re.compile(r"(\d+) MiB (?:a document|per document|each document)|List item up to (\d+) MiB")


def _stated(pattern: re.Pattern[str]) -> list[tuple[str, int]]:
    found = []
    for doc in DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            for m in pattern.finditer(line):
                value = next(g for g in m.groups() if g is not None)
                found.append((f"{doc.relative_to(REPO_ROOT)}:{number}", int(value) * MIB))
    return found


def test_the_per_file_limit_the_docs_state_is_the_codes() -> None:
    stated = _stated(FILE)
    assert len(stated) >= 4, stated  # README, security.md (twice), verify.md
    assert [where for where, value in stated if value != DEFAULT_MAX_FILE_BYTES] == []
    assert f"default {DEFAULT_MAX_FILE_BYTES // MIB} MiB" in run_cli("lint", "--help").stdout


def test_the_per_document_limit_the_docs_state_is_the_codes() -> None:
    stated = _stated(DOCUMENT)
    assert len(stated) >= 2, stated
    assert [where for where, value in stated if value != DEFAULT_MAX_DOCUMENT_CHARS] == []
