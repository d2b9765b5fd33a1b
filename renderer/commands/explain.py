"""``allocatable explain``: what every node pool advertises, and why."""

from __future__ import annotations

import argparse
import json
import sys

from renderer.commands._common import add_paths, emit, error, load

NAME = "explain"
ORDER = 30
HELP = "show, per node pool, the policies that apply and the capacity arithmetic"
DESCRIPTION = (
    "Show, for every node pool, the CommitClass and ReservationPolicy that select it, where each reserved value "
    "comes from, the hard-eviction reservation, kubelet allocatable, committed allocatable, cluster totals and the "
    "pod overhead of each RuntimeClass that can land there. -o html writes one self-contained page with a stacked "
    "bar per pool (redirect it to a file). Invalid input is reported as `allocatable validate` reports it."
)
EXIT_CODES = {0: "explained (explain reports; it does not judge: `allocatable lint` does)"}
FORMATS = ("text", "json", "markdown", "html")


def register(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument("--pool", action="append", default=[], metavar="NAME", help="only this pool (repeatable)")
    parser.add_argument(
        "-o",
        "--output",
        choices=FORMATS,
        default="text",
        help="text (default), json, markdown (for a PR comment) or html (a self-contained capacity report page)",
    )


def run(args: argparse.Namespace) -> int:
    from renderer.capacity import explain
    from renderer.capacity.model import build
    from renderer.reporters import Report

    result = load(args)
    if not result.ok:
        findings = result.finish(result.findings)
        emit(Report("explain", findings, files=len(result.files), objects=result.policies.object_count()), "text")
        return 2
    model = build(result.policies)
    pools = model.pools
    if args.pool:
        wanted = set(args.pool)
        pools = [p for p in pools if p.pool.name in wanted]
        missing = wanted - {p.pool.name for p in pools}
        if missing:
            known = ", ".join(sorted(p.pool.name for p in model.pools)) or "none"
            return error(f"no pool named {', '.join(sorted(missing))}; choose from: {known}")
    if args.output == "json":
        json.dump(explain.as_json(model, pools), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.output == "html":
        from renderer.capacity.explain_html import html

        sys.stdout.write(html(model, pools))
    elif args.output == "markdown":
        sys.stdout.write(explain.markdown(model, pools))
    else:
        sys.stdout.write(explain.text(model, pools))
    return 0
