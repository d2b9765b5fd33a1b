"""CLI conventions (docs/cli.md): every command's --help states its exit codes and every option has help text;
one error prefix; results on stdout, summaries and errors on stderr; --color and the colour environment."""

from __future__ import annotations

import argparse
import io
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import run_cli
from renderer.cli import build_parser
from renderer.terminal import colour_enabled

REPO_ROOT = Path(__file__).resolve().parents[2]


def _parsers(parser: argparse.ArgumentParser) -> Iterator[argparse.ArgumentParser]:
    yield parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in dict.fromkeys(action.choices.values()):
                yield from _parsers(sub)


ALL = list(_parsers(build_parser()))


def test_the_walk_finds_every_command() -> None:
    progs = {p.prog for p in ALL}
    for name in ("validate", "lint", "render", "explain", "sizing", "diff", "init", "schema", "rules", "completion"):
        assert f"allocatable {name}" in progs
    assert "allocatable hook lint" in progs


@pytest.mark.parametrize("parser", ALL, ids=[p.prog for p in ALL])
def test_help_states_exit_codes_and_every_option_has_help(parser: argparse.ArgumentParser) -> None:
    first = (parser.description or "").split("\n\n")[0].rstrip()
    assert first[:1].isupper() and first.endswith((".", ":")), f"{parser.prog}: the description is a sentence or more"
    text = parser.format_help()
    assert "\nexit codes:\n" in text, f"{parser.prog} --help does not state its exit codes"
    codes = text.split("\nexit codes:\n", 1)[1]
    assert "  0  " in codes and "  2  invalid input or usage error" in codes
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                assert choice.help, f"{parser.prog}: command {choice.dest} has no help"
            continue
        name = "/".join(action.option_strings) or action.dest
        assert action.help and action.help != argparse.SUPPRESS, f"{parser.prog}: {name} has no help text"


def test_usage_errors_have_the_one_prefix_and_name_the_right_help() -> None:
    for argv, help_of in (
        (["render", "--bogus"], "allocatable render"),
        (["explain", "-o", "toml"], "allocatable explain"),
        (["sizing", "--formula", "eks"], "allocatable sizing"),
        (["nope"], "allocatable"),
        (["hook", "lint", "--bogus"], "allocatable hook lint"),
    ):
        res = run_cli(*argv)
        assert res.exit_code == 2 and res.stdout == ""
        (line,) = res.stderr.splitlines()
        assert line.startswith("allocatable: error: ") and line.endswith(f"see `{help_of} --help`"), line
    res = run_cli()
    assert res.exit_code == 2 and res.stderr.splitlines()[-1].startswith("allocatable: error: no COMMAND given")
    res = run_cli("explain", "policies", "--pool", "nope", cwd=REPO_ROOT)
    assert res.exit_code == 2 and res.stderr.startswith("allocatable: error: no pool named nope; choose from: ")


def test_summaries_go_to_stderr_results_to_stdout() -> None:
    lint = run_cli("lint", "policies", cwd=REPO_ROOT)
    assert re.fullmatch(r"lint: \d+ objects in \d+ files: 2 infos\n", lint.stderr), lint.stderr
    assert all(": info: " in ln for ln in lint.stdout.splitlines() if ln)
    check = run_cli("render", "--check", "policies", cwd=REPO_ROOT)
    assert (check.exit_code, check.stdout) == (0, "")
    assert re.fullmatch(r"render --check: rendered is up to date \(\d+ files\)\n", check.stderr), check.stderr


def test_check_says_1_file_differs(tmp_path: Path) -> None:
    out = tmp_path / "rendered"
    assert run_cli("render", str(REPO_ROOT / "policies"), "-o", str(out)).exit_code == 0
    (out / "manifests" / "runtimeclasses.yaml").write_text("# edited\n")
    res = run_cli("render", "--check", str(REPO_ROOT / "policies"), "-o", str(out))
    assert res.exit_code == 1 and "manifests/runtimeclasses.yaml: changed" in res.stdout
    assert f"render --check: 1 file differs from {out.as_posix()}; run `allocatable render" in res.stderr


class _Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


# (--color, environment, stream is a TTY) → coloured?
MATRIX = [
    ("auto", {}, True, True),
    ("auto", {}, False, False),
    ("auto", {"NO_COLOR": "1"}, True, False),
    ("auto", {"NO_COLOR": ""}, True, True),  # empty means unset (no-color.org)
    ("auto", {"FORCE_COLOR": "1"}, False, True),
    ("auto", {"FORCE_COLOR": ""}, False, False),
    ("auto", {"CLICOLOR_FORCE": "1"}, False, True),
    ("auto", {"CLICOLOR_FORCE": "0"}, False, False),
    ("auto", {"NO_COLOR": "1", "FORCE_COLOR": "1"}, True, False),  # NO_COLOR wins, as in CPython 3.13
    ("auto", {"TERM": "dumb"}, True, False),
    ("auto", {"TERM": "dumb", "FORCE_COLOR": "1"}, False, True),
    ("auto", {"CLICOLOR": "0"}, True, False),
    ("always", {"NO_COLOR": "1"}, False, True),  # the flag beats the environment
    ("never", {"FORCE_COLOR": "1", "CLICOLOR_FORCE": "1"}, True, False),
]


@pytest.mark.parametrize(("mode", "env", "tty", "expected"), MATRIX)
def test_colour_matrix(mode: str, env: dict[str, str], tty: bool, expected: bool) -> None:
    stream = _Tty() if tty else io.StringIO()
    assert colour_enabled(stream, mode=mode, env=env) is expected


def _lint_subprocess(tmp_path: Path, *args: str, env: dict[str, str]) -> str:
    (tmp_path / "cc.yaml").write_text(
        (REPO_ROOT / "policies" / "commitclasses" / "high-cpu-density.yaml").read_text().replace("100", "120")
    )
    clean = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "FORCE_COLOR", "CLICOLOR_FORCE")}
    proc = subprocess.run(
        [sys.executable, "-m", "renderer", "lint", str(tmp_path), *args],
        capture_output=True,
        text=True,
        env={**clean, **env},
        check=False,
    )
    assert proc.stdout, proc.stderr
    return proc.stdout


@pytest.mark.parametrize(
    ("args", "env", "coloured"),
    [
        ((), {}, False),  # stdout is a pipe
        ((), {"FORCE_COLOR": "1"}, True),
        ((), {"CLICOLOR_FORCE": "1"}, True),
        (("--color", "always"), {}, True),
        (("--color", "always"), {"NO_COLOR": "1"}, True),
        (("--color", "never"), {"FORCE_COLOR": "1"}, False),
        ((), {"FORCE_COLOR": "1", "NO_COLOR": "1"}, False),
    ],
)
def test_colour_end_to_end(tmp_path: Path, args: tuple[str, ...], env: dict[str, str], coloured: bool) -> None:
    out = _lint_subprocess(tmp_path, *args, env=env)
    assert ("\033[" in out) is coloured, out
