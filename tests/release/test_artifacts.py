"""Release artifacts: ``python -m build`` makes an sdist and a wheel (the wheel from the sdist) that ``twine check``
accepts, and the wheel installed in a fresh virtual environment runs from anywhere — the commands, the kubectl
plugin's console script and the JSON Schemas it ships (``<prefix>/share/allocatable/schemas``).

Built and installed by ``tests/support/building.py``: from a copy of the repository's files, without build isolation (no
package index needed), into a fresh environment that gets the wheel alone and the test environment's dependencies.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from conftest import REPO_ROOT
from renderer import __version__
from renderer.pipeline import schemas as generate
from support import tools
from support.building import build, wheel_in_venv

pytestmark = pytest.mark.slow


def _run(
    *argv: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(a) for a in argv], cwd=cwd, env=env, capture_output=True, text=True, timeout=600, check=False
    )


def _need(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        tools.missing(module, "pip install -e '.[test]'")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build(tmp_path_factory.mktemp("release"))


def _one(dist: Path, pattern: str) -> Path:
    (found,) = sorted(dist.glob(pattern))
    return found


def test_one_sdist_and_one_wheel_with_the_single_sourced_version(dist: Path) -> None:
    assert _one(dist, "*.tar.gz").name == f"allocatable-{__version__}.tar.gz"
    assert _one(dist, "*.whl").name == f"allocatable-{__version__}-py3-none-any.whl"


def test_twine_accepts_both(dist: Path) -> None:
    _need("twine")
    check = _run(sys.executable, "-m", "twine", "check", "--strict", *sorted(dist.iterdir()))
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_wheel_holds_every_module_the_scripts_and_the_schemas(dist: Path) -> None:
    with zipfile.ZipFile(_one(dist, "*.whl")) as whl:
        names = set(whl.namelist())
        info = f"allocatable-{__version__}.dist-info"
        entry_points = whl.read(f"{info}/entry_points.txt").decode()
        metadata = whl.read(f"{info}/METADATA").decode()
        shipped = {
            n.rsplit("/", 1)[1]: whl.read(n).decode("utf-8")
            for n in names
            if n.startswith(f"allocatable-{__version__}.data/data/share/allocatable/schemas/")
        }
    modules = {p.relative_to(REPO_ROOT).as_posix() for p in (REPO_ROOT / "renderer").rglob("*.py")}
    assert modules - names == set()  # every subpackage found (no hand-kept list to forget one in)
    assert "renderer/py.typed" in names
    assert not any(n.startswith(("tests/", "policies/", "schemas/", "docs/")) for n in names)
    assert "allocatable = renderer.cli:main" in entry_points
    assert "kubectl-allocatable = renderer.cli:kubectl_main" in entry_points
    assert f"\nVersion: {__version__}\n" in metadata and "\nLicense-Expression: Apache-2.0\n" in metadata
    # The shipped schemas are the committed schemas/, which tests/test_schemas.py keeps equal to the models'.
    assert shipped == generate()


def test_the_sdist_carries_what_the_wheel_is_built_from(dist: Path) -> None:
    with tarfile.open(_one(dist, "*.tar.gz")) as sdist:
        names = {m.name.split("/", 1)[1] for m in sdist.getmembers() if "/" in m.name}
    for needed in ("pyproject.toml", "README.md", "renderer/cli.py", "renderer/py.typed", "schemas/nodepool.json"):
        assert needed in names


@pytest.fixture(scope="module")
def venv(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("fresh") / "venv"
    wheel_in_venv(_one(dist, "*.whl"), root)
    return root


def _env(home: Path) -> dict[str, str]:
    return {
        "PATH": f"{home.parent / 'venv' / 'bin'}{os.pathsep}/usr/bin{os.pathsep}/bin",
        "HOME": str(home),
        "ALLOCATABLE_CACHE_DIR": str(home / "cache"),
        "NO_COLOR": "1",
    }


def test_the_installed_wheel_runs_from_anywhere(venv: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path  # outside any checkout, as a user's shell would be
    bin_dir = venv / "bin"
    env = {**_env(elsewhere), "PATH": f"{bin_dir}{os.pathsep}/usr/bin{os.pathsep}/bin"}
    version = _run(bin_dir / "allocatable", "--version", cwd=elsewhere, env=env)
    assert (version.returncode, version.stdout.strip()) == (0, f"allocatable {__version__}")
    where = _run(bin_dir / "python", "-c", "import renderer; print(renderer.__file__)", cwd=elsewhere, env=env)
    assert Path(where.stdout.strip()).is_relative_to(venv), where.stdout  # the wheel's copy, not the checkout
    init = _run(bin_dir / "allocatable", "init", "capacity", cwd=elsewhere, env=env)
    assert init.returncode == 0, init.stderr
    for argv in (["validate", "policies"], ["lint", "policies"], ["explain", "policies", "-o", "yaml"]):
        done = _run(bin_dir / "allocatable", *argv, cwd=elsewhere / "capacity", env=env)
        assert done.returncode == 0, (argv, done.stderr)
    rendered = _run(bin_dir / "allocatable", "render", "--stdout", "policies", cwd=elsewhere / "capacity", env=env)
    assert rendered.returncode == 0 and "kind: RuntimeClass" in rendered.stdout, rendered.stderr
    plugin = _run(bin_dir / "kubectl-allocatable", "verify", "--help", cwd=elsewhere, env=env)
    assert plugin.returncode == 0 and plugin.stdout.startswith("usage: kubectl allocatable verify")


def test_the_installed_schemas_are_where_schema_path_says(venv: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path  # outside any checkout, as a user's shell would be
    env = _env(elsewhere)
    path = _run(venv / "bin" / "allocatable", "schema", "--path", cwd=elsewhere, env=env)
    assert path.returncode == 0, path.stderr
    directory = Path(path.stdout.strip())
    assert directory == (venv / "share" / "allocatable" / "schemas").resolve()
    generated = generate()
    assert {p.name: p.read_text(encoding="utf-8") for p in directory.iterdir()} == generated
    printed = _run(venv / "bin" / "allocatable", "schema", "--print", "NodePool", cwd=elsewhere, env=env)
    assert printed.returncode == 0 and printed.stdout == generated["nodepool.json"]
    assert json.loads(printed.stdout)["$schema"].startswith("https://json-schema.org/draft/2020-12")
