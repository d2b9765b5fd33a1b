"""Benchmark: generate synthetic policy repos, time each stage, print a table. Figures only, no pass/fail.

    python bench/run.py [--sizes 1000,10000] [--keep] [--profile]

Every timed stage is one entry in ``MEASUREMENTS``: a label and a function that takes the generated repo and
returns seconds (the best of a few runs), or raises ``NotAvailable`` with the reason. Lint and render are
looked up in ``renderer.pipeline`` by name (``lint``, ``render``) and called with the list of repo paths, the
way ``renderer.pipeline.load`` is; until they exist there the table says "not available". To time another
stage, write a function and add it to the list.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from generate import Generated, generate  # noqa: E402

REPEAT = 3
COLD_REPEAT = 5


class NotAvailable(Exception):
    """The stage cannot be measured here (not implemented yet, tool not installed, ...)."""


@dataclass
class Repo:
    size: int
    path: Path
    generated: Generated
    files: list[Path] = field(default_factory=list)

    @property
    def objects(self) -> int:
        return self.generated.counts.total


@dataclass
class Row:
    label: str
    seconds: dict[int, float] = field(default_factory=dict)
    notes: dict[int, str] = field(default_factory=dict)


def best_of(fn: Callable[[], object], repeat: int = REPEAT) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


# --- measurements ------------------------------------------------------------------------------------------------


def measure_parse(repo: Repo) -> float:
    """Bare libyaml: PyYAML's C loader over the same files, no checks, no models."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", None)
    if loader is None:
        raise NotAvailable("PyYAML is built without libyaml")
    texts = [p.read_text(encoding="utf-8") for p in repo.files]

    def run() -> None:
        for text in texts:
            for _ in yaml.load_all(text, Loader=loader):
                pass

    return best_of(run)


def measure_validate(repo: Repo) -> float:
    """renderer.pipeline.load (read, parse, validate every object) plus position lookup for its findings."""
    from renderer import pipeline

    def run() -> None:
        result = pipeline.load([repo.path])
        result.finish(result.findings)

    return best_of(run)


def _pipeline_stage(name: str) -> Callable[[Repo], float]:
    def measure(repo: Repo) -> float:
        from renderer import pipeline

        fn = getattr(pipeline, name, None)
        if not callable(fn):
            raise NotAvailable(f"renderer.pipeline has no {name}()")
        return best_of(lambda: fn([repo.path]))

    measure.__doc__ = f"renderer.pipeline.{name}([repo])"
    return measure


def _split_documents(repo: Repo, into: Path) -> dict[str, list[Path]]:
    """check-jsonschema reads one document per file: the same documents, one per file, by schema."""
    schema_of = {
        "pools": "nodepool.json",
        "commitclasses": "commitclass.json",
        "reservations": "reservationpolicy.json",
        "runtimeclasses": "runtimeclass.json",
    }
    out: dict[str, list[Path]] = {}
    for path in repo.files:
        schema = schema_of.get(path.relative_to(repo.path).parts[0])
        if schema is None:  # Node inventory has no schema of ours
            continue
        docs = path.read_text(encoding="utf-8").split("\n---\n")[1:]
        for i, doc in enumerate(docs):
            target = into / schema.removesuffix(".json") / f"{path.stem}-{path.parent.name}-{i:03d}.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(doc, encoding="utf-8")
            out.setdefault(schema, []).append(target)
    return out


def measure_check_jsonschema(repo: Repo) -> float:
    """check-jsonschema with schemas/*.json over the same documents (one run per schema, total wall time)."""
    exe = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent)) or shutil.which("check-jsonschema")
    if exe is None:
        raise NotAvailable("check-jsonschema is not installed (pip install check-jsonschema)")
    with tempfile.TemporaryDirectory(prefix="bench-cjs-") as tmp:
        by_schema = _split_documents(repo, Path(tmp))

        def run() -> None:
            for schema, files in by_schema.items():
                for start in range(0, len(files), 2000):  # keep the command line short
                    cmd = [exe, "--schemafile", str(ROOT / "schemas" / schema), *map(str, files[start : start + 2000])]
                    subprocess.run(cmd, capture_output=True, check=False)

        return best_of(run)


def measure_render_stage(repo: Repo) -> float:
    """The render stage alone (targets + serialising), on a model already loaded, linted and built."""
    from renderer import pipeline
    from renderer.capacity.model import build
    from renderer.render import engine

    result = pipeline.load([repo.path])
    model = build(result.policies)
    return best_of(lambda: engine.render(result, model))


MEASUREMENTS: list[tuple[str, Callable[[Repo], float]]] = [
    ("parse: libyaml CSafeLoader, best of 3", measure_parse),
    ("validate: pipeline.load, best of 3", measure_validate),
    ("lint: pipeline.lint, best of 3", _pipeline_stage("lint")),
    ("render: pipeline.render (load+lint+render), best of 3", _pipeline_stage("render")),
    ("render stage alone (engine.render), best of 3", measure_render_stage),
    ("check-jsonschema, schemas/*.json", measure_check_jsonschema),
]


# --- subprocess figures ------------------------------------------------------------------------------------------


def allocatable_command() -> list[str]:
    script = Path(sys.executable).with_name("allocatable")
    return [str(script)] if script.exists() else [sys.executable, "-m", "renderer"]


_RSS_PROBE = (
    "import resource, subprocess, sys\n"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
)


def peak_rss_mb(args: list[str]) -> float:
    """Peak RSS of one run of ``args``, measured in a fresh process so earlier children do not count."""
    out = subprocess.run([sys.executable, "-c", _RSS_PROBE, *args], capture_output=True, text=True, check=True)
    maxrss = int(out.stdout.strip())
    return maxrss / (1024 * 1024) if sys.platform == "darwin" else maxrss / 1024  # bytes on macOS, KiB on Linux


def cold_start(args: list[str]) -> float:
    # As installed tools run: with byte-code caches (pip compiles them at install time). An environment that sets
    # PYTHONDONTWRITEBYTECODE would otherwise make every run compile every module from source.
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def run() -> None:
        subprocess.run(args, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)

    return best_of(run, COLD_REPEAT)


def cold_start_check_jsonschema() -> str:
    """check-jsonschema on the policies/ files of one kind per run (it takes one schema and single-document files),
    summed over the kinds: what it costs to check the same files."""
    exe = shutil.which("check-jsonschema", path=str(Path(sys.executable).parent)) or shutil.which("check-jsonschema")
    if exe is None:
        return "not available (pip install check-jsonschema)"
    runs = {
        "commitclass.json": sorted((ROOT / "policies" / "commitclasses").glob("*.yaml")),
        "reservationpolicy.json": sorted((ROOT / "policies" / "reservations").glob("*.yaml")),
        "runtimeclass.json": sorted((ROOT / "policies" / "runtimeclasses").glob("*.yaml")),
        "settings.json": [ROOT / "policies" / ".allocatable.yaml"],
    }
    one = 0.0
    total = 0.0
    for schema, files in runs.items():
        cmd = [exe, "--schemafile", str(ROOT / "schemas" / schema), *map(str, files)]
        t = cold_start(cmd)
        one = t if schema == "commitclass.json" else one
        total += t
    return f"{_fmt_seconds(one)} for one kind, {_fmt_seconds(total)} for the 4 single-document kinds"


# --- table -------------------------------------------------------------------------------------------------------


def _fmt_seconds(s: float) -> str:
    return f"{s * 1000:.0f} ms" if s < 1 else f"{s:.2f} s"


def print_table(repos: list[Repo], rows: list[Row], rss: dict[int, float]) -> None:
    sizes = [r.size for r in repos]
    first, last = sizes[0], sizes[-1]
    head = ["", *[f"{s:,} objects" for s in sizes]] + ([f"{first:,} -> {last:,}"] if len(sizes) > 1 else [])
    table: list[list[str]] = [head]
    table.append(["files, size", *[f"{r.generated.files} files, {r.generated.bytes / 1e6:.1f} MB" for r in repos]])
    objects = {r.size: r.objects for r in repos}
    for row in rows:
        cells = []
        for s in sizes:
            if s in row.seconds:
                cells.append(f"{_fmt_seconds(row.seconds[s])} ({objects[s] / row.seconds[s]:,.0f}/s)")
            else:
                cells.append("not available" if s in row.notes else "-")
        if len(sizes) > 1 and first in row.seconds and last in row.seconds:
            cells.append(f"time x{row.seconds[last] / row.seconds[first]:.1f}")
        table.append([row.label, *cells])
    parse = next((r for r in rows if r.label.startswith("parse")), None)
    for stage in ("validate", "lint"):
        other = next((r for r in rows if r.label.startswith(stage)), None)
        if parse and other:
            ratio = [
                f"x{other.seconds[s] / parse.seconds[s]:.2f}" if s in parse.seconds and s in other.seconds else "-"
                for s in sizes
            ]
            table.append([f"{stage} / parse (target for lint: <= x2.5)", *ratio])
    table.append(["peak RSS, `allocatable lint` subprocess", *[f"{rss[s]:.0f} MB" for s in sizes]])

    widths = [max(len(line[i]) if i < len(line) else 0 for line in table) for i in range(len(head))]
    for n, line in enumerate(table):
        print("  ".join(cell.ljust(widths[i]) for i, cell in enumerate(line)).rstrip())
        if n == 0:
            print("  ".join("-" * w for w in widths))
    notes = sorted({note for row in rows for note in row.notes.values()})
    for note in notes:
        print(f"  not available: {note}")


def profile_validate(repo: Repo, top: int = 15) -> str:
    from renderer import pipeline

    pipeline.load([repo.path])  # warm up imports and caches, as best-of-3 does
    prof = cProfile.Profile()
    prof.enable()
    result = pipeline.load([repo.path])
    result.finish(result.findings)
    prof.disable()
    out = io.StringIO()
    pstats.Stats(prof, stream=out).sort_stats("cumulative").print_stats(top)
    return out.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time parse, validate (and lint/render when available).")
    parser.add_argument("--sizes", default="1000,10000", help="comma-separated object counts (default 1000,10000)")
    parser.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    parser.add_argument("--keep", action="store_true", help="keep the generated repos and print where they are")
    parser.add_argument("--profile", action="store_true", help="also print a cProfile of validate on the largest repo")
    args = parser.parse_args(argv)
    sizes = sorted({int(s.replace("_", "")) for s in args.sizes.split(",") if s.strip()})

    sys.path.insert(0, str(ROOT))
    workdir = Path(tempfile.mkdtemp(prefix="allocatable-bench-"))
    try:
        repos: list[Repo] = []
        for size in sizes:
            path = workdir / f"repo-{size}"
            gen = generate(size, path, args.seed)
            files = sorted(p for p in path.rglob("*.yaml") if not p.name.startswith("."))
            repos.append(Repo(size, path, gen, files))
        from renderer import pipeline

        for repo in repos:
            result = pipeline.load([repo.path])
            errors = sum(1 for f in result.findings if f.severity == "error")
            if errors:
                print(f"note: the {repo.size:,}-object repo has {errors} validation errors; figures include them")

        rows: list[Row] = []
        for label, fn in MEASUREMENTS:
            row = Row(label)
            for repo in repos:
                try:
                    row.seconds[repo.size] = fn(repo)
                except NotAvailable as exc:
                    row.notes[repo.size] = str(exc)
            rows.append(row)
        cmd = allocatable_command()
        rss = {repo.size: peak_rss_mb([*cmd, "lint", str(repo.path)]) for repo in repos}

        print(f"allocatable benchmark: Python {sys.version.split()[0]}, {sys.platform}, seed {args.seed}")
        print()
        print_table(repos, rows, rss)
        print()
        print(f"cold start, best of {COLD_REPEAT} (wall, subprocess):")
        print(f"  allocatable lint policies/       {_fmt_seconds(cold_start([*cmd, 'lint', 'policies']))}")
        print(f"  allocatable validate policies/   {_fmt_seconds(cold_start([*cmd, 'validate', 'policies']))}")
        print(f"  allocatable --help               {_fmt_seconds(cold_start([*cmd, '--help']))}")
        cjs = cold_start_check_jsonschema()
        print(f"  check-jsonschema, policies/      {cjs}")
        if args.profile:
            print()
            print(f"profile of validate on the {repos[-1].size:,}-object repo (top 15 by cumulative time):")
            print(profile_validate(repos[-1]))
        if args.keep:
            print(f"\ngenerated repos kept in {workdir.as_posix()}")
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
