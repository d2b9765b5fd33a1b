"""How long the finding lines of ``allocatable lint -o text`` are, per rule, on the bundled ``policies/`` and on every
case of ``tests/rules/cases/`` (each case built into a repo of its own under ``policies/``, as the case test builds it).

    python bench/finding_lengths.py [--worst N]

Prints, per code, how many lines, the median and the longest line in characters (the whole line: ``path:line:col:
severity: message [CODE] (Kind/name)``), then the totals and the N longest lines. A figure, not a test.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path
from typing import Any

import yaml

from renderer.cli import main

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "rules" / "cases"


def _lint(cwd: Path, *args: str) -> list[str]:
    out, err = io.StringIO(), io.StringIO()
    before = Path.cwd()
    os.chdir(cwd)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), contextlib.suppress(SystemExit):
            main(["lint", *args, "--color", "never"])
    finally:
        os.chdir(before)
    return [line for line in out.getvalue().splitlines() if line.strip()]


def _git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@example.com", "GIT_COMMITTER_NAME": "b"}
    env |= {"GIT_COMMITTER_EMAIL": "b@example.com", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def _write(root: Path, files: dict[str, str], settings: dict[str, Any] | None) -> None:
    for p in sorted(root.rglob("*"), reverse=True) if root.exists() else []:
        if p.is_file():
            p.unlink()
    root.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    if settings is not None:
        doc = {"apiVersion": "policy.allocatable.dev/v1alpha1", "kind": "Settings", **settings}
        (root / ".allocatable.yaml").write_text(yaml.safe_dump(doc, sort_keys=False), encoding="utf-8")


def case_lines() -> list[str]:
    shared = yaml.safe_load((CASES / "_shared.yaml").read_text(encoding="utf-8"))
    lines: list[str] = []
    for path in sorted(CASES.glob("AL*.yaml")):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        for raw in data["cases"]:
            if not raw.get("expect"):
                continue
            files: dict[str, str] = {}
            for name in raw.get("use", []):
                files.update(shared[name])
            files.update(raw.get("files") or {})
            with tempfile.TemporaryDirectory() as tmp:
                t = Path(tmp)
                args = list(raw.get("args") or [])
                if "base" in raw:
                    base: dict[str, str] = {}
                    for name in raw["base"].get("use", []):
                        base.update(shared[name])
                    base.update(raw["base"].get("files") or {})
                    _git(t, "init", "-q", "-b", "main")
                    _write(t / "policies", base, raw.get("settings"))
                    _git(t, "add", "-A")
                    _git(t, "commit", "-q", "-m", "base")
                    args += ["--base", "main"]
                _write(t / "policies", files, raw.get("settings"))
                lines += [x for x in _lint(t, "policies", *args) if f"[{data['rule']}]" in x]
    return lines


def _code(line: str) -> str:
    tail = line.rsplit(" [", 1)
    return tail[1].split("]", 1)[0] if len(tail) == 2 else "?"


def main_(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--worst", type=int, default=5)
    args = ap.parse_args(argv)
    lines = _lint(ROOT, "policies") + case_lines()
    by_code: dict[str, list[int]] = {}
    for line in lines:
        by_code.setdefault(_code(line), []).append(len(line))
    print(f"{'code':6}  {'lines':>5}  {'median':>6}  {'max':>4}")
    for code in sorted(by_code):
        n = by_code[code]
        print(f"{code:6}  {len(n):5}  {statistics.median(n):6.0f}  {max(n):4}")
    every = [len(x) for x in lines]
    print(f"{'all':6}  {len(every):5}  {statistics.median(every):6.0f}  {max(every):4}")
    for line in sorted(lines, key=len, reverse=True)[: args.worst]:
        print(f"{len(line)}: {line}", file=sys.stderr)


if __name__ == "__main__":
    main_()
