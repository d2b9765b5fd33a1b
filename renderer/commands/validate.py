"""``allocatable validate``: parse and check every policy document against its kind's schema."""

from __future__ import annotations

import argparse

from renderer.commands.common import add_paths, emit, focus_of, focused, note_focus, paths_of

NAME = "validate"
ORDER = 10
HELP = "check policy files: YAML, kinds, fields, quantities, names, selectors"
DESCRIPTION = (
    "Parse every policy file under PATH and check each document against its kind: YAML syntax, kind and apiVersion, "
    "fields, quantities, names and selectors. Each problem is one line on stdout, file:line:col: severity: message "
    "[code] (Kind/name); the summary goes to stderr. PATH - reads one policy stream from stdin, located as <stdin>."
)
EXIT_CODES = {0: "every file is valid", 1: "findings below error level only"}


def register(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument(
        "-o",
        "--output",
        choices=["text", "json"],
        default="text",
        help='text (default: one line per finding) or json ({"version": 1, "files", "objects", "findings"})',
    )


def run(args: argparse.Namespace) -> int:
    from renderer.pipeline import load
    from renderer.reporters import Report

    result = load(paths_of(args), max_file_bytes=args.max_file_size)
    focus = focus_of(args)  # a PATH inside a bigger policy repo: the repo is read, its findings under PATH shown
    findings, hidden = focused(result.finish(result.findings), focus)
    report = Report("validate", findings, files=len(result.files), objects=result.policies.object_count())
    emit(report, args.output)
    note_focus("validate", focus, hidden, result.policies.root)
    if any(f.severity == "error" for f in findings):
        return 2
    return 1 if findings else 0
