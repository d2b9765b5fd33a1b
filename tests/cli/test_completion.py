"""``allocatable completion bash|zsh|fish``: scripts generated from the parser, checked by the shells themselves.

bash is required (it runs the completion function and checks what it offers); zsh and fish syntax-check their
scripts (`zsh -n`, `fish -n`) — `.ci/run` installs both, elsewhere they are skipped when missing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from conftest import run_cli
from support import tools


def _script(shell: str, tmp_path: Path) -> Path:
    res = run_cli("completion", shell)
    assert res.exit_code == 0 and res.stderr == ""
    path = tmp_path / f"allocatable.{shell}"
    path.write_text(res.stdout)
    return path


def _shell(name: str) -> str:
    return tools.find(name, how=f"apt-get install {name}")


@pytest.mark.external
@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_script_passes_the_shells_syntax_check(shell: str, tmp_path: Path) -> None:
    path = _script(shell, tmp_path)
    proc = subprocess.run([_shell(shell), "-n", str(path)], capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    text = path.read_text()
    for word in ("validate", "lint", "render", "explain", "completion", "--ignition-version", "--color"):
        assert word in text


def _complete_bash(script: Path, words: list[str], cwd: Path) -> list[str]:
    """Run the generated completion function as bash does on <TAB>: COMP_WORDS with the cursor in the last word."""
    quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in words)
    program = (
        f"source {script}\n"
        f"COMP_WORDS=({quoted}); COMP_CWORD={len(words) - 1}\n"
        'COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}\n'
        "_shtab_allocatable\n"
        'printf "%s\\n" "${COMPREPLY[@]}"\n'
    )
    proc = subprocess.run(
        [_shell("bash"), "--norc", "--noprofile", "-c", program], capture_output=True, text=True, cwd=cwd, check=False
    )
    assert proc.returncode == 0, proc.stderr
    return [ln for ln in proc.stdout.splitlines() if ln]


@pytest.mark.external
def test_bash_completes_commands_options_choices_and_paths(tmp_path: Path) -> None:
    script = _script("bash", tmp_path)
    assert _complete_bash(script, ["allocatable", "li"], tmp_path) == ["lint"]
    assert set(_complete_bash(script, ["allocatable", ""], tmp_path)) >= {"validate", "lint", "render", "completion"}
    assert _complete_bash(script, ["allocatable", "lint", "--st"], tmp_path) == ["--strict"]
    assert _complete_bash(script, ["allocatable", "explain", "-o", ""], tmp_path) == [  # the registry's formats
        "html",
        "json",
        "jsonpath",
        "markdown",
        "text",
        "wide",
        "yaml",
    ]
    assert _complete_bash(script, ["allocatable", "render", "--ignition-version", "3.4"], tmp_path) == ["3.4.0"]
    assert _complete_bash(script, ["allocatable", "completion", "f"], tmp_path) == ["fish"]
    (tmp_path / "pols").mkdir()
    assert _complete_bash(script, ["allocatable", "lint", "po"], tmp_path) == ["pols"]


def test_unknown_shell_is_a_usage_error() -> None:
    res = run_cli("completion", "tcsh")
    assert res.exit_code == 2 and res.stderr.startswith("allocatable: error: argument SHELL: invalid choice")
