from __future__ import annotations

import atexit
import compileall
import io
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import settings

from renderer.cli import main

#: How hard the property tests and fuzzers look. A plain `pytest` runs a tenth of every property's examples (the suite
#: stays within minutes); `ALLOCATABLE_FUZZ=deep` (set by .ci/run) runs every property at its full count.
DEEP = os.environ.get("ALLOCATABLE_FUZZ", "") == "deep"


def examples(n: int) -> int:
    """Examples for a property whose full (deep) count is ``n``."""
    return n if DEEP else max(10, n // 10)


def scaled(n: int, plain: int) -> int:
    """The size of a deliberately big input: ``n`` in the deep profile (``.ci/run``), ``plain`` in a plain run,
    which still reads the same shapes through the same code, only fewer of them."""
    return n if DEEP else plain


# CI runs are a gate: the same examples every run (a new counterexample there would be a flaky failure).
# Local runs keep exploring new examples.
settings.register_profile("quick", max_examples=examples(100))
settings.register_profile("deep", max_examples=100)
settings.register_profile(
    "ci", parent=settings.get_profile("deep" if DEEP else "quick"), derandomize=True, database=None
)
settings.load_profile("ci" if os.environ.get("CI") else "deep" if DEEP else "quick")

# The validators cache (renderer.models.validators) of this test session: never the user's own ~/.cache.
_CACHE = tempfile.mkdtemp(prefix="allocatable-test-cache-")
atexit.register(shutil.rmtree, _CACHE, ignore_errors=True)
os.environ["ALLOCATABLE_CACHE_DIR"] = _CACHE

REPO_ROOT = Path(__file__).resolve().parent.parent
# Many tests run the CLI as a subprocess, as users do: byte-compile the package once, so none of them compiles it again
# (with PYTHONDONTWRITEBYTECODE set, every one of them would). __pycache__ is ignored by git.
compileall.compile_dir(REPO_ROOT / "renderer", quiet=1)
POLICIES = REPO_ROOT / "policies"
#: The .allocatable.yaml of a test repo that opts into Koordinator (render.koordinator, off by default): its CommitClass
#: over-commit is delivered (no AL214) and AL209 applies. For tests about other things that commit with CommitClasses.
KOORDINATOR_ON = {
    ".allocatable.yaml": "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nrender: {koordinator: true}\n"
}


@dataclass
class CliResult:
    exit_code: int
    stdout: str
    stderr: str


@contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = Path.cwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


#: The signals ``renderer.cli.main`` takes over (``signals.install_signal_handlers``): an in-process run gives them
#: back, so a later signal to the test process (Ctrl-C, pytest-xdist stopping a worker) is not raised as the CLI's
#: ``Interrupted`` inside whatever runs then.
_CLI_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


def run_cli(*args: str, cwd: Path | None = None) -> CliResult:
    out, err = io.StringIO(), io.StringIO()
    handlers = {sig: signal.getsignal(sig) for sig in _CLI_SIGNALS}
    try:
        with chdir(cwd or Path.cwd()), redirect_stdout(out), redirect_stderr(err):
            try:
                code = main(list(args))
            except SystemExit as exc:  # argparse --help/--version/usage errors
                code = int(exc.code or 0)
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
    return CliResult(code, out.getvalue(), err.getvalue())


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "policies"
    root.mkdir()
    return root
