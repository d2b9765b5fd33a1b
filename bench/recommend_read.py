"""``recommend --usage`` reading raw exports: time against ``json.loads`` of the same files, and peak memory.

    python bench/recommend_read.py OUTDIR [--nodes 1000] [--days 14] [--step 300] [--runs 3] [--keep]

Writes the five statistics queries' exports as a Prometheus ``/api/v1/query_range`` response at ``--step`` seconds (the raw
worst case: a team that exported at 5-minute steps instead of the daily aggregates `--print-queries` prints):
``reserved_memory`` and ``reserved_cpu`` with four cgroups per node (``/system.slice``, kubelet, containerd,
``/kubepods.slice``-like ids as the default queries return them), the three per-node queries with one series each.
At 1,000 nodes, 14 days and 5 minutes: 11,000 series × 4,032 samples (44 M samples, about 1.2 GB).

Then, each in a fresh process started from this one (its peak resident set is the child's ``ru_maxrss``, from
``os.wait4``), in turn ``--runs`` times: ``json.loads`` of each file (read whole, then parsed; the files one after
another, each freed before the next) and ``renderer.recommend.source.read_files`` of all of them. Prints the medians,
their ratio, and both peaks. Figures only; nothing passes or fails here.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

QUERIES = (
    ("reserved_memory", ("/system.slice", "/system.slice/kubelet.service", "/system.slice/containerd.service", "/x")),
    ("reserved_cpu", ("/system.slice", "/system.slice/kubelet.service", "/system.slice/containerd.service", "/x")),
    ("running_pods", ("",)),
    ("pods_memory_ratio", ("",)),
    ("pods_cpu_ratio", ("",)),
)
START = 1761955200  # 2025-11-01T00:00:00Z


def write(out: Path, nodes: int, days: int, step: int) -> int:
    """The exports; their total size in bytes."""
    out.mkdir(parents=True, exist_ok=True)
    stamps = [str(START + step * (k + 1)) for k in range(days * 86400 // step)]
    values = [f'"{v}"' for v in ("123456789", "234567890", "0.125", "17", "0.0625", "345678901")]
    total = 0
    for name, ids in QUERIES:
        path = out / f"{name}.json"
        with path.open("w", encoding="utf-8") as f:
            f.write('{"status":"success","data":{"resultType":"matrix","result":[')
            first = True
            for n in range(nodes):
                for k, cgroup in enumerate(ids):
                    metric = f'"node":"node-{n:05d}"' + (f',"id":"{cgroup}"' if cgroup else "")
                    body = ",".join(f"[{t},{values[(j + n + k) % 6]}]" for j, t in enumerate(stamps))
                    f.write(("" if first else ",") + '{"metric":{' + metric + '},"values":[' + body + "]}")
                    first = False
            f.write("]}}")
        total += path.stat().st_size
    return total


_LOADS = """
import json, sys
for path in sys.argv[1:]:
    with open(path, "rb") as f:
        doc = json.loads(f.read())
    del doc
"""
_READ = """
import sys
from renderer.recommend.queries import QUERIES
from renderer.recommend.source import read_files
usage = read_files(sys.argv[1:], QUERIES, 1 << 34)
assert usage.days
"""


def _child(code: str, files: list[str]) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of one child running ``code`` over ``files``."""
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", code, *files])
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - started
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"child failed ({proc.returncode})")
    return elapsed, usage.ru_maxrss


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("out", type=Path)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--step", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--keep", action="store_true", help="keep the exports")
    args = parser.parse_args()
    size = write(args.out, args.nodes, args.days, args.step)
    files = sorted(str(p) for p in args.out.glob("*.json"))
    loads: list[float] = []
    reads: list[float] = []
    ratios: list[float] = []
    rss = {"loads": 0, "read": 0}
    try:
        for _ in range(args.runs):
            t_loads, r_loads = _child(_LOADS, files)
            t_read, r_read = _child(_READ, files)
            loads.append(t_loads)
            reads.append(t_read)
            ratios.append(t_read / t_loads)
            rss["loads"] = max(rss["loads"], r_loads)
            rss["read"] = max(rss["read"], r_read)
    finally:
        if not args.keep:
            shutil.rmtree(args.out)
    samples = sum(len(ids) for _, ids in QUERIES) * args.nodes * (args.days * 86400 // args.step)
    print(f"{args.nodes} nodes x {args.days} days at {args.step}s: {samples:,} samples, {size / 1e6:.0f} MB in 5 files")
    print(f"json.loads      {statistics.median(loads):7.2f} s   peak RSS {rss['loads'] / 1024:6.0f} MB")
    print(f"recommend read  {statistics.median(reads):7.2f} s   peak RSS {rss['read'] / 1024:6.0f} MB")
    print(f"ratio (median of pairs) {statistics.median(ratios):.2f}  range {min(ratios):.2f}-{max(ratios):.2f}")


if __name__ == "__main__":
    main()
