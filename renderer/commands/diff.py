"""``allocatable diff --base REF``: the capacity impact of a change, pool by pool, and the lint findings it adds
or fixes; with a cluster snapshot (``--nodes``/``--pods`` or ``--snapshot``), what it does to the pods there. A report:
exit 0 whatever it finds, except that a simulation leaving pods newly Pending exits 1 (2 on usage errors)."""

from __future__ import annotations

import argparse

from renderer.commands.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    add_file_outputs,
    add_paths,
    error,
    file_outputs,
    note,
    output_choices,
    paths_of,
    platform_assignments,
    write_all,
)

NAME = "diff"
ORDER = 35
HELP = "compare committed allocatable and lint findings against a git revision (for PR comments)"
DESCRIPTION = (
    "Load the policy repo at --base (a branch, tag or commit; read from git objects, the work tree is not touched) "
    "— at its merge-base with the head, so that only the change under review shows, unless --base-tip or REF.. "
    "asks for its tip — and as it is now (the work tree, or --head), and report per pool the committed "
    "allocatable per node and per cluster before → after, with the lint findings that are new or fixed. With a "
    "cluster snapshot (--nodes and --pods, or one `kubectl get nodes,pods -A -o json` List with --snapshot), also "
    "simulate the change on it: the pods that stop fitting their node, where the scheduler would put them, the pods "
    "left Pending per pool and the nodes the cluster autoscaler would add or could remove (docs/impact.md). "
    "-o markdown is made for a pull request "
    "comment or a GitHub job summary."
)
EXIT_CODES = {
    0: "reported (a diff is a report: changes and new findings do not fail it)",
    1: "with a snapshot: the change leaves more pods newly Pending than impact.maxNewPendingPods (default 0); "
    "with pricing: it adds more to the monthly bill than impact.maxMonthlyCostIncrease (docs/cost.md)",
}


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
        "--nodes", metavar="FILE", default=None, help="kubectl get nodes -o json output (with --pods); - reads stdin"
    )
    parser.add_argument(
        "--pods", metavar="FILE", default=None, help="kubectl get pods -A -o json output (with --nodes); - reads stdin"
    )
    parser.add_argument(
        "--snapshot",
        metavar="FILE",
        default=None,
        help="kubectl get nodes,pods -A -o json output: nodes and pods in one List (instead of --nodes and --pods)",
    )
    parser.add_argument(
        "--platform",
        metavar="P[/PROFILE][:SELECTOR]",
        action="append",
        default=None,
        help="platform of the snapshot's nodes whose labels name none, as for verify (repeatable)",
    )
    parser.add_argument(
        "-o",
        "--output",
        **output_choices("diff"),
        default="text",
        help="text (default), markdown (for a PR comment or $GITHUB_STEP_SUMMARY), html (the reviewer's page: one "
        "self-contained file), json, yaml or jsonpath=TEMPLATE "
        "(kubectl's)",
    )
    add_file_outputs(parser, "diff")  # --markdown-output, --json-output, --html-output, ...: one run, several files


def snapshot_sources(args: argparse.Namespace) -> list[str] | str:
    """The dumps of ``--nodes``/``--pods``/``--snapshot`` (a file given twice is read once), or a usage error."""
    from renderer.loading.files import is_stdin

    if args.snapshot is not None and (args.nodes is not None or args.pods is not None):
        return "--snapshot holds the nodes and the pods: give it alone, or --nodes and --pods"
    if args.snapshot is not None:
        return [args.snapshot]
    if (args.nodes is None) != (args.pods is None):
        given, missing = ("--nodes", "--pods") if args.pods is None else ("--pods", "--nodes")
        return (
            f"{given} needs {missing}: the simulation needs the nodes and their pods (or both in one List with "
            "--snapshot)"
        )
    sources = [s for s in (args.nodes, args.pods) if s is not None]
    if len(sources) == 2 and sources[0] != sources[1] and all(is_stdin(s) for s in sources):
        return "--nodes and --pods cannot both read standard input; write one of them to a file, or use --snapshot"
    return sources


def run(args: argparse.Namespace) -> int:
    from renderer.loading.files import is_stdin
    from renderer.pipeline import diff

    paths = paths_of(args)
    if any(is_stdin(p) for p in paths):
        return error("diff reads the policy repo from git revisions; stdin (-) has none, give the policy directory")
    sources = snapshot_sources(args)
    if isinstance(sources, str):
        return error(sources)
    assignments = platform_assignments(args.platform)
    if isinstance(assignments, str):
        return error(assignments)
    files = file_outputs(args, "diff")
    if isinstance(files, str):
        return error(files)
    done = diff(
        paths,
        base=args.base,
        head=args.head,
        max_file_bytes=args.max_file_size,
        base_tip=args.base_tip,
        snapshot=sources or None,
        platform=assignments,
    )
    write_all("diff", args.output, done.result, files)
    failed = False
    if done.impact is not None:
        from renderer.reporters.impact.text import summary

        note(summary(done.impact))
        failed = done.impact.failed
    if done.result.cost is not None and done.result.cost.limit is not None:
        from renderer.escaping import plain
        from renderer.reporters.costs import change_headline

        note(plain(f"cost: {change_headline(done.result.cost)}"))
        failed = failed or done.result.cost.failed
    return EXIT_FINDINGS if failed else EXIT_OK
