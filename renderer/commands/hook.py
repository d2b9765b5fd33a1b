"""``allocatable hook CHECK [FILE...]``: the entry point of the pre-commit hooks (see docs/pre-commit.md)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "hook"
ORDER = 95
HELP = "run validate, lint or render --check on the policy repos that contain FILEs (for pre-commit)"
DESCRIPTION = (
    "Map each FILE to its policy repo (the nearest directory above it with .allocatable.yaml, else a directory "
    "named policies) and run CHECK on each of those repos as a whole, because lint rules compare files with each "
    "other. Files outside every policy repo are skipped; for render-check they trigger a check of every policy repo "
    "(a hand edit of rendered output). Without FILEs, every policy repo of the git repository is checked. "
    "Each repo's output is headed by a line == ROOT on stderr when there are several."
)
EXIT_CODES = {0: "every check passed (or nothing to check)", 1: "a check failed (exit 2 when one could not run)"}
CHECKS = {"validate": ["validate"], "lint": ["lint"], "render-check": ["render", "--check"]}


def register(parser: argparse.ArgumentParser) -> None:
    from renderer.commands._common import EXIT_USAGE, USAGE_EXIT, exit_codes_text

    # One sub-parser per check, so that pre-commit's order (entry, args, then file names) parses cleanly.
    checks = parser.add_subparsers(dest="check", metavar="CHECK", required=True)
    for name in CHECKS:
        what = f"allocatable {' '.join(CHECKS[name])}"
        p = checks.add_parser(
            name,
            help=f"{what} on each policy repo",
            description=f"Run `{what}` on each policy repo that holds one of the FILEs (every repo without FILEs).",
            epilog=exit_codes_text({**EXIT_CODES, EXIT_USAGE: USAGE_EXIT}),
        )
        p.set_defaults(_parser=p)
        p.add_argument("files", nargs="*", type=Path, metavar="FILE", help="changed files (pre-commit passes them)")
        p.add_argument(
            "--arg",
            action="append",
            default=[],
            metavar="ARG",
            help="extra argument for the check, repeatable; write options with '=', e.g. --arg=--strict",
        )


def run(args: argparse.Namespace) -> int:
    from renderer.commands import lint, render, validate
    from renderer.commands._common import invoke
    from renderer.delivery.hooks import all_roots, roots_for
    from renderer.loading.files import display_path

    top = Path.cwd()
    if args.files:
        roots, _stray = roots_for(args.files, top, everything_on_stray=args.check == "render-check")
    else:
        roots = all_roots(top)
    if not roots:
        if not args.files:
            sys.stderr.write("hook: no policy repo found (no .allocatable.yaml, no policies/); nothing to check\n")
        return 0
    worst = 0
    for root in roots:
        shown = display_path(root) or "."
        if len(roots) > 1:
            sys.stdout.flush()
            sys.stderr.write(f"== {shown}\n")
            sys.stderr.flush()
        name, *options = CHECKS[args.check]
        command = {"validate": validate, "lint": lint, "render": render}[name]
        code = invoke(command, [*options, *args.arg, "--", shown])
        worst = max(worst, code)
    return worst
