"""``allocatable schema``: write the JSON Schemas generated from the models (or check they are current)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

NAME = "schema"
ORDER = 90
HELP = "write JSON Schemas for every policy kind (for editors and CI)"
DESCRIPTION = (
    "Write one JSON Schema (draft 2020-12) per policy kind and for .allocatable.yaml, generated from the models, "
    "into DIR; only files whose content changes are rewritten, each named on stderr. --check compares instead and "
    "names each stale file on stdout."
)
EXIT_CODES = {0: "written (or, with --check, DIR is up to date)", 1: "with --check: DIR is out of date"}


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("schemas"),
        metavar="DIR",
        help="directory to write into (default: schemas/)",
    )
    parser.add_argument("--check", action="store_true", help="only compare; exit 1 when DIR is out of date")


def run(args: argparse.Namespace) -> int:
    from renderer.commands.common import error
    from renderer.pipeline import schemas as generate
    from renderer.render.output import OutputError, Tree, write_files

    files = {name: text.encode("utf-8") for name, text in generate().items()}
    out: Path = args.output
    try:  # read and written as render writes: no symlinks followed, all or nothing
        with Tree(out) as tree:
            stale = [name for name in files if tree.read(name) != files[name]]
        if args.check:
            for name in stale:
                sys.stdout.write(
                    f"{(out / name).as_posix()}: out of date; run `allocatable schema -o {out.as_posix()}`\n"
                )
            sys.stdout.flush()
            if stale:
                sys.stderr.write(
                    f"schema --check: {len(stale)} of {len(files)} schemas out of date in {out.as_posix()}\n"
                )
            else:
                sys.stderr.write(f"schema --check: {out.as_posix()} is up to date ({len(files)} schemas)\n")
            return 1 if stale else 0
        write_files(out, {name: files[name] for name in stale}, overwrite=True)
    except OutputError as exc:
        return error(str(exc))
    for name in stale:
        sys.stderr.write(f"wrote {(out / name).as_posix()}\n")
    return 0
