"""Argument helpers and output conventions shared by subcommands.

Conventions (docs/cli.md): results and findings go to stdout; summaries, progress and errors to stderr, stdout
flushed first so a terminal shows them in order. Usage and input errors are one line,
``allocatable: error: <what is wrong>; <what to do>``, exit 2. Every command states its exit codes in ``--help``.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from types import ModuleType

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a cold `--help` never needs it)

# `allocatable --help` imports this module: pathlib and typing (~10 ms of a 70 ms start) only when a command runs.
if TYPE_CHECKING:
    from collections.abc import Mapping
    from pathlib import Path
    from typing import Any, TextIO

    from renderer.findings import Finding
    from renderer.reporters import Report
    from renderer.validation.load import LoadResult


EXIT_OK, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2
PROG = "allocatable"
#: What exit 2 means for every command (usage errors are caught by argparse before any command runs).
USAGE_EXIT = "invalid input or usage error (one line on stderr: allocatable: error: ...)"


def error(message: str) -> int:
    """Write the one-line usage/input error (``what is wrong; what to do``) to stderr; return exit code 2."""
    from renderer.escaping import plain

    sys.stdout.flush()
    sys.stderr.write(f"{PROG}: error: {plain(message)}\n")  # one line: paths and values in it are data
    sys.stderr.flush()
    return EXIT_USAGE


def note(message: str) -> None:
    """A summary or progress line: stderr, after whatever stdout holds so far (terminals show them in order)."""
    from renderer.escaping import plain

    sys.stdout.flush()
    sys.stderr.write(plain(message) + "\n")
    sys.stderr.flush()


class HelpFormatter(argparse.HelpFormatter):
    """Wraps each paragraph of a description on its own; keeps indented lines (tables, exit codes) as written.

    The width is found as ``shutil.get_terminal_size`` finds it (``COLUMNS``, else the terminal of stdout, else 80),
    without importing ``shutil`` (with ``bz2``, ``lzma`` and ``zlib``: 4 – 5 ms of a 60 ms ``--help``)."""

    def __init__(
        self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: int | None = None
    ) -> None:
        if width is None:
            width = _terminal_columns() - 2
        super().__init__(prog, indent_increment, max_help_position, width)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        import textwrap  # help only: not on the path of a run

        out: list[str] = []
        for para in re.split(r"\n\s*\n", text.strip("\n")):
            if para.startswith("  ") or "\n  " in para:
                out.append("\n".join(indent + line for line in para.splitlines()))
            else:
                out.append(
                    textwrap.fill(" ".join(para.split()), width, initial_indent=indent, subsequent_indent=indent)
                )
        return "\n\n".join(out)


def _terminal_columns() -> int:
    try:
        columns = int(os.environ.get("COLUMNS", ""))
    except ValueError:
        columns = 0
    if columns > 0:
        return columns
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or 80  # type: ignore[union-attr]
    except (AttributeError, ValueError, OSError):  # no stdout, not a terminal
        return 80


def exit_codes_text(codes: Mapping[int, str]) -> str:
    """The ``exit codes:`` block every ``--help`` ends with."""
    return "exit codes:\n" + "\n".join(f"  {code}  {meaning}" for code, meaning in sorted(codes.items()))


def describe(command: ModuleType) -> tuple[str, str]:
    """``description`` and ``epilog`` of a command's parser: what it does, and its exit codes."""
    codes = dict(getattr(command, "EXIT_CODES", {}))
    codes.setdefault(EXIT_USAGE, USAGE_EXIT)
    return str(getattr(command, "DESCRIPTION", command.HELP)), exit_codes_text(codes)


class Parser(argparse.ArgumentParser):
    """argparse with the project's usage-error convention: one line on stderr, exit 2."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]

    def error(self, message: str) -> None:  # type: ignore[override]
        error(f"{message}; see `{self.prog} --help`")
        raise SystemExit(EXIT_USAGE)


def add_color(parser: argparse.ArgumentParser) -> None:
    from renderer.terminal import CHOICES

    parser.add_argument(
        "--color",
        choices=CHOICES,
        default=None,
        metavar="WHEN",
        help="colour findings: auto (default: on a terminal; NO_COLOR, FORCE_COLOR and CLICOLOR_FORCE are "
        "honoured), always or never",
    )


def invoke(command: ModuleType, argv: list[str]) -> int:
    """Run another subcommand module in this process, as ``allocatable <NAME> argv...`` would."""
    description, epilog = describe(command)
    parser = Parser(prog=f"allocatable {command.NAME}", description=description, epilog=epilog)
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


def exclude_pattern(text: str) -> str:
    """``--exclude``: one gitignore pattern (``renderer.loading.exclude``)."""
    from renderer.models.settings import check_exclude_pattern

    try:
        return check_exclude_pattern(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def add_paths(parser: argparse.ArgumentParser, *, many: bool = True) -> None:
    from renderer.loading.files import path_argument  # "-" is stdin; "./-" the directory named "-"

    parser.add_argument(
        "paths",
        nargs="*" if many else "?",
        type=path_argument,
        default=[] if many else None,
        metavar="PATH",
        help="policy files or directories, the first one being the policy repo (default: policies/); - reads stdin"
        if many
        else "the policy directory, or one policy file (default: policies/); - reads stdin",
    )
    parser.add_argument(
        "--max-file-size",
        type=max_file_size,
        default=None,
        metavar="BYTES",
        help="refuse policy files larger than this (default 256 MiB, or limits.maxFileBytes in .allocatable.yaml)",
    )
    parser.add_argument(
        "--exclude",
        action="append",
        type=exclude_pattern,
        default=[],
        metavar="GLOB",
        help="leave out what the walk finds under PATH and this gitignore pattern matches, relative to the policy "
        "repo root (repeatable; adds to exclude: in .allocatable.yaml): --exclude charts/ --exclude kustomization.yaml",
    )


def paths_of(args: argparse.Namespace) -> list[Path]:
    """The PATHs given, as typed; none: the policy repo found at or above the working directory
    (``renderer.loading.repository.default_policy_dir``), the same from any directory of the repository."""
    from pathlib import Path

    paths = args.paths
    if isinstance(paths, Path):
        paths = [paths]
    if paths:
        cached_given = getattr(args, "_enclosing_paths", None)
        if cached_given is None:
            from renderer.loading.repository import enclosing

            cached_given, args._focus = enclosing(list(paths))
            args._enclosing_paths = cached_given
        return list(cached_given)
    cached = getattr(args, "_default_paths", None)
    if cached is None:
        from renderer.loading.files import UsageError
        from renderer.loading.repository import DEFAULT_POLICY_DIR, default_policy_dir

        found = default_policy_dir()
        if found is None:
            raise UsageError(
                f"no policy repo here: no .allocatable.yaml and no {DEFAULT_POLICY_DIR}/ directory at or above the "
                "working directory (up to the repository's top); give the policy directory as PATH, or create one "
                "with `allocatable init`"
            )
        cached = [found]
        args._default_paths = cached
    return list(cached)


def focus_of(args: argparse.Namespace) -> list[Path] | None:
    """The PATHs given inside a bigger policy repo (``paths_of`` reads that repo instead): only the findings under
    them are shown. None when the PATHs are the repo."""
    paths_of(args)
    focus: list[Path] | None = getattr(args, "_focus", None)
    return focus


def focused(findings: list[Finding], focus: list[Path] | None) -> tuple[list[Finding], int]:
    """The findings under ``focus`` (all of them without one), and how many others were left out."""
    if not focus:
        return findings, 0
    from renderer.loading.repository import under

    shown = [f for f in findings if under(f.path, focus)]
    return shown, len(findings) - len(shown)


def note_focus(command: str, focus: list[Path] | None, hidden: int, root: Path) -> None:
    """Say that the findings shown are those under the PATHs, and how many the rest of the repo has."""
    if not focus:
        return
    where = ", ".join(p.as_posix() for p in focus)
    more = f"{hidden} more elsewhere in {root.as_posix()}" if hidden else f"none elsewhere in {root.as_posix()}"
    note(f"{command}: read as part of the policy repo {root.as_posix()}; findings under {where} shown ({more})")


def emit(report: Report, fmt: str, out: TextIO | None = None) -> None:
    """Findings in ``fmt`` on stdout (or ``out``), then the summary line on stderr."""
    from renderer import reporters
    from renderer.reporters.findings.text import summary

    reporters.get("findings", fmt)(report, out or sys.stdout)
    if report.base is not None:
        note(f"{report.command}: compared with {report.base.describe()}")
    note(summary(report))


def emit_load(result: LoadResult, command: str, fmt: str = "text", out: TextIO | None = None) -> None:
    """The findings of a load (positions resolved), reported as ``command``'s."""
    from renderer.reporters import Report

    report = Report(command, result.findings, files=len(result.files), objects=result.policies.object_count())
    emit(report, fmt, out)


class FormatChoices(list[str]):
    """The ``-o`` choices of a report (``renderer.reporters.names``), where ``jsonpath=TEMPLATE`` is the choice
    ``jsonpath``: argparse lists and completes the names, and accepts a format with its argument."""

    def __contains__(self, spec: object) -> bool:
        from renderer.reporters import split

        return isinstance(spec, str) and list.__contains__(self, split(spec)[0])


def output_choices(report: str) -> dict[str, Any]:
    """``choices`` and ``type`` of a command's ``-o/--output``: the report's formats, each format's argument
    checked while the command line is read (``-o jsonpath=`` without a template, or one that does not parse, is a
    usage error before any work is done)."""
    from renderer import reporters

    def spec(text: str) -> str:
        name, _ = reporters.split(text)
        if name in reporters.names(report):
            try:
                reporters.get(report, text)
            except ValueError as exc:
                raise argparse.ArgumentTypeError(str(exc)) from None
        return text

    spec.__name__ = "format"  # argparse names the type in its message: "invalid format value"
    return {"choices": FormatChoices(reporters.names(report)), "type": spec}


def write(report: str, fmt: str, result: object) -> None:
    """``result`` in format ``fmt`` of ``report`` on stdout (``renderer.reporters``), flushed."""
    from renderer import reporters

    reporters.get(report, fmt)(result, sys.stdout)
    sys.stdout.flush()


def platform_assignments(values: list[str] | None) -> list[Any] | str:
    """``--platform`` values (``P[/PROFILE][:SELECTOR]``) parsed, or the usage error to print."""
    from renderer import platforms

    try:
        return [platforms.parse_assignment(v) for v in values or []]
    except ValueError as exc:
        return str(exc)


def add_file_outputs(parser: argparse.ArgumentParser, report: str) -> None:
    """``--FORMAT-output PATH`` for every format of ``report`` that takes no argument (``--markdown-output``,
    ``--json-output``, ``--html-output``, ...): the same run written in more formats, each to its file, as
    semgrep's ``--json-output``/``--sarif-output`` and golangci-lint's ``output.<format>.path`` do; ``-o`` still
    says what goes to stdout. A new format is a new option (the formats are the files of the report's folder)."""
    from renderer import reporters

    group = parser.add_argument_group(
        "more formats from the same run", "each written to its file, all or nothing; -o still chooses stdout's"
    )
    for name in reporters.names(report):
        if reporters.DERIVED.get(name):  # jsonpath needs its template: -o jsonpath=TEMPLATE, on stdout
            continue
        group.add_argument(
            f"--{name}-output",
            metavar="PATH",
            dest=f"file_output_{name}",
            default=None,
            help=f"also write the {name} report to PATH",
        )


def file_outputs(args: argparse.Namespace, report: str) -> dict[str, str] | str:
    """The ``--FORMAT-output`` files given: format → path, or the usage error to print (a path given for two
    formats, or ``-``: standard output is ``-o``'s)."""
    from renderer import reporters

    given = {
        name: path
        for name in reporters.names(report)
        if (path := getattr(args, f"file_output_{name}", None)) is not None
    }
    seen: dict[str, str] = {}
    for name, path in given.items():
        if path == "-" or not path:
            return f"--{name}-output needs a file; standard output is -o's (-o {name})"
        real = os.path.realpath(path)
        if real in seen:
            return f"--{seen[real]}-output and --{name}-output name the same file {path}; give each its own"
        seen[real] = name
    return given


def write_all(report: str, fmt: str, result: object, files: Mapping[str, str]) -> None:
    """``result`` in format ``fmt`` on stdout and in each format of ``files`` (format → path) to its file: every file's
    text made first (one result, so the files and stdout agree byte for byte with separate runs), each file written
    all or nothing (``renderer.safepath.put``: staged, then renamed; a symlink on the way inside the repository, or
    ``.git/``, is refused), stdout last. A file that cannot be written is an ``OutputError``: one line, exit 2.
    Memory: the text of every file at once (each format already makes its whole text once)."""
    import io

    from renderer import reporters
    from renderer.render.dirtree import OutputError
    from renderer.safepath import FileProblem, put

    texts = []
    for name, path in files.items():
        buffer = io.StringIO()
        reporters.get(report, name)(result, buffer)
        texts.append((path, buffer.getvalue().encode("utf-8")))
    for path, data in texts:
        try:
            put(path, data)
        except FileProblem as exc:
            raise OutputError(str(exc)) from None
    write(report, fmt, result)
