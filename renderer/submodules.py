"""The modules of a package, by name, from one directory listing: how rules, targets, platforms, commands and
delivery APIs are found (one module each, no hand-kept list).

``pkgutil.iter_modules`` does the same but imports ``inspect`` (with ``ast``, ``dis`` and ``tokenize``, ~12 ms) on
first use — a tenth of a cold ``--help``. Cost: one ``os.scandir`` per package directory, nothing imported.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

__all__ = ["names"]


def names(paths: Iterable[str], *, private: bool = False) -> list[str]:
    """The module names in a package's ``__path__``, sorted: ``x.py`` files and ``x/`` folders with an
    ``__init__.py``; names starting with ``_`` only when ``private``."""
    found: set[str] = set()
    for path in paths:
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        for entry in entries:
            name = entry.name
            if name.endswith(".py") and entry.is_file():
                name = name[:-3]
            elif not (entry.is_dir() and os.path.isfile(os.path.join(entry.path, "__init__.py"))):
                continue
            if not name.isidentifier() or name == "__init__" or (name.startswith("_") and not private):
                continue
            found.add(name)
    return sorted(found)
