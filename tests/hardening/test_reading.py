"""Issue 12, reading: tags (class 1), files that are not regular files (class 2), the settings file symlinked out
of the repo (class 3) and directories that cannot be read (class 4).

The bad-input checks (tags, a settings file or a base revision's settings symlinked out) run the CLI in this process
(``support.hardening.in_process``); what needs a process of its own runs as one (``cli``): the FIFOs, sockets and
devices (a read that blocks must be bounded by a timeout) and the unreadable directories (dropped privileges)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
from pathlib import Path

import pytest

from support.hardening import (
    COMMIT_CLASS,
    SECRET,
    SETTINGS,
    assert_no_crash,
    assert_not_checked,
    assert_one_finding,
    cli,
    findings,
    good_repo,
    in_process,
    pool,
    position_of,
    shown,
    snapshot,
    world_readable_tmp,
    write,
)

# --- class 1: tags the resolver cannot satisfy -------------------------------------------------------------------

# (where the tag goes, the tagged text): every one must be one AL001 line pointing at the tag itself.
_TAGGED_VALUES = [
    "!!bool maybe",
    "!!bool 1",
    "!!timestamp x",
    "!!timestamp 2024-13-45",
    "!!float abc",
    "!!float 1.2.3",
    "!!int abc",
    "!!int 0x",
    "!!int 1.5",
    "!!null x",
    "!!binary aGVsbG8=",
    "!!binary not-base64",
    "!!set {a, b}",
    "!!omap [a: 1]",
    "!!pairs [a: 1]",
    "!!python/name:os.system",
    "!!python/object/apply:os.system [id]",
    "!local value",
    "!<tag:example.com,2024:x> value",
    "!!str {a: b}",
    "!!str [a]",
    "!!map [a]",
    "!!seq {a: b}",
    "!!seq value",
    "!!value =",
]


@pytest.mark.parametrize("tagged", _TAGGED_VALUES)
@pytest.mark.parametrize("place", ["count", "label", "key", "list-item"])
def test_a_tag_the_loader_cannot_satisfy_is_one_line_at_the_tag(tmp_path: Path, tagged: str, place: str) -> None:
    text = {
        "count": pool(count=tagged),
        "label": pool(tier=tagged),
        "key": pool().replace(
            "    example.com/tier: general\n", f"    example.com/tier: general\n    ? {tagged}\n    : x\n"
        ),
        "list-item": COMMIT_CLASS.replace("values: [general]", f"values: [general, {tagged}]"),
    }[place]
    write(tmp_path / "repo", {"p.yaml": text})
    before = snapshot(tmp_path)
    res = in_process("validate", "repo", cwd=tmp_path)
    line, col = position_of(text, tagged.split()[0])
    found = assert_one_finding(res, f"repo/p.yaml:{line}:{col}", "AL001", tagged.split()[0].split(":")[0][:6])
    assert "remove" in found or "write" in found, found  # says what to change
    assert snapshot(tmp_path) == before


@pytest.mark.parametrize("tagged", ["!!bool maybe", "!!int abc", "!!set {a}", "!!python/name:x"])
def test_tags_in_the_settings_file(tmp_path: Path, tagged: str) -> None:
    settings = SETTINGS + f"render:\n  koordinator: {tagged}\n"
    write(tmp_path / "repo", {".allocatable.yaml": settings, "p.yaml": pool()})
    res = in_process("lint", "repo", "-o", "github", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 2, shown(res)
    line, col = position_of(settings, tagged.split()[0])
    assert res.stdout.startswith(f"::error file=repo/.allocatable.yaml,line={line},col={col},title=AL001::"), shown(res)


@pytest.mark.parametrize("tagged", ['!!bool "maybe"', "!!str 3", "!foo {}", '!<x> "y"'])
def test_any_tag_in_a_json_file_is_invalid_json(tmp_path: Path, tagged: str) -> None:
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": []}).replace('"items": []', f'"items": {tagged}')
    write(tmp_path / "repo", {"nodes.json": text, "p.yaml": pool()})
    res = in_process("validate", "repo", cwd=tmp_path)
    line, col = position_of(text, tagged.split()[0])
    assert_one_finding(res, f"repo/nodes.json:{line}:{col}", "AL001", "a YAML tag (!...) is not JSON")


def test_guarded_and_alias_paths_check_tags_too(tmp_path: Path) -> None:
    """Files with anchors, and files that could nest deeply, are built by PyYAML's own constructor."""
    aliased = pool().replace("name: web", "name: &n web").replace("count: 3", "count: !!int three\n  extra: *n")
    deep = "# " + "[" * 2100 + "\n" + pool(count="!!float 1.2.3")
    for name, text in (("aliased.yaml", aliased), ("deep.yaml", deep)):
        write(tmp_path / "repo", {name: text})
        res = in_process("validate", f"repo/{name}", cwd=tmp_path)
        tag = "!!int" if name == "aliased.yaml" else "!!float"
        line, col = position_of(text, tag)
        assert_one_finding(res, f"repo/{name}:{line}:{col}", "AL001", f"is tagged {tag}")


# --- class 2: FIFOs, sockets, devices: AL006, and nothing blocks ---------------------------------------------------

NOT_REGULAR = "not a regular file"


def _fifo(path: Path) -> None:
    if not hasattr(os, "mkfifo"):  # pragma: no cover - Windows
        pytest.skip("no FIFOs on this platform")
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)


def test_fifo_named_like_a_policy_file(tmp_path: Path) -> None:
    good_repo(tmp_path / "repo")
    _fifo(tmp_path / "repo" / "pools" / "pipe.yaml")
    res = cli("validate", "repo", cwd=tmp_path, timeout=30)
    assert_one_finding(res, "repo/pools/pipe.yaml:1:1", "AL006", "is a FIFO (named pipe)", NOT_REGULAR)


def test_fifo_as_the_settings_file(tmp_path: Path) -> None:
    good_repo(tmp_path / "repo")
    (tmp_path / "repo" / ".allocatable.yaml").unlink()
    _fifo(tmp_path / "repo" / ".allocatable.yaml")
    for command in (["validate"], ["lint"], ["explain"]):
        res = cli(*command, "repo", cwd=tmp_path, timeout=30)
        assert_no_crash(res)
        assert res.returncode == 2, shown(res)
        assert "repo/.allocatable.yaml:1:1: error: is a FIFO (named pipe)" in res.stdout + res.stderr, shown(res)
    assert_not_checked(cli("render", "--check", "repo", cwd=tmp_path, timeout=30))  # never blocks on the FIFO


def test_fifo_socket_and_devices_given_as_path(tmp_path: Path) -> None:
    _fifo(tmp_path / "pipe")
    sock = socket.socket(socket.AF_UNIX)
    try:
        sock.bind(str(tmp_path / "sock.yaml"))
        for path, what in (
            ("pipe", "is a FIFO (named pipe)"),
            ("sock.yaml", "is a socket"),
            ("/dev/zero", "is a character device"),
            ("/dev/null", "is a character device"),
        ):
            res = cli("validate", path, cwd=tmp_path, timeout=30)
            assert_one_finding(res, f"{path}:1:1", "AL006", what, NOT_REGULAR)
    finally:
        sock.close()


def test_fifo_socket_and_device_symlinks_inside_and_outside_the_repo(tmp_path: Path) -> None:
    repo = good_repo(tmp_path / "repo")
    _fifo(repo / "fifo-target")
    (repo / "via-link.yaml").symlink_to("fifo-target")  # inside the repo: followed, then refused as a FIFO
    (repo / "zero.yaml").symlink_to("/dev/zero")  # outside the repo: never opened
    res = cli("validate", "repo", cwd=tmp_path, timeout=30)
    assert_no_crash(res)
    assert res.returncode == 2
    lines = findings(res.stdout)
    assert len(lines) == 2, shown(res)
    assert lines[0].startswith("repo/via-link.yaml:1:1: error: is a FIFO (named pipe)")
    assert lines[1].startswith("repo/zero.yaml:1:1: error: symlink points outside the policy repo")


def test_a_device_node_in_the_repo(tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("creating a device node needs root")  # the PATH tests above cover devices for everyone
    repo = good_repo(tmp_path / "repo")
    os.mknod(repo / "zero.yaml", 0o600 | 0o020000, os.makedev(1, 5))  # a character device: /dev/zero's numbers
    res = cli("validate", "repo", cwd=tmp_path, timeout=30)
    assert_one_finding(res, "repo/zero.yaml:1:1", "AL006", "is a character device")


def test_sarif_and_positions_never_open_a_fifo(tmp_path: Path) -> None:
    """The SARIF writer reads reported files for end columns: never an AL006 file, never a FIFO."""
    good_repo(tmp_path / "repo")
    _fifo(tmp_path / "repo" / "pools" / "pipe.yaml")
    res = cli("lint", "repo", "-o", "sarif", cwd=tmp_path, timeout=30)
    assert_no_crash(res)
    doc = json.loads(res.stdout)
    assert [r["ruleId"] for r in doc["runs"][0]["results"]] == ["AL006"]


# --- class 3: the settings file symlinked out of the repo ---------------------------------------------------------


def _secret_settings(outside: Path) -> Path:
    target = outside / "secret.yaml"
    write(outside, {"secret.yaml": SETTINGS + f"{SECRET}: {SECRET}\nrender: {{outputDir: {SECRET}}}\n"})
    return target


@pytest.mark.parametrize("link", ["absolute", "relative", "chain"])
def test_settings_symlinked_outside_is_refused_and_never_quoted(tmp_path: Path, link: str) -> None:
    repo = good_repo(tmp_path / "repo")
    (repo / ".allocatable.yaml").unlink()
    target = _secret_settings(tmp_path / "outside")
    if link == "absolute":
        (repo / ".allocatable.yaml").symlink_to(target)
    elif link == "relative":
        (repo / ".allocatable.yaml").symlink_to(Path("..") / "outside" / "secret.yaml")
    else:  # a link to a link inside the repo that leaves it
        (repo / "hop").symlink_to(target)
        (repo / ".allocatable.yaml").symlink_to("hop")
    for args in (
        ["validate", "repo"],
        ["lint", "repo"],
        ["lint", "repo", "-o", "github"],
        ["lint", "repo", "-o", "sarif"],
        ["lint", "repo", "-o", "json"],
        ["explain", "repo"],
        ["render", "repo", "--check", "-o", "out"],
        ["render", "repo", "--stdout"],
    ):
        res = in_process(*args, cwd=tmp_path)
        assert_no_crash(res)
        assert res.returncode == 2, f"{args}\n{shown(res)}"
        assert SECRET not in res.stdout + res.stderr, f"{args}\n{shown(res)}"
        if "--check" in args:  # validate and lint report it; render --check says it compared nothing
            assert_not_checked(res)
        else:
            assert "symlink points outside the policy repo" in res.stdout + res.stderr, f"{args}\n{shown(res)}"
    assert not (tmp_path / "out").exists()


def test_settings_symlink_broken_looping_or_inside(tmp_path: Path) -> None:
    repo = good_repo(tmp_path / "repo")
    settings = repo / ".allocatable.yaml"
    settings.unlink()
    settings.symlink_to("missing.yaml")
    res = in_process("validate", "repo", cwd=tmp_path)
    assert_one_finding(res, "repo/.allocatable.yaml:1:1", "AL006", "broken symlink")
    settings.unlink()
    (repo / "loop").symlink_to(".allocatable.yaml")
    settings.symlink_to("loop")
    res = in_process("validate", "repo", cwd=tmp_path)
    assert_one_finding(res, "repo/.allocatable.yaml:1:1", "AL006", "symlink loop")
    settings.unlink()
    (repo / "loop").unlink()
    write(repo, {"config/settings.yml.txt": SETTINGS})
    settings.symlink_to(Path("config") / "settings.yml.txt")  # inside the repo: read
    res = in_process("validate", "repo", cwd=tmp_path)
    assert res.returncode == 0, shown(res)


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=cwd,
        check=True,
        capture_output=True,
        env={**os.environ, "GIT_CONFIG_NOSYSTEM": "1"},
    )


@pytest.mark.parametrize("target", ["../secret.yaml", "../../outside/secret.yaml", "ABSOLUTE", "CLIMB"])
def test_base_revision_settings_symlink_is_refused_and_never_quoted(tmp_path: Path, target: str) -> None:
    """``diff --base`` and ``lint --base`` load the base from git objects: a symlink there is refused alike."""
    outside = tmp_path / "outside"
    secret = _secret_settings(outside)
    work = tmp_path / "work"
    repo = good_repo(work / "policies")
    write(work, {"secret.yaml": secret.read_text()})
    _git(work, "init", "-q")
    (repo / ".allocatable.yaml").unlink()
    if target == "CLIMB":  # enough ".." to leave any mirror of the repository, then down to the real file
        target = "../" * 40 + str(secret).lstrip("/")
    (repo / ".allocatable.yaml").symlink_to(str(secret) if target == "ABSOLUTE" else target)
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "base with a settings symlink")
    (repo / ".allocatable.yaml").unlink()
    write(repo, {".allocatable.yaml": SETTINGS})
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "head")
    for args in (
        ["diff", "--base", "HEAD~1", "policies"],
        ["diff", "--base", "HEAD~1", "policies", "-o", "markdown"],
        ["diff", "--base", "HEAD~1", "policies", "-o", "json"],
        ["lint", "--base", "HEAD~1", "policies", "-o", "github"],
    ):
        res = in_process(*args, cwd=work)
        assert_no_crash(res)
        assert res.returncode in (0, 1), f"{args}\n{shown(res)}"
        assert SECRET not in res.stdout + res.stderr, f"{args}\n{shown(res)}"


def test_base_revision_where_the_policy_directory_is_a_symlink_out_of_the_repo(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    _secret_settings(outside)
    write(outside, {"p.yaml": pool(name=SECRET)})
    work = tmp_path / "work"
    work.mkdir()
    _git(work, "init", "-q")
    (work / "policies").symlink_to(outside)
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "base: policies is a symlink to a directory outside")
    (work / "policies").unlink()
    good_repo(work / "policies")
    _git(work, "add", "-A")
    _git(work, "commit", "-qm", "head")
    res = in_process("diff", "--base", "HEAD~1", "policies", cwd=work)
    assert_no_crash(res)
    assert res.returncode == 2, shown(res)
    assert res.stderr == (
        "allocatable: error: policies is a symlink at HEAD~1 that leads outside the git repository; refusing to read it\n"
    )
    assert SECRET not in res.stdout


# --- class 4: directories that cannot be read ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "entry", "message"),
    [
        (0o000, "repo/pools", "cannot read directory: Permission denied"),  # no r, no x
        (0o311, "repo/pools", "cannot read directory: Permission denied"),  # x only: cannot list
        (0o644, "repo/pools/web.yaml", "cannot read file: Permission denied"),  # r only: listed, cannot stat
    ],
)
def test_unreadable_directory_is_an_error_never_skipped(mode: int, entry: str, message: str) -> None:
    with world_readable_tmp() as tmp:
        repo = good_repo(tmp / "repo")
        (repo / "pools").chmod(mode)
        res = cli("validate", "repo", cwd=tmp, timeout=60, unprivileged=True)
        assert_one_finding(res, f"{entry}:1:1", "AL006", message)


def test_unreadable_file_and_nested_directory() -> None:
    with world_readable_tmp() as tmp:
        repo = good_repo(tmp / "repo")
        write(repo, {"deep/er/more.yaml": pool(name="more")})
        (repo / "deep" / "er").chmod(0o000)
        (repo / "reservations" / "static.yaml").chmod(0o000)
        res = cli("validate", "repo", cwd=tmp, timeout=60, unprivileged=True)
        assert_no_crash(res)
        assert res.returncode == 2, shown(res)
        assert findings(res.stdout) == [
            "repo/deep/er:1:1: error: cannot read directory: Permission denied; fix its permissions or move it out of "
            "the policy directory [AL006]",
            "repo/reservations/static.yaml:1:1: error: cannot read file: Permission denied [AL006]",
        ], shown(res)


def test_unreadable_policy_root() -> None:
    with world_readable_tmp() as tmp:
        repo = good_repo(tmp / "repo")
        repo.chmod(0o000)
        res = cli("validate", "repo", cwd=tmp, timeout=60, unprivileged=True)
        assert_no_crash(res)
        assert res.returncode == 2, shown(res)
        assert "repo:1:1: error: cannot read directory: Permission denied" in res.stdout, shown(res)
