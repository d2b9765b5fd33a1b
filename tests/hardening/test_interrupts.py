"""Issue 21, classes 16-19: how a run ends.

- 17/18: SIGTERM, SIGHUP and SIGINT during a render: it finishes or rolls back — never a mix of old and new files,
  never staged files left behind. In-process, a real signal is sent to the test process at every position of a
  multi-file render (the writer's ``os`` calls are counted as in the issue-12 fault injection); end to end, the CLI
  rendering a 400-pool repository gets the signal while it stages.
- 19: names of 232-253 characters: the staged names are short, so every name the file system takes renders; one it
  does not take is a located error before anything is written, never "restoring the previous files failed too".
- 16: closed or full standard streams: exit 2 with one line where a line can be written.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from test_writing import INSTRUMENTED, NEW, OLD, _prepare, failing_call

from renderer import signals
from renderer.render import output
from renderer.render.dirtree import STAGED_RE
from renderer.render.drift import check
from support.hardening import (
    RESERVATION,
    SETTINGS,
    assert_no_crash,
    cli,
    env,
    good_repo,
    pool,
    shown,
    signals_delivered,
    snapshot,
    write,
)

SIGNALS = [signal.SIGTERM, signal.SIGHUP, signal.SIGINT]


@contextmanager
def handlers() -> Iterator[None]:
    saved = {sig: signal.getsignal(sig) for sig in SIGNALS}
    for sig in SIGNALS:  # as a CLI started by a shell gets them (the runner may ignore some: nohup, a background job)
        signal.signal(sig, signal.SIG_DFL)
    signals.install_signal_handlers()
    try:
        yield
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)


@contextmanager
def signal_at(at: int, sig: signal.Signals) -> Iterator[None]:
    """The writer's ``os`` call numbered ``at`` (counted as ``failing_call`` counts them) first sends ``sig`` to this
    process, then runs: the handler fires right there, or, inside a deferred section, when that section ends."""
    calls = 0
    real = {name: getattr(os, name) for name in INSTRUMENTED}

    def wrap(name: str) -> Callable[..., object]:
        def call(*args: object, **kwargs: object) -> object:
            nonlocal calls
            calls += 1
            if calls - 1 == at:
                real["kill"](real["getpid"](), sig)
            return real[name](*args, **kwargs)

        return call

    real["kill"], real["getpid"] = os.kill, os.getpid
    try:
        for name in INSTRUMENTED:
            setattr(os, name, wrap(name))
        yield
    finally:
        for name, fn in real.items():
            setattr(os, name, fn)


def _staged(root: Path) -> list[str]:
    return sorted(p.name for p in root.rglob("*") if STAGED_RE.match(p.name))


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_a_signal_at_every_position_of_a_render_finishes_or_rolls_back(tmp_path: Path, sig: signal.Signals) -> None:
    root = tmp_path / "out"
    _prepare(root)
    with failing_call(None, lambda: OSError()) as counted:
        output.write(root, NEW)
    total = len(counted)
    rolled_back = finished = 0
    for at in range(total):
        _prepare(root)
        before = snapshot(root)

        with handlers():
            try:
                with signal_at(at, sig):
                    output.write(root, NEW)
            except signals.Interrupted as exc:
                assert exc.signum == sig
            else:  # pragma: no cover - every position gets the signal
                pytest.fail(f"call {at}: the render ended without the signal")
        assert _staged(root) == [], (at, _staged(root))
        if snapshot(root) == before:
            rolled_back += 1
            continue
        # Finished: the new output complete, nothing of the old left, nothing staged.
        finished += 1
        assert check(root, NEW) == [], (at, check(root, NEW))
        assert (root / "README.md").read_text() == "not ours\n"
    assert rolled_back and finished and rolled_back + finished == total


def _big_repo(root: Path, pools: int) -> Path:
    good_repo(root)
    for i in range(pools):
        write(root, {f"pools/p{i:04d}.yaml": pool(name=f"p{i:04d}", tier="general", count="1")})
    return root


_SLOW_FSYNC = """\
import os, time
_fsync = os.fsync
def _slow_fsync(fd):
    time.sleep(0.02)
    return _fsync(fd)
os.fsync = _slow_fsync
"""


@pytest.mark.parametrize("sig", SIGNALS, ids=lambda s: s.name)
def test_the_cli_rendering_gets_a_signal_while_it_stages(tmp_path: Path, sig: signal.Signals) -> None:
    """A real run, made slow where it stages (a ``sitecustomize`` of the test makes each fsync take 20 ms), gets the
    signal once staged files exist: exit 128 + the signal, one line, the previous render byte for byte, nothing
    staged left behind."""
    _big_repo(tmp_path / "policies", 60)
    first = cli("render", "policies", "-o", "out", cwd=tmp_path, timeout=300)
    assert first.returncode == 0, shown(first)
    write(
        tmp_path / "policies",
        {"reservations/static.yaml": RESERVATION.replace("cpu: 100m, memory", "cpu: 200m, memory")},
    )
    before = snapshot(tmp_path / "out")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(_SLOW_FSYNC)
    proc = subprocess.Popen(
        [sys.executable, "-m", "renderer", "render", "policies", "-o", "out"],
        cwd=tmp_path,
        env=env(PYTHONPATH=str(site)),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=signals_delivered,  # the signal sent below reaches it, under nohup too
    )
    try:
        deadline = time.monotonic() + 120
        while not any(p.name.startswith(".allocatable-new-") for p in (tmp_path / "out" / "kubelet").iterdir()):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < deadline
            time.sleep(0.01)
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 128 + sig, f"{proc.returncode}\n{out}\n{err}"
    assert err.strip() == f"allocatable: terminated by {sig.name}" or (
        sig == signal.SIGINT and err.strip() == "allocatable: terminated by SIGINT"
    ), err
    assert _staged(tmp_path / "out") == []
    assert snapshot(tmp_path / "out") == before


# --- class 19: names at the file system's limit ----------------------------------------------------------------


@pytest.mark.parametrize("length", [232, 240, 246, 250])
def test_a_name_the_file_system_takes_renders(tmp_path: Path, length: int) -> None:
    name = "n" * length
    good_repo(tmp_path / "policies")
    write(tmp_path / "policies", {"pools/web.yaml": pool(name=name)})
    for _ in range(2):  # the second render replaces the files (kept previous versions have short names too)
        write(tmp_path / "policies", {"pools/web.yaml": pool(name=name, count=str(3 + _))})
        res = cli("render", "policies", "-o", "out", cwd=tmp_path)
        assert res.returncode == 0, shown(res)
    assert (tmp_path / "out" / "kubelet" / f"{name}.yaml").is_file()
    assert _staged(tmp_path / "out") == []


@pytest.mark.parametrize("length", [251, 252, 253])
@pytest.mark.parametrize("rendered_before", [False, True])
def test_a_name_too_long_for_the_file_system_is_a_located_error_before_anything_is_written(
    tmp_path: Path, length: int, rendered_before: bool
) -> None:
    good_repo(tmp_path / "policies")
    if rendered_before:
        assert cli("render", "policies", "-o", "out", cwd=tmp_path).returncode == 0
    text = pool(name="n" * length)
    write(tmp_path / "policies", {"pools/web.yaml": text})
    before = snapshot(tmp_path)
    res = cli("render", "policies", "-o", "out", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 1, shown(res)
    line = text.splitlines().index(f"  name: {'n' * length}") + 1
    assert re.search(
        rf"^policies/pools/web\.yaml:{line}:9: error: the rendered file kubelet/n+\.yaml", res.stdout, re.M
    )
    assert f"is {length + 5} bytes, longer than the 255 bytes" in res.stdout, shown(res)
    assert "[AL805]" in res.stdout and "restoring" not in res.stdout + res.stderr
    assert snapshot(tmp_path) == before


def test_the_writer_checks_names_before_the_first_byte(tmp_path: Path) -> None:
    """The same promise at the writer itself (init and schema -o use it too)."""
    root = tmp_path / "out"
    output.write(root, OLD)
    before = snapshot(root)
    with pytest.raises(output.OutputError, match="longer than the 255 bytes"):
        output.write(root, {**NEW, f"kubelet/{'x' * 260}.yaml": b"x\n"})
    assert snapshot(root) == before


# --- class 16: closed and full standard streams ----------------------------------------------------------------


def _run(argv: list[str], cwd: Path, *, stdout: object, stderr: object, close: tuple[int, ...] = ()) -> tuple[int, str]:
    """Run the CLI with fds in ``close`` closed; return the exit code and whatever reached a pipe."""

    def closer() -> None:
        for fd in close:
            os.close(fd)

    proc = subprocess.run(
        [sys.executable, "-m", "renderer", *argv],
        cwd=cwd,
        env=env(),
        stdout=stdout,  # type: ignore[arg-type]
        stderr=stderr,  # type: ignore[arg-type]
        preexec_fn=closer if close else None,
        timeout=120,
        check=False,
    )
    text = b"".join(x for x in (proc.stdout, proc.stderr) if isinstance(x, bytes)).decode()
    return proc.returncode, text


STREAM_CASES = {
    "lint-stdout-closed": (["lint", "policies"], "closed-1"),
    "validate-stdout-closed": (["validate", "-o", "json", "policies"], "closed-1"),
    "lint-stderr-closed": (["lint", "policies"], "closed-2"),
    "render-check-stderr-closed": (["render", "--check", "policies", "-o", "out"], "closed-2"),
    "explain-stdout-full": (["explain", "policies"], "full-1"),
    "lint-json-stdout-full": (["lint", "-o", "json", "policies"], "full-1"),
    "render-stdout-full": (["render", "--stdout", "policies"], "full-1"),
    "schema-check-stdout-full": (["schema", "--check", "-o", "schemas"], "full-1"),
    "lint-stderr-full": (["lint", "policies"], "full-2"),
}


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("case", sorted(STREAM_CASES))
def test_a_closed_or_full_standard_stream_is_exit_2_with_one_line(tmp_path: Path, case: str) -> None:
    argv, how = STREAM_CASES[case]
    good_repo(tmp_path / "policies")
    (tmp_path / "policies" / ".allocatable.yaml").write_text(SETTINGS)
    kind, fd = how.split("-")
    with open("/dev/full", "wb") as full:
        if kind == "closed":
            code, text = _run(
                argv,
                tmp_path,
                stdout=subprocess.PIPE if fd == "2" else None,
                stderr=subprocess.PIPE if fd == "1" else None,
                close=(int(fd),),
            )
            which = "standard output" if fd == "1" else "standard error"
            assert (
                text
                == f"allocatable: error: {which} is closed; run it with {which} open (redirect it to a file or to /dev/null instead of closing it)\n"
            ), text
        else:
            code, text = _run(
                argv,
                tmp_path,
                stdout=full if fd == "1" else subprocess.PIPE,
                stderr=full if fd == "2" else subprocess.PIPE,
            )
            if fd == "1":
                lines = [ln for ln in text.splitlines() if ln.startswith("allocatable: error: ")]
                assert lines == [
                    "allocatable: error: cannot write to standard output: No space left on device; free some space "
                    "or write the output elsewhere"
                ], text
            assert "Traceback" not in text and "Exception ignored" not in text, text
    assert code == 2, (code, text)


def test_a_signalled_child_gets_the_signals_at_their_default_whatever_the_runner_ignores() -> None:
    """Reproduces the hang of issue 34: under ``nohup`` the runner ignores SIGHUP, its children inherit that, and the
    CLI keeps an ignored signal ignored — so the SIGHUP tests waited for a child that never saw the signal. A child
    started with ``signals_delivered`` has every sent signal at its default, the CLI's handlers then apply."""
    saved = {sig: signal.getsignal(sig) for sig in SIGNALS}
    probe = "import signal; print(*(signal.getsignal(s) == signal.SIG_IGN for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)))"
    try:
        for sig in SIGNALS:
            signal.signal(sig, signal.SIG_IGN)  # as nohup (SIGHUP) and a background job (SIGINT) leave them
        plain = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
        assert plain.stdout.split() == ["True", "True", "True"]  # ignored: what the child inherited before
        fixed = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, check=True, preexec_fn=signals_delivered
        )
        assert fixed.stdout.split() == ["False", "False", "False"]
    finally:
        for sig, handler in saved.items():
            signal.signal(sig, handler)
