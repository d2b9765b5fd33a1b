"""Command line: arguments → settings → pipeline → reporter → exit code. Nothing else lives here.

Each subcommand is one module in ``renderer.commands`` exposing ``NAME``, ``HELP``, ``ORDER``, ``register(parser)``
and ``run(args) -> int``. Heavy libraries are imported inside ``run`` so ``--help`` starts fast.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import pkgutil
import sys
from types import ModuleType

from renderer import __version__
from renderer.commands._common import EXIT_OK, EXIT_USAGE
from renderer.commands._common import Parser as _Parser


def _commands() -> list[ModuleType]:
    import renderer.commands as pkg

    mods = [importlib.import_module(f"{pkg.__name__}.{m.name}") for m in pkgutil.iter_modules(pkg.__path__)]
    mods = [m for m in mods if hasattr(m, "NAME") and hasattr(m, "run")]
    return sorted(mods, key=lambda m: (getattr(m, "ORDER", 100), m.NAME))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="allocatable",
        description="Own node capacity from git: validate, lint and render CommitClass, ReservationPolicy, "
        "RuntimeClass and NodePool policies.",
    )
    parser.add_argument("--version", action="version", version=f"allocatable {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for mod in _commands():
        p = sub.add_parser(mod.NAME, help=mod.HELP, description=getattr(mod, "DESCRIPTION", mod.HELP))
        mod.register(p)
        p.set_defaults(_run=mod.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    run = getattr(args, "_run", None)
    if run is None:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    # A command is a short run that builds many long-lived objects and no garbage cycles worth collecting:
    # the cyclic collector's repeated full scans only slowed big repos down (see pipeline._gc_paused).
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        return int(run(args))
    except KeyboardInterrupt:
        sys.stderr.write("allocatable: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_OK
    except Exception as exc:  # never a traceback for users; say what happened in one line
        from renderer.loading.files import UsageError

        if isinstance(exc, UsageError):
            sys.stderr.write(f"allocatable: error: {exc}\n")
            return EXIT_USAGE
        sys.stderr.write(
            f"allocatable: internal error: {type(exc).__name__}: {exc} (please report this with the input)\n"
        )
        return EXIT_USAGE
    finally:
        if gc_was_enabled:
            gc.enable()


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
