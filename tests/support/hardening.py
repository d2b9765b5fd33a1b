"""Helpers for the hardening tests (issue 12): run the installed CLI as a subprocess, as users and CI run it, and
check the promises every bad input must keep: an exit code, one located line per problem, no traceback, nothing
written, nothing from outside the repository read or printed."""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

from support import forkrun
from support.factory import Content, write_repo
from support.privileges import drop_privileges

REPO_ROOT = Path(__file__).resolve().parents[2]

# Text on purpose, unlike support.factory: the hardening tests put hostile bytes into these (control characters,
# tags, anchors, numbers past int64) and find the line:col a finding must name with position_of.
POOL = """\
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: {name}
spec:
  labels:
    example.com/tier: {tier}
  capacity:
    cpu: "8"
    memory: 32Gi
    ephemeral-storage: 100Gi
    pods: "110"
  count: {count}
"""

COMMIT_CLASS = """\
apiVersion: node.k8s.io/v1alpha1
kind: CommitClass
metadata:
  name: burst
spec:
  selector:
    - matchExpressions:
        - key: example.com/tier
          operator: In
          values: [general]
  resources:
    - name: cpu
      percent: 150
"""

RESERVATION = """\
apiVersion: policy.allocatable.dev/v1alpha1
kind: ReservationPolicy
metadata:
  name: static
spec:
  selector:
    - matchExpressions:
        - key: example.com/tier
          operator: Exists
  systemReserved: {cpu: 100m, memory: 100Mi}
  kubeReserved: {cpu: 100m, memory: 500Mi}
  evictionHard:
    memory.available: 100Mi
    nodefs.available: "10%"
"""

SETTINGS = "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\n"

#: A string that must never appear in any output: it lives only in files the tool must refuse to read.
SECRET = "s3cr3t-6b1d0c1e-never-print-me"

FINDING_RE = re.compile(
    r"^(?P<path>[^\s:][^:]*):(?P<line>\d+):(?P<col>\d+): (?P<sev>error|warning|info): .* \[AL\d{3}\]"
)


def pool(name: str = "web", tier: str = "general", count: str = "3") -> str:
    return POOL.format(name=name, tier=tier, count=count)


def write(root: Path, files: Mapping[str, Content]) -> Path:
    """The files exactly as given (no dedenting: the bytes of a hostile input are the test); documents as YAML."""
    return write_repo(root, files, dedent=False)


def good_repo(root: Path) -> Path:
    """A small policy repo that validates, lints clean and renders."""
    return write(
        root,
        {
            # Koordinator on (render.koordinator): the over-commit class is delivered, so the repo lints clean.
            ".allocatable.yaml": SETTINGS + "render: {koordinator: true}\n",
            "pools/web.yaml": pool(),
            "commitclasses/burst.yaml": COMMIT_CLASS,
            "reservations/static.yaml": RESERVATION,
        },
    )


#: The signals a test sends a CLI child (tests/hardening/test_interrupts.py, test_base_trees.py).
SENT_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)


def signals_delivered() -> None:
    """``preexec_fn`` of a child a test will signal: the signals at their defaults, whatever the test runner
    inherited. The CLI keeps a signal its parent ignores ignored (``renderer.signals``, as ``nohup`` asks), so a
    suite started under ``nohup`` (SIGHUP ignored) or as a background job of a non-interactive shell (SIGINT
    ignored) sent the signal to a child that never saw it, and waited (issue 34)."""
    for sig in SENT_SIGNALS:
        signal.signal(sig, signal.SIG_DFL)


def env(**extra: str) -> dict[str, str]:
    out = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "INPUT_", "ARGOCD_"))}
    out.update(NO_COLOR="1", PYTHONDONTWRITEBYTECODE="1", GIT_CONFIG_NOSYSTEM="1")
    out.update(extra)
    return out


def cli(
    *args: str,
    cwd: Path,
    timeout: float = 120,
    extra_env: dict[str, str] | None = None,
    unprivileged: bool = False,
) -> subprocess.CompletedProcess[str]:
    """``allocatable ARGS`` in a subprocess (the module, so the test venv's code runs); never hangs the suite.

    ``unprivileged``: as root, run it with every capability dropped (see ``tests/support/privileges.py``)."""
    environment = env(**(extra_env or {}))
    if not unprivileged and forkrun.usable(environment):
        return forkrun.run(args, cwd=cwd, env=environment, timeout=timeout)
    return subprocess.run(
        [*(drop_privileges() if unprivileged else []), sys.executable, "-m", "renderer", *args],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def in_process(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """``allocatable ARGS`` run in this process (``conftest.run_cli``: ``main`` with its streams captured), the result
    shaped as ``cli`` gives it. For the bad-input checks (exit code, one located line, no traceback, nothing written):
    how a bad input is read does not depend on running as a process of its own. What does (signals, closed or hostile
    streams, dropped privileges, partial writes, hangs, the environment) runs through ``cli``."""
    from conftest import run_cli  # tests/conftest.py, on sys.path as every test module's; imported when first used

    res = run_cli(*args, cwd=cwd)
    return subprocess.CompletedProcess(["allocatable", *args], res.exit_code, res.stdout, res.stderr)


def shown(res: subprocess.CompletedProcess[str]) -> str:
    return f"exit {res.returncode}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"


def assert_no_crash(res: subprocess.CompletedProcess[str]) -> None:
    both = res.stdout + res.stderr
    assert "Traceback" not in both and "internal error" not in both, shown(res)


def findings(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if FINDING_RE.match(ln)]


def assert_one_finding(
    res: subprocess.CompletedProcess[str], where: str, code: str, *fragments: str, exit_code: int = 2
) -> str:
    """Exit ``exit_code``, no crash, and exactly one finding line, starting ``where`` (``path:line:col``), with
    ``code`` and every fragment."""
    assert_no_crash(res)
    assert res.returncode == exit_code, shown(res)
    lines = findings(res.stdout) or findings(res.stderr)
    assert len(lines) == 1, f"want one finding line\n{shown(res)}"
    line = lines[0]
    assert line.startswith(f"{where}: "), f"want {where!r}\n{shown(res)}"
    assert f"[{code}]" in line, shown(res)
    for fragment in fragments:
        assert fragment in line, f"want {fragment!r} in {line}"
    return line


def assert_not_checked(res: subprocess.CompletedProcess[str], exit_code: int = 2) -> str:
    """``render --check`` on policies that do not validate (exit 2) or lint with errors (1): no finding of its own
    (validate and lint report them), one line saying nothing was compared."""
    assert_no_crash(res)
    assert res.returncode == exit_code, shown(res)
    assert not findings(res.stdout) and not findings(res.stderr), shown(res)
    (line,) = [ln for ln in res.stderr.splitlines() if ln.startswith("render --check: not checked: ")] or [""]
    assert line.endswith("; nothing was compared"), shown(res)
    return line


def snapshot(root: Path) -> dict[str, tuple[str, ...]]:
    """Everything under ``root`` without following symlinks: type, and content hash and mode of files."""
    out: dict[str, tuple[str, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            st = p.lstat()
            if stat.S_ISLNK(st.st_mode):
                out[rel] = ("link", os.readlink(p))
            elif stat.S_ISDIR(st.st_mode):
                out[rel] = ("dir", oct(st.st_mode))
            elif stat.S_ISREG(st.st_mode):
                try:
                    digest = hashlib.sha256(p.read_bytes()).hexdigest()
                except PermissionError:
                    digest = "unreadable"
                out[rel] = ("file", digest, oct(st.st_mode))
            else:
                out[rel] = ("special", oct(st.st_mode))
    return out


def position_of(text: str, needle: str) -> tuple[int, int]:
    """1-based (line, column) of the first ``needle`` in ``text``: where a finding about it must point."""
    i = text.index(needle)
    return text.count("\n", 0, i) + 1, i - (text.rfind("\n", 0, i) + 1) + 1


# --- reads that must fail: privileges (see tests/support/privileges.py) ----------------------------------------------


@contextmanager
def world_readable_tmp() -> Iterator[Path]:
    """A temporary directory whose chmod-ed subdirectories are made writable again before it is removed."""
    path = Path(tempfile.mkdtemp(prefix="allocatable-hardening-"))
    path.chmod(0o755)
    try:
        yield path
    finally:
        for dirpath, dirnames, _ in os.walk(path):
            for d in dirnames:
                with_mode = Path(dirpath) / d
                if not with_mode.is_symlink():
                    with_mode.chmod(0o755)
        shutil.rmtree(path, ignore_errors=True)
