"""renderer.loading.git.load_revision: the policy repo at a git revision, without touching work tree or index."""

from __future__ import annotations

import dataclasses
import gc
import hashlib
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from delivery_support import SETTINGS, commit_all, commit_class, git, init_repo, policy_repo, pool

from conftest import chdir
from renderer.loading.files import UsageError
from renderer.loading.git import resolve_revision
from renderer.pipeline import load
from renderer.validation.revision import load_revision
from support.factory import write_repo, yaml_text


def _pool_counts(result: Any) -> dict[str, int]:
    return {p.name: p.count for p in result.policies.pools}


def _strings(obj: Any, seen: set[int] | None = None) -> list[str]:
    """Every string reachable from a LoadResult (dataclasses, containers, paths), to look for leaked temp paths."""
    seen = seen if seen is not None else set()
    if id(obj) in seen:
        return []
    seen.add(id(obj))
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, Path):
        return [obj.as_posix()]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for x in (k, v) for s in _strings(x, seen)]
    if isinstance(obj, (list, tuple, set)):
        return [s for x in obj for s in _strings(x, seen)]
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [s for f in dataclasses.fields(obj) for s in _strings(getattr(obj, f.name), seen)]
    return []


def test_reads_the_revision_not_the_work_tree(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=7), "policies/more.yaml": pool("extra", tier="x")})
    (repo / "policies" / "classes.yaml").unlink()
    with chdir(repo):
        base = load_revision([Path("policies")], "HEAD")
        head = load([Path("policies")])
    assert _pool_counts(base) == {"general": 3}
    assert _pool_counts(head) == {"general": 7, "extra": 3}
    assert [c.name for c in base.policies.commit_classes] == ["burst"]
    assert head.policies.commit_classes == []
    # Display paths are the work tree's, so findings and diffs of the two line up.
    assert [f.display for f in base.files] == [
        "policies/classes.yaml",
        "policies/pools.yaml",
        "policies/reservations.yaml",
    ]
    assert base.policies.pools[0].source.path == head.policies.pools[1].source.path == "policies/pools.yaml"
    # File-system paths point into the mirror, consistently (render relates abspaths to the root).
    mirror = base.mirrored.checkout.path
    assert base.settings_path is not None and base.settings_path.read_text() == SETTINGS.lstrip("\n")
    assert base.policies.root == mirror / repo.resolve().relative_to("/") / "policies"
    assert all(f.abspath.is_relative_to(base.policies.root) for f in base.files)
    assert base.ok and not base.findings
    assert base.revision.commit == git(repo, "rev-parse", "HEAD").strip()


def test_work_tree_and_index_are_untouched(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=9)})
    git(repo, "add", "policies/pools.yaml")  # staged
    write_repo(repo, {"policies/pools.yaml": pool("general", count=11)})  # and modified again
    index = repo / ".git" / "index"
    status = git(repo, "status", "--porcelain")  # (refreshes the index itself, so it comes first)
    before = (hashlib.sha256(index.read_bytes()).hexdigest(), index.stat().st_mtime_ns)
    worktree = (repo / "policies" / "pools.yaml").read_bytes()
    with chdir(repo):
        base = load_revision([Path("policies")], "HEAD")
    assert _pool_counts(base) == {"general": 3}
    after = (hashlib.sha256(index.read_bytes()).hexdigest(), index.stat().st_mtime_ns)
    assert after == before
    assert git(repo, "status", "--porcelain") == status == "MM policies/pools.yaml\n"
    assert (repo / "policies" / "pools.yaml").read_bytes() == worktree


def test_older_revisions_by_name_and_positions_come_from_the_revision(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    git(repo, "tag", "v1")
    # The next revision moves the pool down by four lines (three comments, one blank) and breaks a field: count is
    # line 14 of the pool as written (---, apiVersion, kind, metadata, name, spec, labels, tier, capacity and its
    # four resources, count), so line 18 here.
    bad = "# one\n# two\n# three\n\n" + yaml_text(pool("general")).replace("count: 3", "count: many")
    write_repo(repo, {"policies/pools.yaml": bad})
    commit_all(repo, "broken")
    write_repo(repo, {"policies/pools.yaml": pool("general", count=5)})  # the work tree is fine again
    with chdir(repo):
        broken = load_revision([Path("policies")], "main")
        tagged = load_revision([Path("policies")], "v1")
        by_sha = load_revision([Path("policies")], git(repo, "rev-parse", "HEAD~1").strip())
    assert _pool_counts(tagged) == _pool_counts(by_sha) == {"general": 3}
    findings = broken.finish(broken.findings)
    assert [(f.code, f.path, f.line) for f in findings] == [("AL004", "policies/pools.yaml", 18)]
    assert "count" in findings[0].message
    # The resolver reads the revision's text (its mirror), not the work tree's.
    (read,) = [f.abspath for f in broken.files if f.display == "policies/pools.yaml"]
    assert broken.mirrored is not None and broken.mirrored.checkout.path in read.parents
    assert read.read_text(encoding="utf-8").splitlines()[17] == "  count: many"


def test_path_missing_at_the_revision_is_an_empty_policy_set(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write_repo(repo, {"README.md": "hello\n"})
    commit_all(repo, "no policies yet")
    write_repo(repo, {"policies/.allocatable.yaml": SETTINGS, "policies/pools.yaml": pool("general")})
    with chdir(repo):
        base = load_revision([Path("policies")], "HEAD")
        one_file = load_revision([Path("policies/pools.yaml")], "HEAD")
    for result in (base, one_file):
        assert result.policies.object_count() == 0
        assert result.files == [] and result.findings == []


def test_file_arguments_and_settings_of_the_revision(tmp_path: Path) -> None:
    settings = SETTINGS + "commit:\n  underCommitScalesReserved: false\n"
    repo = policy_repo(
        tmp_path / "repo",
        {
            "policies/.allocatable.yaml": settings,
            "policies/pools.yaml": pool("general"),
            "policies/classes.yaml": commit_class("burst"),
        },
    )
    write_repo(repo, {"policies/.allocatable.yaml": SETTINGS, "policies/new.yaml": pool("new", tier="n")})
    with chdir(repo):
        base = load_revision([Path("policies/pools.yaml"), Path("policies/new.yaml")], "HEAD")
        head = load([Path("policies/pools.yaml"), Path("policies/new.yaml")])
    assert _pool_counts(base) == {"general": 3}
    assert base.policies.commit_classes == []  # only the named files
    assert base.policies.settings.commit.underCommitScalesReserved is False  # the revision's settings
    assert head.policies.settings.commit.underCommitScalesReserved is True


def test_display_paths_from_a_subdirectory_and_from_far_away(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    write_repo(repo, {"policies/pools.yaml": [pool("general"), pool("general")]})
    commit_all(repo, "duplicate")
    far = tmp_path / "a" / "b"
    far.mkdir(parents=True)
    for cwd, arg in ((repo / "policies", Path(".")), (far, repo / "policies"), (tmp_path, Path("repo/policies"))):
        with chdir(cwd):
            head = load([arg])
            base = load_revision([arg], "HEAD")
            checkout = base.mirrored.checkout.path.as_posix()
            assert [f.display for f in base.files] == [f.display for f in head.files]
            base_findings = [(f.path, f.line, f.message) for f in base.finish(base.findings)]
            head_findings = [(f.path, f.line, f.message) for f in head.finish(head.findings)]
            assert base_findings == head_findings and base_findings  # AL005, which names the file in its message
            # Only file-system paths (abspath, root, settings_path) point into the mirror; nothing shown does.
            shown = _strings([base.policies.commit_classes, base.policies.pools, base.policies.settings_source])
            shown += _strings([base.findings, [f.display for f in base.files]])
            assert shown and not [s for s in shown if checkout in s]


def test_symlinks_spaces_and_glob_characters_in_names(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write_repo(repo, {"pol [x]*/real pools.yaml": pool("general"), "pol [x]*/.allocatable.yaml": SETTINGS})
    os.symlink("real pools.yaml", repo / "pol [x]*" / "alias.yaml")
    os.symlink("/etc/hostname", repo / "pol [x]*" / "outside.yaml")
    commit_all(repo)
    for name in ("alias.yaml", "outside.yaml", "real pools.yaml"):
        (repo / "pol [x]*" / name).unlink()
    with chdir(repo):
        base = load_revision([Path("pol [x]*")], "HEAD")
    assert _pool_counts(base) == {"general": 3}  # the alias is the same file, read once
    codes = [(f.code, f.path) for f in base.findings]
    assert codes == [("AL006", "pol [x]*/outside.yaml")]


def test_mirror_is_removed_with_the_result(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    with chdir(repo):
        base = load_revision([Path("policies")], "HEAD")
    checkout = base.mirrored.checkout.path
    assert checkout.is_dir()
    resolver = base.resolver
    del base
    gc.collect()
    assert checkout.is_dir()  # the resolver still needs the files
    del resolver
    gc.collect()
    assert not checkout.exists()


def test_usage_errors(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    plain = tmp_path / "plain"
    write_repo(plain, {"policies/pools.yaml": pool("general")})
    with chdir(repo):
        with pytest.raises(UsageError, match=r'unknown git revision "nope"'):
            load_revision([Path("policies")], "nope")
        with pytest.raises(UsageError, match="is not a git revision"):
            load_revision([Path("policies")], "--output=/tmp/x")
        with pytest.raises(UsageError, match="outside the git repository"):
            load_revision([Path("policies"), plain / "policies"], "HEAD")
    with chdir(plain), pytest.raises(UsageError, match="not inside a git repository"):
        load_revision([Path("policies")], "HEAD")
    # A shallow clone without the base: the message says how to fetch it.
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{repo}", str(clone))
    commit_all(repo, "second")
    with chdir(clone), pytest.raises(UsageError, match="shallow"):
        load_revision([Path("policies")], "HEAD~1")


def test_resolve_revision_from_a_deleted_directory(tmp_path: Path) -> None:
    repo = policy_repo(tmp_path / "repo")
    rev = resolve_revision(repo / "gone" / "deeper", "main")
    assert rev.top == repo.resolve()
    assert rev.commit == git(repo, "rev-parse", "main").strip()
    assert rev.short == rev.commit[:12]


# The mirror's place (renderer.private_tree.memory_backed): many small files are cheaper in memory than on a disk, but
# only where that is the system's own shared directory, there is room, and the user has not chosen a TMPDIR.


def _shared_memory_usable() -> bool:
    try:
        st = os.stat("/dev/shm", follow_symlinks=False)
    except OSError:
        return False
    return st.st_uid == 0 and st.st_mode & 0o1777 == 0o1777 and os.access("/dev/shm", os.W_OK)


@pytest.mark.skipif(not _shared_memory_usable(), reason="no root-owned, sticky, writable /dev/shm here")
def test_the_mirror_is_staged_in_shared_memory_when_it_fits(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("TMPDIR", raising=False)
    repo = policy_repo(tmp_path / "repo")
    with chdir(repo):
        base = load_revision([Path("policies")], "HEAD")
    assert base.mirrored.checkout.path.parent == Path("/dev/shm")
    assert _pool_counts(base) == _pool_counts(load([repo / "policies"]))  # the same revision, read the same
    monkeypatch.setenv("TMPDIR", str(tmp_path))  # the user's choice wins
    monkeypatch.setattr(tempfile, "tempdir", None)  # the standard library reads TMPDIR once a process
    with chdir(repo):
        chosen = load_revision([Path("policies")], "HEAD")
    assert chosen.mirrored.checkout.path.parent == tmp_path


def test_shared_memory_only_with_room_and_without_a_chosen_tmpdir() -> None:
    from renderer.private_tree import memory_backed

    if not _shared_memory_usable() or not sys.platform.startswith("linux"):
        assert memory_backed(1, environ={}) is None
        return
    vfs = os.statvfs("/dev/shm")
    free = vfs.f_bavail * vfs.f_frsize
    assert memory_backed(1, environ={}) == ("/dev/shm" if free >= 4 + (64 << 20) else None)
    assert memory_backed(1, environ={"TMPDIR": "/somewhere"}) is None
    # Room for four times the files plus 64 MiB, or the temporary directory: a nearly full /dev/shm (a container's
    # 64 MiB one) is left alone.
    assert memory_backed(free // 4, environ={}) is None
    assert memory_backed(max(0, (free - (64 << 20)) // 4 - 1), environ={}) in ("/dev/shm", None)
