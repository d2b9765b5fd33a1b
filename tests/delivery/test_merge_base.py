"""``--base REF`` reads the merge-base of REF and the head, as ``git diff REF...HEAD`` compares (issue 23).

Every repo here is a real git repository built in a temporary directory: a branch point B, ``main`` moved on after
it, and a ``feature`` branch with the change under review. The figures are worked by hand beside each assertion from
the policies in ``delivery_support``: a pool of 8 cores whose ReservationPolicy reserves 100m (systemReserved) +
100m (kubeReserved) of cpu, so 8 − 0.1 − 0.1 = 7.8 allocatable cores per node (hard eviction takes no cpu); its
CommitClass at 150% gives 7.8 × 1.5 = 11.7 committed cores per node, at 200% 7.8 × 2 = 15.6, at 300% 23.4.

Which commit each spelling reads follows git's own ``git diff`` (git-diff(1): ``git diff <commit>..<commit>`` "is
synonymous to" ``git diff <commit> <commit>``; "git diff A...B is equivalent to git diff $(git merge-base A B) B"):
``REF`` and ``REF...`` the merge-base, ``REF..`` and ``--base-tip`` the tip.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from delivery_support import SETTINGS, commit_all, commit_class, git, init_repo, pool, reservation

from conftest import CliResult, run_cli
from support import factory
from support.factory import write_repo


def _moved_main(root: Path) -> dict[str, str]:
    """The issue's example. B: pool general (3 nodes), class burst 150%. main, after B: the pool grows to 9 nodes.
    feature, from B: burst raised to 200%. Checked out: feature. Returns the commits by name."""
    repo = init_repo(root)
    write_repo(
        repo,
        {
            "policies/.allocatable.yaml": SETTINGS,
            "policies/pools.yaml": pool("general", count=3),
            "policies/classes.yaml": commit_class("burst", percent=150),
            "policies/reservations.yaml": reservation(),
        },
    )
    b = commit_all(repo, "branch point")
    git(repo, "checkout", "-q", "-b", "feature")
    write_repo(repo, {"policies/classes.yaml": commit_class("burst", percent=200)})
    f = commit_all(repo, "raise burst to 200%")
    git(repo, "checkout", "-q", "main")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=9)})
    m = commit_all(repo, "main: general grows to 9 nodes")
    git(repo, "checkout", "-q", "feature")
    return {"B": b, "F": f, "M": m}


def _json(res: CliResult) -> dict[str, Any]:
    assert res.exit_code == 0, res.stderr
    data: dict[str, Any] = json.loads(res.stdout)
    return data


def _general(data: dict[str, Any]) -> dict[str, Any]:
    (general,) = [p for p in data["pools"] if p["name"] == "general"]
    return general


def _one_line_error(res: CliResult) -> str:
    assert res.exit_code == 2, (res.stdout, res.stderr)
    assert res.stdout == ""
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("allocatable: error: ") and "Traceback" not in res.stderr, lines
    return lines[0]


def test_diff_shows_only_the_change_of_the_pull_request(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    c = _moved_main(repo)
    data = _json(run_cli("diff", "--base", "main", "-o", "json", cwd=repo))
    assert data["base"] == {"ref": "main", "commit": c["B"], "tip": c["M"], "mergeBase": True, "mergeBaseWith": "HEAD"}
    general = _general(data)
    # The pool's count did not change on the branch: 3 → 3; only the class did, 11.7 → 15.6 cores per node.
    assert general["count"] == {"before": 3, "after": 3}
    assert general["committed"]["cpu"] == {
        "before": "11700m",
        "after": "15600m",
        "delta": "3900m",
        "deltaPercent": "33.3",
    }
    # cluster: 3 × 11.7 = 35.1 → 3 × 15.6 = 46.8, +11.7 (+33.3%)
    assert general["cluster"]["cpu"] == {
        "before": "35100m",
        "after": "46800m",
        "delta": "11700m",
        "deltaPercent": "33.3",
    }
    assert general["reasons"] == ["commit percent cpu 150% → 200%"]
    assert data["objects"] == {"added": [], "removed": [], "changed": ["CommitClass/burst"]}
    # REF... is the same commit (git diff main... == git diff main...HEAD)
    assert _json(run_cli("diff", "--base", "main...", "-o", "json", cwd=repo)) == data


@pytest.mark.parametrize("args", [["--base", "main.."], ["--base", "main", "--base-tip"], ["--base", "main..HEAD"]])
def test_the_tip_when_asked_for_blames_the_change_for_main(tmp_path: Path, args: list[str]) -> None:
    repo = tmp_path / "repo"
    c = _moved_main(repo)
    data = _json(run_cli("diff", *args, "-o", "json", cwd=repo))
    assert data["base"] == {"ref": "main", "commit": c["M"], "tip": c["M"], "mergeBase": False, "mergeBaseWith": None}
    general = _general(data)
    # What the issue reported: main's 9 nodes at 11.7 = 105.3 → 3 × 15.6 = 46.8, "cpu −58.5, node count 9 → 3".
    assert general["count"] == {"before": 9, "after": 3}
    assert general["cluster"]["cpu"]["delta"] == "-58500m"
    assert general["reasons"] == ["node count 9 → 3", "commit percent cpu 150% → 200%"]


def test_every_format_says_which_commit(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    c = _moved_main(repo)
    b, m = c["B"][:12], c["M"][:12]
    said = f"main at its merge-base with HEAD, {b} (main is at {m})"
    text = run_cli("diff", "--base", "main", cwd=repo)
    first, second = text.stdout.splitlines()[:2]
    assert first.startswith(
        f"diff main (merge-base {b}) → working tree: 1 of 1 pool changed; cluster committed allocatable cpu +11.7 "
        "(+33.3%) · lint: "
    )
    assert second == f"base: {said}"
    md = run_cli("diff", "--base", "main", "-o", "markdown", cwd=repo).stdout.splitlines()
    assert md[1] == f"### Capacity diff: `main (merge-base {b})` → working tree"
    assert md[3] == f"Compared with {said}."
    tip = run_cli("diff", "--base", "main", "--base-tip", cwd=repo).stdout.splitlines()
    assert tip[:2] == [tip[0], f"base: the tip of main, {m} (--base-tip)"] and tip[0].startswith(f"diff main ({m})")
    # lint: stderr before the summary; JSON; SARIF's run property bag; a notice among the annotations
    lint = run_cli("lint", "policies", "--base", "main", cwd=repo)
    assert lint.exit_code == 0, lint.stderr
    assert lint.stderr.splitlines()[0] == f"lint: compared with {said}"
    doc = _json(run_cli("lint", "policies", "--base", "main", "-o", "json", cwd=repo))
    assert doc["base"] == {"ref": "main", "commit": c["B"], "tip": c["M"], "mergeBase": True, "mergeBaseWith": "HEAD"}
    sarif = _json(run_cli("lint", "policies", "--base", "main..", "-o", "sarif", cwd=repo))
    assert sarif["runs"][0]["properties"]["base"]["commit"] == c["M"]
    github = run_cli("lint", "policies", "--base", "main", "-o", "github", cwd=repo).stdout
    assert github.splitlines()[0] == f"::notice title=allocatable --base::compared with {said}"
    # without --base nothing is said
    assert "base" not in _json(run_cli("lint", "policies", "-o", "json", cwd=repo))


def test_lint_base_does_not_blame_the_branch_for_main(tmp_path: Path) -> None:
    """main raises burst to 300% after the branch point; the branch leaves it at 150%. Against the tip, AL210 would
    say the branch lowers cpu from 300% to 150%; against the merge-base nothing went down."""
    repo = init_repo(tmp_path / "repo")
    files = {
        "policies/.allocatable.yaml": SETTINGS,
        "policies/pools.yaml": pool("general"),
        "policies/classes.yaml": commit_class("burst", percent=150),
        "policies/reservations.yaml": reservation(),
    }
    write_repo(repo, files)
    commit_all(repo, "branch point")
    git(repo, "checkout", "-q", "-b", "feature")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=4)})
    commit_all(repo, "one more node")
    git(repo, "checkout", "-q", "main")
    write_repo(repo, {"policies/classes.yaml": commit_class("burst", percent=300)})
    commit_all(repo, "main: burst 300%")
    git(repo, "checkout", "-q", "feature")

    def al210(*base: str) -> list[str]:
        doc = json.loads(run_cli("lint", "policies", *base, "-o", "json", cwd=repo).stdout)
        return [f["message"] for f in doc["findings"] if f["code"] == "AL210"]

    assert al210("--base", "main") == []
    assert al210("--base", "main...") == []
    (tip,) = al210("--base", "main..")
    assert "cpu commit lowered from 300% (at main) to 150%" in tip
    assert al210("--base", "main", "--base-tip") == [tip]
    # The pre-commit hook passes --base through to lint: the same commits.
    hook = run_cli("hook", "lint", "--arg=--base=main", "policies/pools.yaml", cwd=repo)
    assert hook.exit_code == 0 and "[AL210]" not in hook.stdout, hook.stdout
    assert "lint: compared with main at its merge-base with HEAD, " in hook.stderr
    hook_tip = run_cli("hook", "lint", "--arg=--base=main", "--arg=--base-tip", "policies/pools.yaml", cwd=repo)
    assert "cpu commit lowered from 300% (at main) to 150%" in hook_tip.stdout
    assert "lint: compared with the tip of main, " in hook_tip.stderr


def test_head_revision_of_diff(tmp_path: Path) -> None:
    """From a checkout of main, the head is named: ``--head feature`` or ``main...feature``; the merge-base is
    taken with that head (B), not with main's own HEAD (which would be main's tip)."""
    repo = tmp_path / "repo"
    c = _moved_main(repo)
    git(repo, "checkout", "-q", "main")
    for args in (["--base", "main", "--head", "feature"], ["--base", "main...feature"]):
        data = _json(run_cli("diff", *args, "-o", "json", cwd=repo))
        assert data["base"]["commit"] == c["B"] and data["base"]["mergeBaseWith"] == "feature"
        assert data["head"] == {"ref": "feature", "commit": c["F"], "workingTree": False}
        assert _general(data)["count"] == {"before": 3, "after": 3}
    tips = _json(run_cli("diff", "--base", "main..feature", "-o", "json", cwd=repo))
    assert tips["base"]["commit"] == c["M"] and tips["head"]["commit"] == c["F"]
    assert _general(tips)["count"] == {"before": 9, "after": 3}


@pytest.mark.parametrize(
    ("command", "args", "message"),
    [
        (["diff"], ["--base", "main...", "--base-tip"], "--base-tip and main... ask for different commits"),
        (["diff"], ["--base", "main...feature", "--head", "HEAD"], "name two different heads"),
        (["diff"], ["--base", "...main"], "the base before the dots"),
        (["diff"], ["--base", "a..b..c"], "the base before the dots"),
        (["lint", "policies"], ["--base", "main...feature"], "this command compares the work tree with the base"),
        (["lint", "policies"], ["--base-tip"], "--base-tip goes with --base"),
        (["verify", "policies"], ["--base-tip"], "--base-tip goes with --base"),
        (["lint", "policies"], ["--base=--upload-pack=touch x"], "it may not start with"),
        (["diff"], ["--base=-x"], "it may not start with"),
        (["diff"], ["--base", "main..--output=x"], "it may not start with"),
        (["lint", "policies"], ["--base", "main\x1b[31m"], "is not a git revision"),
        (["lint", "policies"], ["--base", "main\nmain"], "is not a git revision"),
        (["diff"], ["--base", "main", "--head=-p"], "it may not start with"),
    ],
)
def test_spellings_and_hostile_refs_are_refused(
    tmp_path: Path, command: list[str], args: list[str], message: str
) -> None:
    repo = tmp_path / "repo"
    _moved_main(repo)
    line = _one_line_error(run_cli(*command, *args, cwd=repo))
    assert message in line
    assert not (repo / "x").exists() and "\x1b" not in line


def test_shallow_clone_without_the_merge_base(tmp_path: Path) -> None:
    """actions/checkout's depth 1 plus the base's tip fetched with depth 1: neither side reaches B."""
    upstream = tmp_path / "upstream"
    c = _moved_main(upstream)
    ws = tmp_path / "ws"
    git(tmp_path, "clone", "-q", "--depth=1", "--branch", "feature", f"file://{upstream}", str(ws))
    git(ws, "fetch", "-q", "--no-tags", "--depth=1", "origin", "+refs/heads/main:refs/remotes/origin/main")
    # (verify resolves the base before it reads any snapshot: the missing one here is never opened)
    for command in (["diff"], ["lint", "policies"], ["verify", "policies", "--nodes", "missing.json"]):
        line = _one_line_error(run_cli(*command, "--base", "origin/main", cwd=ws))
        assert line.startswith(
            f"allocatable: error: no merge-base of origin/main ({c['M'][:12]}) and HEAD ({c['F'][:12]}) in this "
            "shallow clone: the history that joins them was not fetched; fetch more history (git fetch --unshallow, "
            f"or git fetch --deepen=100 origin main {c['F']} until it is found"
        ), line
    # The tip is there: asking for it works in the shallow clone (and says it is the tip).
    tip = _json(run_cli("diff", "--base", "origin/main", "--base-tip", "-o", "json", cwd=ws))
    assert tip["base"]["commit"] == c["M"] and not tip["base"]["mergeBase"]
    # Doing what the message says finds B, and the same figures as a full clone.
    git(ws, "fetch", "-q", "--no-tags", "--deepen=100", "origin", "main", c["F"])
    data = _json(run_cli("diff", "--base", "origin/main", "-o", "json", cwd=ws))
    assert data["base"]["commit"] == c["B"]
    full = _json(run_cli("diff", "--base", "main", "-o", "json", cwd=upstream))
    assert data["pools"] == full["pools"] and data["summary"] == full["summary"]


def test_shallow_clone_cut_above_the_merge_base(tmp_path: Path) -> None:
    """A shallow history can hold an older common ancestor while the real merge-base is cut off: feature merged
    a side branch that starts at c1, and its clone is deep enough to reach c1 through that side but not B through
    its own first parents. ``git merge-base`` answers c1 there; the true merge-base is B (c3)."""
    repo = init_repo(tmp_path / "upstream")
    write_repo(
        repo,
        {
            "policies/.allocatable.yaml": SETTINGS,
            "policies/pools.yaml": pool("general", count=3),
            "policies/reservations.yaml": reservation(),
        },
    )
    c1 = commit_all(repo, "c1")
    git(repo, "checkout", "-q", "-b", "side")
    write_repo(repo, {"side.txt": "side\n"})
    commit_all(repo, "x1 (parent c1)")
    git(repo, "checkout", "-q", "main")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=4)})
    commit_all(repo, "c2")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=5)})
    b = commit_all(repo, "c3: the branch point")
    git(repo, "checkout", "-q", "-b", "feature")
    for n in (1, 2, 3):
        write_repo(repo, {f"f{n}.txt": f"{n}\n"})
        commit_all(repo, f"f{n}")
    git(repo, "merge", "-q", "--no-edit", "side")
    git(repo, "checkout", "-q", "main")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=9)})
    commit_all(repo, "m1")
    ws = tmp_path / "ws"
    # depth 3 from the merge: it, f3 and x1, f2 and c1 — f2 is cut (its parent f1 is not fetched), c1 is reached.
    git(tmp_path, "clone", "-q", "--depth=3", "--branch", "feature", f"file://{repo}", str(ws))
    git(ws, "fetch", "-q", "--no-tags", "origin", "+refs/heads/main:refs/remotes/origin/main")
    assert git(ws, "merge-base", "origin/main", "HEAD").strip() == c1  # git's answer in the cut history
    assert git(repo, "merge-base", "main", "feature").strip() == b  # the real one
    line = _one_line_error(run_cli("diff", "--base", "origin/main", cwd=ws))
    assert (
        "the merge-base of origin/main" in line
        and f"cannot be told in this shallow clone: the history above {c1[:12]} is cut" in line
    )


def test_unrelated_histories_have_no_merge_base(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _moved_main(repo)
    git(repo, "checkout", "-q", "--orphan", "other")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=1)})
    commit_all(repo, "a history of its own")
    for command in (["diff"], ["lint", "policies"]):
        line = _one_line_error(run_cli(*command, "--base", "main", cwd=repo))
        assert (
            "have no common history (no merge-base): they are unrelated; compare with the tip with --base-tip" in line
        )
    assert _json(run_cli("diff", "--base", "main..", "-o", "json", cwd=repo))["base"]["mergeBase"] is False


def test_head_without_a_commit(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _moved_main(repo)
    git(repo, "checkout", "-q", "--orphan", "fresh")
    line = _one_line_error(run_cli("lint", "policies", "--base", "main", cwd=repo))
    assert "is no commit yet, so it has no merge-base with main; commit first, or compare with the tip" in line
    assert run_cli("lint", "policies", "--base", "main", "--base-tip", cwd=repo).exit_code == 0


def test_verify_pods_against_the_merge_base(tmp_path: Path) -> None:
    """verify --pods --base: which nodes the change pushes over is judged against the merge-base's allocatable."""
    repo = init_repo(tmp_path / "repo")
    node = factory.node(
        "n1",
        capacity={"cpu": "8", "memory": "32Gi", "ephemeral-storage": "100Gi", "pods": "110"},
        allocatable={"cpu": "7800m", "memory": "32068Mi", "ephemeral-storage": "92160Mi", "pods": "110"},
    )
    pod = factory.pod("web", namespace="shop", node_name="n1", requests={"cpu": "10"})
    write_repo(
        repo,
        {
            "policies/.allocatable.yaml": SETTINGS,
            "policies/pools.yaml": pool("general"),
            "policies/classes.yaml": commit_class("burst", percent=150),
            "policies/reservations.yaml": reservation(),
            "snap/nodes.json": factory.item_list(node),
            "snap/pods.json": factory.item_list(pod),
        },
    )
    b = commit_all(repo, "branch point: 150%")
    git(repo, "checkout", "-q", "-b", "feature")
    write_repo(repo, {"policies/classes.yaml": commit_class("burst", percent=120)})
    commit_all(repo, "feature: 120%")
    git(repo, "checkout", "-q", "main")
    write_repo(repo, {"policies/classes.yaml": commit_class("burst", percent=110)})
    m = commit_all(repo, "main: 110%")
    git(repo, "checkout", "-q", "feature")
    # The pod asks for 10 cores. B: 7.8 × 150% = 11.7 ≥ 10, fits; feature: 7.8 × 120% = 9.36 < 10, does not fit;
    # main's tip: 7.8 × 110% = 8.58 < 10, does not fit either. Against the merge-base the change pushes the node
    # over; against main's tip it was over already.
    args = ["verify", "policies", "--nodes", "snap/nodes.json", "--pods", "snap/pods.json"]
    merged = run_cli(*args, "--base", "main", cwd=repo)
    assert merged.exit_code == 1
    assert "does not fit (cpu); fits at the base revision: this change pushes it over" in merged.stdout
    assert (
        merged.stdout.splitlines()[0]
        == f"pods compared with main at its merge-base with HEAD, {b[:12]} (main is at {m[:12]})"
    )
    assert f"(1 pushed over by the change against main at its merge-base with HEAD, {b[:12]}" in merged.stderr
    doc = json.loads(run_cli(*args, "--base", "main", "-o", "json", cwd=repo).stdout)
    assert doc["base"]["commit"] == b and doc["base"]["mergeBase"] is True
    (fit,) = doc["pods"]
    assert fit["fits"] is False and fit["base"]["fits"] is True
    tip = run_cli(*args, "--base", "main..", cwd=repo)
    assert "pushes it over" not in tip.stdout and "(0 pushed over by the change against the tip of main" in tip.stderr
    md = run_cli(*args, "--base", "main", "-o", "markdown", cwd=repo).stdout
    assert f"Compared with main at its merge-base with HEAD, {b[:12]} (main is at {m[:12]})." in md
