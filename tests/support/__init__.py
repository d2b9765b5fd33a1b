"""The test suite's helpers, one package: ``from support import tools``, ``from support.hardening import cli``.

pytest puts ``tests/`` on ``sys.path`` (``pythonpath = ["tests"]`` in pyproject.toml's ``[tool.pytest.ini_options]``,
the documented setting for it, which holds in every import mode), so no test edits ``sys.path``
(tests/architecture/test_no_path_edits.py). A helper that more than one folder uses lives here; a helper that one
folder's tests share may stay beside them (``tests/rules/lint_support.py``), imported by its name.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

REPO_ROOT = Path(__file__).resolve().parents[2]


def module_at(relative: str) -> ModuleType:
    """The module in the file ``relative`` (to the repo root), loaded by its path: a ``bench/`` script whose shapes a
    test reuses, or the constants of a test module in another folder, without putting that folder on ``sys.path``
    (where its every module would shadow a name). Loaded once per session, registered under its dotted path."""
    name = relative.removesuffix(".py").replace("/", ".")
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO_ROOT / relative)
    assert spec is not None and spec.loader is not None, relative
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module
