"""Two revisions, one reading per unchanged file (``renderer.validation.reuse``).

``diff --base`` and ``lint --base`` read both revisions; a file whose bytes and path are the same in both, and
that gave no finding, is parsed and validated once. Each scenario runs the command twice in process, with the
memo and with it switched off (every lookup misses: every file read twice, as before the memo), and the outputs
must be byte-identical; the number of files not read again is counted by hand from the scenario.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from delivery_support import commit_all, commit_class, policy_repo, pool

from conftest import run_cli
from renderer.validation import reuse
from support.factory import write_repo


@pytest.fixture
def hits(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The display paths of the files the memo gave back, in order."""
    found: list[str] = []
    real_get = reuse.FileMemo.get

    def get(self: reuse.FileMemo, key: tuple[str, object, bytes]) -> object:
        got = real_get(self, key)  # type: ignore[arg-type]
        if got is not None:
            found.append(key[0])
        return got

    monkeypatch.setattr(reuse.FileMemo, "get", get)
    yield found


def run_both(repo: Path, monkeypatch: pytest.MonkeyPatch, *args: str) -> tuple[int, str, str]:
    """The command with the memo, then without; both must print the same bytes and exit the same."""
    first = run_cli(*args, cwd=repo)
    with monkeypatch.context() as m:
        m.setattr(reuse.FileMemo, "get", lambda self, key: None)
        second = run_cli(*args, cwd=repo)
    assert (first.exit_code, first.stdout, first.stderr) == (second.exit_code, second.stdout, second.stderr)
    return first.exit_code, first.stdout, first.stderr


def test_unchanged_files_are_read_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hits: list[str]) -> None:
    # policy_repo commits .allocatable.yaml, pools.yaml, classes.yaml and reservations.yaml; only classes.yaml
    # changes. The settings file is read on its own path (never through the memo), so two files come back.
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/classes.yaml": commit_class("burst", percent=200)})
    code, out, _ = run_both(repo, monkeypatch, "diff", "--base", "main", "-o", "json")
    assert code == 0 and '"status": "changed"' in out
    assert hits == ["policies/pools.yaml", "policies/reservations.yaml"]


def test_a_name_taken_by_a_new_file_is_a_duplicate_in_the_unchanged_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hits: list[str]
) -> None:
    # policies/a-pools.yaml sorts before policies/pools.yaml: the unchanged file's pool "general" is registered
    # second, from the memo, and must still be refused as a duplicate (AL005) in the head revision.
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/a-pools.yaml": pool("general", count=7)})
    code, out, err = run_both(repo, monkeypatch, "diff", "--base", "main", "-o", "json")
    assert "AL005" in out + err and "policies/pools.yaml" in out + err
    assert "policies/pools.yaml" in hits
    code, out, err = run_both(repo, monkeypatch, "lint", "--base", "main", "-o", "json")
    assert code == 2 and "AL005" in out  # an invalid policy set is an input error


def test_a_file_with_findings_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hits: list[str]) -> None:
    # empty.yaml holds no documents (AL003) in both revisions: its finding belongs to each revision, so it is
    # never taken from the memo; pools.yaml and reservations.yaml are.
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/empty.yaml": "# nothing here\n"})
    commit_all(repo, "an empty file")
    write_repo(repo, {"policies/classes.yaml": commit_class("burst", percent=175)})
    run_both(repo, monkeypatch, "diff", "--base", "main", "-o", "json")
    assert "policies/empty.yaml" not in hits
    assert sorted(hits) == ["policies/pools.yaml", "policies/reservations.yaml"]


def test_a_moved_file_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hits: list[str]) -> None:
    # The key holds the path: findings and source references name the file, so a move is a new file.
    repo = policy_repo(tmp_path / "repo")
    moved = repo / "policies" / "sub"
    moved.mkdir()
    (repo / "policies" / "reservations.yaml").rename(moved / "reservations.yaml")
    code, _, _ = run_both(repo, monkeypatch, "diff", "--base", "main", "-o", "json")
    assert code == 0
    assert sorted(hits) == ["policies/classes.yaml", "policies/pools.yaml"]


def test_lint_base_reuses_the_work_trees_reading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hits: list[str]
) -> None:
    # lint --base reads the work tree first, then the base: the base's unchanged files come from the memo.
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=4)})
    code, _, _ = run_both(repo, monkeypatch, "lint", "--base", "main")
    assert code == 0
    assert sorted(hits) == ["policies/classes.yaml", "policies/reservations.yaml"]
