"""Bad-input corpus: every case runs ``allocatable validate`` and must fail cleanly.

Committed cases live in ``tests/corpus/cases`` (see ``tests/corpus/README.md`` for the format). Cases that are
too big, binary or file-system specific to commit (50 MB files, UTF-16, symlinks, deep nesting, alias bombs) are
built here in ``tmp_path``.

For every case: the exit code is 2 (0 for the few valid-on-purpose cases), each expected ``path:line:col`` line
is on stdout with its code and message fragments, there is no other finding line (one line per problem), stderr
holds only the summary line, nothing says "Traceback", and the repo directory is byte-for-byte unchanged afterwards.

The CLI runs in this process (``conftest.run_cli``: ``main`` with its streams captured and its exit code), as the
other command tests run it: what a case checks is how ``validate`` reads a bad input, which does not depend on
running as a process of its own. What does (signals, a closed stdin, partial writes, a broken pipe, exit handlers,
dropped privileges) is in tests/hardening/, run as a process (``support.hardening.cli``, the fork server).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import signal
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from conftest import CliResult, run_cli
from support.factory import write_file

CASES_DIR = Path(__file__).resolve().parent / "corpus" / "cases"
TIMEOUT = 300  # seconds
REPO = "repo"  # the policy repo is copied to tmp_path / REPO; reported paths start with it

#: Control characters of input data are escaped in every output (issue 12): none may reach the terminal raw.
_RAW_CONTROL = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
_EXPECT_RE = re.compile(r"^(?:(?P<path>[^\s:]+):)?(?P<line>\d+):(?P<col>\d+) (?P<code>AL\d{3}) (?P<text>.+)$")


@dataclass(frozen=True)
class Expectation:
    path: str  # relative to the repo
    line: int
    column: int
    code: str
    fragments: tuple[str, ...]  # must appear in the finding line, in this order

    @property
    def prefix(self) -> str:
        return f"{REPO}/{self.path}:{self.line}:{self.column}: error: "


@dataclass(frozen=True)
class Case:
    name: str
    expectations: tuple[Expectation, ...]  # empty: the repo is valid on purpose
    args: tuple[str, ...] = field(default=())


def parse_expectation(spec: str, default_path: str) -> Expectation:
    m = _EXPECT_RE.match(spec.strip())
    if m is None:
        raise ValueError(f"bad expectation {spec!r}: want [PATH:]LINE:COL CODE text [... more text]")
    return Expectation(
        path=m["path"] or default_path,
        line=int(m["line"]),
        column=int(m["col"]),
        code=m["code"],
        fragments=tuple(part.strip() for part in m["text"].split(" ... ")),
    )


def load_case(entry: Path) -> Case:
    """A case file carries ``# expect:`` header lines; a case directory carries an EXPECT file."""
    if entry.is_dir():
        specs = [ln for ln in (entry / "EXPECT").read_text(encoding="utf-8").splitlines() if ln.strip()]
        default_path = ""
    else:
        specs = []
        for ln in entry.read_text(encoding="utf-8").splitlines():
            if not ln.startswith("# expect: "):
                break
            specs.append(ln.removeprefix("# expect: "))
        default_path = entry.name
    if not specs:
        raise ValueError(f"{entry.name}: no expectation (add '# expect: LINE:COL CODE text' or '# expect: ok')")
    if specs == ["ok"]:
        return Case(entry.name, ())
    return Case(entry.name, tuple(parse_expectation(s, default_path) for s in specs))


def committed_cases() -> list[Path]:
    return sorted(p for p in CASES_DIR.iterdir() if p.is_dir() or p.suffix in (".yaml", ".yml", ".json"))


def snapshot(root: Path) -> dict[str, tuple[str, ...]]:
    """Everything under ``root`` (not following symlinks): type, content hash, size and mtime of files."""
    out: dict[str, tuple[str, ...]] = {}
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        for name in [*dirnames, *filenames]:
            p = Path(dirpath) / name
            rel = p.relative_to(root).as_posix()
            st = p.lstat()
            if p.is_symlink():
                out[rel] = ("link", os.readlink(p))
            elif p.is_dir():
                out[rel] = ("dir",)
            elif not stat.S_ISREG(st.st_mode):  # a FIFO or socket: never opened (reading a FIFO blocks)
                out[rel] = ("special", oct(st.st_mode))
            else:
                digest = hashlib.sha256(p.read_bytes()).hexdigest()
                out[rel] = ("file", digest, str(st.st_size), str(st.st_mtime_ns))
    return out


class _Hung(BaseException):  # not an Exception: the CLI's own error handling must not catch it
    pass


def run_validate(cwd: Path, *args: str) -> CliResult:
    """``allocatable validate repo ARGS`` in this process, from ``cwd``; a run past 300 s fails the test instead of
    hanging the suite (no case may hang: FIFOs, ``/dev/zero``, alias bombs)."""

    def hung(signum: int, frame: object) -> None:
        raise _Hung(f"validate ran for over {TIMEOUT} s")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(TIMEOUT)
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setenv("NO_COLOR", "1")
            return run_cli("validate", REPO, *args, cwd=cwd)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def check(tmp_path: Path, case: Case) -> CliResult:
    """Run validate on tmp_path/repo and check every promise the corpus makes."""
    before = snapshot(tmp_path)
    res = run_validate(tmp_path, *case.args)
    after = snapshot(tmp_path)
    shown = f"exit {res.exit_code}\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}"

    assert "Traceback" not in res.stdout + res.stderr, shown
    raw = _RAW_CONTROL.search(res.stdout + res.stderr)
    assert raw is None, f"a raw control character reached the output: {raw.group()!r}\n{shown}"
    assert res.stderr.startswith("validate: ") and res.stderr.count("\n") == 1, shown  # the summary, on stderr
    assert after == before, "validate changed files under the working directory"

    findings = [ln for ln in res.stdout.splitlines() if ln.strip()]
    if not case.expectations:
        assert res.exit_code == 0, shown
        assert findings == [], shown
        return res

    assert res.exit_code == 2, shown
    assert len(findings) == len(case.expectations), f"want one line per problem\n{shown}"
    for exp in case.expectations:
        matching = [ln for ln in findings if ln.startswith(exp.prefix)]
        assert len(matching) == 1, f"want exactly one line starting {exp.prefix!r}\n{shown}"
        line = matching[0]
        assert f"[{exp.code}]" in line, f"want code {exp.code}\n{shown}"
        pos = 0
        for fragment in exp.fragments:
            found = line.find(fragment, pos)
            assert found >= 0, f"want {fragment!r} in\n{line}"
            pos = found + len(fragment)
    return res


def test_corpus_is_big_enough() -> None:
    assert len(committed_cases()) + len(GENERATED) >= 160


@pytest.mark.parametrize("entry", committed_cases(), ids=lambda p: p.name)
def test_committed_case(entry: Path, tmp_path: Path) -> None:
    case = load_case(entry)
    repo = tmp_path / REPO
    if entry.is_dir():
        shutil.copytree(entry, repo, symlinks=True, ignore=shutil.ignore_patterns("EXPECT"))
    else:
        repo.mkdir()
        shutil.copy2(entry, repo / entry.name)
    check(tmp_path, case)


# --- generated cases ---------------------------------------------------------------------------------------------

POOL = """\
apiVersion: policy.allocatable.dev/v1alpha1
kind: NodePool
metadata:
  name: web
spec:
  labels:
    example.com/tier: general
  capacity:
    cpu: "8"
    memory: 32Gi
  count: 3
"""

Builder = Callable[[Path], None]  # fills the (existing, empty) repo directory


def _padded_pool(size: int) -> bytes:
    """A valid pool followed by comment lines up to ``size`` bytes."""
    line = b"# " + b"x" * 97 + b"\n"
    head = POOL.encode()
    return head + line * ((size - len(head)) // len(line))


def _node_list(nodes: list[tuple[str, int]]) -> str:
    """A ``kubectl get nodes -o yaml`` List whose Nodes carry an annotation of the given size (in kept fields)."""
    items = "".join(
        "- apiVersion: v1\n  kind: Node\n  metadata:\n    annotations:\n"
        f"      x: {'y' * size}\n    name: {name}\n    labels: {{example.com/tier: general}}\n"
        '  status:\n    capacity: {cpu: "8", memory: 32Gi}\n'
        for name, size in nodes
    )
    return "apiVersion: v1\nkind: List\nitems:\n" + items


def _outside(repo: Path) -> Path:
    """A directory next to the repo (inside tmp_path), i.e. outside the policy repo."""
    out = repo.parent / "outside"
    out.mkdir(exist_ok=True)
    write_file(out / "shared.yaml", POOL.replace("name: web", "name: shared"), dedent=False)
    return out


def _billion_laughs() -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for i in range(1, 9):
        prev, cur = chr(ord("a") + i - 1), chr(ord("a") + i)
        lines.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def _symlink(link: Path, target: Path | str) -> None:
    try:
        link.symlink_to(target)
    except OSError as exc:  # pragma: no cover - e.g. Windows without the privilege
        pytest.skip(f"cannot create symlinks here: {exc}")


@dataclass(frozen=True)
class Generated:
    build: Builder
    case: Case


def _gen(*specs: str, args: tuple[str, ...] = ()) -> Callable[[Builder], Builder]:
    """Register a builder with its expectations (``PATH:LINE:COL CODE text``, or none for a valid repo)."""

    def deco(fn: Builder) -> Builder:
        name = fn.__name__.removeprefix("gen_").replace("_", "-")
        GENERATED[name] = Generated(fn, Case(name, tuple(parse_expectation(s, "") for s in specs), args))
        return fn

    return deco


GENERATED: dict[str, Generated] = {}


@_gen("x.yaml:1:1 AL003 file holds no policy documents")
def gen_empty_file(repo: Path) -> None:
    write_file(repo / "x.yaml", b"", dedent=False)


@_gen()  # the default file limit (256 MiB) takes real cluster dumps; memory is bounded per document instead
def gen_file_50_mb(repo: Path) -> None:
    write_file(repo / "big.yaml", _padded_pool(50 * 1024 * 1024), dedent=False)


@_gen(
    "big.yaml:1:1 AL006 file is larger than the 41943040 byte limit ... --max-file-size",
    args=("--max-file-size", str(40 * 1024 * 1024)),
)
def gen_file_50_mb_with_lowered_limit(repo: Path) -> None:
    write_file(repo / "big.yaml", _padded_pool(50 * 1024 * 1024), dedent=False)


@_gen("big.yaml:6:8 AL001 document is larger than 8388608 characters")
def gen_document_over_8_mib(repo: Path) -> None:
    # One document may not exhaust memory: a 9 MB annotation value is refused however large the file limit is.
    head = POOL.replace("  name: web\n", "  name: web\n  annotations:\n    x: " + "y" * (9 * 1024 * 1024) + "\n")
    write_file(repo / "big.yaml", head, dedent=False)


@_gen()  # two List items of 5 MB each: each item is bounded on its own, not the List
def gen_list_items_5_mb_each(repo: Path) -> None:
    write_file(repo / "nodes.yaml", _node_list([("a", 5 * 1024 * 1024), ("b", 5 * 1024 * 1024)]), dedent=False)


@_gen("nodes.yaml:17:10 AL001 document is larger than 8388608 characters")
def gen_list_item_over_8_mib(repo: Path) -> None:
    write_file(repo / "nodes.yaml", _node_list([("a", 1024), ("b", 9 * 1024 * 1024)]), dedent=False)


@_gen("pool.yaml:1:1 AL006 file is larger than the 1000 byte limit", args=("--max-file-size", "1000"))
def gen_file_over_lowered_limit(repo: Path) -> None:
    write_file(repo / "pool.yaml", _padded_pool(5000), dedent=False)


@_gen("x.yaml:8:26 AL001 file is not valid UTF-8 (byte 0xe9) ... save it as UTF-8")
def gen_latin1_byte(repo: Path) -> None:
    text = POOL.replace(
        "    example.com/tier: general\n", "    example.com/tier: general\n    example.com/team: caf\xe9\n"
    )
    write_file(repo / "x.yaml", text.encode("latin-1"), dedent=False)


@_gen("x.yaml:1:1 AL001 file is UTF-16 encoded; save it as UTF-8")
def gen_utf16_le_with_bom(repo: Path) -> None:
    write_file(repo / "x.yaml", POOL.encode("utf-16"), dedent=False)  # native order with BOM


@_gen("x.yaml:1:1 AL001 file is UTF-16 encoded; save it as UTF-8")
def gen_utf16_be_with_bom(repo: Path) -> None:
    write_file(repo / "x.yaml", b"\xfe\xff" + POOL.encode("utf-16-be"), dedent=False)


@_gen("x.yaml:1:1 AL001 looks UTF-16 encoded (without a byte order mark)")
def gen_utf16_without_bom(repo: Path) -> None:
    write_file(repo / "x.yaml", POOL.encode("utf-16-le"), dedent=False)


@_gen()  # a UTF-8 byte order mark is accepted on purpose (Windows editors write one)
def gen_utf8_with_bom(repo: Path) -> None:
    write_file(repo / "x.yaml", b"\xef\xbb\xbf" + POOL.encode(), dedent=False)


@_gen("x.yaml:10:17 AL001 file contains a NUL character")
def gen_nul_byte(repo: Path) -> None:
    write_file(repo / "x.yaml", POOL.replace("memory: 32Gi", "memory: 32Gi\x00").encode(), dedent=False)


@_gen('x.yaml:4:9 AL004 "Bad_Name" is not a valid name')
def gen_crlf_line_endings(repo: Path) -> None:
    write_file(
        repo / "x.yaml", POOL.replace("name: web", "name: Bad_Name").replace("\n", "\r\n").encode(), dedent=False
    )


@_gen("link.yaml:1:1 AL006 symlink points outside the policy repo")
def gen_symlink_outside_repo(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    _symlink(repo / "link.yaml", _outside(repo) / "shared.yaml")


@_gen("shared:1:1 AL006 symlinked directory points outside the policy repo")
def gen_symlinked_directory_outside_repo(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    _symlink(repo / "shared", _outside(repo))


@_gen("gone.yaml:1:1 AL006 broken symlink")
def gen_broken_symlink(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    _symlink(repo / "gone.yaml", "does-not-exist.yaml")


@_gen()  # a symlink to a file inside the repo is read once, not twice (no duplicate-name error)
def gen_symlink_inside_repo(repo: Path) -> None:
    write_file(repo / "pools" / "web.yaml", POOL, dedent=False)
    _symlink(repo / "alias.yaml", Path("pools") / "web.yaml")


@_gen("x.yaml:1:1 AL006 is a directory, but its name says it is a policy file")
def gen_directory_named_like_a_policy_file(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    (repo / "x.yaml").mkdir()
    write_file(repo / "x.yaml" / "inner.txt", "not a policy", dedent=False)


@_gen(".allocatable.yaml:1:1 AL006 is a directory, expected a policy file")
def gen_settings_file_is_a_directory(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    (repo / ".allocatable.yaml").mkdir()


@_gen("x.yaml:1:66 AL001 document is nested more than 64 levels deep")
def gen_nested_lists_10_000(repo: Path) -> None:
    write_file(repo / "x.yaml", "[" * 10_000 + "]" * 10_000 + "\n", dedent=False)


@_gen("x.yaml:1:66 AL001 document is nested more than 64 levels deep")
def gen_nested_lists_1_000_000(repo: Path) -> None:
    # 2 MB: below the size limit. libyaml alone slows down quadratically and then crashes on this.
    write_file(repo / "x.yaml", "[" * 1_000_000 + "]" * 1_000_000 + "\n", dedent=False)


@_gen("x.yaml:1:131 AL001 document is nested more than 64 levels deep")
def gen_nested_block_sequences_100_000(repo: Path) -> None:
    write_file(repo / "x.yaml", "- " * 100_000 + "x\n", dedent=False)


@_gen("x.yaml:65:65 AL001 document is nested more than 64 levels deep")
def gen_nested_block_mappings_3_000(repo: Path) -> None:
    # 4.5 MB: one more space of indentation per level
    write_file(repo / "x.yaml", "".join(" " * i + "k:\n" for i in range(3_000)), dedent=False)


@_gen("x.yaml:7:85 AL001 document is nested more than 64 levels deep")
def gen_nested_flow_in_label_value(repo: Path) -> None:
    write_file(repo / "x.yaml", POOL.replace("tier: general", "tier: " + "[" * 100 + "]" * 100), dedent=False)


@_gen("lol.yaml:6:4 AL001 aliases expand to more than 100000 nodes ... billion-laughs")
def gen_billion_laughs(repo: Path) -> None:
    write_file(repo / "lol.yaml", _billion_laughs(), dedent=False)


@_gen(
    "a.yaml:11:10 AL004 spec.capacity.cpu: invalid quantity",
    "b/c.yaml:7:1 AL001 YAML does not allow tabs",
    "b/d.json:1:15 AL001 invalid JSON",
)
def gen_one_line_per_problem_across_files(repo: Path) -> None:
    write_file(repo / "a.yaml", "# first\n---\n" + POOL.replace('cpu: "8"', "cpu: lots"), dedent=False)
    write_file(repo / "b" / "c.yaml", POOL.replace("    example.com/tier", "\texample.com/tier"), dedent=False)
    write_file(repo / "b" / "d.json", '{"apiVersion" "v1"}\n', dedent=False)


def _fifo(path: Path) -> None:
    if not hasattr(os, "mkfifo"):  # pragma: no cover - Windows
        pytest.skip("no FIFOs here")
    os.mkfifo(path)


@_gen("pipe.yaml:1:1 AL006 is a FIFO (named pipe), not a regular file")
def gen_fifo_as_policy_file(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    _fifo(repo / "pipe.yaml")  # opening it for reading would block forever


@_gen(".allocatable.yaml:1:1 AL006 is a FIFO (named pipe), not a regular file")
def gen_fifo_as_settings_file(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    _fifo(repo / ".allocatable.yaml")


@_gen("sock.yaml:1:1 AL006 is a socket, not a regular file")
def gen_socket_as_policy_file(repo: Path) -> None:
    import socket

    write_file(repo / "pool.yaml", POOL, dedent=False)
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(repo / "sock.yaml"))


@_gen("zero.yaml:1:1 AL006 symlink points outside the policy repo")
def gen_symlink_to_dev_zero(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    _symlink(repo / "zero.yaml", "/dev/zero")


@_gen(".allocatable.yaml:1:1 AL006 symlink points outside the policy repo ... copy the file into the repo")
def gen_settings_symlinked_outside_repo(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    outside = _outside(repo)
    write_file(
        outside / "settings.yaml",
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nsecret: x\n",
        dedent=False,
    )
    _symlink(repo / ".allocatable.yaml", outside / "settings.yaml")


@_gen(".allocatable.yaml:1:1 AL006 broken symlink")
def gen_settings_broken_symlink(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    _symlink(repo / ".allocatable.yaml", "nowhere.yaml")


@_gen("a.yaml:1:1 AL006 symlink loop", "b.yaml:1:1 AL006 symlink loop")
def gen_symlink_loop(repo: Path) -> None:
    write_file(repo / "pool.yaml", POOL, dedent=False)
    _symlink(repo / "a.yaml", "b.yaml")
    _symlink(repo / "b.yaml", "a.yaml")


@_gen()  # a directory symlink looping back into the repo is not walked (and never crashes)
def gen_symlinked_directory_loop_inside(repo: Path) -> None:
    write_file(repo / "pools" / "web.yaml", POOL, dedent=False)
    _symlink(repo / "pools" / "again", "..")


@pytest.mark.parametrize("name", sorted(GENERATED))
def test_generated_case(name: str, tmp_path: Path) -> None:
    gen = GENERATED[name]
    repo = tmp_path / REPO
    repo.mkdir()
    gen.build(repo)
    check(tmp_path, gen.case)


def test_symlink_inside_repo_is_read_once(tmp_path: Path) -> None:
    repo = tmp_path / REPO
    repo.mkdir()
    gen_symlink_inside_repo(repo)
    res = check(tmp_path, GENERATED["symlink-inside-repo"].case)
    assert "1 object in 1 file" in res.stderr


def test_expectation_format() -> None:
    exp = parse_expectation("b/c.yaml:8:1 AL001 one ... two", "x.yaml")
    assert exp == Expectation("b/c.yaml", 8, 1, "AL001", ("one", "two"))
    assert parse_expectation("5:3 AL002 duplicate key", "x.yaml").path == "x.yaml"
    with pytest.raises(ValueError, match="bad expectation"):
        parse_expectation("5 AL002 x", "x.yaml")
