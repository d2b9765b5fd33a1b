"""``recommend --prometheus`` on a 1,000-node fleet against a loopback Prometheus holding 14 days of raw series.

    python bench/recommend_live.py WORKDIR [--nodes 1000] [--days 14] [--interval 30] [--pods 10] [--jobs 2]
        [--runs 3] [--parallel N] [--whole-window] [--max-samples N] [--keep] [--reuse] [--text DIR] [--no-stats]

The fixture is exactly the series the default queries read (``renderer.recommend.queries``), labelled as
kube-prometheus-stack scrapes them, one sample every ``--interval`` seconds (kube-prometheus-stack's default scrape
interval is 30 s), per node:

- cAdvisor (``job="kubelet", metrics_path="/metrics/cadvisor"``): ``container_memory_working_set_bytes`` and
  ``container_cpu_usage_seconds_total`` (a counter) of ``/system.slice``, ``/system.slice/kubelet.service``,
  ``/system.slice/containerd.service`` and ``/kubepods.slice``: 8 series;
- the kubelet's ``kubelet_running_pods``; kube-state-metrics' ``kube_node_status_condition{condition="MemoryPressure",
  status="true"}``: 2 series;
- kube-state-metrics' ``kube_pod_container_resource_requests`` of ``--pods`` pods (one container each), cpu and
  memory: 2 × pods series.

Values: gauges follow a daily wave with a per-series phase and a hashed jitter, counters grow at a rate that follows
the same kind of wave (monotonic, continuous across files), requests are constant (as kube-state-metrics reports a
running pod's). Each series uses one of 64 value patterns of its kind (the text is built by joining pre-formatted
samples, so writing it costs little next to promtool).

Bounded: the series are written as OpenMetrics text one 18-hour window at a time (the window Prometheus itself cuts
blocks by for a 14-day retention: ranges 2h × 3^k up to 10 % of the retention), into one file per window (under
``--text DIR``, WORKDIR by default), turned into one TSDB block by ``promtool tsdb create-blocks-from openmetrics
--max-block-duration=18h`` (promtool reads the file twice: once for its time range, once for the block) and
deleted when promtool is done; ``--jobs`` promtool processes run at a time (so at most that many windows' text
exist at once). Windows do not overlap, so the data directory holds non-overlapping 18-hour blocks, as a server
with ``--storage.tsdb.retention.time=15d`` compacts them (it has nothing to compact at startup; none is left to do
while the queries run).

Then ``prometheus`` (tests/support/prometheus.py's ``running``: loopback, a free port, bounded wait for ``/-/ready``)
is started on that directory, and ``--runs`` times ``allocatable recommend POLICIES --nodes NODES --prometheus URL
--end END --window 14d -o json`` runs under ``/usr/bin/time`` (``--parallel N``: with that many requests in
flight instead of what recommend ships; ``--whole-window``: each query in one request over the whole window, as
recommend asked before it split the subquery queries by day; both to compare) (wall seconds, CPU, peak RSS of allocatable alone).
POLICIES is the worked example's (docs/examples/recommend/policies) with its two pools' counts scaled to the fleet;
NODES a ``kubectl get nodes`` dump of the fleet (60 % general, 40 % batch, the example's Node layouts). Printed: the
fixture's shape (series, samples, TSDB bytes, time to build it), recommend's own line (queries asked, series and
bytes of answers), each run's figures (wall time; allocatable's cpu time and peak RSS; the server's cpu time, from its own
``process_cpu_seconds_total``), and each query's cost on the server (its ``stats=all``: evaluation time and
samples touched), asked one at a time.

Figures only (docs/performance.md, "recommend"): nothing passes or fails. WORKDIR is deleted at the end unless
``--keep`` (``--reuse`` starts from a data directory a ``--keep`` run left).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import TextIO

ROOT = Path(__file__).resolve().parents[1]


def _support() -> ModuleType:
    """The tests' helper package ``tests/support`` (its loopback Prometheus), loaded by its path as the package
    ``support`` so its own ``from support import tools`` resolves, without putting ``tests/`` on ``sys.path``."""
    spec = importlib.util.spec_from_file_location(
        "support",
        ROOT / "tests" / "support" / "__init__.py",
        submodule_search_locations=[str(ROOT / "tests" / "support")],
    )
    assert spec is not None and spec.loader is not None
    package = importlib.util.module_from_spec(spec)
    sys.modules["support"] = package
    spec.loader.exec_module(package)
    return package


_support()
from support import prometheus  # noqa: E402  (the loopback server the tests start)

DAY = 86400
WINDOW = 18 * 3600  # the block range Prometheus uses with a 15-day retention
END = 1763164800  # 2025-11-15T00:00:00Z
PATTERNS = 64
MI = 1 << 20
GI = 1 << 30
CADVISOR = 'job="kubelet",metrics_path="/metrics/cadvisor"'
IDS = ("/system.slice", "/system.slice/kubelet.service", "/system.slice/containerd.service", "/kubepods.slice")
#: per cgroup: typical working set (bytes) and cpu (cores)
MEMORY = (700 * MI, 180 * MI, 90 * MI, 9 * GI)
CPU = (0.15, 0.08, 0.04, 1.5)


def _jitter(p: int, j: int) -> float:
    """A reproducible number in [0, 1) for pattern ``p`` and sample ``j``."""
    return ((j * 2654435761 + p * 40503) % 65521) / 65521


def _wave(p: int, j: int, per_day: int) -> float:
    return math.sin(2 * math.pi * j / per_day + p)


class Fixture:
    def __init__(self, nodes: int, days: int, interval: int, pods: int) -> None:
        self.nodes, self.days, self.interval, self.pods = nodes, days, interval, pods
        self.start = END - days * DAY
        self.per_day = DAY // interval
        self.samples = 0

    def node(self, n: int) -> str:
        return f"ip-10-{n // 65536 % 256}-{n // 256 % 256}-{n % 256}.ec2.internal"

    def stamps(self, w0: int) -> range:
        """The sample indices ``j`` (time ``start + j × interval``, j ≥ 1, up to END) in [w0, w0 + WINDOW)."""
        first = max(1, -(-(w0 - self.start) // self.interval))
        last = min((END - self.start) // self.interval, (w0 + WINDOW - 1 - self.start) // self.interval)
        return range(first, last + 1)

    def patterns(self, js: range) -> dict[str, list[list[str]]]:
        """Per kind, PATTERNS lists of ``"value time"`` for the samples ``js``."""
        out: dict[str, list[list[str]]] = {}
        ts = [str(self.start + j * self.interval) for j in js]
        per_day = self.per_day
        for k, (memory, cpu) in enumerate(zip(MEMORY, CPU, strict=True)):
            out[f"mem{k}"] = [
                [
                    f"{int(memory * (0.7 + p / PATTERNS * 0.6) * (1 + 0.1 * _wave(p, j, per_day) + 0.05 * _jitter(p, j)))} {t}"
                    for j, t in zip(js, ts, strict=True)
                ]
                for p in range(PATTERNS)
            ]
            # cpu seconds: rate r(1 + 0.5 cos(...)) integrated, so the counter never falls and is the same value at
            # a window's end and the next one's start
            out[f"cpu{k}"] = [
                [
                    f"{cpu * (0.7 + p / PATTERNS * 0.6) * self.interval * (j + 0.5 * per_day / (2 * math.pi) * _wave(p, j, per_day)):.4f} {t}"
                    for j, t in zip(js, ts, strict=True)
                ]
                for p in range(PATTERNS)
            ]
        out["pods"] = [
            [
                f"{int(20 + p % 20 + 6 * _wave(p, j, per_day) + 3 * _jitter(p, j))} {t}"
                for j, t in zip(js, ts, strict=True)
            ]
            for p in range(PATTERNS)
        ]
        out["zero"] = [[f"0 {t}" for t in ts]]
        out["req_memory"] = [[f"{12 * GI // self.pods} {t}" for t in ts]]
        out["req_cpu"] = [[f"{2.5 / self.pods:g} {t}" for t in ts]]
        return out

    def _series(self, f: TextIO, prefix: str, values: list[str]) -> None:
        f.write(prefix + ("\n" + prefix).join(values) + "\n")
        self.samples += len(values)

    def write(self, f: TextIO, w0: int) -> bool:
        """The OpenMetrics text of window [w0, w0 + WINDOW); False when it holds no sample."""
        js = self.stamps(w0)
        if not js:
            return False
        pat = self.patterns(js)
        nodes = [self.node(n) for n in range(self.nodes)]
        f.write("# TYPE container_memory_working_set_bytes gauge\n")
        for n, node in enumerate(nodes):
            for k, cgroup in enumerate(IDS):
                prefix = f'container_memory_working_set_bytes{{id="{cgroup}",{CADVISOR},node="{node}"}} '
                self._series(f, prefix, pat[f"mem{k}"][(n * 7 + k) % PATTERNS])
        f.write("# TYPE container_cpu_usage_seconds counter\n")
        for n, node in enumerate(nodes):
            for k, cgroup in enumerate(IDS):
                prefix = f'container_cpu_usage_seconds_total{{id="{cgroup}",{CADVISOR},node="{node}"}} '
                self._series(f, prefix, pat[f"cpu{k}"][(n * 5 + k) % PATTERNS])
        f.write("# TYPE kubelet_running_pods gauge\n")
        for n, node in enumerate(nodes):
            prefix = f'kubelet_running_pods{{job="kubelet",metrics_path="/metrics",node="{node}"}} '
            self._series(f, prefix, pat["pods"][n % PATTERNS])
        f.write("# TYPE kube_node_status_condition gauge\n")
        for node in nodes:
            prefix = (
                'kube_node_status_condition{condition="MemoryPressure",job="kube-state-metrics",'
                f'node="{node}",status="true"}} '
            )
            self._series(f, prefix, pat["zero"][0])
        f.write("# TYPE kube_pod_container_resource_requests gauge\n")
        for n, node in enumerate(nodes):
            for k in range(self.pods):
                for resource, unit in (("cpu", "core"), ("memory", "byte")):
                    prefix = (
                        f'kube_pod_container_resource_requests{{container="app",job="kube-state-metrics",'
                        f'namespace="team-{k % 7}",node="{node}",pod="app-{n}-{k}",resource="{resource}",'
                        f'unit="{unit}"}} '
                    )
                    self._series(f, prefix, pat[f"req_{resource}"][0])
        f.write("# EOF\n")
        return True

    def series(self) -> int:
        return self.nodes * (len(IDS) * 2 + 2 + 2 * self.pods)


def build(fx: Fixture, data: Path, text: Path, jobs: int) -> tuple[float, int]:
    """Every window into ``data``, ``jobs`` promtool processes at a time (each window's text exists from its writing
    to the end of its promtool run); (seconds writing text, largest text file in bytes)."""
    promtool = shutil.which("promtool") or "/usr/bin/promtool"
    writing = 0.0
    largest = 0
    w0 = fx.start // WINDOW * WINDOW
    windows = (END - w0) // WINDOW + 1
    running: list[tuple[subprocess.Popen[bytes], Path, int, float]] = []

    def finish(proc: subprocess.Popen[bytes], path: Path, i: int, began: float) -> None:
        if proc.wait() != 0:
            raise SystemExit(f"promtool failed on window {i + 1}")
        path.unlink()
        print(f"  window {i + 1}/{windows}: promtool {time.perf_counter() - began:.0f} s", flush=True)

    try:
        for i in range(windows):
            if len(running) >= jobs:
                finish(*running.pop(0))
            path = text.with_name(f"{text.stem}-{i}{text.suffix}")
            began = time.perf_counter()
            with path.open("w", encoding="utf-8", buffering=1 << 22) as f:
                wrote = fx.write(f, w0 + i * WINDOW)
            writing += time.perf_counter() - began
            largest = max(largest, path.stat().st_size)
            if not wrote:
                path.unlink()
                continue
            cmd = ["nice", promtool, "tsdb", "create-blocks-from", "openmetrics", "-q", "--max-block-duration=18h"]
            proc = subprocess.Popen([*cmd, str(path), str(data)])
            running.append((proc, path, i, time.perf_counter()))
        while running:
            finish(*running.pop(0))
    finally:
        for proc, path, _, _ in running:
            proc.kill()
            proc.wait()
            path.unlink(missing_ok=True)
    return writing, largest


def fleet_repo(work: Path, nodes: int) -> tuple[Path, Path]:
    """The worked example's policies with the pools scaled to the fleet, and the fleet's node dump."""
    example = ROOT / "docs" / "examples" / "recommend"
    general = nodes * 6 // 10
    policies = work / "policies"
    policies.mkdir(exist_ok=True)
    for src in (example / "policies").glob("*.yaml"):
        body = src.read_text(encoding="utf-8")
        if src.name == "pools.yaml":
            body = body.replace("count: 3", f"count: {general}").replace("count: 2", f"count: {nodes - general}")
        (policies / src.name).write_text(body, encoding="utf-8")
    items = {i["metadata"]["name"]: i for i in json.loads((example / "nodes.json").read_text())["items"]}
    fx = Fixture(nodes, 1, 60, 1)
    out = []
    for n in range(nodes):
        item = json.loads(json.dumps(items["gp-1" if n < general else "bt-1"]))
        name = fx.node(n)
        item["metadata"]["name"] = name
        item["metadata"]["labels"]["kubernetes.io/hostname"] = name
        out.append(item)
    dump = work / "nodes.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": out}), encoding="utf-8")
    return policies, dump


#: allocatable's entry point with ``renderer.recommend.prometheus.PARALLEL`` set from the first argument, and every
#: query asked over the whole window in one request when the second is "whole" (what recommend did before it asked
#: the subquery queries one day at a time)
_PATCHED = (
    "import sys, renderer.recommend.prometheus as p; p.PARALLEL = int(sys.argv.pop(1)); "
    "p.one_day_at_a_time = (lambda q: False) if sys.argv.pop(1) == 'whole' else p.one_day_at_a_time; "
    "from renderer.cli import main; sys.argv[0] = 'allocatable'; sys.exit(main())"
)


def recommend(
    policies: Path, dump: Path, url: str, days: int, out: Path, parallel: int | None, whole: bool
) -> tuple[float, float, int, str]:
    """One run (``parallel``: requests in flight, the shipped PARALLEL when None; ``whole``: every query in one
    request): wall s, cpu s, peak RSS KiB, recommend's ``asked`` line."""
    if parallel is None and not whole:
        allocatable = [str(Path(sys.executable).parent / "allocatable")]
    else:
        from renderer.recommend.prometheus import PARALLEL

        shape = "whole" if whole else "split"
        allocatable = [sys.executable, "-c", _PATCHED, str(parallel or PARALLEL), shape]
    end = time.strftime("%Y-%m-%d", time.gmtime(END))
    times = out.with_suffix(".time")
    cmd = [
        "/usr/bin/time",
        "-o",
        str(times),
        "-f",
        "%e %U %S %M",
        *allocatable,
        "recommend",
        str(policies),
        "--nodes",
        str(dump),
        "--prometheus",
        url,
        "--end",
        end,
        "--window",
        f"{days}d",
        "-o",
        "json",
    ]
    with out.open("wb") as f:
        done = subprocess.run(cmd, stdout=f, stderr=subprocess.PIPE, text=True, check=False, timeout=1800)
    if done.returncode != 0:
        return float("nan"), float("nan"), 0, f"failed (exit {done.returncode}): {done.stderr.strip()[-600:]}"
    wall, user, system, rss = times.read_text().split()[-4:]
    asked = next((line for line in done.stderr.splitlines() if line.startswith("recommend: asked")), "")
    return float(wall), float(user) + float(system), int(rss), asked


def server_cpu(url: str) -> float:
    """The server's own ``process_cpu_seconds_total`` (its /metrics)."""
    with urllib.request.urlopen(f"{url}/metrics", timeout=60) as resp:
        for line in resp.read().decode().splitlines():
            if line.startswith("process_cpu_seconds_total "):
                return float(line.split()[1])
    return float("nan")


def _ask(url: str, promql: str, start: int, end: int) -> str:
    """One query_range with ``stats=all``: its cost on the server in words (or the server's refusal)."""
    params = urllib.parse.urlencode({"query": promql, "start": start, "end": end, "step": DAY, "stats": "all"})
    began = time.perf_counter()
    try:
        with urllib.request.urlopen(f"{url}/api/v1/query_range?{params}", timeout=1800) as resp:
            body = resp.read()
    except urllib.error.HTTPError as exc:
        return f"refused: HTTP {exc.code} {exc.read(500).decode(errors='replace')}"
    took = time.perf_counter() - began
    doc = json.loads(body)
    stats = doc.get("data", {}).get("stats", {})
    evaluated = stats.get("timings", {}).get("evalTotalTime", float("nan"))
    samples = stats.get("samples", {})
    return (
        f"{took:6.2f} s wall, eval {evaluated:6.2f} s, {samples.get('totalQueryableSamples', 0):>12,} samples "
        f"touched, peak {samples.get('peakSamples', 0):>11,} held, {len(doc['data']['result']):>5} series, "
        f"{len(body):>9,} bytes"
    )


def query_stats(url: str, days: int) -> None:
    """Each default query asked alone over the window, with the server's own statistics; those with a subquery also
    over their last day alone (one of the requests recommend makes for them)."""
    from renderer.recommend.queries import QUERIES, one_day_at_a_time

    start = END - (days - 1) * DAY
    for q in QUERIES:
        print(f"  {q.name:18} whole window  {_ask(url, q.promql, start, END)}", flush=True)
        if one_day_at_a_time(q):
            print(f"  {q.name:18} one day       {_ask(url, q.promql, END, END)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("work", type=Path)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--days", type=int, default=14)
    parser.add_argument("--interval", type=int, default=30)
    parser.add_argument("--pods", type=int, default=10, help="pods per node with cpu and memory requests")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=2, help="promtool processes at a time (default 2)")
    parser.add_argument("--parallel", type=int, default=None, help="requests in flight (default: what recommend ships)")
    parser.add_argument(
        "--whole-window",
        action="store_true",
        help="every query in one request over the window (as before issue 31's bench)",
    )
    parser.add_argument(
        "--max-samples", type=int, default=50_000_000, help="the server's --query.max-samples (its default: 50000000)"
    )
    parser.add_argument("--keep", action="store_true", help="keep WORKDIR (the TSDB) at the end")
    parser.add_argument("--reuse", action="store_true", help="use WORKDIR/tsdb as a --keep run left it")
    parser.add_argument(
        "--text", type=Path, default=None, help="where the window's text goes (WORKDIR; /dev/shm spares the disk)"
    )
    parser.add_argument("--no-stats", action="store_true", help="skip asking each query alone with stats=all")
    args = parser.parse_args()
    fx = Fixture(args.nodes, args.days, args.interval, args.pods)
    data = args.work / "tsdb"
    text = (args.text or args.work) / f"recommend-live-{os.getpid()}.om"  # window i: ...-i.om
    try:
        if not args.reuse:
            data.mkdir(parents=True)  # an existing tsdb/ is a previous run's: refused rather than mixed in
            text.parent.mkdir(parents=True, exist_ok=True)
            began = time.perf_counter()
            writing, largest = build(fx, data, text, args.jobs)
            print(
                f"fixture: {args.nodes} nodes x {args.days} days at {args.interval} s, {fx.series():,} series, "
                f"{fx.samples:,} samples; built in {time.perf_counter() - began:.0f} s (writing the text "
                f"{writing:.0f} s of it; largest window file {largest / 1e9:.2f} GB)",
                flush=True,
            )
        size = sum(p.stat().st_size for p in data.rglob("*") if p.is_file())
        blocks = sum(1 for p in data.iterdir() if (p / "meta.json").exists())
        print(f"TSDB: {blocks} blocks, {size / 1e6:.0f} MB", flush=True)
        policies, dump = fleet_repo(args.work, args.nodes)
        flags = ("--storage.tsdb.retention.time=15d", f"--query.max-samples={args.max_samples}")
        with prometheus.running(args.work, "scrape_configs: []\n", *flags, data=data, ready=300) as url:
            for run in range(args.runs):
                before = server_cpu(url)
                out = args.work / f"run{run}.json"
                wall, cpu, rss, asked = recommend(policies, dump, url, args.days, out, args.parallel, args.whole_window)
                spent = server_cpu(url) - before
                print(
                    f"run {run + 1}: {wall:.2f} s wall; allocatable {cpu:.2f} s cpu, peak RSS {rss / 1024:.0f} MB; "
                    f"the server {spent:.2f} s cpu; {asked}",
                    flush=True,
                )
            if not args.no_stats:
                print("each query alone (the server's stats=all):")
                query_stats(url, args.days)
    finally:
        if not args.keep:
            shutil.rmtree(args.work, ignore_errors=True)


if __name__ == "__main__":
    main()
