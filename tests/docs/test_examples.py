"""Executable docs: every ``$ allocatable …`` example in README.md and docs/*.md prints what it shows.

In a fenced block, a line starting with ``$ `` is a command; the lines after it, up to the next ``$ `` line or the
closing fence, are its expected output. A line ``...`` alone matches any number of lines (none included). The
command runs as written (``bash -c``, so pipes, ``cd DIR && …`` and trailing ``# comments`` work) with the installed ``allocatable``
first on PATH, from the root of a scratch copy of the repository (``render -o`` may write there), with stdout and
stderr merged as a terminal shows them. Examples that need another policy repo name a fixture under
``docs/examples/<name>/`` in the command itself, so a reader can paste them.

Examples that need git history (``diff --base``): the scratch copy has no ``.git``, so a fixture holding ``base/``
and ``head/`` is made a repository of its own, ``docs/examples/<name>/repo/``, before any example runs: ``base/``'s
files committed on ``main`` ("base"), then on a branch ``pr`` ``head/``'s files laid over them and committed
("head"), both commits by ``docs <docs@example.com>`` at ``2026-01-01T00:00:00Z`` so their ids, which the output
shows, are the same on every machine. A reader makes the same repository with::

    cd docs/examples/<name> && mkdir repo && cp -r base/. repo/ && cd repo
    export GIT_AUTHOR_NAME=docs GIT_AUTHOR_EMAIL=docs@example.com GIT_AUTHOR_DATE=2026-01-01T00:00:00Z
    export GIT_COMMITTER_NAME=docs GIT_COMMITTER_EMAIL=docs@example.com GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
    git init -q -b main && git add -A && git commit -q -m base
    git checkout -q -b pr && cp -r ../head/. . && git add -A && git commit -q -m head

When an example differs, the failure shows a unified diff (expected → actual) and the command to reproduce it.
"""

from __future__ import annotations

import difflib
import os
import re
import shutil
import subprocess
import sys
import time
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
    for fixture in sorted((root / "docs" / "examples").iterdir()):
        if (fixture / "base").is_dir() and (fixture / "head").is_dir():
            history(fixture)
    return root


_AUTHOR = {"NAME": "docs", "EMAIL": "docs@example.com", "DATE": "2026-01-01T00:00:00Z"}


def history(fixture: Path) -> Path:
    """``fixture/repo``: ``base/`` committed on ``main``, ``head/`` laid over it and committed on ``pr`` (see the
    module docstring)."""
    repo = fixture / "repo"
    shutil.copytree(fixture / "base", repo)
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update({"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "HOME": str(repo)})
    env.update({f"GIT_{who}_{key}": value for who in ("AUTHOR", "COMMITTER") for key, value in _AUTHOR.items()})

    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)

    git("init", "-q", "-b", "main")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    git("checkout", "-q", "-b", "pr")
    shutil.copytree(fixture / "head", repo, dirs_exist_ok=True)
    # Staged again from the contents: copytree keeps the files' mtimes, and a head file of the same size written in
    # the same clock tick as its base (file times are coarse) looked unchanged to the index ("nothing to commit").
    git("rm", "-r", "-q", "--cached", ".")
    git("add", "-A")
    git("commit", "-q", "-m", "head")
    return repo


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


def test_a_history_fixture_is_two_commits_with_the_same_ids_everywhere(tmp_path: Path) -> None:
    fixture = tmp_path / "f"
    (fixture / "base").mkdir(parents=True)
    (fixture / "head").mkdir()
    (fixture / "base" / "a.yaml").write_text("a: 1\n", encoding="utf-8")
    (fixture / "base" / "b.yaml").write_text("b: 1\n", encoding="utf-8")
    (fixture / "head" / "a.yaml").write_text("a: 2\n", encoding="utf-8")
    # the same size and the same mtime as its base, both older than the index (sources written in the second before
    # the copies, as happened now and then): git, which may compare whole seconds, saw no change unless staged anew
    earlier = time.time_ns() - 10**10
    for name in ("base", "head"):
        os.utime(fixture / name / "a.yaml", ns=(earlier, earlier))
    repo = history(fixture)

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True).stdout

    assert git("log", "--format=%s", "main").split() == ["base"]
    assert git("log", "--format=%s", "pr").split() == ["head", "base"]
    assert git("show", "main:a.yaml") == "a: 1\n" and (repo / "a.yaml").read_text(encoding="utf-8") == "a: 2\n"
    assert (repo / "b.yaml").read_text(encoding="utf-8") == "b: 1\n" and not git("status", "--porcelain")
    # the ids depend on the contents, the author and the dates only: a second build gives the same
    again = tmp_path / "g"
    shutil.copytree(fixture / "base", again / "base")
    shutil.copytree(fixture / "head", again / "head")
    other = history(again)
    rev = ["git", "rev-parse", "main", "pr"]
    assert subprocess.run(rev, cwd=other, capture_output=True, text=True, check=True).stdout == git(*rev[1:])


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
