"""Issue 12, output: control characters from input data never reach the terminal or start a line in any format
(class 15), and an output encoding that cannot hold "−", "→", "×" or "≈" degrades instead of crashing (class 16).
Run as subprocesses, on a policy repo whose values, field names, object names and file names are hostile."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from support.hardening import REPO_ROOT, assert_no_crash, cli, good_repo, pool, shown, write

RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

HOSTILE_POOL = """\
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: "web\\e[2J\\e[Hx"
spec:
  labels:
    "tier\\n::warning file=x::injected": "v\\0al"
    example.com/note: "\\e]8;;https://evil.example\\e\\\\click\\e]8;;\\e\\\\"
  capacity: {cpu: "8", memory: 32Gi}
  count: 3
  "## heading\\n[link](https://evil.example) <img src=x onerror=alert(1)> | a | `b`": 1
  "\\u202eevil\\r\\u2028x": 2
"""
HOSTILE_FILE = "\x1b[31mred\rname\u202e.yaml"


def _hostile_repo(root: Path) -> Path:
    repo = good_repo(root)
    write(repo, {"pools/hostile.yaml": HOSTILE_POOL, HOSTILE_FILE: pool(name="other", tier="Bad Value\x7f")})
    return repo


def _clean(text: str) -> None:
    m = RAW.search(text)
    assert m is None, repr(text[max(0, m.start() - 100) : m.end() + 100])


@pytest.mark.parametrize(
    ("command", "fmt"),
    [
        ("validate", "text"),
        ("validate", "json"),
        ("lint", "text"),
        ("lint", "github"),
        ("lint", "json"),
        ("lint", "sarif"),
    ],
)
def test_hostile_input_data_is_escaped_in_every_format(tmp_path: Path, command: str, fmt: str) -> None:
    _hostile_repo(tmp_path / "policies")
    res = cli(command, "policies", "-o", fmt, cwd=tmp_path, extra_env={"FORCE_COLOR": "1"})
    assert_no_crash(res)
    assert res.returncode == 2, shown(res)
    _clean(res.stdout + res.stderr)
    as_json = cli(command, "policies", "-o", "json", cwd=tmp_path)
    count = len(json.loads(as_json.stdout)["findings"])
    assert count >= 6
    lines = [ln for ln in res.stdout.splitlines() if ln]
    if fmt == "text":
        assert len(lines) == count, "one finding, one line"
    elif fmt == "github":
        assert len(lines) == count and all(re.match(r"^::error file=[^:]*::", ln) for ln in lines), lines
    else:
        json.loads(res.stdout)


def test_diff_text_and_markdown_escape_what_a_change_brings(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    good_repo(tmp_path / "policies")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "add", "-A"], cwd=tmp_path, check=True, env=env)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=tmp_path, check=True, env=env)
    _hostile_repo(tmp_path / "policies")
    for fmt in ("text", "markdown", "json"):
        res = cli("diff", "--base", "HEAD", "policies", "-o", fmt, cwd=tmp_path)
        assert_no_crash(res)
        assert res.returncode == 0, shown(res)
        _clean(res.stdout + res.stderr)
        if fmt == "markdown":
            for line in res.stdout.splitlines():
                assert not line.startswith(("## heading", "::", "[link]")), line
            assert "<img" not in res.stdout and "\\[link\\]" in res.stdout
            assert "\\| a \\|" in res.stdout and "\\`b\\`" in res.stdout
        if fmt == "json":
            json.loads(res.stdout)


def test_render_check_escapes_a_hand_edited_file(tmp_path: Path) -> None:
    good_repo(tmp_path / "policies")
    assert cli("render", "policies", "-o", "out", cwd=tmp_path).returncode == 0
    target = next((tmp_path / "out" / "kubelet").iterdir())
    target.write_bytes(target.read_bytes() + b"evil: \x1b[2J\x1b]0;owned\x07\r\n")
    res = cli("render", "--check", "policies", "-o", "out", cwd=tmp_path)
    assert res.returncode == 1 and "\\x1b[2J" in res.stdout, shown(res)
    _clean(res.stdout + res.stderr)


def test_usage_errors_escape_paths_from_the_command_line(tmp_path: Path) -> None:
    res = cli("validate", "\x1b[2Jgone\nx", cwd=tmp_path)
    assert res.returncode == 2 and res.stderr.count("\n") == 1, shown(res)
    assert "\\x1b[2Jgone\\nx: no such file or directory" in res.stderr
    _clean(res.stderr)


# --- class 16: output encodings -------------------------------------------------------------------------------------

ASCII_ENVIRONMENTS = {
    "PYTHONIOENCODING=ascii": {"PYTHONIOENCODING": "ascii"},
    "LC_ALL=C": {"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONCOERCECLOCALE": "0", "PYTHONIOENCODING": ""},
}
COMMANDS = [
    ["explain", "policies"],
    ["explain", "policies", "-o", "markdown"],
    ["diff", "--base", "HEAD", "policies"],
    ["diff", "--base", "HEAD", "policies", "-o", "markdown"],
    ["lint", "policies"],
    ["lint", "policies", "-o", "sarif"],
    ["rules", "AL204"],
    ["sizing", "--formula", "openshift", "--cpus", "8", "--memory", "32Gi"],
    ["--help"],
    ["render", "--help"],
]


@pytest.fixture(scope="module")
def bundled(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A git repository with the bundled example policies (the base and the work tree differ)."""
    top = tmp_path_factory.mktemp("ascii")
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull}
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q", str(top)], check=True, env=env)
    subprocess.run(["cp", "-r", str(REPO_ROOT / "policies"), str(top / "policies")], check=True)
    subprocess.run([*git, "add", "-A"], cwd=top, check=True, env=env)
    subprocess.run([*git, "commit", "-qm", "base"], cwd=top, check=True, env=env)
    cc = top / "policies" / "commitclasses" / "general-purpose-burst.yaml"
    cc.write_text(cc.read_text().replace("percent: 150", "percent: 160"))
    return top


@pytest.mark.parametrize("environment", sorted(ASCII_ENVIRONMENTS))
@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_an_ascii_only_output_degrades_instead_of_crashing(bundled: Path, environment: str, args: list[str]) -> None:
    utf8 = cli(*args, cwd=bundled, extra_env={"PYTHONIOENCODING": "utf-8"})
    keep = {k: v for k, v in os.environ.items() if k not in ("LANG", "LC_ALL", "LC_CTYPE", "PYTHONIOENCODING")}
    res = subprocess.run(
        [sys.executable, "-m", "renderer", *args],
        cwd=bundled,
        env={**keep, "NO_COLOR": "1", **ASCII_ENVIRONMENTS[environment]},
        capture_output=True,
        timeout=120,
        check=False,
    )
    stdout, stderr = res.stdout.decode("ascii"), res.stderr.decode("ascii")  # nothing but ASCII was written
    assert "Traceback" not in stderr and "UnicodeEncodeError" not in stdout + stderr, stderr
    assert res.returncode == utf8.returncode, (stdout, stderr)
    assert stdout.count("\n") == utf8.stdout.count("\n"), "the same output, with ASCII spellings"
    if "→" in utf8.stdout:
        assert "->" in stdout
    if "sarif" in args:
        assert json.loads(stdout) == json.loads(utf8.stdout), "JSON escapes: the same data"
