"""No dead code in ``renderer/``: vulture (a dev dependency) finds names nothing uses.

Plug-ins are found by discovery (``@register`` rules and targets, command modules, reporter ``write`` functions by file
name); names used by reflection are listed, with their reason, in ``vulture_whitelist.py``. A function nothing calls
fails here: remove it, or say in the whitelist what reads it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]


def test_vulture_finds_no_unused_code() -> None:
    pytest.importorskip("vulture", reason="vulture comes with the dev extra: pip install -e '.[test,dev]'")
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "vulture",
            "renderer",
            "tests/architecture/vulture_whitelist.py",
            "--min-confidence",
            "60",
            "--ignore-decorators",
            "@register",
        ],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_every_runtime_dependency_is_imported_by_renderer() -> None:
    """A dependency ``renderer/`` never imports belongs in an extra (jsonschema is the test extra's)."""
    import re

    tomllib = pytest.importorskip("tomllib", reason="Python 3.11+ reads pyproject.toml with the standard library")
    project = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    imports = {
        "pydantic": "pydantic",
        "ruamel.yaml": "ruamel",
        "ruamel.yaml.clib": "ruamel",  # ruamel.yaml's C scanner: imported by ruamel.yaml itself
        "pyyaml": "yaml",
        "jinja2": "jinja2",
        "shtab": "shtab",
        "pathspec": "pathspec",
        "tomli-w": "tomli_w",
    }
    source = "\n".join(p.read_text(encoding="utf-8") for p in (REPO_ROOT / "renderer").rglob("*.py"))
    for requirement in project["dependencies"]:
        name = re.split(r"[<>=!~;\s\[]", requirement, maxsplit=1)[0].lower()
        assert name in imports, f"{name}: say which module renderer/ imports for it"
        module = imports[name]
        assert re.search(rf"^\s*(import|from) {re.escape(module)}\b", source, re.M), f"{name} is never imported"
