"""``allocatable hook CHECK [FILE...]``: the entry point of the pre-commit hooks (see docs/pre-commit.md)."""

from __future__ import annotations

import argparse
import sys

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


def files_after_options(argv: list[str]) -> list[str]:
    """``argv`` with ``--`` inserted where the file names start, so no file name is ever read as an option.

    pre-commit runs ``entry``, then the hook's ``args``, then the file names: ``allocatable hook lint
    --arg=--strict f1 f2``. The file names are data (a top-level file may be called ``--help.yaml``), so only
    ``-h``/``--help`` and ``--arg`` with a value that is an option of the check (``--arg=--strict``, ``--arg
    --strict``, ``--arg=--base=origin/main``), or follows one (``--arg=-o --arg=json``) count as options here; the first other word starts the files, and a
    path in a directory named like an option (``--arg=--help/pools/a.yaml``) is a file. Only a top-level file named
    like ``--arg=-x.yaml`` would be read as an option, and then fail the check with an error: never a check that
    passes unseen.
    """
    out: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        seen_arg = any(w.startswith("--arg=") for w in out)
        if word == "--":
            return [*out, *argv[i:]]
        if word in ("-h", "--help") or (word.startswith("--arg=") and _check_option(word[len("--arg=") :], seen_arg)):
            out.append(word)
            i += 1
        elif word == "--arg" and i + 1 < len(argv) and _check_option(argv[i + 1], seen_arg):
            out += [f"--arg={argv[i + 1]}"]
            i += 2
        else:
            return [*out, "--", *argv[i:]]
    return out


def _check_option(value: str, after_option: bool) -> bool:
    """An option of the check (``--strict``, ``--base=origin/main``), or the value of the one before it (``-o``,
    ``json``); not a path (``--x/pools/a.yaml``): any "/" comes after its "="."""
    slash, equals = value.find("/"), value.find("=")
    return (value.startswith("-") or after_option) and (slash < 0 or 0 <= equals < slash)


def _check_parser() -> type[argparse.ArgumentParser]:
    from renderer.commands.common import Parser

    class CheckParser(Parser):
        def parse_known_args(  # type: ignore[override]
            self, args: list[str] | None = None, namespace: argparse.Namespace | None = None
        ) -> tuple[argparse.Namespace, list[str]]:
            return super().parse_known_args(None if args is None else files_after_options(list(args)), namespace)

    return CheckParser


def register(parser: argparse.ArgumentParser) -> None:
    from pathlib import Path

    from renderer.commands.common import EXIT_USAGE, USAGE_EXIT, exit_codes_text

    # One sub-parser per check, so that pre-commit's order (entry, args, then file names) parses cleanly; file
    # names are never options (files_after_options).
    checks = parser.add_subparsers(dest="check", metavar="CHECK", required=True, parser_class=_check_parser())
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
            help="extra option for the check, repeatable; write it with '=', e.g. --arg=--strict (file names that "
            "follow are never read as options)",
        )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    from renderer.commands import lint, render, validate
    from renderer.commands.common import invoke
    from renderer.escaping import plain
    from renderer.integrations.hooks import all_roots, roots_for
    from renderer.loading.files import display_path, is_stdin

    top = Path.cwd()
    # pre-commit passes only files that exist: a word like an option that names no file is a mistyped option.
    unknown = [str(f) for f in args.files if str(f).startswith("-") and not (f.exists() or f.is_symlink())]
    if unknown:
        args._parser.error(f"unrecognized arguments: {' '.join(unknown)}")
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
            sys.stderr.write(f"== {plain(shown)}\n")
            sys.stderr.flush()
        name, *options = CHECKS[args.check]
        command = {"validate": validate, "lint": lint, "render": render}[name]
        # After "--" no path is an option; a repo called "-" is passed by its absolute path, or it would read stdin.
        code = invoke(command, [*options, *args.arg, "--", str(root) if is_stdin(shown) else shown])
        worst = max(worst, code)
    return worst
