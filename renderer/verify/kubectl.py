"""The live nodes of a cluster for verify, read the way a kubectl user reads them: ``kubectl get nodes -o json``.

No Kubernetes client library: kubectl already knows the user's kubeconfig, contexts, credential plugins and proxies,
and its JSON is the dump ``--nodes`` reads. What comes back goes through the same reader as a ``--nodes`` file
(``renderer.verify.snapshot``), named ``kubectl get nodes`` in problems.

Bounded like every input: stdout at most the file-size bound (``--max-file-size``, default 256 MiB) — kubectl is
stopped past it — stderr at most 64 KiB, and the whole call at most twice the request timeout (kubectl's own
``--request-timeout`` is passed as well; a credential plugin that waits for input gets none: stdin is empty). A
missing kubectl, a failing one (no context, an unreachable server, no permission to list nodes) or one that does not
finish is one line saying what happened and what to do, raised as ``SnapshotError``.

Cost: one kubectl process; memory O(its output).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import threading
from dataclasses import dataclass

from renderer.loading.documents import Source
from renderer.verify.snapshot import SnapshotError

__all__ = ["DISPLAY", "Kubectl", "live_nodes"]

#: How problems in kubectl's output are named (``kubectl get nodes:12:5: ...``).
DISPLAY = "kubectl get nodes"
_STDERR_BYTES = 64 << 10
_DEFAULT_TIMEOUT = 60


@dataclass(frozen=True)
class Kubectl:
    """Which cluster: the current context of the kubeconfig kubectl finds (``$KUBECONFIG``, ``~/.kube/config``),
    or the ones named."""

    context: str | None = None
    kubeconfig: str | None = None
    #: Seconds: kubectl's ``--request-timeout``; the call is stopped at twice this.
    timeout: int = _DEFAULT_TIMEOUT
    #: The kubectl to run (``$ALLOCATABLE_KUBECTL``, else ``kubectl`` on PATH).
    program: str | None = None

    def argv(self, program: str) -> list[str]:
        argv = [program, "get", "nodes", "-o", "json", f"--request-timeout={self.timeout}s"]
        if self.context is not None:
            argv.append(f"--context={self.context}")
        if self.kubeconfig is not None:
            argv.append(f"--kubeconfig={self.kubeconfig}")
        return argv


def _program(k: Kubectl) -> str:
    name = k.program or os.environ.get("ALLOCATABLE_KUBECTL") or "kubectl"
    found = shutil.which(name)
    if found is None:
        raise SnapshotError(
            f"{name} was not found on PATH: verify reads the live nodes with `kubectl get nodes -o json`; install "
            "kubectl (or set ALLOCATABLE_KUBECTL to it), or pass a dump with --nodes FILE"
        )
    return found


def _drain(stream: object, limit: int, into: list[bytes], over: threading.Event) -> None:
    """Read ``stream`` to its end, keeping at most ``limit`` + 1 bytes; set ``over`` past the limit."""
    kept = 0
    read = stream.read  # type: ignore[attr-defined]
    while True:
        chunk: bytes = read(1 << 16)
        if not chunk:
            return
        if kept <= limit:
            into.append(chunk[: limit + 1 - kept])
            kept += len(into[-1])
        if kept > limit:
            over.set()
            return


def live_nodes(k: Kubectl, max_bytes: int) -> Source:
    """kubectl's ``get nodes -o json`` output, as a source for the dump reader. Raises ``SnapshotError``."""
    program = _program(k)
    argv = k.argv(program)
    shown = " ".join(["kubectl", *argv[1:]])
    try:
        proc = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # stopped with its children (credential plugins) on a timeout
        )
    except OSError as exc:
        raise SnapshotError(
            f"`{shown}` could not be started: {exc.strerror or exc}; pass a dump with --nodes FILE"
        ) from None
    out: list[bytes] = []
    err: list[bytes] = []
    too_much = threading.Event()
    readers = [
        threading.Thread(target=_drain, args=(proc.stdout, max_bytes, out, too_much), daemon=True),
        threading.Thread(target=_drain, args=(proc.stderr, _STDERR_BYTES, err, threading.Event()), daemon=True),
    ]
    for t in readers:
        t.start()
    deadline = 2 * k.timeout
    finished = _wait(proc, deadline, too_much)
    if not finished:
        _stop(proc)
    for t in readers:
        t.join(timeout=5)
    for stream in (proc.stdout, proc.stderr):
        if stream is not None:
            stream.close()
    if too_much.is_set():
        raise SnapshotError(
            f"`{shown}` printed more than {max_bytes} bytes (the file-size bound): raise it with --max-file-size, "
            "or pass a dump with --nodes FILE"
        )
    if not finished:
        raise SnapshotError(
            f"`{shown}` did not finish within {deadline} seconds: check that the cluster is reachable, raise "
            "--request-timeout, or pass a dump with --nodes FILE"
        )
    if proc.returncode != 0:
        message = _last_line(b"".join(err)) or "no message"
        raise SnapshotError(
            f"`{shown}` failed (exit {proc.returncode}): {message}; check the context (`kubectl config "
            "current-context`) and that you may list nodes, or pass a dump with --nodes FILE"
        )
    return Source.of_bytes(b"".join(out), DISPLAY)


def _wait(proc: subprocess.Popen[bytes], seconds: float, too_much: threading.Event) -> bool:
    """True when ``proc`` exits within ``seconds``; False when the time runs out or it prints too much."""
    step = 0.05
    waited = 0.0
    while waited < seconds:
        if too_much.is_set():
            return False
        try:
            proc.wait(timeout=step)
            return True
        except subprocess.TimeoutExpired:
            waited += step
    return False


def _stop(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        proc.kill()
    proc.wait()


def _last_line(data: bytes) -> str:
    """kubectl's last line of stderr: its own message comes after the client library's log lines."""
    from renderer.escaping import plain

    text = data.decode("utf-8", "replace").strip()
    last = text.splitlines()[-1] if text else ""
    return plain(last[:300])
