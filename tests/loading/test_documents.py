"""The one reader (``renderer.loading.documents.read``): every source, the same bounds, per-document work.

Issue 21, class 5: a dump is read like a policy file (regular files only, size-bounded, never blocking); class 9: one
anchor, alias, tag, merge key or duplicate key sends only its own document to the composer, and the composer's cost
is linear in the document (asserted as counts of composed documents and of text looked at, never as a time).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hypothesis import example, given
from hypothesis import strategies as st

from conftest import run_cli
from renderer.loading import anchored
from renderer.loading.documents import Bounds, Source, parse_text, read
from support.factory import node_pool, write_file, write_repo

# Text: the YAML feature put on a document's labels (an anchor, a tag) is what the composer tests are about.
POOL = """apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: pool-{i}
spec:
  labels:{anchor}
    kubernetes.io/os: linux
    example.com/group: g{group}
  capacity: {{cpu: "16", memory: 64Gi, pods: "110"}}
  count: 3
"""


def pools(n: int, special: dict[int, str] | None = None) -> str:
    """``n`` NodePool documents; ``special`` puts a YAML feature (``" &t"``, ...) on the labels of some of them."""
    special = special or {}
    return "---\n".join(POOL.format(i=i, anchor=special.get(i, ""), group=i % 10) for i in range(n))


@pytest.fixture
def composed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of documents the composer composes (one entry per call)."""
    calls: list[int] = []
    original = anchored.GuardedLoader.compose_document

    def counting(self: anchored.GuardedLoader) -> yaml.Node | None:
        calls.append(1)
        return original(self)  # type: ignore[no-any-return]

    monkeypatch.setattr(anchored.GuardedLoader, "compose_document", counting)
    return calls


@pytest.mark.parametrize(
    "feature",
    [
        " &t",  # an anchor
        " !!map",  # an explicit tag
    ],
)
def test_one_anchor_or_tag_composes_only_its_own_document(feature: str, composed: list[int]) -> None:
    plain, _ = parse_text(pools(2000), "pools.yaml")
    docs, problems = parse_text(pools(2000, {7: feature}), "pools.yaml")
    assert not problems
    assert [d.data for d in docs] == [d.data for d in plain]  # the same values
    assert len(composed) == 1  # 1 of 2,000 documents went to the composer, not the whole file


def test_an_alias_and_a_merge_key_compose_only_their_documents(composed: list[int]) -> None:
    text = pools(500) + "---\n" + "base: &b {a: 1}\nmerged:\n  <<: *b\n  c: 2\n" + "---\n" + pools(500)
    docs, problems = parse_text(text, "x.yaml")
    assert not problems
    assert docs[500].data == {"base": {"a": 1}, "merged": {"a": 1, "c": 2}}
    assert len(docs) == 1001 and len(composed) == 1


def test_a_document_the_look_ahead_misses_is_still_read_right(composed: list[int]) -> None:
    # A plain "=" key is YAML 1.1's value key: the look-ahead does not send its document to the composer, the event
    # reader refuses it, and the composer reads every document from there on (once: never a restart per document).
    text = pools(3) + "---\n=: x\n---\n" + pools(3)
    docs, problems = parse_text(text, "x.yaml")
    assert not docs and (problems[0].line, problems[0].column) == (34, 1)
    assert "!!value" in problems[0].message
    assert len(composed) == 1  # the document it stopped at; the three before it stayed on the event reader


def test_every_document_anchored_costs_text_looked_at_linear_in_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """The composer's tag messages look at the tag itself, never at the text before it (that was O(n) per tagged
    scalar: 2,000 small documents took 30 s). Counted: the characters of ``source_text`` read by line splitting or
    counting, which must be none."""

    class Watched(str):
        def split(self, *args: object, **kwargs: object) -> list[str]:  # type: ignore[override]
            raise AssertionError("the whole text was split to find one line")

        def count(self, *args: object, **kwargs: object) -> int:  # type: ignore[override]
            raise AssertionError("the whole text was scanned to count lines")

    original = anchored.GuardedLoader.__init__

    def init(self: anchored.GuardedLoader, stream: str) -> None:
        original(self, stream)
        self.source_text = Watched(stream)

    monkeypatch.setattr(anchored.GuardedLoader, "__init__", init)
    text = "---\n".join(f"a: &x !!int {i}\nb: *x\nc: !!str {i}\nd: !!bool true\n" for i in range(300))
    docs, problems = parse_text(text, "x.yaml")
    assert not problems and docs[299].data == {"a": 299, "b": 299, "c": "299", "d": True}


def test_a_bad_tag_is_still_quoted_as_written() -> None:
    text = pools(50) + "---\nx: !!int seven\n"
    _, problems = parse_text(text, "x.yaml")
    assert (problems[0].line, problems[0].column) == (text.count("\n"), 4)
    assert problems[0].message.startswith('"seven" is tagged !!int but is not an integer')


@pytest.mark.parametrize("text", [pools(3), pools(3, {1: " &t"}) + "---\nbad: *nowhere\n", "a: [1\n"])
def test_every_source_reads_to_the_same_documents_and_problems(tmp_path: Path, text: str) -> None:
    path = tmp_path / "p.yaml"
    path.write_text(text, encoding="utf-8")
    from_file = read(Source.file(path, "p.yaml"))
    for got in (read(Source.of_bytes(text.encode(), "p.yaml")), read(Source.of_text(text, "p.yaml"))):
        assert [d.data for d in got.documents] == [d.data for d in from_file.documents]
        assert got.findings() == from_file.findings()


def test_a_blob_is_bounded_like_a_file() -> None:
    got = read(Source.of_bytes(b"a: 1\n" * 100, "blob.yaml"), Bounds(max_file_bytes=64))
    assert got.problems[0].cause == "file" and "larger than the 64 byte limit" in got.problems[0].message


# --- class 5: special files are never read, whoever asks --------------------------------------------------------


def _special_files(tmp_path: Path) -> dict[str, Path]:
    fifo = tmp_path / "fifo.json"
    os.mkfifo(fifo)
    zero = tmp_path / "zero.json"
    zero.symlink_to("/dev/zero")
    urandom = tmp_path / "urandom.yaml"
    urandom.symlink_to("/dev/urandom")
    directory = tmp_path / "dir.json"
    directory.mkdir()
    return {"fifo": fifo, "zero": zero, "urandom": urandom, "directory": directory}


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_the_reader_refuses_fifos_devices_and_directories(tmp_path: Path) -> None:
    for name, path in _special_files(tmp_path).items():
        got = read(Source.file(path))
        assert got.problems and got.problems[0].cause == "file", name
        assert got.problems[0].detail.startswith("is a"), name


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
@pytest.mark.parametrize("option", ["--nodes", "--pods"])
def test_verify_refuses_special_dumps_without_hanging(tmp_path: Path, option: str) -> None:
    repo = Path(__file__).resolve().parents[2] / "policies"
    for name, path in _special_files(tmp_path).items():
        proc = subprocess.run(
            [sys.executable, "-m", "renderer", "verify", str(repo), option, str(path)],
            capture_output=True,
            text=True,
            timeout=60,  # a bound on a hang, not a timing assertion: the run takes well under a second
        )
        assert proc.returncode == 2, (name, proc.stderr)
        assert "not a regular file" in proc.stderr, (name, proc.stderr)
        assert "Traceback" not in proc.stderr


def test_verify_bounds_a_dump_by_max_file_size(tmp_path: Path) -> None:
    repo = write_repo(tmp_path / "repo", {"pool.yaml": node_pool("pool-1")})
    # text: an empty List padded past the limit with blanks (its size is the test)
    empty = '{"apiVersion": "v1", "kind": "List", "items": []}' + " " * 4096
    dump = write_file(tmp_path / "nodes.json", empty, dedent=False)
    # in this process (a bad-input check); the special files above run as a process: a hang there must be bounded
    res = run_cli("verify", str(repo), "--nodes", str(dump), "--max-file-size", "1024")
    assert res.exit_code == 2 and "larger than the 1024 byte limit" in res.stderr, res.stderr


_COMPOSE_REFERENCE = re.compile(r"(?:^|[\s\[\]{},])[&*!]|<<", re.M)


@given(
    st.text(alphabet=st.sampled_from(list("ab &*!<,[]{}:\n\r\t\u00a0\u2028#'\"-")), max_size=60),
    st.integers(min_value=0, max_value=70),
    st.integers(min_value=0, max_value=70),
)
@example("&a", 0, 2)
@example("x\n&a", 2, 4)
@example("x &a", 2, 4)
@example("x\u00a0*a", 1, 4)
@example("a<<b", 1, 3)
@example("a<<b", 2, 4)
def test_composes_finds_what_the_node_start_pattern_finds(text: str, begin: int, end: int) -> None:
    """``composes`` (``str.find`` per character) against the multi-line pattern it replaced, searched from ``begin``
    to ``end``: a line start, a blank or a flow indicator before ``&``, ``*`` or ``!`` (inside the range), or
    ``<<``."""
    from renderer.loading.documents import composes

    begin, end = min(begin, len(text)), min(end, len(text))
    assert composes(text, begin, end) == (_COMPOSE_REFERENCE.search(text, begin, end) is not None)


def test_short_values_are_one_string_across_files(tmp_path: Path) -> None:
    """Issue 30 (lint of a 100,000-document multi-cluster repo, one document a file): a short string value that
    repeats in many files (a label value, a zone, an OS name, a list item) is one string object in the whole run,
    not one a file, so a repo written a document a file holds no more than one written in a few files. Each file is
    read on its own; the texts are built at run time so that no two values start as the same object."""
    zone = "".join(["us-east-", "1a"])
    docs = [
        f"kind: NodePool\nspec:\n  labels:\n    topology.kubernetes.io/zone: {zone}\n    os: linux\n"
        f"  zones: [{zone}, linux]\n  notes:\n    - {zone}\n"
        for _ in range(3)
    ]
    values = []
    for i, text in enumerate(docs):
        (tmp_path / f"p{i}.yaml").write_text(text, encoding="utf-8")
        got = read(Source(f"p{i}.yaml", path=tmp_path / f"p{i}.yaml"))
        assert not got.problems
        spec = got.documents[0].data["spec"]
        values.append((spec["labels"]["topology.kubernetes.io/zone"], spec["labels"]["os"], *spec["zones"]))
        values.append((spec["notes"][0],))
    firsts = {id(v[0]) for v in values}
    assert len(firsts) == 1, "the zone is a new string in every file"
    assert len({id(v[1]) for v in values if len(v) > 1}) == 1
    long_value = "x" * 65  # over the sharing bound: kept as read, never looked up
    (tmp_path / "long.yaml").write_text(f"kind: NodePool\nspec:\n  labels:\n    k: {long_value}\n", encoding="utf-8")
    assert read(Source("long.yaml", path=tmp_path / "long.yaml")).documents[0].data["spec"]["labels"]["k"] == long_value
