"""``allocatable validate``: parse and check every policy document against its kind's schema."""

from __future__ import annotations

import argparse

from renderer.commands._common import add_paths, emit, load

NAME = "validate"
ORDER = 10
HELP = "check policy files: YAML, kinds, fields, quantities, names, selectors"


def register(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument("-o", "--output", choices=["text", "json"], default="text", help="output format")


def run(args: argparse.Namespace) -> int:
    from renderer.reporters import Report

    result = load(args)
    findings = result.finish(result.findings)
    emit(
        Report("validate", findings, files=len(result.files), objects=result.policies.object_count()),
        args.output,
    )
    if any(f.severity == "error" for f in findings):
        return 2
    return 1 if findings else 0
