"""``allocatable schema``: write the JSON Schemas generated from the models (or check they are current)."""

from __future__ import annotations

import argparse
import sys

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a cold `--help` never needs it)
if TYPE_CHECKING:
    from pathlib import Path

NAME = "schema"
ORDER = 90
HELP = "write JSON Schemas for every policy kind (for editors and CI)"
DESCRIPTION = (
    "Write one JSON Schema (draft 2020-12) per policy kind and for .allocatable.yaml, generated from the models, "
    "into DIR; only files whose content changes are rewritten, each named on stderr. --check compares instead and "
    "names each stale file on stdout. --print NAME prints one schema; --path prints the directory where the "
    "installed package keeps them (<prefix>/share/allocatable/schemas, from the wheel), for an editor to point at."
)
EXIT_CODES = {
    0: "written (or, with --check, DIR is up to date)",
    1: "with --check: DIR is out of date; with --path: no installed copy (a checkout or an editable install)",
}


def register(parser: argparse.ArgumentParser) -> None:
    from pathlib import Path

    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=Path("schemas"),
        metavar="DIR",
        help="directory to write into (default: schemas/)",
    )
    which = parser.add_mutually_exclusive_group()
    which.add_argument("--check", action="store_true", help="only compare; exit 1 when DIR is out of date")
    which.add_argument(
        "--print",
        dest="print_name",
        metavar="NAME",
        default=None,
        help="print one schema to stdout: a kind (NodePool), its file name (nodepool.json) or that name without .json",
    )
    which.add_argument(
        "--path",
        action="store_true",
        help="print the directory of the schemas the installed package ships (exit 1 when it has none)",
    )


def run(args: argparse.Namespace) -> int:
    from renderer.commands.common import error
    from renderer.pipeline import schemas as generate
    from renderer.render.dirtree import Tree
    from renderer.render.output import write_files

    if args.path:
        return _print_path()
    generated = generate()
    if args.print_name is not None:
        name = _schema_named(args.print_name, sorted(generated))
        if name is None:
            choices = ", ".join(n.removesuffix(".json") for n in sorted(generated))
            return error(f"no schema named {args.print_name!r}; choose from: {choices}")
        sys.stdout.write(generated[name])
        return 0
    files = {name: text.encode("utf-8") for name, text in generated.items()}
    out: Path = args.output
    # read and written as render writes: no symlinks followed, all or nothing (an OutputError: one line, exit 2)
    with Tree(out) as tree:
        stale = [name for name in files if tree.read(name) != files[name]]
    if args.check:
        for name in stale:
            sys.stdout.write(f"{(out / name).as_posix()}: out of date; run `allocatable schema -o {out.as_posix()}`\n")
        sys.stdout.flush()
        if stale:
            sys.stderr.write(f"schema --check: {len(stale)} of {len(files)} schemas out of date in {out.as_posix()}\n")
        else:
            sys.stderr.write(f"schema --check: {out.as_posix()} is up to date ({len(files)} schemas)\n")
        return 1 if stale else 0
    write_files(out, {name: files[name] for name in stale}, overwrite=True)
    for name in stale:
        sys.stderr.write(f"wrote {(out / name).as_posix()}\n")
    return 0


def _schema_named(text: str, names: list[str]) -> str | None:
    """The file name of the schema ``text`` names (``NodePool``, ``nodepool``, ``nodepool.json``)."""
    wanted = text.lower().removesuffix(".json") + ".json"
    return wanted if wanted in names else None


def _print_path() -> int:
    from renderer.commands.common import EXIT_FINDINGS, note

    found = installed_schemas()
    if found is None:
        note(
            "schema --path: this allocatable has no installed schemas (a checkout or an editable install); write "
            "them where you want with `allocatable schema -o DIR`"
        )
        return EXIT_FINDINGS
    sys.stdout.write(f"{found}\n")
    return 0


def installed_schemas() -> Path | None:
    """The directory of the JSON Schemas the wheel installed (``<prefix>/share/allocatable/schemas``), found from the
    installed files' record; None when there is none. Cost: reads the package's RECORD once."""
    from importlib import metadata
    from pathlib import Path

    try:
        dist = metadata.distribution("allocatable")
    except metadata.PackageNotFoundError:
        return None
    for entry in dist.files or ():
        parts = entry.parts
        if parts[-3:-1] == ("allocatable", "schemas") and entry.name.endswith(".json"):
            path = Path(str(dist.locate_file(entry))).resolve()
            if path.is_file():
                return path.parent
    return None
