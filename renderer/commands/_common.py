"""Argument helpers shared by subcommands."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from renderer.reporters import Report
    from renderer.validation.load import LoadResult


EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


class Parser(argparse.ArgumentParser):
    """argparse with the project's usage-error convention: one line on stderr, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_USAGE)


def invoke(command: ModuleType, argv: list[str]) -> int:
    """Run another subcommand module in this process, as ``allocatable <NAME> argv...`` would."""
    parser = Parser(prog=f"allocatable {command.NAME}")
    command.register(parser)
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return int(command.run(args))


def max_file_size(text: str) -> int:
    """``--max-file-size``: a whole number of bytes within the bounds ``renderer.loading.files`` accepts."""
    from renderer.loading.files import MAX_FILE_BYTES_CEILING

    if text.isascii() and text.isdigit() and 1 <= int(text[:20]) <= MAX_FILE_BYTES_CEILING and len(text) <= 20:
        return int(text)
    shown = text if len(text) <= 24 else text[:20] + "…"
    raise argparse.ArgumentTypeError(
        f"must be a whole number of bytes from 1 to {MAX_FILE_BYTES_CEILING} (1 GiB), got {shown!r}"
    )


def add_paths(parser: argparse.ArgumentParser, *, many: bool = True) -> None:
    parser.add_argument(
        "paths",
        nargs="*" if many else "?",
        type=Path,
        default=[] if many else None,
        metavar="PATH",
        help="policy files or directories (default: policies/)",
    )
    parser.add_argument(
        "--max-file-size",
        type=max_file_size,
        default=None,
        metavar="BYTES",
        help="refuse policy files larger than this (default 8 MiB, or limits.maxFileBytes in .allocatable.yaml)",
    )


def paths_of(args: argparse.Namespace) -> list[Path]:
    paths = args.paths
    if paths is None:
        return [Path("policies")]
    if isinstance(paths, Path):
        return [paths]
    return list(paths) or [Path("policies")]


def load(args: argparse.Namespace) -> LoadResult:
    from renderer.pipeline import load as _load

    return _load(paths_of(args), max_file_bytes=args.max_file_size)


def emit(report: Report, fmt: str) -> None:
    from renderer import reporters

    reporters.get(fmt)(report, sys.stdout)
    sys.stdout.flush()
