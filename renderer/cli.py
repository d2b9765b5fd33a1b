"""Command line: arguments → settings → pipeline → reporter → exit code. Nothing else lives here.

Each subcommand is one module in ``renderer.commands`` exposing ``NAME``, ``HELP`` (one line for the command list),
``DESCRIPTION`` (its ``--help`` text), ``EXIT_CODES``, ``ORDER``, ``register(parser)`` and ``run(args) -> int``.
Heavy libraries are imported inside ``run`` so ``--help`` starts fast. Every subcommand gets ``--color``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
from types import ModuleType

from renderer import __version__
from renderer.commands.common import EXIT_OK, EXIT_USAGE, USAGE_EXIT, add_color, describe, error, exit_codes_text
from renderer.commands.common import Parser as _Parser
from renderer.errors import UserError

DESCRIPTION = (
    "Own node capacity from git: validate, lint and render CommitClass, ReservationPolicy, RuntimeClass and NodePool "
    "policies. Results and findings go to stdout; summaries, progress and errors to stderr. A PATH of - reads "
    "policies from stdin. `allocatable COMMAND --help` describes each command."
)


def _commands() -> list[ModuleType]:
    import renderer.commands as pkg
    from renderer import submodules

    mods = [importlib.import_module(f"{pkg.__name__}.{name}") for name in submodules.names(pkg.__path__)]
    mods = [m for m in mods if hasattr(m, "NAME") and hasattr(m, "run")]
    return sorted(mods, key=lambda m: (getattr(m, "ORDER", 100), m.NAME))


def _command_named(name: str) -> ModuleType | None:
    """The command module ``name`` (a command's module is named after it), or None if there is no such command."""
    if not name.isidentifier() or name.startswith("_"):
        return None
    try:
        mod = importlib.import_module(f"renderer.commands.{name}")
    except ModuleNotFoundError:
        return None
    return mod if getattr(mod, "NAME", None) == name and hasattr(mod, "run") else None


def build_parser(
    command: str | None = None, *, listing: bool = False, prog: str = "allocatable"
) -> argparse.ArgumentParser:
    """The whole command line's parser; with the name of a ``command``, one holding only that command.

    ``allocatable lint ...`` parses exactly as with the whole tree, but imports and registers one command instead
    of all of them (every command's options, reporters, targets and scaffolds): a cold run starts faster.
    ``listing``: every command, without its options (enough for ``allocatable --help`` and the usage line).
    ``prog``: the name the usage lines show (``kubectl allocatable`` for the kubectl plugin, which also sets
    ``_kubectl_plugin`` for the commands that act on it).
    """
    one = None if command is None else _command_named(command)
    mods = _commands() if one is None else [one]
    parser = _Parser(
        prog=prog,
        description=DESCRIPTION,
        epilog=exit_codes_text({0: "clean", 1: "findings (lint errors, drift, ...)", 2: USAGE_EXIT}),
    )
    parser.add_argument("--version", action="version", version=f"allocatable {__version__}")
    parser.set_defaults(_whole_parser=build_parser)  # `completion` generates its scripts from the whole tree
    if prog != "allocatable":
        parser.set_defaults(_kubectl_plugin=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in mods:
        description, epilog = describe(mod)
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=description, epilog=epilog)
        if listing:
            continue
        p.set_defaults(_parser=p)
        mod.register(p)
        add_color(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None, *, prog: str = "allocatable") -> int:
    from renderer import stdio

    closed = stdio.closed_stream()  # `>&-`, `2>&-`: nothing is done that could not be reported
    if closed is not None:
        stdio.write_line(closed)
        return EXIT_USAGE
    try:
        return _main(argv, prog)
    except stdio.StreamError as exc:  # a full disk, /dev/full, an I/O error on a standard stream
        stdio.silence(exc.fd)
        stdio.write_line(f"allocatable: error: {exc}; free some space or write the output elsewhere", prefer=3 - exc.fd)
        return EXIT_USAGE


def kubectl_main(argv: list[str] | None = None) -> int:
    """``kubectl allocatable ...``: kubectl runs ``kubectl-allocatable`` from PATH with the words after the plugin's
    name. The same commands, with usage lines as kubectl users type them; ``verify`` reads the current context's
    nodes when no ``--nodes`` dump is given."""
    return main(argv, prog="kubectl allocatable")


def _main(argv: list[str] | None, prog: str = "allocatable") -> int:
    from renderer import stdio
    from renderer.escaping import install_output_fallbacks
    from renderer.signals import install_signal_handlers

    # SIGTERM/SIGHUP/SIGINT unwind like Ctrl-C: rollbacks run and temporary files are removed on the way out.
    install_signal_handlers()
    install_output_fallbacks(sys.stdout, sys.stderr)  # an ASCII-only terminal degrades, never crashes (→ as ->)
    stdio.guard()
    if argv is None:
        argv = sys.argv[1:]
    # The command comes first in nearly every call (`allocatable lint ...`): then only its parser is built. Anything
    # else (`--help`, options before the command, no command, an unknown one) gets the whole tree, as before.
    listing = argv in ([], ["-h"], ["--help"], ["--version"])  # nothing below the command list is read
    parser = build_parser(argv[0] if argv else None, listing=listing, prog=prog)
    args, extras = parser.parse_known_args(argv)
    if extras:  # say which command's --help to read, not the top level's
        getattr(args, "_parser", parser).error(f"unrecognized arguments: {' '.join(extras)}")
    run = getattr(args, "_run", None)
    if run is None:
        parser.print_usage(sys.stderr)
        return error("no COMMAND given; see `allocatable --help` for the commands")
    from renderer import terminal

    terminal.set_mode(getattr(args, "color", None) or "auto")
    # A command is a short run that builds many long-lived objects and no garbage cycles worth collecting:
    # the cyclic collector's repeated full scans only slowed big repos down (see renderer.gcpause).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    excluded = None
    if getattr(args, "exclude", None):  # --exclude: every load of this run leaves these out
        from renderer.loading.exclude import COMMAND_LINE

        excluded = COMMAND_LINE.set(tuple(args.exclude))
    try:
        code = int(run(args))
        sys.stdout.flush()  # a full disk shows here, inside the command's error handling
        return code
    except KeyboardInterrupt as exc:
        from renderer.signals import Interrupted

        stdio.write_line(
            f"allocatable: terminated by {exc.name}" if isinstance(exc, Interrupted) else "allocatable: interrupted"
        )
        return exc.exit_code if isinstance(exc, Interrupted) else 130
    except BrokenPipeError:
        stdio.silence(1)
        return EXIT_OK
    except stdio.StreamError:
        raise
    except RecursionError:
        return error("input nested too deeply to process; reduce its nesting")
    except UserError as exc:  # bad usage or input, whichever command and stage found it: one line, exit 2
        return error(str(exc))
    except Exception as exc:  # never a traceback for users; say what happened in one line
        return error(f"internal error: {type(exc).__name__}: {exc}; please report this with the input")
    finally:
        if excluded is not None:
            from renderer.loading.exclude import COMMAND_LINE

            COMMAND_LINE.reset(excluded)
        if gc_was_enabled:
            gc.enable()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
