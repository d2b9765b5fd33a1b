"""``allocatable diff --base`` with the re-packing simulation on a generated cluster snapshot, against a bare parse.

    python bench/impact.py OUTDIR --nodes 2000 --pods 20000 [--allocatable PATH] [--clusters 30] [--daemonsets 24]
        [--request-shapes 1000] [--constrained 0.3] [--preferred 0.3] [--distinct-daemonsets]

1. writes OUTDIR/repo, OUTDIR/nodes.json and OUTDIR/pods.json with ``bench/verify_dumps.py`` (unless they exist),
   shaped as a real fleet by default: a multi-cluster policy repo (``--clusters``, about 100 documents each, the
   snapshot's cluster one of them), node agents limited to one NodePool each besides the three EKS add-ons
   (``--daemonsets``), 1,000 Deployments sized apart (``--request-shapes``: 1,000 distinct pod shapes), 30 % of
   them with zone spread, hostname spread or hostname anti-affinity (``--constrained``), a share preferring not to
   share a node with their own replicas (``--preferred``, default 0);
   ``--distinct-daemonsets`` names a DaemonSet of its own in every daemon pod (the hostile case of issue 30);
2. makes OUTDIR/repo a git repository: the generated policies committed as ``main``, then every ReservationPolicy's
   kube-reserved memory raised by 2Gi in the work tree (a change that displaces pods on the fullest nodes);
3. times, each in a fresh process started from a small probe (so its peak RSS is its own): ``allocatable diff repo
   --base main --nodes nodes.json --pods pods.json -o json`` and the floor: ``json.loads`` of both files plus
   ``bare_parse.py`` over the repo twice (both revisions), in one process, and each file in its own (for a snapshot
   whose bare parse does not fit in memory at once); prints wall and CPU seconds, the ratios and each peak RSS.

Figures only, nothing passes or fails. Deterministic inputs for the counts.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import verify_dumps

HERE = Path(__file__).resolve().parent
_PROBE = (
    "import resource, subprocess, sys, time\n"
    "t = time.perf_counter()\n"
    "done = subprocess.run(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=sys.argv[1])\n"
    "wall = time.perf_counter() - t\n"
    "u = resource.getrusage(resource.RUSAGE_CHILDREN)\n"
    "print(wall, u.ru_utime + u.ru_stime, u.ru_maxrss, done.returncode)\n"
)
_BARE = (
    "import json, runpy, sys\n"
    f"main = runpy.run_path({str(HERE / 'bare_parse.py')!r})['main']\n"
    "for p in sys.argv[1:]:\n"
    "    if p.endswith('.json'):\n"
    "        with open(p, 'rb') as f:\n"
    "            json.loads(f.read())\n"
    "    else:\n"
    "        main(p)\n"
)


def measure(cwd: Path, *argv: str) -> tuple[float, float, float, int]:
    """(wall s, cpu s, peak RSS MB, exit code) of one fresh process."""
    out = subprocess.run([sys.executable, "-c", _PROBE, str(cwd), *argv], capture_output=True, text=True, check=True)
    wall, cpu, rss, code = out.stdout.split()
    return float(wall), float(cpu), int(rss) / 1024, int(code)


def git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull, "HOME": str(repo)}
    subprocess.run(
        ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com", *args],
        cwd=repo,
        env=env,
        check=True,
        capture_output=True,
    )


def prepare(out: Path, nodes: int, pods: int, fleet: list[str]) -> None:
    if not (out / "pods.json").is_file():
        subprocess.run(
            [
                sys.executable,
                str(HERE / "verify_dumps.py"),
                str(out),
                "--nodes",
                str(nodes),
                "--pods",
                str(pods),
                "--no-yaml",
                *fleet,
            ],
            check=True,
        )
    repo = out / "repo"
    if not (repo / ".git").is_dir():
        git(repo, "init", "-q", "-b", "main")
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", "base")
        for path in sorted((repo / "reservations").glob("*.yaml")):
            text = path.read_text(encoding="utf-8")
            path.write_text(
                re.sub(r"(kubeReserved:\n    cpu: \S+\n    memory: )(\d+)Mi", _raise, text), encoding="utf-8"
            )


def _raise(m: re.Match[str]) -> str:
    return f"{m.group(1)}{int(m.group(2)) + 2048}Mi"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--nodes", type=int, default=2000)
    parser.add_argument("--pods", type=int, default=20000)
    parser.add_argument("--allocatable", default=str(Path(sys.executable).parent / "allocatable"))
    verify_dumps.add_fleet_arguments(parser, realistic=True)
    args = parser.parse_args()
    out: Path = args.out.resolve()
    fleet = ["--clusters", str(args.clusters), "--daemonsets", str(args.daemonsets)]
    fleet += ["--request-shapes", str(args.request_shapes), "--constrained", str(args.constrained)]
    fleet += ["--preferred", str(args.preferred)]
    fleet += ["--distinct-daemonsets"] if args.distinct_daemonsets else []
    prepare(out, args.nodes, args.pods, fleet)
    size = sum((out / f).stat().st_size for f in ("nodes.json", "pods.json")) / 1e6
    bare = measure(out, sys.executable, "-c", _BARE, "nodes.json", "pods.json", "repo", "repo")
    # each file in a process of its own too: the floor when both do not fit in memory at once
    per_file = [
        measure(out, sys.executable, "-c", _BARE, *names) for names in (("nodes.json", "repo", "repo"), ("pods.json",))
    ]
    t0 = time.strftime("%Y-%m-%d")
    diff = measure(
        out,
        args.allocatable,
        "diff",
        "repo",
        "--base",
        "main",
        "--nodes",
        "nodes.json",
        "--pods",
        "pods.json",
        "-o",
        "json",
    )
    print(f"{args.nodes} nodes, {args.pods} pods, {size:.0f} MB of JSON ({t0}, {os.cpu_count()} cores)")
    print(
        f"bare json.loads and the repo's two revisions: wall {bare[0]:.1f} s, cpu {bare[1]:.1f} s, RSS {bare[2]:.0f} MB"
    )
    print(f"diff --base + simulation: wall {diff[0]:.1f} s, cpu {diff[1]:.1f} s, RSS {diff[2]:.0f} MB, exit {diff[3]}")
    split = sum(r[1] for r in per_file)
    print(
        f"bare json.loads per file: nodes cpu {per_file[0][1]:.1f} s ({per_file[0][2]:.0f} MB), "
        f"pods cpu {per_file[1][1]:.1f} s ({per_file[1][2]:.0f} MB), sum {split:.1f} s"
    )
    print(f"ratio (cpu): x{diff[1] / bare[1]:.2f} of both in one process, x{diff[1] / split:.2f} of the per-file sum")
    print(
        json.dumps(
            {"nodes": args.nodes, "pods": args.pods, "mb": size, "bare": bare, "perFile": per_file, "diff": diff}
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
