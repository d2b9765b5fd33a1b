"""Fuzzers for the doors issue 21 found open (file system, output and cost), beyond validate and the reporters:

- file system: random entries where ``verify --nodes/--pods`` reads its dump, where the pre-commit hook finds a
  policy repo, where the Action writes its SARIF and where the Argo CD plugin looks for policies (regular files,
  directories, symlinks inside and out of the repository, dangling links, FIFOs, sockets, device links, ``.git`` and
  ``.github``). For every example: the run ends (nothing blocks), no traceback, no byte of the secret outside the
  repository printed, nothing outside (or in ``.git``) changed, and a refusal is one line;
- output: the plugin's log, for any bytes in any parameter, is printable ASCII, one line per message;
- cost: random families of policies that cannot overlap (each told apart by its own key, by In values, by
  Exists/DoesNotExist codes or by Gt/Lt ranges, decorated with shared requirements): AL103 finds nothing, and the
  search's work stays within a multiple of n log n.

Each file-system example is one or a few subprocesses: examples per run are small (more with ALLOCATABLE_FUZZ=deep).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples
from support.hardening import SECRET, cli, good_repo, pool
from support.overlap import loaded_policies
from support.round2 import action_step, git, init_repo, plugin_generate, tree_listing

pytestmark = pytest.mark.slow

REPO_ROOT = Path(__file__).resolve().parents[2]
NODE = (REPO_ROOT / "tests/real-nodes/eks/mng-al2-t3-medium-1-30.yaml").read_text()
KINDS = ("file", "dir", "link-in", "link-out", "link-dir-out", "dangling", "fifo", "socket", "dev-zero", "chain-out")
REFUSED = {"link-out", "link-dir-out", "fifo", "socket", "dev-zero", "chain-out", "dir"}


def fuzz(n: int) -> settings:
    return settings(max_examples=examples(n), deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _workspace() -> tuple[Path, Path, Path, list[socket.socket]]:
    top = Path(tempfile.mkdtemp(prefix="allocatable-doors-"))
    top.chmod(0o755)
    outside = top / "outside"
    outside.mkdir()
    (outside / "secret.yaml").write_text(pool(name=SECRET))
    (outside / "nodes.json").write_text(json.dumps({"apiVersion": "v1", "kind": SECRET}))
    repo = init_repo(top / "repo")
    return top, repo, outside, []


def _plant(repo: Path, outside: Path, rel: str, kind: str, sockets: list[socket.socket], content: str) -> None:
    """Put an entry of ``kind`` at ``repo/rel`` (parents created as plain directories)."""
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "file":
        path.write_text(content)
    elif kind == "dir":
        path.mkdir()
    elif kind == "link-in":
        (repo / f"target-{path.name}").write_text(content)
        path.symlink_to(repo / f"target-{path.name}")
    elif kind == "link-out":
        path.symlink_to(outside / "nodes.json")
    elif kind == "link-dir-out":  # the directory on the way leads out: rel's parent is the link
        if path.parent != repo:
            path.parent.rmdir()
            path.parent.symlink_to(outside)
        else:
            path.symlink_to(outside)
    elif kind == "dangling":
        path.symlink_to(outside / "nowhere")
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "socket":
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        sockets.append(s)
    elif kind == "dev-zero":
        path.symlink_to("/dev/zero")
    elif kind == "chain-out":
        (repo / f"hop-{path.name}").symlink_to(outside / "nodes.json")
        path.symlink_to(repo / f"hop-{path.name}")


def _clean(top: Path, sockets: list[socket.socket]) -> None:
    for s in sockets:
        s.close()
    shutil.rmtree(top, ignore_errors=True)


def _assert_safe(res: subprocess.CompletedProcess[str], outside: Path, before: list[str]) -> None:
    both = res.stdout + res.stderr
    assert "Traceback" not in both and "internal error" not in both, both
    assert SECRET not in both
    assert tree_listing(outside) == before


@fuzz(40)
@given(kind=st.sampled_from(KINDS), option=st.sampled_from(["--nodes", "--pods"]), nested=st.booleans())
def test_verify_dumps_from_a_hostile_tree(kind: str, option: str, nested: bool) -> None:
    top, repo, outside, sockets = _workspace()
    try:
        (repo / "node.yaml").write_text(NODE)
        rel = "dumps/nodes.json" if nested or kind == "link-dir-out" else "nodes.json"
        content = NODE if option == "--nodes" else json.dumps({"apiVersion": "v1", "kind": "List", "items": []})
        _plant(repo, outside, rel, kind, sockets, content)
        before = tree_listing(outside)
        extra = ["--nodes=node.yaml"] if option == "--pods" else []
        res = cli("verify", *extra, f"{option}={rel}", "policies", cwd=repo, timeout=60)
        _assert_safe(res, outside, before)
        if kind in REFUSED or kind == "dangling":
            assert res.returncode == 2 and len(res.stderr.strip().splitlines()) == 1, res.stderr
        else:
            assert res.returncode in (0, 1), res.stdout + res.stderr
    finally:
        _clean(top, sockets)


@fuzz(30)
@given(
    kind=st.sampled_from(["dir", "link-in", "link-dir-out", "dangling"]),
    check=st.sampled_from(["validate", "lint", "render-check"]),
    with_file=st.booleans(),
)
def test_the_hook_on_a_hostile_policy_directory(kind: str, check: str, with_file: bool) -> None:
    top = Path(tempfile.mkdtemp(prefix="allocatable-doors-"))
    try:
        top.chmod(0o755)
        repo = top / "repo"
        repo.mkdir()
        git(repo, "init", "-q")
        outside = top / "outside"
        good_repo(outside)
        (outside / "pools" / "secret.yaml").write_text(pool(name=SECRET))
        if kind == "dir":
            good_repo(repo / "policies")
        elif kind == "link-in":
            good_repo(repo / "real-policies")
            (repo / "policies").symlink_to("real-policies")
        elif kind == "link-dir-out":
            (repo / "policies").symlink_to(outside)
        else:
            (repo / "policies").symlink_to(top / "nowhere")
        before = tree_listing(outside)
        args = ["policies/pools/web.yaml"] if with_file else []
        res = cli("hook", check, *args, cwd=repo, timeout=120)
        _assert_safe(res, outside, before)
        if kind == "link-dir-out":
            assert res.returncode == 2 and "leads outside the repository" in res.stderr, res.stderr
    finally:
        shutil.rmtree(top, ignore_errors=True)


SARIF_PARTS = st.lists(
    st.sampled_from(["reports", "out", ".github", ".git", "linked", "linked-out", "fifo.sarif", "x.sarif"]),
    min_size=1,
    max_size=3,
)


def _refused(ws: Path, parts: list[str]) -> bool:
    """What the safe-path layer must refuse: .git or .github anywhere, a symlink or non-directory on the way, a
    symlink or anything but a regular file at the end."""
    if any(p.casefold() in (".git", ".github") for p in parts):
        return True
    for k in range(1, len(parts)):
        here = ws.joinpath(*parts[:k])
        if here.is_symlink() or (here.exists() and not here.is_dir()):
            return True
    last = ws.joinpath(*parts)
    return last.is_symlink() or (last.exists() and not last.is_file())


@fuzz(30)
@given(parts=SARIF_PARTS)
def test_the_actions_sarif_destination_in_a_hostile_tree(parts: list[str]) -> None:
    top = Path(tempfile.mkdtemp(prefix="allocatable-doors-"))
    try:
        top.chmod(0o755)
        ws = init_repo(top / "ws")
        outside = top / "outside"
        outside.mkdir()
        (outside / "keep.txt").write_text("precious\n")
        (ws / "linked").symlink_to(ws / "policies")
        (ws / "linked-out").symlink_to(outside)
        (ws / ".github").mkdir()
        os.mkfifo(ws / "fifo.sarif")
        git_before = tree_listing(ws / ".git")
        before = tree_listing(outside)
        dest = "/".join(parts)
        path_refused = _refused(ws, parts)
        proc, outputs = action_step(ws, top, "sarif", INPUT_PATH="policies", INPUT_SARIF_FILE=dest)
        assert "Traceback" not in proc.stdout + proc.stderr
        assert tree_listing(outside) == before and (outside / "keep.txt").read_text() == "precious\n"
        assert tree_listing(ws / ".git") == git_before
        written = outputs.get("sarif-file", "")
        if path_refused:
            assert not written and "::error title=allocatable::" in proc.stdout, proc.stdout + proc.stderr
        else:
            assert written == dest and (ws / dest).is_file() and not (ws / dest).is_symlink(), proc.stdout
            json.loads((ws / dest).read_text())
    finally:
        shutil.rmtree(top, ignore_errors=True)


HOSTILE_BYTES = st.lists(
    st.sampled_from(
        ["a", "-", "/", ".", " ", "\x1b", "\u202e", "\u2066", "\u200e", "\n", "\t", "é", "*", "$(id)", "`x`"]
    ),
    max_size=8,
).map("".join)


@fuzz(25)
@given(path=HOSTILE_BYTES, targets=HOSTILE_BYTES, name=HOSTILE_BYTES)
def test_the_plugins_log_is_printable_ascii_whatever_the_parameters(path: str, targets: str, name: str) -> None:
    top = Path(tempfile.mkdtemp(prefix="allocatable-doors-"))
    try:
        app = top / "app"
        good_repo(app / "policies")
        env = {"ARGOCD_ENV_TARGETS": targets, "ARGOCD_APP_NAME": name}
        if path:
            env["ARGOCD_ENV_POLICY_PATH"] = path
        res = plugin_generate(app, **env)
        assert "Traceback" not in res.stderr
        for line in res.stderr.splitlines():
            if line.startswith("allocatable-cmp: "):
                assert line.isascii() and line.isprintable(), repr(line)
        assert res.returncode in (0, 2), res.stderr
    finally:
        shutil.rmtree(top, ignore_errors=True)


# --- cost -------------------------------------------------------------------------------------------------------


def _family(kind: str, size: int, family: int, decorations: int) -> list[list[list[dict[str, Any]]]]:
    """``size`` selectors no two of which overlap, on keys of their own family."""
    key = f"f{family}"
    common = [
        {"key": f"{key}-common-{d}", "operator": op}
        for d, op in zip(range(decorations), ["Exists", "Exists", "DoesNotExist"], strict=False)
    ]
    out = []
    for i in range(size):
        if kind == "values":
            own = [{"key": f"{key}-group", "operator": "In", "values": [f"g{i}", f"h{i}"]}]
        elif kind == "codes":
            own = [
                {"key": f"{key}-bit-{b}", "operator": "Exists" if i >> b & 1 else "DoesNotExist"}
                for b in range(max(1, (size - 1).bit_length()))
            ]
        else:
            own = [
                {"key": f"{key}-slot", "operator": "Gt", "values": [str(10 * i)]},
                {"key": f"{key}-slot", "operator": "Lt", "values": [str(10 * i + 11)]},
            ]
        out.append([[*own, *common]])
    return out


@fuzz(30)
@given(
    families=st.lists(
        st.tuples(st.sampled_from(["values", "codes", "ranges"]), st.integers(1, 300), st.integers(0, 3)),
        min_size=1,
        max_size=4,
    ),
    seed=st.randoms(use_true_random=False),
)
def test_policies_that_cannot_overlap_cost_near_linear_work(families: list[tuple[str, int, int]], seed: Any) -> None:
    import renderer.lint.selectorchecks as sc
    from renderer.lint.overlapsearch import SearchStats

    selectors = [s for f, (kind, size, deco) in enumerate(families) for s in _family(kind, size, f, deco)]
    seed.shuffle(selectors)
    n = len(selectors)
    stats = SearchStats()
    assert list(sc.overlapping_pairs(loaded_policies(selectors), set(), stats)) == []  # type: ignore[arg-type]
    assert stats.candidates == 0
    assert stats.work <= 80 * n * max(1.0, math.log2(n)) + 200, (n, stats)
    assert stats.checked <= 8 * n + 50, (n, stats)
