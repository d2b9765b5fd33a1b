"""``allocatable diff --base`` without a snapshot, against a bare parse of both revisions.

    python bench/diff_base.py [--sizes 1000,10000] [--shapes synthetic,two-files,...] [--runs 3] [--profile SHAPE]

For each shape and size (``generate.py``): the repo is committed as ``main`` in a scratch git repository, then every
CommitClass's cpu percent is lowered by 10 in the work tree (``- name: cpu`` / ``percent: N``) (a change that moves every pool those classes select).
Timed as fresh processes, in turn (A B A B ..., after a warm-up of each, as ``run.py`` pairs them):

- ``allocatable diff DIR --base main -o json`` (the two revisions loaded, modelled, linted and compared);
- the floor: ``bench/bare_parse.py`` over the work tree twice in one process (PyYAML's ``CSafeLoader``: what
  parsing both revisions costs, nothing else).

Prints per row the medians (CPU seconds, user + sys), the median of the pair-by-pair ratios, the peak RSS of the diff
runs and the scaling from the smallest size. Figures only: nothing passes or fails.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import re
import statistics
import sys
import tempfile
from contextlib import redirect_stdout, suppress
from pathlib import Path

from generate import SHAPES, generate
from impact import git
from run import allocatable_command, paired

HERE = Path(__file__).resolve().parent

DEFAULT_SHAPES = ("synthetic", "two-files", "one-per-file", "runtime-matrix", "label-ranges", "inventory-json")


def _bare_twice(path: Path) -> list[str]:
    script = (
        "import runpy, sys\n"
        f"main = runpy.run_path({str(HERE / 'bare_parse.py')!r})['main']\n"
        "main(sys.argv[1])\n"
        "main(sys.argv[1])\n"
    )
    return [sys.executable, "-c", script, str(path)]


def prepare(shape: str, n: int, into: Path) -> int:
    """The repo at ``into`` with its base committed and the change in the work tree; how many files changed."""
    generate(shape, n, into)
    git(into, "init", "-q", "-b", "main")
    git(into, "add", "-A")
    git(into, "commit", "-q", "-m", "base")
    changed = 0
    for path in sorted(into.rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        if "kind: CommitClass" not in text:
            continue
        new = re.sub(r"(- name: cpu\n\s+percent: )(\d+)", lambda m: f"{m.group(1)}{int(m.group(2)) - 10}", text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--shapes", default=",".join(DEFAULT_SHAPES))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--profile", metavar="SHAPE", help="cProfile one in-process diff of SHAPE at the largest size")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.sizes.split(",")]
    shapes = [s for s in args.shapes.split(",") if s]
    for s in shapes:
        if s not in SHAPES:
            parser.error(f"unknown shape {s}")
    cmd = allocatable_command()
    print("| shape | documents | diff CPU s | bare parse x2 CPU s | ratio | scaling | diff RSS MB |")
    print("|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="diff-bench-") as tmp:
        for shape in shapes:
            first: float | None = None
            for n in sizes:
                repo = Path(tmp) / f"{shape}-{n}"
                changed = prepare(shape, n, repo)
                runs_a, runs_b = paired(
                    [*cmd, "diff", str(repo), "--base", "main", "-o", "json"], _bare_twice(repo), args.runs, cwd=repo
                )
                a = statistics.median(r.cpu for r in runs_a)
                b = statistics.median(r.cpu for r in runs_b)
                ratio = statistics.median(x.cpu / y.cpu for x, y in zip(runs_a, runs_b, strict=True))
                rss = max(r.rss_mb for r in runs_a)
                scaling = "" if first is None else f"×{a / first:.1f}"
                first = a if first is None else first
                print(
                    f"| {shape} ({changed} files changed) | {n:,} | {a:.2f} | {b:.2f} | ×{ratio:.2f} | {scaling} "
                    f"| {rss:.0f} |",
                    flush=True,
                )
                if args.profile == shape and n == sizes[-1]:
                    print(profile(repo))
    return 0


def profile(repo: Path, top: int = 30) -> str:
    """cProfile of one in-process ``diff --base main -o json`` of ``repo``."""
    from renderer.cli import main as cli

    prof = cProfile.Profile()
    cwd = Path.cwd()
    os.chdir(repo)
    try:
        with redirect_stdout(io.StringIO()):
            prof.enable()
            with suppress(SystemExit):
                cli(["diff", ".", "--base", "main", "-o", "json"])
            prof.disable()
    finally:
        os.chdir(cwd)
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


if __name__ == "__main__":
    raise SystemExit(main())
