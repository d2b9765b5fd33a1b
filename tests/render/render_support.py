"""Helpers for the render tests: render a policy directory in memory, walk the rendered objects."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

from conftest import REPO_ROOT, chdir
from renderer.capacity.pools import build as build_model
from renderer.pipeline import load
from renderer.render.engine import RenderResult, build
from support import tools

HERE = Path(__file__).resolve().parent
CASES = HERE / "cases"
GOLDEN = HERE / "golden"
SCHEMAS = REPO_ROOT / "schemas"


def case_dirs() -> list[Path]:
    return sorted(p for p in CASES.iterdir() if p.is_dir())


def render_dir(policy_dir: Path, targets: list[str] | None = None, cwd: Path | None = None) -> RenderResult:
    """Load, model and render ``policy_dir`` (no lint), from ``cwd`` (default: its parent)."""
    with chdir(cwd or policy_dir.parent):
        result = load([Path(os.path.relpath(policy_dir, cwd or policy_dir.parent))])
        assert result.ok, [f"{f.path}: {f.message}" for f in result.findings]
        model = build_model(result.policies)
        return build(result, model, targets)


def documents(data: bytes) -> list[Any]:
    return [d for d in yaml.safe_load_all(data.decode("utf-8")) if d is not None]


def objects(files: dict[str, bytes]) -> Iterator[tuple[str, dict[str, Any]]]:
    for path, data in sorted(files.items()):
        for doc in documents(data):
            yield path, doc


def _run_ignition_validate(binary: str, config: dict[str, Any], tmp_path: Path) -> subprocess.CompletedProcess[str]:
    path = tmp_path / f"config-{config['ignition']['version']}.ign"
    path.write_text(json.dumps(config), encoding="utf-8")
    return subprocess.run([binary, str(path)], capture_output=True, text=True, check=False)


def _newest_supported(binary: str, tmp_path: Path) -> str:
    for version in ("3.5.0", "3.4.0", "3.3.0", "3.2.0"):
        if _run_ignition_validate(binary, {"ignition": {"version": version}}, tmp_path).returncode == 0:
            return version
    raise AssertionError("ignition-validate supports no Ignition 3.2+ spec")


def ignition_validate(config: dict[str, Any], tmp_path: Path) -> None:
    """Run Debian's ignition-validate on an Ignition config; skip only outside CI when it is not installed.

    Debian's ignition (2.14) knows specs up to 3.3.0. A config of a newer spec is validated as the newest spec the
    binary knows: the storage.files fields rendered here exist unchanged since 3.0.0, and the version string itself
    is one of the versions the Settings model allows.
    """
    binary = tools.find("ignition-validate", how="apt-get install ignition")
    out = _run_ignition_validate(binary, config, tmp_path)
    if out.returncode != 0 and "unsupported config version" in out.stdout + out.stderr:
        older = {**config, "ignition": {**config["ignition"], "version": _newest_supported(binary, tmp_path)}}
        out = _run_ignition_validate(binary, older, tmp_path)
    assert out.returncode == 0, f"ignition-validate rejected the config: {out.stdout}{out.stderr}"
