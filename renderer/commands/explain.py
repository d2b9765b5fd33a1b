"""``allocatable explain``: what every node pool advertises, and why."""

from __future__ import annotations

import argparse

from renderer.commands.common import add_paths, emit_load, error, output_choices, paths_of, write

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


def register(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument("--pool", action="append", default=[], metavar="NAME", help="only this pool (repeatable)")
    parser.add_argument(
        "-o",
        "--output",
        **output_choices("explain"),
        default="text",
        help="text (default), wide (every resource a pool has), json, yaml, jsonpath=TEMPLATE (kubectl's), markdown "
        "(for a PR comment) or html (a self-contained capacity report page)",
    )


def run(args: argparse.Namespace) -> int:
    from renderer.pipeline import explain

    done = explain(paths_of(args), max_file_bytes=args.max_file_size, pools=args.pool)
    if not done.load.ok:
        emit_load(done.load, "explain")
        return 2
    if done.missing:
        return error(f"no pool named {', '.join(done.missing)}; choose from: {', '.join(done.known) or 'none'}")
    write("explain", args.output, done.explained)
    return 0
