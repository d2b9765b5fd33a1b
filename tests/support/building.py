"""Building the release artifacts in tests: ``python -m build`` on a copy of the repository's files (setuptools
writes build/ and *.egg-info next to the sources, never into the checkout), without build isolation so that no
package index is needed (the test extra brings setuptools and build)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

from support import tools

REPO_ROOT = Path(__file__).resolve().parents[2]


def source_copy(target: Path) -> Path:
    """The files git tracks or would track (untracked but not ignored ones too), copied to ``target``."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    for name in filter(None, listed.stdout.split("\0")):
        origin = REPO_ROOT / name
        if origin.is_file() and not origin.is_symlink():
            copy = target / name
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(origin.read_bytes())
    return target


def build(work: Path, *formats: str) -> Path:
    """The artifacts of ``python -m build`` (``--sdist``/``--wheel`` in ``formats``; none: the sdist, then the
    wheel from it) in ``work/dist``."""
    if importlib.util.find_spec("build") is None:
        tools.missing("build", "pip install -e '.[test]'")
    src = source_copy(work / "src")
    out = work / "dist"
    done = subprocess.run(
        [sys.executable, "-m", "build", "--no-isolation", *formats, "--outdir", str(out), str(src)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return out


def wheel_in_venv(wheel: Path, venv: Path) -> Path:
    """A fresh virtual environment at ``venv`` with ``wheel`` installed alone (``--no-deps``, no index); its
    dependencies are those of the environment running the tests, reached through a path entry (a ``.pth`` line),
    which does not run that environment's own ``.pth`` files: the checkout's editable install stays out of it.
    Returns the environment's python."""
    import sysconfig

    made = subprocess.run([sys.executable, "-m", "venv", str(venv)], capture_output=True, text=True, check=False)
    assert made.returncode == 0, made.stderr
    python = venv / "bin" / "python"
    installed = subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert installed.returncode == 0, installed.stdout + installed.stderr
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    ours = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    Path(purelib, "zz-test-dependencies.pth").write_text("\n".join(sorted(ours)) + "\n", encoding="utf-8")
    return python
