"""What pricing costs (docs/cost.md): the same commands with and without a ``pricing`` block, paired A B A B.

    python bench/cost.py OUTDIR [--lint-size 10000] [--nodes 20000] [--pods 20000] [--pairs 3]

1. ``allocatable lint -o json`` on the ``synthetic`` shape of ``--lint-size`` documents, its ``.allocatable.yaml`` as
   generated (A) and with ``pricing: {region: us-east-1}`` added (B): a lint never imports ``renderer.cost``, so B
   should cost what A costs;
2. ``allocatable diff repo --base main --nodes nodes.json --pods pods.json -o json`` on ``bench/impact.py``'s
   generated cluster (``--nodes`` nodes of the ``inventory`` fleet, ``--pods`` pods), the repo without (A) and with
   (B) the pricing block in both revisions: B prices every changed pool and every pool the autoscaler moves.

Prints the median CPU seconds of each side, the median of the pair-by-pair ratios B / A and its range; then, for
the priced diff, pricing's own share in one process: the CPU time of ``renderer.pipeline._pricing``,
``renderer.impact.cost.fleet_changes`` and ``renderer.capacity.cost.change_cost``, the ``cost`` JSON, and the import
time of the pricing modules (``python -X importtime``) — on a shared machine the pairs' spread is larger than what
pricing adds. Figures only.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from impact import git, prepare
from run import Run, allocatable_command, paired

HERE = Path(__file__).resolve().parent

PRICING = "pricing:\n  region: us-east-1\n"


def _priced_copy(plain: Path, priced: Path) -> None:
    if priced.exists():
        shutil.rmtree(priced)
    shutil.copytree(plain, priced, ignore=shutil.ignore_patterns(".git"))
    settings = priced / ".allocatable.yaml"
    text = (
        settings.read_text(encoding="utf-8")
        if settings.exists()
        else ("apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\n")
    )
    settings.write_text(text.rstrip("\n") + "\n" + PRICING, encoding="utf-8")


def _summary(label: str, a: list[Run], b: list[Run]) -> str:
    ratios = [y.cpu / x.cpu for x, y in zip(a, b, strict=True)]
    return (
        f"| {label} | {statistics.median(r.cpu for r in a):.2f} | {statistics.median(r.cpu for r in b):.2f} | "
        f"x{statistics.median(ratios):.3f} | {min(ratios):.3f} - {max(ratios):.3f} | "
        f"{max(r.rss_mb for r in a):.0f} / {max(r.rss_mb for r in b):.0f} | "
        f"{sorted({r.exit_code for r in a + b})} |"
    )


_ACCOUNT = """
import functools, sys, time
from pathlib import Path
import renderer.capacity.cost as cc
import renderer.impact.cost as ic
import renderer.pipeline as pl
spent = {}
def timed(mod, name):
    fn = getattr(mod, name)
    @functools.wraps(fn)
    def wrap(*a, **k):
        t = time.process_time()
        try:
            return fn(*a, **k)
        finally:
            spent[name] = spent.get(name, 0) + time.process_time() - t
    setattr(mod, name, wrap)
for mod, name in ((pl, "_pricing"), (ic, "fleet_changes"), (cc, "change_cost")):
    timed(mod, name)
t0 = time.process_time()
done = pl.diff([Path(sys.argv[1])], base="main", snapshot=["nodes.json", "pods.json"])
total = time.process_time() - t0
t = time.process_time()
doc = cc.change_json(done.result.cost)
spent["change_json"] = time.process_time() - t
print(f"{total:.2f}", " ".join(f"{k}={v * 1000:.1f}" for k, v in spent.items()), len(doc["fleet"]), len(doc["pools"]))
"""
_PRICING_MODULES = ("renderer.cost", "renderer.capacity.cost", "renderer.impact.cost", "renderer.reporters.costs")


def accounting(cluster: Path) -> str:
    out = subprocess.run(
        [sys.executable, "-c", _ACCOUNT, "repo-priced"], cwd=cluster, capture_output=True, text=True, check=True
    ).stdout.split()
    total, parts, fleet, pools = float(out[0]), out[1:-2], out[-2], out[-1]
    imports = subprocess.run(
        [
            sys.executable,
            "-X",
            "importtime",
            "-c",
            "import renderer.pipeline, renderer.impact.cost, renderer.reporters.costs",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    own_us = sum(
        int(line.split("|")[0].split(":")[1])
        for line in imports.splitlines()
        if line.startswith("import time:") and line.split("|")[-1].strip().startswith(_PRICING_MODULES)
    )
    spent = sum(float(p.split("=")[1]) for p in parts) + own_us / 1000
    return (
        f"pricing's own CPU in the priced diff: {', '.join(p.replace('=', ' ') + ' ms' for p in parts)}, imports "
        f"{own_us / 1000:.1f} ms: {spent:.1f} ms of {total:.2f} s ({spent / 10 / total:.2f} %); {fleet} fleet changes "
        f"and {pools} pools priced"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--lint-size", type=int, default=10000)
    parser.add_argument("--nodes", type=int, default=20000)
    parser.add_argument("--pods", type=int, default=20000)
    parser.add_argument("--pairs", type=int, default=3)
    parser.add_argument("--skip-lint", action="store_true")
    parser.add_argument("--skip-diff", action="store_true")
    args = parser.parse_args()
    out: Path = args.out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    cmd = allocatable_command()
    print(
        "| command | without pricing, CPU s | with pricing, CPU s | ratio (median of pairs) | ratio range | "
        "peak RSS MB | exit codes |"
    )
    print("|---|---|---|---|---|---|---|")
    if not args.skip_lint:
        plain = out / "lint-plain"
        if not plain.exists():
            subprocess.run(
                [sys.executable, str(HERE / "generate.py"), "synthetic", str(args.lint_size), str(plain)],
                check=True,
                capture_output=True,
            )
        _priced_copy(plain, out / "lint-priced")
        a, b = paired(
            [*cmd, "lint", "-o", "json", str(plain)], [*cmd, "lint", "-o", "json", str(out / "lint-priced")], args.pairs
        )
        print(_summary(f"lint, synthetic {args.lint_size:,} documents", a, b), flush=True)
    if not args.skip_diff:
        cluster = out / "cluster"
        prepare(cluster, args.nodes, args.pods)
        priced = cluster / "repo-priced"
        if not (priced / ".git").is_dir():
            git(cluster / "repo", "stash", "-q")  # the base as committed, priced in both revisions
            _priced_copy(cluster / "repo", priced)
            git(cluster / "repo", "stash", "pop", "-q")
            git(priced, "init", "-q", "-b", "main")
            git(priced, "add", "-A")
            git(priced, "commit", "-q", "-m", "base")
            for path in sorted((cluster / "repo" / "reservations").glob("*.yaml")):
                shutil.copy(path, priced / "reservations" / path.name)  # the same change in the work tree
        diff = ["diff", "--base", "main", "--nodes", "nodes.json", "--pods", "pods.json", "-o", "json"]
        a, b = paired(
            [*cmd, diff[0], "repo", *diff[1:]], [*cmd, diff[0], "repo-priced", *diff[1:]], args.pairs, cwd=cluster
        )
        print(_summary(f"diff --base, {args.nodes:,} nodes and {args.pods:,} pods", a, b), flush=True)
        print(accounting(cluster), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
