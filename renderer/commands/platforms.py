"""``allocatable platforms``: the platforms, what each reserves and how its nodes are recognised."""

from __future__ import annotations

import argparse
import sys

NAME = "platforms"
ORDER = 42
HELP = "list the platforms (detection, default reservations per release, formulas), or document one"
DESCRIPTION = (
    "List every platform the tool models (renderer/platforms/): how its nodes are recognised, what it reserves by "
    "itself and its formulas; with names, print each one's full documentation (defaults per release with their "
    "upstream sources, profiles for platformDefaults, Karpenter CEL forms). --markdown prints docs/platforms.md."
)
EXIT_CODES = {0: "listed"}


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("names", nargs="*", metavar="PLATFORM", help="platforms to document, e.g. openshift")
    parser.add_argument("--markdown", action="store_true", help="print docs/platforms.md (every platform)")
    parser.add_argument("-o", "--output", choices=["text", "json"], default="text", help="output format")


def _fail(message: str) -> int:
    from renderer.commands.common import error

    return error(message)


def run(args: argparse.Namespace) -> int:
    import json

    from renderer import platforms
    from renderer.capacity import platform_docs

    if args.markdown:
        if args.names or args.output != "text":
            return _fail("--markdown prints every platform; drop the names and -o")
        sys.stdout.write(platform_docs.markdown())
        return 0
    known = platforms.names()
    for name in args.names:
        if name not in known:
            return _fail(f'unknown platform "{name}"; `allocatable platforms` lists them: {", ".join(known)}')
    chosen = [platforms.get(n) for n in args.names] if args.names else platforms.ordered()
    if args.output == "json":
        doc = [
            {
                "name": p.name,
                "title": p.title,
                "summary": p.summary,
                "published": p.published,
                "detection": [s.describe() for s in p.signals],
                "defaults": [
                    {"name": d.name, "title": d.title, "formula": d.formula.name if d.formula else None}
                    for d in p.defaults
                ],
                "formulas": [f.name for f in p.formulas],
                "profiles": sorted(p.profiles),
            }
            for p in chosen
        ]
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
        return 0
    if args.names:
        sys.stdout.write("\n".join(platform_docs.describe(p.name) for p in chosen))
        return 0
    width = max(len(p.name) for p in chosen)
    for p in chosen:
        flag = "" if p.published else " (none published)"
        sys.stdout.write(f"  {p.name:<{width}}  {p.summary}{flag}\n")
    sys.stdout.write("\nallocatable platforms NAME shows a platform's detection, defaults per release and sources.\n")
    return 0
