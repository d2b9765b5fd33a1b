"""``allocatable diff --base REF``: the capacity impact of a change, pool by pool, and the lint findings it adds
or fixes. A report: exit 0 whatever it finds (2 on usage errors)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from renderer.commands._common import add_paths, paths_of

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel
    from renderer.findings import Finding
    from renderer.validation.load import LoadResult

NAME = "diff"
ORDER = 35
HELP = "compare committed allocatable and lint findings against a git revision (for PR comments)"
DESCRIPTION = (
    "Load the policy repo at --base (a branch, tag or commit; read from git objects, the work tree is not touched) "
    "and as it is now (the work tree, or --head), and report per pool the committed allocatable per node and per "
    "cluster before → after, with the lint findings that are new or fixed. -o markdown is made for a pull request "
    "comment or a GitHub job summary."
)
EXIT_CODES = {0: "reported (a diff is a report: changes and new findings do not fail it)"}


def register(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, many=False)
    parser.add_argument("--base", required=True, metavar="REF", help="git revision to compare against, e.g. main")
    parser.add_argument(
        "--head", default=None, metavar="REF", help="compare with this revision instead of the work tree"
    )
    parser.add_argument(
        "-o",
        "--output",
        choices=["text", "markdown", "json"],
        default="text",
        help="text (default), markdown (for a PR comment or $GITHUB_STEP_SUMMARY) or json",
    )


def _side(result: LoadResult, base_model: CapacityModel | None = None) -> tuple[CapacityModel, list[Finding]]:
    from renderer.capacity.model import build
    from renderer.lint.engine import run_rules

    model = build(result.policies)
    findings = list(result.findings) + run_rules(result, model, base_model=base_model)
    return model, result.finish(findings)


def _validation_errors(result: LoadResult) -> int:
    return sum(1 for f in result.findings if f.severity == "error")


def run(args: argparse.Namespace) -> int:
    from renderer.delivery import diff_format
    from renderer.delivery.diff import compare
    from renderer.loading.git import Revision
    from renderer.pipeline import load
    from renderer.validation.revision import load_revision

    paths = paths_of(args)
    from renderer.loading.files import is_stdin

    if any(is_stdin(p) for p in paths):
        from renderer.commands._common import error

        return error("diff reads the policy repo from git revisions; stdin (-) has none, give the policy directory")
    base = load_revision(paths, args.base, max_file_bytes=args.max_file_size)
    head = (
        load_revision(paths, args.head, max_file_bytes=args.max_file_size)
        if args.head
        else load(paths, max_file_bytes=args.max_file_size)
    )
    base_model, base_findings = _side(base)
    head_model, head_findings = _side(head, base_model)
    base_rev = base.extra["revision"]
    head_rev = head.extra.get("revision")
    assert isinstance(base_rev, Revision)
    head_commit = head_rev.commit if isinstance(head_rev, Revision) else None
    result = compare(
        base_model,
        head_model,
        base_findings,
        head_findings,
        base_label=f"{args.base} ({base_rev.short})" if base_rev.short != args.base[:12] else base_rev.short,
        head_label="working tree"
        if not isinstance(head_rev, Revision)
        else (f"{args.head} ({head_rev.short})" if head_rev.short != args.head[:12] else head_rev.short),
        base_ref=args.base,
        base_commit=base_rev.commit,
        head_ref=args.head,
        head_commit=head_commit,
    )
    result.invalid = (_validation_errors(base), _validation_errors(head))
    if args.output == "json":
        json.dump(diff_format.as_json(result), sys.stdout, indent=2)
        sys.stdout.write("\n")
    elif args.output == "markdown":
        sys.stdout.write(diff_format.markdown(result))
    else:
        sys.stdout.write(diff_format.text(result))
    return 0
