"""``allocatable completion bash|zsh|fish``: a shell completion script generated from this CLI's own parser."""

from __future__ import annotations

import argparse
import sys

NAME = "completion"
ORDER = 97
SHELLS = ("bash", "zsh", "fish")
HELP = "print a shell completion script (bash, zsh or fish)"
DESCRIPTION = (
    "Print a completion script for SHELL, generated (by shtab) from the same parser that reads the command line, "
    "so it always knows every command, option and choice. Install it once:\n\n"
    "  bash: allocatable completion bash > ~/.local/share/bash-completion/completions/allocatable\n"
    "  zsh:  allocatable completion zsh > ~/.zfunc/_allocatable   (with fpath+=(~/.zfunc) before compinit)\n"
    "  fish: allocatable completion fish > ~/.config/fish/completions/allocatable.fish"
)
EXIT_CODES = {0: "printed"}

#: metavar → what the shell should offer for it (shtab's FILE/DIRECTORY spellings, so ``--help`` needs no shtab)
_FILES = {
    "bash": "_shtab_compgen_files",
    "zsh": "_files",
    "tcsh": "f",
    "fish": "(__fish_complete_path (commandline -ct))",
}
_DIRS = {"bash": "_shtab_compgen_dirs", "zsh": "_files -/", "tcsh": "d", "fish": "(__fish_complete_directories)"}
_COMPLETE = {"PATH": _FILES, "FILE": _FILES, "DIR": _DIRS}


def register(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("shell", choices=SHELLS, metavar="SHELL", help=f"one of: {', '.join(SHELLS)}")


def _mark_paths(parser: argparse.ArgumentParser) -> None:
    """Offer files for PATH/FILE arguments and directories for DIR ones, in every command. Cost: O(arguments)."""
    for action in parser._actions:
        complete = _COMPLETE.get(str(action.metavar))
        if complete is not None:
            action.complete = complete  # type: ignore[attr-defined]  # read by shtab
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                _mark_paths(sub)


def script(parser: argparse.ArgumentParser, shell: str) -> str:
    """The completion script of ``parser`` (the whole CLI's, passed in by ``allocatable``'s entry point)."""
    import shtab

    _mark_paths(parser)
    text: str = shtab.complete(parser, shell=shell)
    return text if text.endswith("\n") else text + "\n"


def run(args: argparse.Namespace) -> int:
    sys.stdout.write(script(args._whole_parser(), args.shell))
    return 0
