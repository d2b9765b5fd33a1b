"""Issue 21, classes 13-15 and 20: values and names that crashed without a location, or linked out of a PR comment.

- 13: huge hexadecimal, octal and binary integers (Python converts them at any length; printing them then fails on
  its int-string limit): one located error before conversion, wherever they stand;
- 14: lone surrogates (``"\\ud800"`` in JSON, ``"\\ud800"`` in YAML double quotes) and file names that are not UTF-8:
  a located error for the value, and every format (text, json, github, sarif) escapes them;
- 15: a policy tree 1,000 directories deep: a located AL006 where it crosses the bound, never a RecursionError;
- 20: a bare URL or ``www.`` name in Markdown output (diff and verify, for PR comments) is never autolinked.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from support.hardening import (
    COMMIT_CLASS,
    REPO_ROOT,
    SETTINGS,
    assert_no_crash,
    cli,
    good_repo,
    pool,
    position_of,
    shown,
    write,
)
from support.round2 import git

FORMATS = ["text", "json", "github", "sarif"]

# --- class 13 -----------------------------------------------------------------------------------------------------

HUGE = {
    "hex": "0x" + "f" * 5000,
    "negative-hex": "-0x" + "F" * 800,
    "octal": "0" + "7" * 5000,
    "binary": "0b" + "1" * 20000,
    "underscored-hex": "0x" + "ff_" * 400 + "f",
    "decimal": "9" * 5000,
}


@pytest.mark.parametrize("value", sorted(HUGE))
@pytest.mark.parametrize("place", ["count", "label-key", "list-item", "kubelet", "settings"])
def test_a_huge_integer_is_one_located_error_before_conversion(tmp_path: Path, value: str, place: str) -> None:
    number = HUGE[value]
    files: dict[str, str] = {}
    good_repo(tmp_path / "policies")
    if place == "count":
        files["pools/web.yaml"] = pool(count=number)
    elif place == "label-key":
        files["pools/web.yaml"] = pool().replace(
            "    example.com/tier: general\n", f"    example.com/tier: general\n    ? {number}\n    : x\n"
        )
    elif place == "list-item":
        files["commitclasses/burst.yaml"] = COMMIT_CLASS.replace("values: [general]", f"values: [general, {number}]")
    elif place == "kubelet":
        files["reservations/extra.yaml"] = (
            "apiVersion: policy.allocatable.dev/v1alpha1\nkind: ReservationPolicy\nmetadata: {name: extra}\nspec:\n"
            "  selector: [{matchExpressions: [{key: x, operator: Exists}]}]\n"
            f"  kubelet:\n    maxOpenFiles: {number}\n"
        )
    else:
        files[".allocatable.yaml"] = SETTINGS + f"limits:\n  maxFileBytes: {number}\n"
    write(tmp_path / "policies", files)
    ((name, text),) = files.items()
    line, col = position_of(text, number)
    for command in ("validate", "lint", "render --stdout", "explain"):
        res = cli(*command.split(), "policies", cwd=tmp_path)
        assert_no_crash(res)
        assert res.returncode == 2, shown(res)
        found = [ln for ln in (res.stdout + res.stderr).splitlines() if ": error: " in ln]
        assert found == [
            f"policies/{name}:{line}:{col}: error: the number {number[:20]}… has {len(number)} digits, too many to read; put it in quotes if it is text [AL001]"
        ], shown(res)


def test_a_huge_integer_in_a_verify_dump_is_located(tmp_path: Path) -> None:
    good_repo(tmp_path / "policies")
    node = (REPO_ROOT / "tests/real-nodes/eks/mng-al2-t3-medium-1-30.yaml").read_text()
    node = node.replace('pods: "17"', "pods: 0x" + "f" * 5000, 1)
    assert "0xfff" in node
    (tmp_path / "node.yaml").write_text(node)
    res = cli("verify", "--nodes=node.yaml", "policies", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 2 and "has 5002 digits, too many to read" in res.stderr, shown(res)
    assert re.match(r"allocatable: error: node\.yaml:\d+:\d+: ", res.stderr), shown(res)


# --- class 14 -----------------------------------------------------------------------------------------------------

_NODEPOOL_JSON = {
    "apiVersion": "policy.allocatable.dev/v1alpha1",
    "kind": "NodePool",
    "metadata": {"name": "json-pool", "annotations": {"note": "ok"}},
    "spec": {"labels": {"example.com/tier": "general"}, "capacity": {"cpu": "8", "memory": "32Gi"}, "count": 1},
}


def _with_surrogate(place: str) -> tuple[str, str]:
    """(file name, text) of a JSON policy with a lone surrogate escape at ``place``; the escape as written."""
    doc = json.loads(json.dumps(_NODEPOOL_JSON))
    marker = "SURROGATE-HERE"
    if place == "name":
        doc["metadata"]["name"] = marker
    elif place == "annotation":
        doc["metadata"]["annotations"]["note"] = marker
    elif place == "annotation-key":
        doc["metadata"]["annotations"] = {marker: "x"}
    elif place == "label":
        doc["spec"]["labels"]["example.com/tier"] = marker
    else:
        doc["spec"]["machineMemory"] = marker
    text = json.dumps(doc, indent=2).replace(marker, "a\\udc80b")
    return "pools/s.json", text


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("place", ["name", "annotation", "annotation-key", "label", "quantity"])
def test_a_lone_surrogate_is_located_and_escaped_in_every_format(tmp_path: Path, place: str, fmt: str) -> None:
    good_repo(tmp_path / "policies")
    name, text = _with_surrogate(place)
    write(tmp_path / "policies", {name: text})
    res = cli("lint", "policies", "-o", fmt, cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 2, shown(res)
    out = res.stdout
    assert not re.search("[\ud800-\udfff]", out + res.stderr)
    if fmt in ("json", "sarif"):
        json.loads(out)
    line, _ = position_of(text, "a\\udc80b")
    expect = {
        "text": f"policies/{name}:{line}:",
        "github": f"file=policies/{name},line={line},",
        "json": f'"line": {line}',
        "sarif": f'"startLine": {line}',
    }[fmt]
    assert expect in out, shown(res)


NON_UTF8 = [b"bad\xff.yaml", b"\xc3\x28.yaml", b"latin1-\xe9t\xe9.yaml", b"\xed\xa0\x80.yaml", b"sub\xfe/pool.yaml"]


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("raw", NON_UTF8, ids=lambda r: r.decode("ascii", "replace"))
def test_a_file_name_that_is_not_utf8_is_escaped_in_every_format(tmp_path: Path, raw: bytes, fmt: str) -> None:
    root = tmp_path / "policies"
    good_repo(root)
    target = os.path.join(os.fsencode(root), raw)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as fh:
        fh.write(pool(count="-1").replace("name: web", "name: odd").encode())
    res = cli("lint", "policies", "-o", fmt, cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode == 2, shown(res)
    assert not re.search("[\ud800-\udfff]", res.stdout)
    if fmt == "sarif":
        doc = json.loads(res.stdout)
        uris = [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in doc["runs"][0]["results"]]
        from urllib.parse import unquote_to_bytes

        assert any(unquote_to_bytes(u).endswith(raw) for u in uris), uris
        assert all(u.isascii() for u in uris)
    elif fmt == "json":
        json.loads(res.stdout)
    else:
        first_bad = next(b for b in raw if b >= 0x80)
        assert f"\\x{first_bad:02x}" in res.stdout, shown(res)


# --- class 15 -----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", [65, 1000])
@pytest.mark.parametrize("command", ["validate", "lint", "render --stdout", "explain", "hook validate"])
def test_a_policy_tree_too_deep_is_one_located_error(tmp_path: Path, depth: int, command: str) -> None:
    root = tmp_path / "policies"
    good_repo(root)
    chain = [root]
    for _ in range(depth):  # one mkdir at a time: os.makedirs itself recurses
        chain.append(chain[-1] / "d")
        chain[-1].mkdir()
    (chain[-1] / "pool.yaml").write_text(pool(name="deep"))
    argv = command.split()
    try:
        res = cli(*argv, *(["policies"] if argv[0] != "hook" else []), cwd=tmp_path)
    finally:  # removed from the bottom up (shutil.rmtree recurses too)
        (chain[-1] / "pool.yaml").unlink()
        for d in reversed(chain[1:]):
            d.rmdir()
    assert_no_crash(res)
    assert "RecursionError" not in res.stdout + res.stderr
    lines = [ln for ln in (res.stdout + res.stderr).splitlines() if "[AL006]" in ln]
    assert len(lines) == 1, shown(res)
    assert lines[0].startswith("policies/" + "d/" * 64 + "d:1:1: error: directory is nested more than 64 levels")
    assert res.returncode == 2, shown(res)


# --- class 20 -----------------------------------------------------------------------------------------------------

AUTOLINKS = re.compile(r"(?<!\\)(?:https?|ftp|mailto)(?=:)|(?<![\\\w])www\.(?=\w)", re.I)


@pytest.mark.parametrize(
    "name",
    ["www.evil.example", "www.attacker.io.pools", "login.www.evil.example", "www.x-y.example.com", "www.1.2"],
)
def test_markdown_never_autolinks_a_hostile_name(tmp_path: Path, name: str) -> None:
    git(tmp_path, "init", "-q")
    good_repo(tmp_path / "policies")
    git(tmp_path, "add", "-A")
    git(tmp_path, "commit", "-qm", "base")
    write(
        tmp_path / "policies",
        {"pools/web.yaml": pool(name=name), "pools/more.yaml": pool(name=f"{name}.b", count="-1")},
    )
    res = cli("diff", "--base=HEAD", "-o", "markdown", "policies", cwd=tmp_path)
    assert res.returncode in (0, 2), shown(res)
    if res.returncode == 0:
        assert name.split(".")[0] in res.stdout
        assert not AUTOLINKS.search(re.sub(r"`[^`]*`", "", res.stdout)), res.stdout
    node = (REPO_ROOT / "tests/real-nodes/eks/mng-al2-t3-medium-1-30.yaml").read_text()
    (tmp_path / "node.yaml").write_text(node.replace("ip-172-31-40-111.us-east-2.compute.internal", name, 1))
    write(tmp_path / "policies", {"pools/more.yaml": pool(name=f"{name}.b")})
    res = cli("verify", "--nodes=node.yaml", "-o", "markdown", "--all", "policies", cwd=tmp_path)
    assert_no_crash(res)
    assert res.returncode in (0, 1), shown(res)
    assert not AUTOLINKS.search(re.sub(r"`[^`]*`", "", res.stdout)), res.stdout


@pytest.mark.parametrize(
    "text",
    [
        "https://evil.example",
        "see http://a.b/c",
        "FTP://x",
        "mailto:a@b.c",
        "www.evil.example",
        "(www.x.y)",
        "_www.a.b_",
    ],
)
def test_the_markdown_escape_breaks_every_autolink(text: str) -> None:
    from renderer.escaping import markdown

    assert not AUTOLINKS.search(markdown(text)), markdown(text)


@pytest.mark.parametrize(
    ("text", "neutral"),
    [
        ("@octocat", "@&#8203;octocat"),
        ("@org/team", "@&#8203;org/team"),
        ("see #12", "see \\#&#8203;12"),
        ("a@b.example", "a@&#8203;b.example"),
        ("@ alone", "@ alone"),
        ("#tag", "\\#tag"),
    ],
)
def test_markdown_escaping_neutralises_mentions_and_issue_references(text: str, neutral: str) -> None:
    """GitHub notifies ``@name`` and cross-references ``#123`` wherever they appear in rendered text; a zero-width
    space after the sign keeps the text and drops both (the same neutralisation Renovate applies to the release
    notes it quotes)."""
    from renderer.escaping import markdown

    assert markdown(text) == neutral
