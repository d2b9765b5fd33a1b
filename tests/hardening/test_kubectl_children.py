"""Issue 30, class 7: ``verify --live`` when kubectl exits but a child it started keeps its pipes open.

A credential helper or a proxy that kubectl starts inherits kubectl's stdout and stderr; when kubectl exits and the
child lives on, the pipes never end. The promise (renderer/verify/kubectl.py): the whole call takes at most twice
the request timeout, whatever kubectl and its children do. kubectl is replaced by shell scripts that do exactly
that (``sleep 300 &`` is the child: it inherits both pipes). Nothing here measures time except a generous upper
bound that proves the call returns: each CLI run is given 60 s and the request timeout is 2 s.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest
import yaml

from support.hardening import REPO_ROOT, assert_no_crash, cli, shown

INVENTORY = REPO_ROOT / "policies" / "inventory" / "nodes.yaml"

#: Each fake: what kubectl does. $NODES holds the answer, $PIDFILE receives the child's pid.
FAKES = {
    # kubectl answers, leaves a child holding stdout and stderr, and exits 0: the answer is used
    "child-holds-both": 'sleep 300 &\necho $! > "$PIDFILE"\ncat "$NODES"\nexit 0\n',
    # the child holds stdout only (stderr closed in it)
    "child-holds-stdout": 'sleep 300 2>/dev/null &\necho $! > "$PIDFILE"\ncat "$NODES"\nexit 0\n',
    # the child holds stderr only
    "child-holds-stderr": 'sleep 300 >/dev/null &\necho $! > "$PIDFILE"\ncat "$NODES"\nexit 0\n',
    # the child is started first and kubectl writes its answer after it
    "child-first": 'sleep 300 &\necho $! > "$PIDFILE"\nsleep 0.2\ncat "$NODES"\nexit 0\n',
}
FAILING = {
    # kubectl fails with a child holding the pipes: its own message, exit 2
    "fails-with-child": 'sleep 300 &\necho $! > "$PIDFILE"\necho \'error: context "x" does not exist\' >&2\nexit 1\n',
    # kubectl itself never ends and its child holds the pipes: stopped at twice the request timeout
    "hangs-with-child": 'sleep 300 &\necho $! > "$PIDFILE"\nsleep 300\n',
    # the child keeps writing to stdout after kubectl exits: stopped at the deadline, the output refused
    "child-keeps-writing": '(while :; do echo x; sleep 0.01; done) &\necho $! > "$PIDFILE"\ncat "$NODES"\nexit 0\n',
}


def _setup(tmp_path: Path, script: str) -> dict[str, str]:
    shutil.copytree(REPO_ROOT / "policies", tmp_path / "policies")
    (tmp_path / "policies" / "inventory" / "nodes.yaml").unlink()
    nodes = tmp_path / "nodes.json"
    nodes.write_text(json.dumps(yaml.safe_load(INVENTORY.read_text(encoding="utf-8"))), encoding="utf-8")
    program = tmp_path / "kubectl"
    program.write_text("#!/bin/sh\n" + script, encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    return {
        "ALLOCATABLE_KUBECTL": str(program),
        "NODES": str(nodes),
        "PIDFILE": str(tmp_path / "child.pid"),
    }


def _gone(pid: int) -> bool:
    """The child no longer runs (gone, or a zombie waiting for whoever adopted it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return True
    return state in ("Z", "X")


def _run(tmp_path: Path, env: dict[str, str]) -> tuple[int, str, str]:
    res = cli("verify", "policies", "--live", "--request-timeout", "2", cwd=tmp_path, timeout=60, extra_env=env)
    assert_no_crash(res)
    pidfile = Path(env["PIDFILE"])
    if pidfile.exists():
        pid = int(pidfile.read_text())
        try:
            assert _gone(pid), f"kubectl's child {pid} was left running"
        finally:
            if not _gone(pid):
                os.kill(pid, 9)
    return res.returncode, res.stdout, shown(res)


@pytest.mark.parametrize("name", sorted(FAKES))
def test_a_child_holding_the_pipes_does_not_hold_verify(tmp_path: Path, name: str) -> None:
    code, _, text = _run(tmp_path, _setup(tmp_path, FAKES[name]))
    # the example inventory's three nodes, read through the fake and verified as with --nodes
    assert code == 0 and "verify: 3 nodes: 3 match, 0 differ" in text, text


def test_a_failing_kubectl_with_a_child_says_its_own_message(tmp_path: Path) -> None:
    code, _, text = _run(tmp_path, _setup(tmp_path, FAILING["fails-with-child"]))
    assert code == 2 and 'failed (exit 1): error: context "x" does not exist' in text, text


def test_a_hanging_kubectl_with_a_child_stops_at_twice_the_request_timeout(tmp_path: Path) -> None:
    code, _, text = _run(tmp_path, _setup(tmp_path, FAILING["hangs-with-child"]))
    assert code == 2 and "did not finish within 4 seconds" in text, text
    assert len([ln for ln in text.splitlines() if "error" in ln]) == 1, text


def test_a_child_that_keeps_writing_is_stopped_and_its_output_refused(tmp_path: Path) -> None:
    code, _, text = _run(tmp_path, _setup(tmp_path, FAILING["child-keeps-writing"]))
    # kubectl's answer followed by the child's "x" lines is not a node list: one located line, exit 2
    assert code == 2, text
    assert "kubectl get nodes" in text, text
