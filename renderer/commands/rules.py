"""``allocatable rules``: list the lint rules, show one rule's documentation, or write docs/rules.md."""

from __future__ import annotations

import argparse
import sys

NAME = "rules"
ORDER = 25
HELP = "list the finding codes (lint rules, validation, render), or show the documentation of one (rules AL201)"
DESCRIPTION = (
    "List every code the tool reports — validation, the lint rules and the render stage's — with its default "
    "severity and summary, or print the documentation of the codes named (what each checks, why it matters, a bad "
    "and a good example, the fix, and whether .allocatable.yaml can configure it). --markdown prints the reference "
    "docs/rules.md is generated from."
)
EXIT_CODES = {0: "listed"}


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("codes", nargs="*", metavar="CODE", help="rule codes (or names) to document, e.g. AL201")
    parser.add_argument(
        "--markdown", action="store_true", help="print the rules reference as markdown (the source of docs/rules.md)"
    )
    parser.add_argument("-o", "--output", choices=["text", "json"], default="text", help="output format")


def _fail(message: str) -> int:
    from renderer.commands.common import error

    return error(message)


def run(args: argparse.Namespace) -> int:
    import json

    from renderer.lint.docs import markdown_reference, terminal_doc
    from renderer.reporters.catalog import catalog
    from renderer.reporters.findings.text import use_colour

    infos = catalog()
    if args.markdown:
        if args.codes or args.output != "text":
            return _fail("--markdown prints the whole reference; drop the codes and -o")
        sys.stdout.write(markdown_reference(infos))
        return 0

    chosen = list(infos.values())
    if args.codes:
        by_name = {i.name: i for i in infos.values()}
        chosen = []
        for wanted in args.codes:
            info = infos.get(wanted.upper()) or by_name.get(wanted.lower())
            if info is None:
                return _fail(f'unknown rule "{wanted}"; `allocatable rules` lists the codes')
            chosen.append(info)

    if args.output == "json":
        doc = [
            {
                "code": i.code,
                "name": i.name,
                "severity": i.severity,
                "group": i.group,
                "summary": i.summary,
                "configurable": i.fixed is None,
            }
            | ({"doc": i.doc} if args.codes else {})
            for i in chosen
        ]
        json.dump(doc, sys.stdout, indent=2, ensure_ascii=False)
        sys.stdout.write("\n")
        return 0

    if args.codes:
        colour = use_colour(sys.stdout)
        sys.stdout.write("\n\n".join(terminal_doc(i, colour=colour) for i in chosen) + "\n")
        return 0

    width = max(len(i.name) for i in chosen)
    group = None
    for i in chosen:
        if i.group != group:
            if group is not None:
                sys.stdout.write("\n")
            group = i.group
            sys.stdout.write(f"{group}:\n")
        sys.stdout.write(f"  {i.code}  {i.severity:<7}  {i.name:<{width}}  {i.summary}\n")
    sys.stdout.write("\nallocatable rules CODE shows what a code checks, why, an example and the fix.\n")
    return 0
