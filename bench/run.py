"""Benchmark: generate repos of every shape, time ``allocatable lint`` against a bare libyaml parse, print one table.

    python bench/run.py [--sizes 1000,10000] [--shapes synthetic,inventory,...] [--runs 3] [--no-peers]
                        [--profile SHAPE] [--keep]

Figures only: nothing here passes or fails. Every figure is a whole fresh process, as a user or CI runs it:

- lint: ``allocatable lint -o json DIR``; parse: ``python bench/bare_parse.py DIR`` (PyYAML's ``CSafeLoader``
  over the same files, nothing else). The two run in turn, A B A B ..., ``--runs`` pairs per repo; the table shows
  the median of each and the median of the pair-by-pair ratios, so a machine that speeds up or slows down during
  the run moves both sides of a ratio alike.
- scaling: lint at the largest size divided by lint at the smallest (x10 objects is linear at x10).
- RSS: the largest peak resident set of the lint runs (``ru_maxrss`` of the finished child).
- explain: ``allocatable explain -o json DIR`` paired with the bare parse the same way (its ratio and peak RSS).
- kubeconform (when on PATH: a peer, never a dependency): ``kubeconform -n 1`` against ``schemas/`` on the same
  files, median CPU seconds, and lint's CPU as a multiple of it.
- peers, one run each on the same files: ``yamllint DIR`` (default configuration) and ``check-jsonschema`` with
  ``schemas/<kind>.json`` (it reads one document per file, so the documents are split into files of their own
  first, and Nodes are left out: there is no schema of ours for them). Skipped when not installed
  (``pip install yamllint check-jsonschema``).

Then cold starts on the bundled ``policies/``: ``allocatable lint policies/`` against ``yamllint policies/``
(paired, medians), ``allocatable --help``, and check-jsonschema on the same files.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import os
import platform
import pstats
import shutil
import statistics
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path

from generate import SHAPES, Generated, generate

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

DEFAULT_SHAPES = tuple(SHAPES)
COLD_PAIRS = 11
PEER_TIMEOUT = 900.0

# As installed tools run: with byte-code caches (pip compiles them at install time). An environment that sets
# PYTHONDONTWRITEBYTECODE would otherwise make every run compile every module from source.
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


@dataclass
class Run:
    wall: float
    cpu: float
    rss_mb: float
    exit_code: int


# The timed command is started by this small probe, not by the benchmark process: a child's peak RSS counts the
# memory of the process it was forked from (ru_maxrss survives exec), and the benchmark holds the generated repos.
_PROBE = """
import json, os, subprocess, sys, time
start = time.perf_counter()
proc = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
deadline = start + float(sys.argv[1])
while True:
    pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
    if pid:
        break
    if time.perf_counter() > deadline:
        proc.kill()
        os.wait4(proc.pid, 0)
        print(json.dumps(None))
        sys.exit(0)
    time.sleep(0.01)
wall = time.perf_counter() - start
proc.returncode = os.waitstatus_to_exitcode(status)
print(json.dumps([wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss, proc.returncode]))
"""


def run_once(cmd: list[str], cwd: Path = ROOT, timeout: float | None = None) -> Run:
    """One fresh process: wall time, user+sys time and peak RSS from the kernel's accounting of the child."""
    bound = PEER_TIMEOUT * 4 if timeout is None else timeout
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, str(bound), *cmd], cwd=cwd, env=ENV, capture_output=True, text=True, check=True
    )
    got = json.loads(out.stdout)
    if got is None:
        raise TimeoutError(f"{cmd[0]} took longer than {bound:.0f} s")
    wall, cpu, maxrss, code = got
    rss = maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024
    return Run(wall, cpu, rss, code)


def paired(
    a: list[str], b: list[str], pairs: int, cwd: Path = ROOT, timeout: float | None = None
) -> tuple[list[Run], list[Run]]:
    """A B A B ... after one warm-up of each (file cache, byte-code). ``timeout`` bounds each run of A."""
    run_once(a, cwd, timeout)
    run_once(b, cwd)
    runs_a: list[Run] = []
    runs_b: list[Run] = []
    for _ in range(pairs):
        runs_a.append(run_once(a, cwd, timeout))
        runs_b.append(run_once(b, cwd))
    return runs_a, runs_b


def allocatable_command() -> list[str]:
    script = Path(sys.executable).with_name("allocatable")
    return [str(script)] if script.exists() else [sys.executable, "-m", "renderer"]


def tool(name: str) -> str | None:
    return shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)


# --- peers -------------------------------------------------------------------------------------------------------

SCHEMA_OF_KIND = {
    "NodePool": "nodepool.json",
    "CommitClass": "commitclass.json",
    "ReservationPolicy": "reservationpolicy.json",
    "RuntimeClass": "runtimeclass.json",
}


def split_documents(gen: Generated, into: Path) -> dict[str, list[Path]]:
    """check-jsonschema reads one document per file: the same policy documents, one per file, by schema."""
    out: dict[str, list[Path]] = {}
    count = 0
    for path in gen.paths:
        if path.suffix == ".json":
            continue
        text = path.read_text(encoding="utf-8")
        for doc in text.split("\n---\n") if "\n---\n" in text else [text]:
            head = doc[:400]
            kind = next((k for k in SCHEMA_OF_KIND if f"\nkind: {k}\n" in f"\n{head}"), None)
            if kind is None:
                continue
            count += 1
            target = into / kind / f"{count:07d}.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(doc, encoding="utf-8")
            out.setdefault(SCHEMA_OF_KIND[kind], []).append(target)
    return out


def check_jsonschema_seconds(gen: Generated) -> str:
    exe = tool("check-jsonschema")
    if exe is None:
        return "n/a"
    with tempfile.TemporaryDirectory(prefix="bench-cjs-") as tmp:
        by_schema = split_documents(gen, Path(tmp))
        if not by_schema:
            return "-"
        total = 0.0
        try:
            for schema, files in by_schema.items():
                for start in range(0, len(files), 2000):  # keep the command line short
                    cmd = [exe, "--schemafile", str(ROOT / "schemas" / schema), *map(str, files[start : start + 2000])]
                    total += run_once(cmd, timeout=PEER_TIMEOUT).wall
        except TimeoutError:
            return f"> {PEER_TIMEOUT:.0f}"
        return f"{total:.2f}"


def kubeconform_cpu(path: Path, runs: int) -> float | None:
    """kubeconform (Go; one worker, ``-n 1``) validating the same files against ``schemas/``: the median CPU seconds
    of ``runs`` runs, or None when it is not on PATH. Kinds without a schema of ours (Node) are skipped by it."""
    exe = tool("kubeconform")
    if exe is None:
        return None
    location = str(ROOT / "schemas") + "/{{ .ResourceKind }}.json"
    cmd = [exe, "-n", "1", "-summary", "-schema-location", location, "-ignore-missing-schemas", str(path)]
    try:
        run_once(cmd, timeout=PEER_TIMEOUT)  # warm-up
        return statistics.median(run_once(cmd, timeout=PEER_TIMEOUT).cpu for _ in range(runs))
    except TimeoutError:
        return None


def yamllint_seconds(path: Path) -> str:
    exe = tool("yamllint")
    if exe is None:
        return "n/a"
    try:
        return f"{run_once([exe, str(path)], timeout=PEER_TIMEOUT).wall:.2f}"
    except TimeoutError:
        return f"> {PEER_TIMEOUT:.0f}"


# --- the table ---------------------------------------------------------------------------------------------------


@dataclass
class Row:
    shape: str
    size: int
    gen: Generated
    lint: list[Run] = field(default_factory=list)
    parse: list[Run] = field(default_factory=list)
    explain: list[Run] = field(default_factory=list)
    explain_parse: list[Run] = field(default_factory=list)
    kubeconform_cpu: float | None = None
    yamllint: str = "-"
    check_jsonschema: str = "-"
    timed_out: float | None = None

    def median(self, runs: list[Run], clock: str) -> float:
        return statistics.median(getattr(r, clock) for r in runs)

    def ratio(self, clock: str) -> float:
        return statistics.median(
            getattr(a, clock) / getattr(b, clock) for a, b in zip(self.lint, self.parse, strict=True)
        )

    def explain_ratio(self, clock: str) -> str:
        if not self.explain:
            return "-"
        pairs = zip(self.explain, self.explain_parse, strict=True)
        return f"x{statistics.median(getattr(a, clock) / getattr(b, clock) for a, b in pairs):.2f}"

    def kubeconform(self) -> str:
        if self.kubeconform_cpu is None:
            return "n/a"
        lint_cpu = statistics.median(r.cpu for r in self.lint)
        return f"{self.kubeconform_cpu:.2f} (lint x{lint_cpu / self.kubeconform_cpu:.2f})"

    def spread(self, clock: str) -> str:
        ratios = [getattr(a, clock) / getattr(b, clock) for a, b in zip(self.lint, self.parse, strict=True)]
        return f"{min(ratios):.2f}-{max(ratios):.2f}"


def print_table(rows: list[Row], clock: str, peers: bool) -> None:
    head = ["shape", "documents", "files, MB", "lint s", "bare parse s", "ratio", "ratio range", "scaling", "RSS MB"]
    head += ["explain ratio", "explain RSS MB"]
    if peers:
        head += ["kubeconform cpu s", "yamllint s", "check-jsonschema s"]
    table = [head]
    smallest: dict[str, Row] = {}
    for row in rows:
        if row.timed_out is not None:
            cells = [row.shape, f"{row.gen.documents:,}", f"{row.gen.files:,}, {row.gen.bytes / 1e6:.1f}"]
            cells += [f"> {row.timed_out:.0f}", "-", "-", "-", "-", "-", "-", "-"] + (["-", "-", "-"] if peers else [])
            table.append(cells)
            continue
        smallest.setdefault(row.shape, row)
        first = smallest[row.shape]
        scaling = f"x{row.median(row.lint, clock) / first.median(first.lint, clock):.1f}" if first is not row else ""
        exits = {r.exit_code for r in row.lint}
        cells = [
            row.shape,
            f"{row.gen.documents:,}",
            f"{row.gen.files:,}, {row.gen.bytes / 1e6:.1f}",
            f"{row.median(row.lint, clock):.2f}" + ("" if exits <= {0, 1} else f" (exit {sorted(exits)})"),
            f"{row.median(row.parse, clock):.2f}",
            f"x{row.ratio(clock):.2f}",
            row.spread(clock),
            scaling,
            f"{max(r.rss_mb for r in row.lint):.0f}",
            row.explain_ratio(clock),
            f"{max(r.rss_mb for r in row.explain):.0f}" if row.explain else "-",
        ]
        if peers:
            cells += [row.kubeconform(), row.yamllint, row.check_jsonschema]
        table.append(cells)
    widths = [max(len(line[i]) for line in table) for i in range(len(head))]
    print("| " + " | ".join(c.ljust(w) for c, w in zip(head, widths, strict=True)) + " |")
    print("|" + "|".join("-" * (w + 2) for w in widths) + "|")
    for line in table[1:]:
        print("| " + " | ".join(c.ljust(w) for c, w in zip(line, widths, strict=True)) + " |")


def cold_starts(cmd: list[str], clock: str) -> None:
    policies = ROOT / "policies"
    print(f"cold start on policies/ (median of {COLD_PAIRS}, {clock} seconds):")
    exe = tool("yamllint")
    if exe is not None:
        a, b = paired([*cmd, "lint", str(policies)], [exe, str(policies)], COLD_PAIRS)
        ratios = [getattr(x, clock) / getattr(y, clock) for x, y in zip(a, b, strict=True)]
        print(
            f"  allocatable lint policies/   {statistics.median(getattr(r, clock) for r in a):.3f} s"
            f"   yamllint policies/ {statistics.median(getattr(r, clock) for r in b):.3f} s"
            f"   ratio x{statistics.median(ratios):.2f} (pairs {min(ratios):.2f}-{max(ratios):.2f})"
        )
    else:
        runs = [run_once([*cmd, "lint", str(policies)]) for _ in range(COLD_PAIRS)]
        print(f"  allocatable lint policies/   {statistics.median(getattr(r, clock) for r in runs):.3f} s")
        print("  yamllint: not installed (pip install yamllint)")
    runs = [run_once([*cmd, "--help"]) for _ in range(COLD_PAIRS)]
    print(f"  allocatable --help           {statistics.median(getattr(r, clock) for r in runs):.3f} s")
    cjs = tool("check-jsonschema")
    if cjs is not None:
        kinds = {
            "commitclass.json": sorted((policies / "commitclasses").glob("*.yaml")),
            "reservationpolicy.json": sorted((policies / "reservations").glob("*.yaml")),
            "runtimeclass.json": sorted((policies / "runtimeclasses").glob("*.yaml")),
        }
        total = 0.0
        for schema, files in kinds.items():
            cmd_ = [cjs, "--schemafile", str(ROOT / "schemas" / schema), *map(str, files)]
            total += statistics.median(getattr(run_once(cmd_), clock) for _ in range(3))
        print(f"  check-jsonschema, 3 kinds    {total:.3f} s (one run per kind: it takes one schema)")


def profile_lint(path: Path, top: int = 25) -> str:
    from renderer import pipeline

    prof = cProfile.Profile()
    prof.enable()
    pipeline.lint([path])
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated object counts (default 1000,10000)")
    parser.add_argument("--shapes", default=",".join(DEFAULT_SHAPES), help="comma-separated shapes (default: all)")
    parser.add_argument("--runs", type=int, default=3, help="lint/parse pairs per repo (default 3)")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="wall (default) or user+sys time")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--no-peers", action="store_true", help="skip yamllint and check-jsonschema on the repos")
    parser.add_argument("--no-cold", action="store_true", help="skip the cold-start figures")
    parser.add_argument("--profile", metavar="SHAPE", help="also print a cProfile of lint on SHAPE at the largest size")
    parser.add_argument("--keep", action="store_true", help="keep the generated repos and print where they are")
    parser.add_argument("--timeout", type=float, default=PEER_TIMEOUT, help="bound on one lint run, seconds")
    parser.add_argument(
        "--allocatable", metavar="EXE", help="the allocatable executable to time (default: this venv's)"
    )
    args = parser.parse_args(argv)
    sizes = sorted({int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()})
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown:
        parser.error(f"unknown shape(s) {', '.join(unknown)}; shapes: {', '.join(SHAPES)}")

    cmd = [args.allocatable] if args.allocatable else allocatable_command()
    workdir = Path(tempfile.mkdtemp(prefix="allocatable-bench-"))
    rows: list[Row] = []
    try:
        for shape in shapes:
            for size in sizes:
                path = workdir / f"{shape}-{size}"
                gen = generate(shape, size, path, args.seed)
                row = Row(shape, size, gen)
                try:
                    row.lint, row.parse = paired(
                        [*cmd, "lint", "-o", "json", str(path)],
                        [sys.executable, str(HERE / "bare_parse.py"), str(path)],
                        args.runs,
                        timeout=args.timeout,
                    )
                    row.explain, row.explain_parse = paired(
                        [*cmd, "explain", "-o", "json", str(path)],
                        [sys.executable, str(HERE / "bare_parse.py"), str(path)],
                        args.runs,
                        timeout=args.timeout,
                    )
                except TimeoutError:
                    row.timed_out = args.timeout
                if not args.no_peers and row.timed_out is None:
                    row.kubeconform_cpu = kubeconform_cpu(path, args.runs)
                    row.yamllint = yamllint_seconds(path)
                    row.check_jsonschema = check_jsonschema_seconds(gen)
                rows.append(row)
                print(f"  measured {shape} at {size:,}", file=sys.stderr)
                if not args.keep and not (args.profile == shape and size == sizes[-1]):
                    shutil.rmtree(path, ignore_errors=True)

        cpu = platform.processor() or platform.machine()
        print(
            f"allocatable benchmark, {date.today().isoformat()}: Python {platform.python_version()}, "
            f"{platform.system()} {cpu}, {os.cpu_count()} cores; {args.runs} pairs per repo, {args.clock} time, "
            f"seed {args.seed}"
        )
        print()
        print_table(rows, args.clock, not args.no_peers)
        if not args.no_cold:
            print()
            cold_starts(cmd, args.clock)
        if args.profile:
            print()
            print(f"profile of lint on {args.profile} at {sizes[-1]:,} (top 25 by cumulative time):")
            print(profile_lint(workdir / f"{args.profile}-{sizes[-1]}"))
        if args.keep:
            print(f"\ngenerated repos kept in {workdir.as_posix()}")
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
