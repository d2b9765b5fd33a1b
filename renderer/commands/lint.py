"""``allocatable lint``: validate, build the capacity model, apply every rule; the PR check and pre-commit hook."""

from __future__ import annotations

import argparse

from renderer.commands.common import add_paths, emit, focus_of, focused, note, note_focus, output_choices, paths_of

NAME = "lint"
ORDER = 20
HELP = "validate, then check policies against each other, the inventory and the kubelet's rules"
DESCRIPTION = (
    "Validate the policy repo, build the capacity model and apply the lint rules (`allocatable rules` lists them). "
    "Findings go to stdout in the chosen format, the summary to stderr. Invalid input is reported exactly as "
    "`allocatable validate` reports it, and no rule runs. PATH - reads one policy stream from stdin."
)
EXIT_CODES = {
    0: "no finding at error level (warnings and infos pass unless --strict)",
    1: "error findings (with --strict, warnings too)",
}


def register(parser: argparse.ArgumentParser) -> None:

    add_paths(parser)
    parser.add_argument(
        "-o",
        "--output",
        **output_choices("findings"),
        default="text",
        help="text (default), json, yaml, jsonpath=TEMPLATE (kubectl's), sarif (SARIF 2.1.0 for code scanning), "
        "github (workflow annotations, within GitHub's limits: ALLOCATABLE_GITHUB_ANNOTATIONS) or markdown (a table "
        "for a job summary)",
    )
    parser.add_argument(
        "--base",
        metavar="GIT_REF",
        default=None,
        help="also compare with the policy repo at this git revision — its merge-base with HEAD, as git diff "
        "GIT_REF...HEAD compares; GIT_REF.. (or --base-tip) for its tip — enabling the rules that compare with it "
        "(AL210: commit levels going down; AL215: reservation a pool loses)",
    )
    parser.add_argument(
        "--base-tip", action="store_true", help="with --base: compare with the tip of GIT_REF, not its merge-base"
    )
    parser.add_argument("--strict", action="store_true", help="exit 1 on warnings too")
    from renderer.commands.recommend import add_connection, date, days

    usage = parser.add_argument_group("measured usage (rule AL216; docs/recommend.md)")
    usage.add_argument(
        "--usage",
        metavar="FILE",
        nargs="+",
        action="extend",
        default=None,
        help="recommend's exports (or Summary API dumps): a reservation below what was measured is a warning",
    )
    usage.add_argument("--prometheus", metavar="URL", default=None, help="ask a Prometheus-compatible API instead")
    usage.add_argument("--window", type=days, default=14, metavar="DAYS", help="with --prometheus (default 14d)")
    usage.add_argument("--end", type=date, default=None, metavar="YYYY-MM-DD", help="with --prometheus")
    usage.add_argument("--nodes", metavar="FILE", default=None, help="kubectl get nodes -o json: places nodes in pools")
    add_connection(parser)


def run(args: argparse.Namespace) -> int:
    from renderer.commands.common import error
    from renderer.loading.files import is_stdin
    from renderer.pipeline import lint
    from renderer.reporters import Report

    if args.base_tip and args.base is None:
        return error("--base-tip goes with --base GIT_REF: it says to compare with the tip of GIT_REF")
    if args.base is not None and any(is_stdin(p) for p in paths_of(args)):
        return error("--base reads the policy repo from a git revision; stdin (-) has none, give the policy directory")
    from renderer.commands.recommend import connection_misused

    misused = connection_misused(args)
    if misused is not None:
        return error(misused)
    given = None
    if args.usage or args.prometheus:
        from renderer.commands.recommend import server_of, window_of
        from renderer.pipeline import UsageInput

        if args.usage and args.prometheus:
            return error("--usage and --prometheus both give the usage: pass one of them")
        given = UsageInput(
            tuple(args.usage or ()),
            server_of(args) if args.prometheus else None,  # type: ignore[arg-type]
            window_of(args),
            args.nodes,
            args.max_file_size,
        )
    elif args.nodes is not None:
        return error("--nodes places the nodes of --usage or --prometheus into pools: give one of them")
    # an export or dump that cannot be read is a UserError: one line, exit 2 (renderer.cli)
    done = lint(paths_of(args), max_file_bytes=args.max_file_size, base=args.base, base_tip=args.base_tip, usage=given)
    # A PATH inside a bigger policy repo: the repo is linted, the findings under the PATH are shown (and decide
    # the exit code). Validation errors anywhere stop lint, so they are all shown.
    focus = focus_of(args) if done.valid else None
    findings, hidden = focused(done.findings, focus)
    report = Report(
        "lint", findings, files=len(done.load.files), objects=done.load.policies.object_count(), base=done.base
    )
    emit(report, args.output)
    for text in given.notes if given is not None else ():  # as recommend says them: never silent about usage
        note(f"lint: note: {text}")
    note_focus("lint", focus, hidden, done.load.policies.root)
    if not done.valid:
        return 2
    if any(f.severity == "error" for f in findings):
        return 1
    if args.strict and any(f.severity == "warning" for f in findings):
        return 1
    return 0
