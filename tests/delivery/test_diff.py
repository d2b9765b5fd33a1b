"""``allocatable diff --base REF``: capacity per pool before → after, and new/fixed findings."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from delivery_support import (
    SETTINGS,
    commit_all,
    commit_class,
    git,
    greedy_class,
    init_repo,
    policy_repo,
    pool,
    reservation,
)

from conftest import run_cli
from renderer.capacity.diff import Change, compare_findings
from renderer.findings import Finding
from renderer.quantity import Quantity
from renderer.reporters.diff._common import MARKER, amount
from support.factory import write_repo, yaml_text

MEMORY_OVER_COMMIT = greedy_class(tier="batch", percent=120)


def diff_json(repo: Path, *args: str, base: str = "main") -> dict[str, Any]:
    r = run_cli("diff", "--base", base, *args, "-o", "json", cwd=repo)
    assert r.exit_code == 0, r.stderr
    assert r.stderr == ""
    data: dict[str, Any] = json.loads(r.stdout)
    return data


def pools_by_name(data: dict[str, Any]) -> dict[str, Any]:
    return {p["name"]: p for p in data["pools"]}


def test_count_and_percent_change_exact_numbers(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    # 8 cores − 100m system − 100m kube = 7.8 allocatable; 150% → 11.7, 200% → 15.6 per node.
    write_repo(
        repo,
        {"policies/pools.yaml": pool("general", count=5), "policies/classes.yaml": commit_class("burst", percent=200)},
    )
    data = diff_json(repo)
    assert data["version"] == 1
    main = git(repo, "rev-parse", "main").strip()  # main is HEAD's own branch: its merge-base with HEAD is its tip
    assert data["base"] == {"ref": "main", "commit": main, "tip": main, "mergeBase": True, "mergeBaseWith": "HEAD"}
    assert data["head"] == {"ref": None, "commit": None, "workingTree": True}
    general = pools_by_name(data)["general"]
    assert general["status"] == "changed"
    assert general["count"] == {"before": 3, "after": 5}
    assert general["percent"]["before"]["cpu"] == 150 and general["percent"]["after"]["cpu"] == 200
    assert general["committed"]["cpu"] == {
        "before": "11700m",
        "after": "15600m",
        "delta": "3900m",
        "deltaPercent": "33.3",
    }
    assert general["allocatable"]["cpu"]["before"] == general["allocatable"]["cpu"]["after"] == "7800m"
    # cluster: 3 × 11.7 = 35.1 → 5 × 15.6 = 78
    assert general["cluster"]["cpu"] == {"before": "35100m", "after": "78", "delta": "42900m", "deltaPercent": "122.2"}
    # memory per node unchanged (32Gi − 100Mi − 500Mi − 100Mi eviction), cluster × 5/3
    assert general["committed"]["memory"]["delta"] == "0"
    assert general["cluster"]["memory"]["deltaPercent"] == "66.7"
    assert general["reasons"] == ["node count 3 → 5", "commit percent cpu 150% → 200%"]
    totals = data["totals"]["committedAllocatable"]
    assert totals["cpu"] == general["cluster"]["cpu"]
    assert totals["pods"] == {"before": "330", "after": "550", "delta": "220", "deltaPercent": "66.7"}
    summary = data["summary"]
    assert (summary["poolsChanged"], summary["poolsAdded"], summary["poolsRemoved"]) == (1, 0, 0)
    assert summary["nodes"] == {"before": 3, "after": 5}
    assert data["objects"]["changed"] == ["CommitClass/burst", "NodePool/general"]


def test_added_and_removed_pools(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/pools.yaml": pool("bigger", cpu="16", count=2)})
    data = diff_json(repo)
    pools = pools_by_name(data)
    assert pools["bigger"]["status"] == "added"
    assert pools["bigger"]["committed"]["cpu"]["before"] is None
    assert pools["bigger"]["committed"]["cpu"]["after"] == "23700m"  # (16 − 0.2) × 150%
    assert pools["bigger"]["committed"]["cpu"]["deltaPercent"] is None
    assert pools["general"]["status"] == "removed"
    assert pools["general"]["cluster"]["cpu"] == {
        "before": "35100m",
        "after": None,
        "delta": "-35100m",
        "deltaPercent": None,
    }
    assert data["totals"]["committedAllocatable"]["cpu"]["after"] == "47400m"
    assert data["objects"]["added"] == ["NodePool/bigger"] and data["objects"]["removed"] == ["NodePool/general"]

    md = run_cli("diff", "--base", "main", "-o", "markdown", cwd=repo).stdout
    assert "| `bigger` *(added)* | — → 2 | — → 23.7 |" in md
    assert "| `general` *(removed)* | 3 → — | 11.7 → — |" in md


def test_new_and_fixed_findings(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/broken.yaml": yaml_text(pool("broken")).replace("count: 3", "count: lots")})
    commit_all(repo, "base has a validation error")
    (repo / "policies" / "broken.yaml").unlink()  # fixed in the work tree …
    write_repo(repo, {"policies/greedy.yaml": MEMORY_OVER_COMMIT, "policies/batch.yaml": pool("batch", tier="batch")})
    data = diff_json(repo)
    new = [(f["code"], f["object"], f["path"]) for f in data["findings"]["new"]]
    fixed = [(f["code"], f["path"], f["line"]) for f in data["findings"]["fixed"]]
    assert ("AL201", "CommitClass/greedy", "policies/greedy.yaml") in new  # … and a lint error added
    assert ("AL004", "policies/broken.yaml", 14) in fixed  # count: ---, apiVersion, ... capacity and 4 resources, count
    assert data["summary"]["newErrors"] >= 1
    assert data["summary"]["validationErrors"] == {"before": 1, "after": 0}
    text = run_cli("diff", "--base", "main", cwd=repo).stdout
    assert "new findings:" in text and "policies/greedy.yaml:13:14: error: memory over-committed" in text
    assert "fixed findings:" in text
    md = run_cli("diff", "--base", "main", "-o", "markdown", cwd=repo).stdout
    assert "<details open>\n<summary>New findings" in md  # new errors are shown unfolded
    # The base's invalid file held a pool: the figures say they leave it out.
    assert re.search(
        r"^> ⚠️ 1 validation error in main \(merge-base [0-9a-f]{12}\): objects that do not validate", md, re.M
    )
    assert "`AL201` `policies/greedy.yaml:13` (CommitClass/greedy)" in md


def test_finding_comparison_ignores_lines_and_counts_duplicates() -> None:
    def f(line: int, message: str = "m") -> Finding:
        return Finding("AL101", "error", message, "p.yaml", line, 1, object="CommitClass/a")

    new, fixed, unchanged = compare_findings([f(3)], [f(10), f(12), f(4, "other")])
    assert [(x.line, x.message) for x in new] == [(12, "m"), (4, "other")]
    assert fixed == [] and unchanged == 1
    new, fixed, unchanged = compare_findings([f(3), f(5)], [f(3)])
    assert new == [] and [x.line for x in fixed] == [5] and unchanged == 1


def test_no_change(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    r = run_cli("diff", "--base", "main", "-o", "markdown", cwd=repo)
    assert r.exit_code == 0
    assert "**no capacity change across 1 pool (3 nodes) · lint: no new findings**" in r.stdout
    assert "changed pools only" not in r.stdout and "<details>" not in r.stdout
    data = diff_json(repo)
    assert data["summary"]["capacityChanged"] is False
    assert [p["status"] for p in data["pools"]] == ["unchanged"]


def test_markdown_is_well_formed(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    write_repo(
        repo,
        {
            "policies/pools.yaml": [pool("general", count=4), pool("new", tier="batch")],
            "policies/greedy.yaml": MEMORY_OVER_COMMIT,
        },
    )
    md = run_cli("diff", "--base", "main", "-o", "markdown", cwd=repo).stdout
    lines = md.splitlines()
    assert lines[0] == MARKER
    assert re.fullmatch(r"### Capacity diff: `main \(merge-base [0-9a-f]{12}\)` → working tree", lines[1])
    assert re.fullmatch(r"Compared with main at its merge-base with HEAD, [0-9a-f]{12} \(the tip of it\)\.", lines[3])
    assert lines[5].startswith("**2 of 2 pools changed (1 added); cluster committed allocatable cpu +")
    assert md.count("<details") == md.count("</details>") >= 3
    # Every table has rows of the header's width; a blank line follows each <summary> (GitHub needs it).
    tables = re.findall(r"(?:^\|.*\|$\n?)+", md, flags=re.MULTILINE)
    assert len(tables) >= 4
    for table in tables:
        widths = {len(re.findall(r"(?<!\\)\|", row)) for row in table.splitlines()}
        assert len(widths) == 1, table
    for i, line in enumerate(lines):
        if line.startswith("<summary>"):
            assert lines[i + 1] == ""


def test_compare_two_revisions_with_head(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=6)})
    second = commit_all(repo, "scale out")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=100)})  # not part of --head
    data = diff_json(repo, "--head", "HEAD", base="HEAD~1")
    assert data["head"] == {"ref": "HEAD", "commit": second, "workingTree": False}
    assert pools_by_name(data)["general"]["count"] == {"before": 3, "after": 6}


def test_paths_settings_and_subdirectory(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write_repo(
        repo,
        {
            "team/policy/.allocatable.yaml": SETTINGS,
            "team/policy/p.yaml": pool("general"),
            "team/policy/r.yaml": reservation(),
        },
    )
    commit_all(repo)
    write_repo(repo, {"team/policy/p.yaml": pool("general", cpu="4")})
    r = run_cli("diff", "--base", "main", "policy", "-o", "json", cwd=repo / "team")
    assert r.exit_code == 0, r.stderr
    pools = pools_by_name(json.loads(r.stdout))
    assert pools["general"]["allocatable"]["cpu"] == {
        "before": "7800m",
        "after": "3800m",
        "delta": "-4",
        "deltaPercent": "-51.3",
    }
    assert pools["general"]["source"] == "policy/p.yaml"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--base", "no-such-branch"], 'unknown git revision "no-such-branch"'),
        (["--base", "main", "missing-dir"], "missing-dir: no such file or directory"),
        (["--base", "main", "--head", "nope"], 'unknown git revision "nope"'),
        ([], "the following arguments are required: --base"),
    ],
)
def test_usage_errors(tmp_path: Path, args: list[str], message: str) -> None:
    repo = policy_repo(tmp_path / "repo")
    r = run_cli("diff", *args, cwd=repo)
    assert r.exit_code == 2
    assert r.stdout == ""
    assert message in r.stderr and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_not_a_git_repository(tmp_path: Path) -> None:
    write_repo(tmp_path, {"policies/p.yaml": pool("general")})
    r = run_cli("diff", "--base", "main", cwd=tmp_path)
    assert r.exit_code == 2
    assert (
        r.stderr.strip()
        == "allocatable: error: policies is not inside a git repository; --base needs the policy repo in git"
    )


def test_amounts_are_readable() -> None:
    q = Quantity.parse
    assert amount(q("11685m"), "cpu") == "11.685"
    assert amount(q("32Gi"), "memory") == "32Gi"
    assert amount(q("31267292Ki"), "memory") == "29.82Gi"
    assert amount(q("-512Mi"), "memory") == "-512Mi"
    assert amount(q("100"), "memory") == "100"
    assert amount(q("110"), "pods") == "110"
    assert amount(None, "cpu") == "—"
    assert Change(q("1"), q("1")).changed is False
    assert Change(q("0"), q("1")).percent is None


@pytest.mark.parametrize("text", ["0", "-0", "1500m", "1.5", "1000m", "1", "32386524Ki", "58", "1e3", "100Gi"])
def test_a_number_that_does_not_move_reads_as_the_arithmetic_would_write_it(text: str) -> None:
    """Change.as_dict skips the arithmetic for equal numbers; its text is the arithmetic's (delta and percent)."""
    from renderer.quantity import Quantity

    before, after = Quantity.parse(text), Quantity.parse(text)
    change = Change(before, after)
    percent = change.percent
    assert change.as_dict() == {
        "before": str(before),
        "after": str(after),
        "delta": str(change.delta),
        "deltaPercent": None if percent is None else str(percent),
    }
