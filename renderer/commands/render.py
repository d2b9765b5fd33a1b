"""``allocatable render``: turn a lint-clean policy repo into what the cluster consumes."""

from __future__ import annotations

import argparse
import sys

from renderer.commands.common import add_paths, emit, error, note, paths_of

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a cold `--help` never needs it)
if TYPE_CHECKING:
    from collections.abc import Sequence
    from pathlib import Path

    from renderer.findings import Finding
    from renderer.render.target import Delivered
    from renderer.validation.load import LoadResult

NAME = "render"
ORDER = 40
HELP = "render kubelet configuration, OpenShift KubeletConfig/MachineConfig, RuntimeClasses and Koordinator settings"
DESCRIPTION = (
    "Render the policies into files for the cluster and the nodes. Refuses to render while validation or lint "
    "reports errors (the findings go to stdout, or to stderr with --stdout). Writes into DIR (default: "
    "render.outputDir in .allocatable.yaml, else rendered/), owning only the files it generated, and prints a "
    "summary on stderr; --check compares instead of writing and prints a diff on stdout (when validation or "
    "lint reports errors, one line says it compared nothing, leaving the findings to validate and lint); --stdout "
    "prints every cluster object as one YAML stream."
)
EXIT_CODES = {
    0: "rendered (or, with --check, DIR is up to date)",
    1: "lint errors or a render problem (nothing written), or with --check: DIR differs",
}


IGNITION_VERSIONS = ("3.2.0", "3.3.0", "3.4.0", "3.5.0")  # what the Settings model accepts


def _target_names() -> str:
    from renderer.render.engine import target_names

    return ", ".join(target_names())


def register(parser: argparse.ArgumentParser) -> None:
    from pathlib import Path

    add_paths(parser, many=False)
    parser.add_argument(
        "-o",
        "--output",
        type=Path,
        default=None,
        metavar="DIR",
        help="output directory (default: render.outputDir in .allocatable.yaml, else rendered/)",
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--stdout", action="store_true", help="print every cluster object as one YAML stream; write nothing"
    )
    mode.add_argument(
        "--check",
        action="store_true",
        help="render in memory and compare with DIR; exit 1 and show a diff when it differs",
    )
    parser.add_argument(
        "--ignition-version",
        choices=IGNITION_VERSIONS,
        default=None,
        metavar="V",
        help=f"Ignition spec of rendered MachineConfigs ({', '.join(IGNITION_VERSIONS)}; "
        "default: render.ignitionVersion in .allocatable.yaml, else 3.2.0)",
    )
    parser.add_argument(
        "--target",
        action="append",
        default=[],
        metavar="T",
        help=f"render only these targets (repeatable): {_target_names()}",
    )


def _report(result: LoadResult, findings: list[Finding], *, to_stderr: bool) -> None:
    """Findings on stdout (on stderr with --stdout, where stdout carries only YAML), the summary on stderr."""
    from renderer.reporters import Report

    report = Report("render", findings, files=len(result.files), objects=result.policies.object_count())
    emit(report, "text", sys.stderr if to_stderr else sys.stdout)


class _Refused(Exception):
    pass


def run(args: argparse.Namespace) -> int:
    from renderer.pipeline import render
    from renderer.render import engine, output

    if args.stdout and args.output is not None:
        return error("--stdout writes no files; drop -o/--output")

    def koordinator_on(result: LoadResult, selected: list[str]) -> None:
        if args.target and not result.policies.settings.render.koordinator and "koordinator" in selected:
            raise _Refused(
                "target koordinator is turned off in .allocatable.yaml (render.koordinator: false); "
                "set it to true, or drop --target koordinator"
            )

    def destination(result: LoadResult) -> Path | None:
        """Where the files go (None with --stdout, or where the checks below refuse to write)."""
        if args.stdout:
            return None
        out_dir, problem = _destination(args, result)
        return None if problem is not None else out_dir

    try:
        done = render(
            paths_of(args),
            max_file_bytes=args.max_file_size,
            targets=args.target or None,
            ignition_version=args.ignition_version,
            check_targets=koordinator_on,
            output_dir=destination,
        )
    except (engine.UnknownTargetError, _Refused) as exc:
        return error(str(exc))
    result = done.load
    if args.check and done.stage in ("load", "lint"):
        return _not_checked(done.stage, done.findings, args)
    if done.stage == "load":
        _report(result, done.findings, to_stderr=args.stdout)
        return 2
    if done.stage == "lint":
        _report(result, done.findings, to_stderr=args.stdout)
        note("render: refusing to render while lint reports errors; nothing was written")
        return 1
    rendered = done.result
    assert rendered is not None
    if done.findings:
        _report(result, done.findings, to_stderr=args.stdout)
    if not rendered.ok:
        note(
            "render --check: not checked: a render would stop here (see above)"
            if args.check
            else "render: nothing was written"
        )
        return 1

    if args.stdout:
        sys.stdout.write(engine.stream_bytes(rendered).decode("utf-8"))
        sys.stdout.flush()
        if not rendered.cluster_documents():  # Argo CD would apply an empty stream: say why it is empty
            note(
                f"render --stdout: warning: no cluster objects to print: the targets rendered "
                f"({', '.join(rendered.targets) or 'none'}) make none here (node and platform files go to -o DIR "
                "only); an Argo CD application rendering this would hold no objects"
            )
        return 0

    out_dir, problem = _destination(args, result)
    if problem is not None:
        return error(problem)
    try:  # a directory that cannot be written safely is an OutputError, a UserError: one line, exit 2 (renderer.cli)
        if args.check:
            return _check(out_dir, rendered.files, args, rendered.delivered, _label(args, result))
        report = output.write(out_dir, rendered.files, rendered.delivered)
    except OSError as exc:  # pragma: no cover - the writer turns every OSError into an OutputError naming its path
        return error(f"{out_dir.as_posix()}: {exc.strerror or exc}")
    if report.cleaned:
        note(f"render: removed {_files(len(report.cleaned))} left by an interrupted render")
    for path in report.leftovers:
        note(f"render: warning: could not remove {path} (a previous version); the next render removes it")
    parts = [f"{len(report.written)} written", f"{len(report.unchanged)} unchanged"]
    if report.removed:
        parts.append(f"{len(report.removed)} stale removed")
    note(f"render: {_label(args, result)}: {_files(len(rendered.files))} ({', '.join(parts)})")
    return 0


def _destination(args: argparse.Namespace, result: LoadResult) -> tuple[Path, str | None]:
    """The output directory (-o as typed, else render.outputDir relative to the repository root, whatever the
    working directory) and why it may not be used, if it may not."""
    from renderer.loading.repository import shown
    from renderer.render import output

    if args.output is not None:
        return args.output, output.overlap(args.output, result.policies.root)
    top = _repository_root(paths_of(args)[0], result.policies.root)
    out_dir = shown(top / result.policies.settings.render.outputDir)
    # From the settings, which travel with the policies: it may not lead out of the repository.
    return out_dir, output.overlap(out_dir, result.policies.root) or output.escapes(out_dir, top)


def _label(args: argparse.Namespace, result: LoadResult) -> str:
    """The output directory as messages show it: ``-o DIR`` as typed; else ``render.outputDir``, relative to the
    repository root as the setting is, whatever the working directory (never an absolute path of this machine)."""
    if args.output is not None:
        return str(args.output.as_posix())
    from pathlib import PurePosixPath

    return str(PurePosixPath(result.policies.settings.render.outputDir))


def _repository_root(first: Path, policy_root: Path) -> Path:
    """What ``render.outputDir`` is relative to: the repository holding the policy repo (for policies read from
    standard input, the repository of the working directory)."""
    from renderer import safepath
    from renderer.loading.files import is_stdin
    from renderer.loading.repository import repository_root

    return safepath.repo_top() if is_stdin(first) else repository_root(policy_root)


def _command(name: str, args: argparse.Namespace, options: Sequence[str] = ()) -> str:
    """The command to run instead of ``render --check``, as a shell reads it: what decides which files are read
    (``--exclude``, ``--max-file-size``), the PATH as typed, then ``options`` (before the PATH and a ``--`` when the
    PATH starts with ``-``), each word quoted where the shell would need it."""
    import shlex

    words = ["allocatable", name, *(f"--exclude={pattern}" for pattern in args.exclude)]
    if args.max_file_size is not None:
        words.append(f"--max-file-size={args.max_file_size}")
    paths = [p.as_posix() for p in (args.paths if isinstance(args.paths, list) else [args.paths]) if p]
    if any(p.startswith("-") for p in paths):
        words += [*options, "--", *paths]  # after "--" every word is a PATH
    else:
        words += [*paths, *options]
    return " ".join(shlex.quote(w) for w in words)


def _not_checked(stage: str, findings: list[Finding], args: argparse.Namespace) -> int:
    """``--check`` runs beside validate and lint (pre-commit's hooks, the Action's steps), which report the
    findings: one line says why nothing was compared, instead of the same findings a second time. Exit 2 for
    policies that do not validate, 1 for lint errors, as without ``--check``."""
    errors = f"{sum(1 for f in findings if f.severity == 'error')} error"
    errors += "" if errors.startswith("1 ") else "s"
    if stage == "load":
        why = f"the policies do not validate ({errors}; see the validate or lint hook or step, or run "
        why += f"`{_command('validate', args)}`)"
    else:
        why = f"lint reports {errors} (see the lint hook or step, or run `{_command('lint', args)}`)"
    note(f"render --check: not checked: {why}; nothing was compared")
    return 2 if stage == "load" else 1


def _files(n: int) -> str:
    return f"{n} file{'s' if n != 1 else ''}"


def _check(
    out_dir: Path, files: dict[str, bytes], args: argparse.Namespace, delivered: dict[str, Delivered], label: str
) -> int:
    from renderer.render import drift

    differences = drift.check(out_dir, files, delivered)
    if not differences:
        note(f"render --check: {label} is up to date ({_files(len(files))})")
        return 0
    from renderer.escaping import plain

    for d in differences:  # paths and diff lines come from the disk: data, escaped
        sys.stdout.write(f"{plain(f'{label}/{d.path}')}: {d.status}\n")
        for line in d.diff:
            sys.stdout.write(f"    {plain(line)}\n")
    options = [*(["-o", label] if args.output is not None else []), *(f"--target={t}" for t in args.target)]
    if args.ignition_version is not None:
        options.append(f"--ignition-version={args.ignition_version}")
    cmd = _command("render", args, options)
    n = len(differences)
    note(f"render --check: {_files(n)} differ{'s' if n == 1 else ''} from {label}; run `{cmd}`")
    return 1
