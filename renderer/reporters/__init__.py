"""Every output format of every report, in one tree: ``renderer/reporters/<report type>/<format>.py``.

A report type is a package here (``REPORT_TYPES``); a format is one module in it, named after the format, with a
function ``write(result, out)`` that writes the whole output to the text stream ``out``. Nothing is registered by
hand: ``names(report)`` lists the modules of the package (``_private`` helpers are not formats) and ``get`` imports
only the one asked for, so ``-o`` choices follow the files and a run imports one format. Adding a format is one
file, plus its golden output under ``tests/reporters/golden/<report type>/`` (``tests/reporters/test_registry.py``
fails without it).

Kubernetes-style formats come with the ``json`` one: every report type with a ``json.py`` also has ``yaml`` and
``jsonpath`` (``-o jsonpath=TEMPLATE``, kubectl's templates), both made from the document its ``json`` format writes
(``renderer.reporters.derived``), so a report's YAML and JSONPath can never say something its JSON does not. They
need their goldens like any format. A format that takes an argument is named ``format=argument`` (``get`` splits it).

What each report type's ``write`` takes: ``findings`` a :class:`renderer.reporters.findings.Report`; ``explain`` a
:class:`renderer.capacity.explain.Explained`; ``verify`` a :class:`renderer.verify.result.VerifyResult`; ``diff`` a
:class:`renderer.capacity.diff.DiffResult`; ``sizing`` a :class:`renderer.reporters.sizing.Sizing`; ``impact`` the
impact result (``renderer.impact``); ``recommend`` a :class:`renderer.recommend.result.Recommendation`.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Callable
from typing import Any, TextIO

from renderer.reporters.findings import Report

__all__ = ["DERIVED", "REPORT_TYPES", "Report", "Writer", "get", "names", "split"]

#: The report types, each a package of formats.
REPORT_TYPES = ("findings", "explain", "verify", "diff", "sizing", "impact", "recommend")
#: The formats every report type with a ``json`` format has, made from its JSON document; the value: whether the
#: format takes an argument (``jsonpath=TEMPLATE``).
DERIVED = {"yaml": False, "jsonpath": True}

Writer = Callable[[Any, TextIO], None]


def names(report: str = "findings") -> list[str]:
    """Every format of ``report``: the modules of its package, by file name. Cost: one directory listing."""
    if report not in REPORT_TYPES:
        raise KeyError(f"unknown report type {report!r}; report types: {', '.join(REPORT_TYPES)}")
    folder = os.path.join(__path__[0], report)
    files = {e[:-3] for e in os.listdir(folder) if e.endswith(".py") and not e.startswith("_")}
    if "json" in files:
        files.update(DERIVED)
    return sorted(files)


def split(spec: str) -> tuple[str, str | None]:
    """``jsonpath={.a}`` → ``("jsonpath", "{.a}")``; ``yaml`` → ``("yaml", None)``."""
    name, sep, argument = spec.partition("=")
    return name, argument if sep else None


def get(report: str, name: str | None = None) -> Writer:
    """The ``write`` of format ``name`` of ``report`` (``get("json")`` alone: the findings report's), importing
    its module on first use. ``name`` may carry the format's argument, ``jsonpath=TEMPLATE``; an argument missing
    where the format needs one, given where it takes none, or not valid (a template that does not parse) is a
    ``ValueError`` saying what to write instead."""
    if name is None:
        report, name = "findings", report
    name, argument = split(name)
    if name not in names(report):
        raise KeyError(f"unknown {report} format {name!r}; formats: {', '.join(names(report))}")
    if name in DERIVED:
        from renderer.reporters.derived import writer

        return writer(report, name, argument)
    if argument is not None:
        raise ValueError(f"{name} takes no argument; write -o {name}")
    module = importlib.import_module(f"{__name__}.{report}.{name}")
    write: Writer = module.write
    return write
