"""The policy repo as it is at a git revision, read from git objects (never the work tree or the index).

``load_revision(paths, ref)`` answers "what did these paths hold at ``ref``?" for ``lint --base`` and ``diff
--base``. The blobs under each path are written, by ``git ls-tree`` and ``git cat-file --batch``, into a private
temporary directory that mirrors the absolute location of the work tree, and loaded from there by
``renderer.pipeline.load`` with the working directory mirrored too. Display paths therefore come out exactly as
a work-tree load prints them (``policies/pools/eks.yaml``), so findings and diffs of the two line up, and the
position resolver reads the files it needs from the mirror. File-system paths in the result (``files[].abspath``,
``policies.root``, ``settings_path``) point into the mirror, consistently with each other. The directory lives as long as the result (or its
resolver) does and is removed afterwards.

A path that does not exist at ``ref`` loads as an empty policy set (everything in the work tree is then "added").
A ref git cannot resolve, a path outside any git repository, or a missing ``git`` is a ``UsageError``.

**Which commit ``--base REF`` reads** is decided here, once, for every command (``parse_base``, ``resolve_base``):
the merge-base of ``REF`` and the head (``HEAD``, or ``diff --head H``), as ``git diff REF...HEAD`` compares — so a
pull request is not blamed for what its base branch did after the branch point. ``--base-tip`` reads the tip of
``REF`` instead, and git's own spellings mean what they mean to ``git diff``: ``REF..`` (``REF..H``) is the tip of
``REF``, ``REF...`` (``REF...H``) the merge-base. No merge-base (unrelated histories), or one a shallow clone cannot
prove (the history that joins the two was not fetched, or is cut above the merge-base), is a one-line
``UsageError`` saying what to fetch — never a silently wrong comparison. git runs without a shell; every ref reaches
it after ``--end-of-options`` (merge-base and rev-list get resolved commit ids only), and a ref that starts with
``-`` or holds a control character is refused before git sees it.

The tree at ``ref`` is the pull request's, so it is materialised without following anything
(``renderer.private_tree.Beneath``): every directory is opened from its parent's descriptor with ``O_NOFOLLOW``, every
file and symlink created exclusively, symlinks recreated as symlinks and never written through, so a tree entry can
never reach outside the mirror. Before anything is written, the entries are checked: an entry that appears twice, a
file that is also a directory (the "symlinked directory plus a second entry of the same path" attack), a name that
git itself would refuse to check out (``.``, ``..``, ``.git``, empty) or a mode git never writes is a ``UsageError``
naming ``REF:path``. The mirror is a ``private_tree.PrivateDirectory``: removed when the result is dropped, at exit,
and on SIGTERM, SIGHUP and SIGINT (which unwind to an orderly exit); ``git cat-file`` is killed on the way.

Cost: one ``git ls-tree`` and one ``git cat-file --batch`` per path; O(entries) checks; blobs streamed in 1 MiB
chunks. Resolving a base: two ``rev-parse``, one ``merge-base``; in a shallow clone also one ``rev-list`` of the
commits since the merge-base and one read of git's shallow list (O(commits on the two sides + shallow commits)).
"""

from __future__ import annotations

import functools
import os
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from renderer import private_tree, safepath
from renderer.loading.files import POLICY_SUFFIXES, SETTINGS_FILE, UsageError, policy_root

__all__ = [
    "BaseSpec",
    "MirroredRevision",
    "Revision",
    "mirror_revision",
    "parse_base",
    "resolve_base",
    "resolve_revision",
]


@dataclass(frozen=True)
class Revision:
    """A resolved revision: what the user typed, the commit read, and the repository's top directory.

    For a ``--base``: ``tip`` is the commit ``ref`` names and ``merge_base_with`` the revision the merge-base was
    taken with (``HEAD``, or ``diff --head``'s) — then ``commit`` is that merge-base; ``merge_base_with`` is None
    when the tip itself is read (``--base-tip``, ``REF..``), and ``tip`` None for a revision that is no base."""

    ref: str
    commit: str
    top: Path
    tip: str | None = None
    merge_base_with: str | None = None
    spelled: str | None = None  # how it was asked for, when that says more than ``ref`` ("main..", "--base-tip")

    @property
    def short(self) -> str:
        return self.commit[:12]

    @property
    def is_merge_base(self) -> bool:
        return self.merge_base_with is not None

    def describe(self) -> str:
        """What was compared with, in words: ``main at its merge-base with HEAD, 1a2b3c4d5e6f (main is at
        9f8e7d6c5b4a)``, or ``the tip of main, 9f8e7d6c5b4a (--base-tip)``."""
        from renderer.escaping import plain

        ref = plain(self.ref)
        if self.merge_base_with is not None:
            where = (
                "the tip of it"
                if self.tip == self.commit
                else f"{ref} is at {self.tip[:12] if self.tip else 'an unknown commit'}"
            )
            return f"{ref} at its merge-base with {plain(self.merge_base_with)}, {self.short} ({where})"
        how = f" ({plain(self.spelled)})" if self.spelled else ""
        return f"the tip of {ref}, {self.short}{how}"

    def as_dict(self) -> dict[str, str | bool | None]:
        """The JSON form every report uses: ``ref``, ``commit`` (the one read), ``tip``, ``mergeBase`` (whether
        ``commit`` is the merge-base) and ``mergeBaseWith``."""
        return {
            "ref": self.ref,
            "commit": self.commit,
            "tip": self.tip if self.tip is not None else self.commit,
            "mergeBase": self.is_merge_base,
            "mergeBaseWith": self.merge_base_with,
        }


@dataclass(frozen=True)
class BaseSpec:
    """What ``--base`` asks for: ``ref``, read at its merge-base with the head unless ``tip``; ``head``: the right
    side of ``REF..H`` / ``REF...H`` when one was written; ``spelled``: how the tip was asked for."""

    ref: str
    tip: bool = False
    head: str | None = None
    spelled: str | None = None


def check_ref(ref: str, what: str = "git revision") -> str:
    """``ref`` when it can be handed to git as a revision, else a UsageError: empty, starting with ``-`` (it would
    be read as an option), or holding a control character (it would forge lines of git's output or of ours)."""
    from renderer.escaping import plain

    if not ref or ref.startswith("-") or any(ord(c) < 0x20 or ord(c) == 0x7F for c in ref) or len(ref) > 4096:
        shown = plain(ref[:80]) + ("…" if len(ref) > 80 else "")
        raise UsageError(f'"{shown}" is not a {what}: a branch, tag or commit (it may not start with "-")')
    return ref


def parse_base(text: str, *, tip: bool = False, head: str | None = None, allow_head: bool = True) -> BaseSpec:
    """``--base TEXT`` (and ``--base-tip``, ``--head``) as git would read ``git diff TEXT``: ``REF`` and ``REF...``
    are the merge-base of REF and the head, ``REF..`` the tip of REF; a right side (``REF...H``) names the head,
    which only ``diff`` takes (``allow_head``) and which must agree with ``head`` when both are given."""
    check_ref(text)
    if "..." in text:
        left, _, right = text.partition("...")
        dots = "..."
    elif ".." in text:
        left, _, right = text.partition("..")
        dots = ".."
    else:
        left, right, dots = text, "", ""
    if dots:
        if not left or ".." in right:
            raise UsageError(
                f'"{text}" is not a base: write REF, REF... (its merge-base with the head) or REF.. (its tip), the '
                "base before the dots"
            )
        check_ref(left)
        if dots == "..." and tip:
            raise UsageError(
                f"--base-tip and {text} ask for different commits: REF... is the merge-base (as in git diff REF...); "
                f"write {left}.. or drop --base-tip"
            )
    if right:
        check_ref(right)
        if not allow_head:
            raise UsageError(
                f"{text}: this command compares the work tree with the base; write {left}{dots} without a second "
                "revision"
            )
        if head is not None and head != right:
            raise UsageError(f"{text} and --head {head} name two different heads; give one of them")
        head = right
    as_tip = tip or dots == ".."
    spelled = "--base-tip" if tip else (text if dots == ".." else None)
    return BaseSpec(ref=left if dots else text, tip=as_tip, head=head, spelled=spelled)


def _git(top: Path | None, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[bytes]:
    cmd = ["git", "--literal-pathspecs", "--no-pager"]
    if top is not None:
        cmd += ["-C", str(top)]
    env = dict(os.environ, GIT_OPTIONAL_LOCKS="0", LC_ALL="C")
    try:
        return subprocess.run(
            [*cmd, *args], cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, env=env, check=False
        )
    except FileNotFoundError:
        raise UsageError("git is not installed or not on PATH; --base needs it") from None


def _first_line(raw: bytes) -> str:
    for line in raw.decode("utf-8", "replace").splitlines():
        line = line.strip()
        if line:
            return line.removeprefix("fatal: ").removeprefix("error: ")
    return "unknown git error"


def _existing_ancestor(p: Path) -> Path:
    cur = p
    while not cur.exists():
        if cur.parent == cur:
            break
        cur = cur.parent
    return cur


def _real(p: Path) -> Path:
    """``p`` made absolute with symlinks resolved, also when its tail does not exist (any more)."""
    p = p.absolute()
    anchor = _existing_ancestor(p)
    return anchor.resolve() / p.relative_to(anchor)


def resolve_revision(path: Path, ref: str) -> Revision:
    """The git repository containing ``path`` and the commit ``ref`` names there, or a UsageError."""
    check_ref(ref)
    start = _existing_ancestor(path.absolute())
    if start.is_file():
        start = start.parent
    top_proc = _git(start, "rev-parse", "--show-toplevel")
    if top_proc.returncode != 0:
        msg = _first_line(top_proc.stderr)
        if "not a git repository" in msg:
            raise UsageError(f"{path.as_posix()} is not inside a git repository; --base needs the policy repo in git")
        raise UsageError(f"git: {msg}")
    top = Path(top_proc.stdout.decode("utf-8", "surrogateescape").strip())
    rev = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{ref}^{{commit}}")
    if rev.returncode != 0:
        shallow = _git(top, "rev-parse", "--is-shallow-repository").stdout.strip() == b"true"
        hint = (
            "; this clone is shallow: fetch the base first (git fetch --depth=1 origin <branch>, "
            "or actions/checkout with fetch-depth: 0)"
            if shallow
            else "; is it fetched? (git fetch origin <branch>)"
        )
        raise UsageError(f'unknown git revision "{ref}": not a commit, branch or tag in {top.as_posix()}{hint}')
    return Revision(ref=ref, commit=rev.stdout.decode().strip(), top=top)


def _shallow_commits(top: Path) -> set[str] | None:
    """The commits whose parents this clone does not have (git's own list, ``$GIT_DIR/shallow``), or None when the
    clone is not shallow. One ``git rev-parse``."""
    proc = _git(top, "rev-parse", "--is-shallow-repository", "--git-path", "shallow")
    lines = proc.stdout.decode("utf-8", "surrogateescape").splitlines()
    if proc.returncode != 0 or len(lines) != 2 or lines[0].strip() != "true":
        return None
    try:
        text = (top / lines[1].strip()).read_text(encoding="ascii", errors="replace")
    except OSError:
        return set()
    return {line.strip() for line in text.splitlines() if line.strip()}


def _fetch_more(ref: str, head_commit: str) -> str:
    """What to run to get the history a merge-base needs (deepening from both sides: a ``--deepen`` fetch deepens
    only the cut commits reachable from what it fetches)."""
    from renderer.escaping import plain

    remote_ref = plain(ref.removeprefix("origin/"))
    return (
        f"fetch more history (git fetch --unshallow, or git fetch --deepen=100 origin {remote_ref} {head_commit} "
        "until it is found; in GitHub Actions, actions/checkout with fetch-depth: 0), or compare with the tip with "
        "--base-tip"
    )


def resolve_base(path: Path, spec: BaseSpec) -> Revision:
    """The commit a ``--base`` reads: the merge-base of ``spec.ref`` and the head (``spec.head``, else ``HEAD``),
    or with ``spec.tip`` the tip of ``spec.ref``. A UsageError when there is none, or when a shallow clone cannot
    prove the one it finds (see the module docstring)."""
    from renderer.escaping import plain

    tip = resolve_revision(path, spec.ref)
    if spec.tip:
        return Revision(spec.ref, tip.commit, tip.top, tip=tip.commit, spelled=spec.spelled)
    against = spec.head or "HEAD"
    top = tip.top
    head = _git(top, "rev-parse", "--verify", "--quiet", "--end-of-options", f"{against}^{{commit}}")
    if head.returncode != 0:
        if spec.head is None:
            raise UsageError(
                f"HEAD of {top.as_posix()} is no commit yet, so it has no merge-base with {plain(spec.ref)}; commit "
                "first, or compare with the tip with --base-tip"
            )
        head_rev = resolve_revision(path, against)  # raises the usual "unknown git revision" error
        head_commit = head_rev.commit
    else:
        head_commit = head.stdout.decode().strip()
    # Both are commit ids now: nothing below can be read as an option.
    found = _git(top, "merge-base", tip.commit, head_commit)
    base = found.stdout.decode().strip()
    cut = _shallow_commits(top)
    shallow = cut is not None
    pair = f"{plain(spec.ref)} ({tip.short}) and {plain(against)} ({head_commit[:12]})"
    if found.returncode != 0 or not base:
        if found.returncode not in (0, 1):
            raise UsageError(f"git merge-base {plain(spec.ref)} {plain(against)}: {_first_line(found.stderr)}")
        if shallow:
            raise UsageError(
                f"no merge-base of {pair} in this shallow clone: the history that joins them was not fetched; "
                + _fetch_more(spec.ref, head_commit)
            )
        raise UsageError(
            f"{pair} have no common history (no merge-base): they are unrelated; compare with the tip with "
            f"--base-tip (or {plain(spec.ref)}..)"
        )
    if cut:
        # A merge-base found in a cut history is exact only when no commit above it had its parents cut.
        above = _git(top, "rev-list", tip.commit, head_commit, f"^{base}")
        if above.returncode != 0 or cut & set(above.stdout.decode().split()):
            raise UsageError(
                f"the merge-base of {pair} cannot be told in this shallow clone: the history above {base[:12]} is "
                "cut; " + _fetch_more(spec.ref, head_commit)
            )
    return Revision(spec.ref, base, top, tip=tip.commit, merge_base_with=against)


#: Modes of blobs git writes: regular, executable, symlink (and the group-writable regular mode of very old
#: repositories, which git still reads). Anything else in a tree was crafted by hand.
_BLOB_MODES = {"100644": "file", "100755": "file", "100664": "file", "120000": "symlink"}


@dataclass(frozen=True)
class _Entry:
    mode: str
    sha: str
    parts: tuple[str, ...]  # where it goes, relative to the mirror's root
    name: str  # its path in the tree, for messages
    size: int = 0  # bytes (what the mirror will hold)


def _odd_name(parts: list[str]) -> str | None:
    for part in parts:
        if part in ("", ".", ".."):
            return f"a path component {part!r}"
        if part.casefold().rstrip(". ") == ".git":
            return "a component named .git"
        if "\0" in part:  # pragma: no cover - git trees cannot hold a NUL in a name
            return "a NUL character"
    return None


def _refuse(rev: Revision, name: str, why: str) -> UsageError:
    from renderer.escaping import plain

    return UsageError(
        f"{plain(rev.ref)}:{plain(name)}: {why}; git never writes such a tree, so this revision is refused (nothing was "
        "read from it)"
    )


def _tree_entries(rev: Revision, rel: str, dest: tuple[str, ...]) -> list[_Entry]:
    """Blobs (files and symlinks) at or under ``rel`` (POSIX, relative to the top; "" for the whole repo), each with
    where it goes in the mirror (below ``dest``). Names and modes are checked here (``_odd_name``, ``_BLOB_MODES``)."""
    args = ["ls-tree", "-r", "-z", "-l", "--full-tree", rev.commit]
    if rel:
        args += ["--", rel]
    proc = _git(rev.top, *args)
    if proc.returncode != 0:
        raise UsageError(f"git ls-tree {rev.ref}: {_first_line(proc.stderr)}")
    prefix = rel + "/" if rel else ""
    entries: list[_Entry] = []
    for record in proc.stdout.split(b"\0"):
        if not record:
            continue
        meta, _, name_b = record.partition(b"\t")
        fields = meta.decode("ascii", "replace").split()
        if len(fields) != 4:  # pragma: no cover - git's own format: mode, type, object, size (or "-")
            raise UsageError(f"git ls-tree {rev.ref}: unexpected output")
        mode, kind, sha, size = fields
        name = name_b.decode("utf-8", "surrogateescape")
        if kind == "commit":  # submodules are not part of the policy repo
            continue
        if kind != "blob" or mode not in _BLOB_MODES:
            raise _refuse(rev, name, f"tree entry of mode {mode} ({kind})")
        if name == rel:
            sub = ""
        elif name.startswith(prefix):
            sub = name[len(prefix) :]
        else:  # pragma: no cover - ls-tree returns only matches of the pathspec
            continue
        parts = sub.split("/") if sub else []
        odd = _odd_name(name.split("/"))
        if odd is not None:
            raise _refuse(rev, name, f"its path holds {odd}")
        entries.append(_Entry(mode, sha, (*dest, *parts), name, int(size) if size.isdigit() else 0))
    return entries


def _check_layout(rev: Revision, entries: list[_Entry], placed: dict[tuple[str, ...], _Entry]) -> list[_Entry]:
    """The entries not written yet, after refusing any that collide: a path listed twice with different content, or
    a path that is a file (or symlink) for one entry and a directory for another. ``placed`` (path → entry, with
    every directory as a key mapped to None-like markers) accumulates across calls."""
    listed: set[tuple[str, ...]] = set()
    for e in entries:
        if e.parts in listed:
            raise _refuse(rev, e.name, "appears twice in the tree")
        listed.add(e.parts)
    new: list[_Entry] = []
    for e in entries:
        earlier = placed.get(e.parts)
        if earlier is not None:
            if earlier.mode == "tree":
                raise _refuse(rev, e.name, "is both a directory and a file in the tree")
            if (earlier.mode, earlier.sha, earlier.name) == (e.mode, e.sha, e.name):
                continue  # the same entry, asked for by two overlapping paths
            raise _refuse(rev, e.name, "appears twice in the tree")
        for i in range(1, len(e.parts)):
            above = placed.get(e.parts[:i])
            if above is not None and above.mode != "tree":
                raise _refuse(rev, e.name, f"is inside {above.name}, which is a {_BLOB_MODES[above.mode]} in the tree")
            if above is None:
                placed[e.parts[:i]] = _Entry("tree", "", e.parts[:i], e.name)
        placed[e.parts] = e
        new.append(e)
    return new


def _write_blobs(rev: Revision, entries: list[_Entry], tree: private_tree.Beneath) -> None:
    if not entries:
        return
    with tempfile.TemporaryFile() as requests:
        requests.write("".join(f"{e.sha}\n" for e in entries).encode())
        requests.seek(0)
        env = dict(os.environ, GIT_OPTIONAL_LOCKS="0")
        proc = subprocess.Popen(
            ["git", "-C", str(rev.top), "cat-file", "--batch"],
            stdin=requests,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        try:
            assert proc.stdout is not None
            for entry in entries:
                header = proc.stdout.readline().split()
                if len(header) != 3 or header[1] != b"blob" or not header[2].isdigit() or len(header[2]) > 15:
                    raise UsageError(f"git cat-file: cannot read object {entry.sha} of {rev.ref}")
                size = int(header[2])
                try:
                    if entry.mode == "120000":
                        target = proc.stdout.read(size).decode("utf-8", "surrogateescape")
                        tree.symlink(entry.parts, target)
                    else:
                        tree.write_file(entry.parts, functools.partial(_copy, proc.stdout, size=size))
                except OSError as exc:
                    raise _refuse(rev, entry.name, f"cannot be written to the mirror ({exc.strerror or exc})") from None
                proc.stdout.read(1)  # the LF after each object
        except BaseException:
            proc.kill()
            raise
        finally:
            if proc.stdout is not None:
                proc.stdout.close()
            proc.wait()
        if proc.returncode != 0:
            raise UsageError(f"git cat-file failed reading {rev.ref}")


def _copy(src: IO[bytes], fd: int, *, size: int) -> None:
    left = size
    while left:
        chunk = src.read(min(left, 1 << 20))
        if not chunk:
            raise UsageError("git cat-file: unexpected end of output")
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd, view) :]
        left -= len(chunk)


def _mirror_parts(p: Path) -> tuple[str, ...]:
    """Where the absolute path ``p`` lives inside the mirror, as path components below its root."""
    p = p.absolute()
    return tuple(p.parts[1:]) if p.anchor else tuple(p.parts)


def _looks_like_file(p: Path) -> bool:
    return p.is_file() or (not p.exists() and p.name.endswith(POLICY_SUFFIXES))


@dataclass
class MirroredRevision:
    """``paths`` as they are at a revision, written into a private mirror of the work tree.

    ``load_paths`` are the mirrored paths to load, ``cwd`` the mirrored working directory to load them from (so
    display paths come out as a work-tree load prints them), ``checkout`` owns the directory, ``top`` is the mirror
    of the repository's top (the repository that ``safepath`` confines reads to while loading)."""

    revision: Revision
    checkout: private_tree.PrivateDirectory
    load_paths: list[Path]
    cwd: Path
    top: Path | None = None

    @contextmanager
    def working_directory(self) -> Iterator[None]:
        old = os.getcwd()
        os.chdir(self.cwd)
        try:
            with safepath.confined_to(self.top or self.cwd):
                yield
        finally:
            os.chdir(old)


def _make_dir(tree: private_tree.Beneath, rev: Revision, parts: tuple[str, ...], shown: str) -> None:
    try:
        tree.directory(parts)
    except OSError:
        raise UsageError(
            f"{shown} is a symlink or a file at {rev.ref}, not a directory; refusing to read it through the mirror"
        ) from None


def mirror_revision(paths: list[Path], ref: str | BaseSpec | Revision) -> MirroredRevision:
    """Write ``paths`` (default ``policies/``) and the root's settings file as they are at ``ref`` (a revision, a
    ``--base`` to resolve with ``resolve_base``, or a revision resolved already) into a mirror."""
    paths = list(paths) or [Path("policies")]
    if isinstance(ref, Revision):
        rev = ref
    elif isinstance(ref, BaseSpec):
        rev = resolve_base(paths[0], ref)
    else:
        rev = resolve_revision(paths[0], ref)
    ref = rev.ref
    cwd = Path.cwd()
    root = policy_root(paths) if paths[0].exists() else (paths[0].parent if _looks_like_file(paths[0]) else paths[0])
    # Everything to write is listed (and refused, if git never writes such a tree) before anything is written.
    wanted: list[tuple[Path, tuple[str, ...]]] = []  # (work-tree path as given, its place in the mirror)
    placed: dict[tuple[str, ...], _Entry] = {}
    blobs: list[_Entry] = []
    for arg in [*paths, root / SETTINGS_FILE]:
        real = _real(arg)
        try:
            rel = real.relative_to(rev.top).as_posix()
        except ValueError:
            raise UsageError(
                f"{arg.as_posix()} is outside the git repository {rev.top.as_posix()}; "
                "--base compares paths of one repository"
            ) from None
        wanted.append((arg, _mirror_parts(arg)))
        blobs += _check_layout(rev, _tree_entries(rev, "" if rel == "." else rel, wanted[-1][1]), placed)
    wanted.pop()  # the settings file is read by load() from the root
    checkout = private_tree.private_directory("allocatable-rev-", size=sum(e.size for e in blobs))
    try:
        with private_tree.Beneath(checkout.path) as tree:
            _write_blobs(rev, blobs, tree)
            root_parts = _mirror_parts(root)
            if not tree.exists(root_parts):
                _make_dir(tree, rev, root_parts, root.as_posix())
            load_paths: list[Path] = []
            for i, (arg, parts) in enumerate(wanted):
                mirrored = checkout.path.joinpath(*parts)
                if tree.exists(parts) or os.path.lexists(mirrored):
                    load_paths.append(mirrored)
                elif i == 0:
                    # The first path names the root; keep that root even though the path is absent at this revision.
                    if _looks_like_file(arg):
                        load_paths.append(checkout.path.joinpath(*root_parts))
                    else:
                        _make_dir(tree, rev, parts, arg.as_posix())
                        load_paths.append(mirrored)
            if not load_paths:
                load_paths = [checkout.path.joinpath(*root_parts)]
            # A path that is a symlink at the revision is followed only while it stays in the repository's mirror:
            # a link to /etc (or ../../..) in a commit must not make --base read this machine's files.
            mirror_top = checkout.path.joinpath(*_mirror_parts(rev.top))
            mirror_top_real = os.path.realpath(mirror_top)
            for arg, parts in wanted:
                mirrored = checkout.path.joinpath(*parts)
                if mirrored not in load_paths:
                    continue
                if not safepath.inside(os.path.realpath(mirrored), mirror_top_real):
                    raise UsageError(
                        f"{arg.as_posix()} is a symlink at {ref} that leads outside the git repository; refusing to "
                        "read it"
                    )
            cwd_parts = _mirror_parts(cwd)
            _make_dir(tree, rev, cwd_parts, cwd.as_posix())
    except BaseException:
        checkout.cleanup()
        raise
    return MirroredRevision(rev, checkout, load_paths, checkout.path.joinpath(*cwd_parts), mirror_top)
