"""``allocatable diff --base REF``: the capacity impact of a change, pool by pool, and the lint findings it adds
or fixes. A report: exit 0 whatever it finds (2 on usage errors)."""

from __future__ import annotations

import argparse

from renderer.commands.common import add_paths, error, output_choices, paths_of, write

NAME = "diff"
ORDER = 35
HELP = "compare committed allocatable and lint findings against a git revision (for PR comments)"
DESCRIPTION = (
    "Load the policy repo at --base (a branch, tag or commit; read from git objects, the work tree is not touched) "
    "— at its merge-base with the head, so that only the change under review shows, unless --base-tip or REF.. "
    "asks for its tip — and as it is now (the work tree, or --head), and report per pool the committed "
    "allocatable per node and per "
    "cluster before → after, with the lint findings that are new or fixed. -o markdown is made for a pull request "
    "comment or a GitHub job summary."
)
EXIT_CODES = {0: "reported (a diff is a report: changes and new findings do not fail it)"}


def register(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, many=False)
    parser.add_argument(
        "--base",
        required=True,
        metavar="REF",
        help="git revision to compare against, e.g. main: read at its merge-base with HEAD (or --head), as git diff "
        "REF...HEAD compares; REF.. (or --base-tip) reads its tip; REF...H and REF..H name the head too",
    )
    parser.add_argument(
        "--base-tip", action="store_true", help="compare with the tip of REF, not its merge-base with the head"
    )
    parser.add_argument(
        "--head", default=None, metavar="REF", help="compare with this revision instead of the work tree"
    )
    parser.add_argument(
        "-o",
        "--output",
        **output_choices("diff"),
        default="text",
        help="text (default), markdown (for a PR comment or $GITHUB_STEP_SUMMARY), json, yaml or jsonpath=TEMPLATE "
        "(kubectl's)",
    )


def run(args: argparse.Namespace) -> int:
    from renderer.loading.files import is_stdin
    from renderer.pipeline import diff

    paths = paths_of(args)
    if any(is_stdin(p) for p in paths):
        return error("diff reads the policy repo from git revisions; stdin (-) has none, give the policy directory")
    done = diff(paths, base=args.base, head=args.head, max_file_bytes=args.max_file_size, base_tip=args.base_tip)
    write("diff", args.output, done.result)
    return 0
