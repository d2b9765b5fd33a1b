"""``allocatable ARGS`` as a child process, forked from an interpreter that has imported the CLI once.

The hardening and corpus tests run the CLI as users do, as a process of its own: its exit code, its two output
streams, its working directory and environment, ``stdin`` at ``/dev/null``, its exit handlers. Starting a new
interpreter for each of ~1,000 runs and importing the package again cost a quarter of a second each, most of a
plain ``pytest``. Here a small server (one per test worker, single-threaded, started with ``sys.executable`` as a
run would be) imports the package's modules once and forks a child for each run: the child takes the run's working
directory, environment and standard streams (``/dev/null`` and two files), runs ``main`` as ``python -m renderer``
does, runs its exit handlers, flushes and exits with the code; the test gets the ``CompletedProcess`` that
``subprocess.run(..., capture_output=True, text=True)`` would give (``TimeoutExpired`` past the timeout, the child
killed). What a fork cannot give is the interpreter's start-up (stream encodings chosen from ``LANG``/``LC_*``,
``PYTHON*`` variables): such runs, and every run in the deep profile (``ALLOCATABLE_FUZZ=deep``, ``.ci/run``), start
a new interpreter as before. Importing is all the server does: no module's state depends on when it was imported.
"""

from __future__ import annotations

import atexit
import json
import locale
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO

#: Variables the interpreter reads when it starts (stream encodings, flags): a run that changes one gets a new one.
_STARTUP = ("PYTHON", "LANG", "LC_")

_servers: list[subprocess.Popen[bytes]] = []
_one_at_a_time = threading.Lock()  # a request and its two answers are one exchange
_pending = bytearray()  # answer bytes read from the server and not used yet


def usable(env: Mapping[str, str]) -> bool:
    """Whether a forked child runs exactly as a new interpreter with ``env`` would (see the module docstring)."""
    if os.environ.get("ALLOCATABLE_FUZZ", "") == "deep" or not hasattr(os, "fork"):
        return False
    changed = {k for k in set(env) | set(os.environ) if env.get(k) != os.environ.get(k)}
    return not any(k.startswith(_STARTUP) and k != "PYTHONDONTWRITEBYTECODE" for k in changed)


def run(argv: Sequence[str], *, cwd: Path, env: Mapping[str, str], timeout: float) -> subprocess.CompletedProcess[str]:
    """``allocatable ARGV`` in a forked child (see the module docstring)."""
    with _one_at_a_time, tempfile.TemporaryDirectory(prefix="allocatable-fork-") as tmp:
        server = _server()
        assert server.stdin is not None and server.stdout is not None
        out, err = os.path.join(tmp, "out"), os.path.join(tmp, "err")
        request = {"argv": list(argv), "cwd": str(cwd), "env": dict(env), "out": out, "err": err}
        data = memoryview(json.dumps(request).encode() + b"\n")
        while data:  # unbuffered (bufsize=0): a write may take part of it
            data = data[os.write(server.stdin.fileno(), data) :]
        pid = int(_line(server.stdout, 30))
        try:
            code = int(_line(server.stdout, timeout))
        except TimeoutError:
            os.kill(pid, signal.SIGKILL)
            _line(server.stdout, 30)
            raise subprocess.TimeoutExpired(["allocatable", *argv], timeout) from None
        stdout, stderr = (_text(Path(p).read_bytes()) for p in (out, err))
    return subprocess.CompletedProcess(["allocatable", *argv], code, stdout, stderr)


def _line(stream: IO[bytes], timeout: float) -> bytes:
    """The server's next answer line. Read with ``os.read`` into a buffer of our own: a buffered reader could hold
    the second answer already, and ``select`` on the pipe would then wait for bytes that have arrived."""
    while b"\n" not in _pending:
        ready, _, _ = select.select([stream], [], [], timeout)
        if not ready:
            raise TimeoutError
        chunk = os.read(stream.fileno(), 4096)
        if not chunk:
            raise RuntimeError(
                "the CLI's fork server ended; run the test with ALLOCATABLE_FUZZ=deep to see it directly"
            )
        _pending.extend(chunk)
    line, _, rest = bytes(_pending).partition(b"\n")
    _pending[:] = rest
    return line


def _text(data: bytes) -> str:
    """Bytes as ``subprocess.run(text=True)`` decodes them: the locale's encoding, universal newlines."""
    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


def _server() -> subprocess.Popen[bytes]:
    if not _servers or _servers[0].poll() is not None:
        # This file run as the server's main module (runpy, not ``python FILE``: that would put tests/support first
        # on the children's sys.path, where its modules would shadow any of the same name).
        code = f"import runpy; runpy.run_path({os.path.abspath(__file__)!r}, run_name='__main__')"
        proc = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        _pending.clear()
        atexit.register(_stop, proc)
        _servers[:] = [proc]
    return _servers[0]


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.stdin is not None:
        proc.stdin.close()  # the server ends at the end of its input
    try:
        proc.wait(10)
    except subprocess.TimeoutExpired:
        proc.kill()


# ----------------------------------------------------------------------------------------------------- the server


def serve() -> None:
    """The server's loop: a request per line on stdin; answers the child's pid, then its exit code, on stdout."""
    requests = os.fdopen(os.dup(0), "rb")
    answers = os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)  # nothing the server or a module prints can reach the answers
    os.close(null)
    _import_all()
    for line in requests:
        request = json.loads(line)
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            requests.close()
            os.close(answers)
            _child(**request)
        os.write(answers, f"{pid}\n".encode())
        _, status = os.waitpid(pid, 0)
        os.write(answers, f"{os.waitstatus_to_exitcode(status)}\n".encode())


def _import_all() -> None:
    """Every module of the package, imported as a run would import it (``__main__`` aside: it runs the CLI)."""
    import importlib
    import pkgutil

    import renderer

    for module in pkgutil.walk_packages(renderer.__path__, "renderer."):
        if not module.name.endswith(".__main__"):
            importlib.import_module(module.name)


def _child(argv: list[str], cwd: str, env: dict[str, str], out: str, err: str) -> None:
    """One run, in the forked child: as ``python -m renderer ARGV`` would, then ``os._exit``."""
    code: int | str | None = 1
    try:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        for fd, path in ((1, out), (2, err)):
            opened = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        from renderer.cli import main

        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        if isinstance(code, str):  # as the interpreter does with SystemExit("text")
            sys.stderr.write(code + "\n")
            code = 1
        atexit._run_exitfuncs()
        try:
            sys.stdout.flush()
            sys.stderr.flush()
        except OSError:  # the interpreter's own answer to a last flush that fails
            code = 120
    except BaseException:  # a traceback, as the interpreter would print it; never back into the server's loop
        import traceback

        traceback.print_exc()
        sys.stderr.flush()
        code = 1
    os._exit(code or 0)


if __name__ == "__main__":
    serve()
