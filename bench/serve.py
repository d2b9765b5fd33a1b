"""``allocatable serve`` at fleet scale: one evaluation against ``json.loads``, memory over many cycles, scrape time.

    python bench/serve.py [--nodes 20000] [--cycles 100] [--runs 3] [--workdir DIR]

The fleet: ``fleet.node_object``'s real Node layout (labels, annotations, addresses, images, conditions, as
``kubectl get nodes -o json`` prints an EKS node; about 10 KB a node), each carrying the labels, capacity,
allocatable and nodeInfo of one of the published EKS and GKE nodes of tests/real-nodes/ that verify reproduces
exactly, under its own name. So every node matches its prediction, as most of a healthy fleet does; the policy repo
is empty (the platforms' defaults). Printed:

- ``ratio``: one serve cycle (read the dump, verify every node, serialise the metrics) / ``json.loads`` of the same
  dump text, each in a fresh process, paired A B A B (``--runs`` pairs), median of the pair ratios, in wall seconds
  and in CPU seconds (user + system of the process: on a shared machine the wait for a core is not the work);
- ``rss``: ``allocatable serve --interval 10ms --nodes FILE`` (``--soak-interval``) run for ``--cycles`` cycles; for every cycle the
  resident set it leaves behind (read as its log line arrives) and the largest one while it ran (read every 20 ms
  from ``/proc``, Linux only), every tenth printed, and the spread of each over the cycles after the first fifth;
- ``scrape``: up to 200 ``GET /metrics`` (one every 0.5 s) while it cycles back to back (the worst case: the cycle
  and the scrape share the interpreter), and 100 between cycles (``--interval 1h``): median and largest time.

Environment variables reach the serve process (``MALLOC_ARENA_MAX=2 python bench/serve.py ...`` measures glibc's
allocator with two arenas).

Figures only (docs/performance.md, "serve"): nothing passes or fails.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import fleet
import yaml

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED = sorted((ROOT / "tests/real-nodes/eks").glob("*.yaml")) + [
    ROOT / f"tests/real-nodes/gke/{name}.yaml"
    for name in ("c2-standard-16-1-31", "e2-medium-1-23", "e2-small-1-29", "n1-standard-2-1-35", "n2-standard-8-1-16")
]


def write_fleet(path: Path, n: int) -> None:
    published = [yaml.safe_load(p.read_text(encoding="utf-8")) for p in PUBLISHED]
    rng = random.Random(7)
    items: list[dict[str, Any]] = []
    for i in range(n):
        node = fleet.node_object(i, rng)
        real = published[i % len(published)]
        name = node["metadata"]["name"]
        node["metadata"]["labels"] = {**real["metadata"]["labels"], "kubernetes.io/hostname": name}
        node["metadata"]["annotations"] = dict(real["metadata"].get("annotations", {}))
        for key in ("capacity", "allocatable", "nodeInfo"):
            if key in real["status"]:
                node["status"][key] = real["status"][key]
        items.append(node)
    path.write_text(json.dumps(fleet.node_list(items), indent=4), encoding="utf-8")


_JSON = (
    "import json, sys, time\n"
    "data = open(sys.argv[1], 'rb').read()\n"
    "t, c = time.perf_counter(), time.process_time()\n"
    "json.loads(data)\n"
    "print(time.perf_counter() - t, time.process_time() - c)\n"
)
_CYCLE = (
    "import io, sys, time\n"
    "from pathlib import Path\n"
    "from renderer.serve.service import Service\n"
    "from renderer.serve.sources import FileSource\n"
    "s = Service.of(Path(sys.argv[2]), FileSource(sys.argv[1], None, None, None), 60.0)\n"
    "s.log = io.StringIO()\n"
    "s.watch.poll()\n"  # the policy load is once per change, not per cycle
    "t, c = time.perf_counter(), time.process_time()\n"
    "assert s.cycle(), s.last_error\n"
    "print(time.perf_counter() - t, time.process_time() - c, s.evaluation.tally.nodes, s.evaluation.tally.drift, len(s.evaluation.text))\n"
)


def _run(code: str, *args: str) -> list[str]:
    out = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, check=True, cwd=ROOT)
    return out.stdout.split()


def ratio(nodes: Path, policies: Path, runs: int) -> None:
    pairs = []
    cpu_pairs = []
    for _ in range(runs):
        loads, loads_cpu = map(float, _run(_JSON, str(nodes)))
        cycle, cycle_cpu, count, drift, size = _run(_CYCLE, str(nodes), str(policies))
        pairs.append((loads, float(cycle)))
        cpu_pairs.append((loads_cpu, float(cycle_cpu)))
        print(
            f"  json.loads {loads:.2f} s ({loads_cpu:.2f} s CPU), cycle {float(cycle):.2f} s ({float(cycle_cpu):.2f} s "
            f"CPU; {count} nodes, {drift} drift, {size} bytes of metrics)"
        )
    # CPU seconds as well as wall seconds: on a shared machine a process waits for a core, and the wait is not its
    # work (the wall ratio of one pair moved from x2.0 to x4.8 with the load on 2026-12-06; the CPU ratio far less).
    for what, got in (("wall", pairs), ("CPU", cpu_pairs)):
        ratios = [c / j for j, c in got]
        print(
            f"ratio ({what}): cycle / json.loads median x{statistics.median(ratios):.2f} "
            f"(range x{min(ratios):.2f}-x{max(ratios):.2f})"
        )


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=30) as resp:
        return resp.read()  # type: ignore[no-any-return]


def _start(nodes: Path, policies: Path, interval: str) -> tuple[subprocess.Popen[bytes], str]:
    """``allocatable serve`` on a free loopback port, every ``interval``; the process and its /metrics address."""
    command = [sys.executable, "-m", "renderer", "serve", str(policies), "--nodes", str(nodes)]
    proc = subprocess.Popen(
        [*command, "--interval", interval, "--listen", "127.0.0.1:0"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )
    assert proc.stderr is not None
    line = proc.stderr.readline().decode()
    base = re.search(r"listening on (http://\S+)", line)
    assert base, line
    return proc, base.group(1) + "/metrics"


def _rss(pid: int) -> float:
    """The resident set of ``pid`` now, in bytes (Linux: ``/proc/PID/statm``, its second field in pages)."""
    with open(f"/proc/{pid}/statm", encoding="ascii") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _spread(values: list[float]) -> float:
    return (max(values) - min(values)) / min(values) * 100


def soak(nodes: Path, policies: Path, cycles: int, interval: str = "10ms") -> None:
    """``cycles`` back-to-back cycles. serve logs one line per good cycle, after it has dropped the cycle's objects
    and trimmed the heap: the resident set read as that line arrives is what a cycle leaves behind (``held``); the
    largest resident set read every 20 ms while the cycle ran is its ``peak``. Read from ``/proc`` (no scrape
    needed: a scrape of 16 MB is work for the server), each cycle, so the figures do not depend on where in a
    cycle a sample lands (the earlier version read ``process_resident_memory_bytes`` from a scrape shortly after a
    cycle started, while the dump was being read: its figures moved with that moment)."""
    proc, url = _start(nodes, policies, interval)
    assert proc.stderr is not None
    ends: list[tuple[float, float]] = []  # (monotonic time, resident set) as each cycle's line arrived

    def follow() -> None:
        assert proc.stderr is not None
        for raw in proc.stderr:
            if b" drift, " in raw:
                ends.append((time.monotonic(), _rss(proc.pid)))

    reader = threading.Thread(target=follow, daemon=True)
    reader.start()
    held: list[float] = []
    peaks: list[float] = []
    scrapes: list[float] = []
    peak = 0.0
    next_scrape = time.monotonic()
    try:
        while len(held) < cycles and proc.poll() is None:
            try:
                peak = max(peak, _rss(proc.pid))
            except OSError:
                break
            while len(held) < len(ends):
                held.append(ends[len(held)][1])
                peaks.append(peak)
                peak = 0.0
                done = len(held)
                if done % max(1, cycles // 10) == 0:
                    print(f"  after cycle {done}: held {held[-1] / 2**20:.0f} MiB, peak {peaks[-1] / 2**20:.0f} MiB")
            if len(scrapes) < 200 and time.monotonic() >= next_scrape:
                t = time.perf_counter()
                _get(url)
                scrapes.append(time.perf_counter() - t)
                next_scrape = time.monotonic() + 0.5
            time.sleep(0.02)
        with open(f"/proc/{proc.pid}/status", encoding="ascii") as f:
            hwm = next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmHWM:"))
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    warm = cycles // 5  # the first fifth warms caches (interned quantities, validators)
    print(
        f"rss held after a cycle: {min(held[warm:]) / 2**20:.0f}-{max(held[warm:]) / 2**20:.0f} MiB over cycles "
        f"{warm + 1}-{len(held)} (spread {_spread(held[warm:]):.1f} %; cycle {warm + 1}: {held[warm] / 2**20:.0f}, "
        f"last: {held[-1] / 2**20:.0f})"
    )
    print(
        f"rss peak within a cycle: {min(peaks[warm:]) / 2**20:.0f}-{max(peaks[warm:]) / 2**20:.0f} MiB over cycles "
        f"{warm + 1}-{len(peaks)} (spread {_spread(peaks[warm:]):.1f} %); process peak (VmHWM) {hwm / 2**20:.0f} MiB"
    )
    scrapes.sort()
    print(
        f"scrape while cycling: median {statistics.median(scrapes) * 1000:.1f} ms, largest {scrapes[-1] * 1000:.1f} ms "
        f"({len(scrapes)} scrapes)"
    )


def idle_scrapes(nodes: Path, policies: Path, count: int = 100) -> None:
    """Scrapes between cycles (``--interval 1h``: after the first cycle, nothing runs but the scrapes)."""
    proc, url = _start(nodes, policies, "1h")
    try:
        while True:
            try:
                with urllib.request.urlopen(url.removesuffix("/metrics") + "/readyz", timeout=30):
                    break
            except OSError:
                time.sleep(0.5)
        times = []
        size = 0
        for _ in range(count):
            t = time.perf_counter()
            size = len(_get(url))
            times.append(time.perf_counter() - t)
    finally:
        proc.terminate()
        proc.wait(timeout=120)
    times.sort()
    print(
        f"scrape between cycles: median {statistics.median(times) * 1000:.1f} ms, largest {times[-1] * 1000:.1f} ms "
        f"({count} scrapes of {size / 1e6:.1f} MB)"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, default=20_000)
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--workdir", type=Path, default=None)
    parser.add_argument(
        "--soak-interval",
        default="10ms",
        help="serve's --interval in the soak (10ms: back to back; on a busy machine a pause of a few seconds lets "
        "the held figure be read before the next cycle starts)",
    )
    parser.add_argument("--skip", choices=["ratio", "soak", "idle"], action="append", default=[])
    args = parser.parse_args(argv)
    work = args.workdir or Path(tempfile.mkdtemp(prefix="serve-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    nodes = work / f"nodes-{args.nodes}.json"
    if not nodes.exists():
        write_fleet(nodes, args.nodes)
    policies = work / "policies"
    policies.mkdir(exist_ok=True)
    print(
        f"fleet: {args.nodes} nodes, {nodes.stat().st_size / 1e6:.0f} MB ({nodes}); python {sys.version.split()[0]}, {os.cpu_count()} CPUs"
    )
    if "ratio" not in args.skip:
        ratio(nodes, policies, args.runs)
    if "soak" not in args.skip:
        soak(nodes, policies, args.cycles, args.soak_interval)
    if "idle" not in args.skip:
        idle_scrapes(nodes, policies)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
