"""Golden files: every case directory under tests/render/cases renders exactly to tests/render/golden/<case>.

A new case is a new directory of policies. After an intended change, regenerate with
``UPDATE_GOLDEN=1 .venv/bin/python -m pytest tests/render/test_render_golden.py`` and review the diff.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path

import pytest
from render_support import GOLDEN, case_dirs, render_dir

UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def _golden_files(case: str) -> dict[str, bytes]:
    root = GOLDEN / case
    if not root.is_dir():
        return {}
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def _update(case: str, files: dict[str, bytes]) -> None:
    root = GOLDEN / case
    for old in _golden_files(case):
        if old not in files:
            (root / old).unlink()
    for rel, data in files.items():
        target = root / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)


@pytest.mark.parametrize("case", [p.name for p in case_dirs()])
def test_case_matches_golden(case: str) -> None:
    result = render_dir(Path(__file__).parent / "cases" / case)
    assert result.ok, [f"{f.code} {f.message}" for f in result.findings]
    if UPDATE:
        _update(case, result.files)
    golden = _golden_files(case)
    assert golden, f"no golden files for case {case}: run with UPDATE_GOLDEN=1"
    assert sorted(golden) == sorted(result.files), "rendered file set differs from the golden files"
    for rel, data in result.files.items():
        if golden[rel] != data:
            diff = "".join(
                difflib.unified_diff(
                    golden[rel].decode().splitlines(keepends=True),
                    data.decode().splitlines(keepends=True),
                    f"golden/{case}/{rel}",
                    f"rendered/{rel}",
                )
            )
            pytest.fail(f"{rel} differs from its golden file (UPDATE_GOLDEN=1 to accept):\n{diff}")


def test_every_case_has_golden_files_and_no_orphans() -> None:
    cases = {p.name for p in case_dirs()}
    golden = {p.name for p in GOLDEN.iterdir() if p.is_dir()} if GOLDEN.is_dir() else set()
    assert golden == cases, f"golden directories without a case or cases without golden files: {golden ^ cases}"
