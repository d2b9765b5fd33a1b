"""Executable docs: every ``$ allocatable …`` example in README.md and docs/*.md prints what it shows.

In a fenced block, a line starting with ``$ `` is a command; the lines after it, up to the next ``$ `` line or the
closing fence, are its expected output. A line ``...`` alone matches any number of lines (none included). The
command runs as written (``bash -c``, so pipes, ``cd DIR && …`` and trailing ``# comments`` work) with the installed ``allocatable``
first on PATH, from the root of a scratch copy of the repository (``render -o`` may write there), with stdout and
stderr merged as a terminal shows them. Examples that need another policy repo name a fixture under
``docs/examples/<name>/`` in the command itself, so a reader can paste them.

When an example differs, the failure shows a unified diff (expected → actual) and the command to reproduce it.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS = [REPO_ROOT / "README.md", *sorted((REPO_ROOT / "docs").glob("*.md"))]
_FENCE = re.compile(r"^(\s*)(```+|~~~+)")
_SKIP_DIRS = {".git", ".venv", "venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", "build", "dist"}


@dataclass(frozen=True)
class Example:
    doc: str  # relative path of the markdown file
    line: int  # of the command
    command: str
    expected: tuple[str, ...]

    @property
    def id(self) -> str:
        return f"{self.doc}:{self.line}"


def collect(path: Path) -> list[Example]:
    """Every ``$ allocatable …`` command in ``path``'s fenced blocks, with its expected output."""
    examples: list[Example] = []
    doc = path.relative_to(REPO_ROOT).as_posix()
    fence: str | None = None
    indent = 0
    current: tuple[int, str, list[str]] | None = None

    def close() -> None:
        nonlocal current
        if current is not None:
            line, command, out = current
            if re.match(r"^(cd \S+ && )?(\S+=\S+\s+)*allocatable(\s|$)", command) or "| allocatable " in command:
                examples.append(Example(doc, line, command, tuple(out)))
        current = None

    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = _FENCE.match(raw)
        if fence is None:
            if m:
                fence, indent = m.group(2), len(m.group(1))
            continue
        if m and m.group(2).startswith(fence) and raw.strip() == m.group(2):
            close()
            fence = None
            continue
        text = raw[indent:] if raw[:indent].strip() == "" else raw
        if text.startswith("$ "):
            close()
            current = (number, text[2:].strip(), [])
        elif current is not None:
            current[2].append(text)
    return examples


EXAMPLES = [e for doc in DOCS for e in collect(doc)]


def matches(expected: tuple[str, ...], actual: list[str]) -> bool:
    """Line-by-line equality, where an expected ``...`` line stands for any number of actual lines."""
    pattern = "".join(r"(?:[^\n]*\n)*?" if line.strip() == "..." else re.escape(line) + r"\n" for line in expected)
    return re.fullmatch(pattern, "".join(line + "\n" for line in actual)) is not None


@pytest.fixture(scope="module")
def scratch(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the repository (work tree files only) to run the examples in."""
    root = tmp_path_factory.mktemp("docs") / "allocatable"

    def ignore(directory: str, names: list[str]) -> set[str]:
        return {n for n in names if n in _SKIP_DIRS or n.endswith(".egg-info")}

    shutil.copytree(REPO_ROOT, root, ignore=ignore, symlinks=True)
    return root


def run(example: Example, cwd: Path) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("FORCE_COLOR", "CLICOLOR_FORCE", "NO_COLOR")}
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    env["COLUMNS"] = "100"
    proc = subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", example.command],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one pipe: the order a terminal shows
        text=True,
        timeout=300,
        check=False,
    )
    return proc.stdout.splitlines()


def test_examples_are_collected() -> None:
    docs = {e.doc for e in EXAMPLES}
    assert {"README.md", "docs/cli.md", "docs/lint.md", "docs/render.md"} <= docs and len(EXAMPLES) >= 20
    vacuous = [e.id for e in EXAMPLES if e.expected and all(line.strip() == "..." for line in e.expected)]
    assert not vacuous, f"examples that show nothing but `...` check nothing: {vacuous}"
    fixtures = {m for e in EXAMPLES for m in re.findall(r"docs/examples/([\w.-]+)", e.command)}
    committed = {p.name for p in (REPO_ROOT / "docs" / "examples").iterdir() if p.is_dir()}
    assert fixtures == committed, "every fixture under docs/examples/ is used by an example, and exists"


def test_matcher() -> None:
    assert matches(("a", "...", "d"), ["a", "b", "c", "d"])
    assert matches(("a", "...", "b"), ["a", "b"])
    assert not matches(("a", "...", "d"), ["a", "b", "c"])
    assert not matches(("a",), ["a", "b"])
    assert not matches(("a  x",), ["a x"])


@pytest.mark.parametrize("example", EXAMPLES, ids=[e.id for e in EXAMPLES])
def test_example_prints_what_the_docs_show(example: Example, scratch: Path) -> None:
    actual = run(example, scratch)
    if not matches(example.expected, actual):
        diff = "\n".join(
            difflib.unified_diff(list(example.expected), actual, "shown in the docs", "printed", lineterm="", n=2)
        )
        pytest.fail(
            f"{example.id}: `$ {example.command}` prints something else than the docs show "
            f"(run it from the repository root; `...` may stand for omitted lines):\n{diff}",
            pytrace=False,
        )
