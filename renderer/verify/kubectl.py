"""The live nodes of a cluster for verify, read the way a kubectl user reads them: ``kubectl get nodes -o json``.

No Kubernetes client library: kubectl already knows the user's kubeconfig, contexts, credential plugins and proxies,
and its JSON is the dump ``--nodes`` reads. What comes back goes through the same reader as a ``--nodes`` file
(``renderer.verify.snapshot``), named ``kubectl get nodes`` in problems.

Bounded like every input: stdout at most the file-size bound (``--max-file-size``, default 256 MiB) — kubectl is
stopped past it — stderr at most 64 KiB, and the whole call at most twice the request timeout (kubectl's own
``--request-timeout`` is passed as well; a credential plugin that waits for input gets none: stdin is empty; a
child kubectl leaves holding its pipes is killed with kubectl's process group, see :func:`_collect`). A
missing kubectl, a failing one (no context, an unreachable server, no permission to list nodes) or one that does not
finish is one line saying what happened and what to do, raised as ``SnapshotError``.

Cost: one kubectl process; memory O(its output).
"""

from __future__ import annotations

import contextlib
import os
import selectors
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass
from typing import NamedTuple

from renderer.loading.documents import Source
from renderer.verify.snapshot import SnapshotError

__all__ = ["DISPLAY", "Kubectl", "get_raw", "live_nodes"]

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

    def argv(self, program: str, what: tuple[str, ...] = ("nodes", "-o", "json")) -> list[str]:
        """``kubectl get WHAT`` with the request timeout and this cluster's context and kubeconfig."""
        argv = [program, "get", *what, f"--request-timeout={self.timeout}s"]
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


def live_nodes(k: Kubectl, max_bytes: int) -> Source:
    """kubectl's ``get nodes -o json`` output, as a source for the dump reader. Raises ``SnapshotError``."""
    return Source.of_bytes(_output(k, ("nodes", "-o", "json"), max_bytes, "pass a dump with --nodes FILE"), DISPLAY)


def get_raw(k: Kubectl, path: str, max_bytes: int, instead: str) -> bytes:
    """kubectl's ``get --raw PATH`` output (``/api/v1/nodes/NAME/proxy/configz``), bounded as ``live_nodes``'s;
    ``instead`` ends a problem with what to do instead. Raises ``SnapshotError``."""
    return _output(k, ("--raw", path), max_bytes, instead)


def _output(k: Kubectl, what: tuple[str, ...], max_bytes: int, instead: str) -> bytes:
    program = _program(k)
    argv = k.argv(program, what)
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
        raise SnapshotError(f"`{shown}` could not be started: {exc.strerror or exc}; {instead}") from None
    deadline = 2 * k.timeout
    got = _collect(proc, max_bytes, deadline)
    out, err, finished, too_much = got.out, got.err, got.finished, got.too_much
    if too_much:
        raise SnapshotError(
            f"`{shown}` printed more than {max_bytes} bytes (the file-size bound): raise it with --max-file-size, "
            f"or {instead}"
        )
    if not finished:
        raise SnapshotError(
            f"`{shown}` did not finish within {deadline} seconds: check that the cluster is reachable, raise "
            f"--request-timeout, or {instead}"
        )
    if proc.returncode != 0:
        message = _last_line(b"".join(err)) or "no message"
        raise SnapshotError(
            f"`{shown}` failed (exit {proc.returncode}): {message}; check the context (`kubectl config "
            f"current-context`) and that you may {'get ' + what[1] if what[0] == '--raw' else 'list nodes'}, "
            f"or {instead}"
        )
    return b"".join(out)


class _Collected(NamedTuple):
    out: list[bytes]
    err: list[bytes]
    finished: bool  # kubectl exited within the deadline
    too_much: bool  # stdout went past the bound


#: How long the pipes are drained after kubectl exits: everything kubectl wrote is in them already, so this only
#: waits for the pipes to be found at their end (or held open by a child kubectl left behind).
_DRAIN_SECONDS = 0.5


def _collect(proc: subprocess.Popen[bytes], max_bytes: int, seconds: float) -> _Collected:
    """Read kubectl's stdout and stderr in this thread, with a selector and ``os.read`` (never a blocking read):
    until both pipes end, or kubectl has exited and its pipes stay quiet for a moment (a credential helper or proxy
    it started may hold them open forever), or stdout passes ``max_bytes``, or ``seconds`` pass. Whatever is still
    running in kubectl's process group afterwards is killed, and the pipes are closed by this thread, which no
    other thread reads: nothing waits on a blocked reader."""
    assert proc.stdout is not None and proc.stderr is not None
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    limits = {out_fd: max_bytes, err_fd: _STDERR_BYTES}
    kept: dict[int, list[bytes]] = {fd: [] for fd in limits}
    sizes = dict.fromkeys(limits, 0)
    open_fds = set(limits)
    watch = selectors.DefaultSelector()  # epoll or poll where there is one: no FD_SETSIZE bound
    for fd in open_fds:
        watch.register(fd, selectors.EVENT_READ)
    end = time.monotonic() + seconds
    exited_at: float | None = None
    too_much = False
    while open_fds and not too_much:
        now = time.monotonic()
        if now >= end:
            break
        if exited_at is None and proc.poll() is not None:
            exited_at = now
        if exited_at is not None and now - exited_at >= _DRAIN_SECONDS:
            break
        ready = [int(key.fd) for key, _ in watch.select(min(0.05, end - now))]
        if ready and exited_at is not None:
            exited_at = time.monotonic()  # still talking: keep draining (the deadline still holds)
        for fd in ready:
            chunk = os.read(fd, 1 << 16)
            if not chunk:
                open_fds.discard(fd)
                watch.unregister(fd)
                continue
            room = limits[fd] + 1 - sizes[fd]
            if room > 0:
                kept[fd].append(chunk[:room])
                sizes[fd] += len(kept[fd][-1])
            if sizes[fd] > limits[fd] and fd == out_fd:
                too_much = True
    watch.close()
    if not open_fds and not too_much:  # both pipes ended: kubectl is exiting (or closed them and goes on)
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout=max(0.0, end - time.monotonic()))
    finished = proc.poll() is not None and not too_much
    _stop(proc)
    for stream in (proc.stdout, proc.stderr):
        stream.close()
    return _Collected(kept[out_fd], kept[err_fd], finished, too_much)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    """Kill kubectl's process group (kubectl and what it started: it leads its own session) and reap kubectl."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except OSError:
        if proc.poll() is None:
            proc.kill()
    with contextlib.suppress(subprocess.TimeoutExpired):  # a process that survives SIGKILL (D state): leave it
        proc.wait(timeout=5)


def _last_line(data: bytes) -> str:
    """kubectl's last line of stderr: its own message comes after the client library's log lines."""
    from renderer.escaping import plain

    text = data.decode("utf-8", "replace").strip()
    last = text.splitlines()[-1] if text else ""
    return plain(last[:300])
