from __future__ import annotations

import io
import os
import textwrap
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from renderer.cli import main

# CI runs are a gate: the same examples every run (a new counterexample there would be a flaky failure).
# Local runs keep exploring new examples.
settings.register_profile("ci", derandomize=True, database=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

REPO_ROOT = Path(__file__).resolve().parent.parent
POLICIES = REPO_ROOT / "policies"


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_cli(*args: str, cwd: Path | None = None) -> CliResult:
    out, err = io.StringIO(), io.StringIO()
    with chdir(cwd or Path.cwd()), redirect_stdout(out), redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse --help/--version/usage errors
            code = int(exc.code or 0)
    return CliResult(code, out.getvalue(), err.getvalue())


def write_repo(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        target = root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return root


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "policies"
    root.mkdir()
    return root
