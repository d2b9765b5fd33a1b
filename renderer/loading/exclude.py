"""Paths the policy walk leaves out: ``exclude:`` globs, ``--exclude``, and ``.gitignore``.

A monorepo keeps a Helm chart, kustomize files or other Kubernetes objects beside its policies; they are not
policies, and would be errors. Three sources leave them out of the walk (``renderer.loading.files.discover``):

- ``exclude:`` in ``.allocatable.yaml`` and ``--exclude GLOB`` (repeatable) on the command line: gitignore
  patterns (https://git-scm.com/docs/gitignore) relative to the policy repo root — ``charts/`` a directory at any
  depth, ``kustomization.yaml`` a name at any depth, ``/kustomization.yaml`` the root's only, ``**`` any
  directories, ``!pattern`` takes a path back;
- inside a git work tree (unless ``respectGitignore: false``), what git ignores: the ``.gitignore`` files from the
  work tree's top down to each directory walked, each relative to its own directory, the deeper one deciding, and
  ``.git/info/exclude``, as ruff does by default. The user's global excludes file (``core.excludesFile``) is not
  read: it is one person's, and a CI run would not see it, so a repo would lint differently on two machines.

A path named on the command line is always read; exclusions apply to what the walk finds below it. Matching is
pure string work (pathspec); a ``.gitignore`` is read as a regular file of at most 1 MiB inside the repository,
never through a symlink (git itself refuses a symlinked ``.gitignore``), and one that cannot be read is skipped,
as git skips it. Cost: one pattern check per entry walked; one read per ``.gitignore``.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING

from renderer.safepath import FileProblem, read_regular

if TYPE_CHECKING:
    from pathspec import GitIgnoreSpec

__all__ = ["COMMAND_LINE", "Exclusions", "compile_patterns"]

#: ``--exclude`` of the command being run: set by ``renderer.cli`` for one run, read by every load of it (the work
#: tree's and a ``--base`` revision's alike), so the pipeline's signatures need not carry it.
COMMAND_LINE: ContextVar[tuple[str, ...]] = ContextVar("allocatable_exclude", default=())

_GITIGNORE_MAX_BYTES = 1 << 20


def compile_patterns(patterns: Sequence[str]) -> GitIgnoreSpec:
    """The patterns as one spec; ValueError naming the first pattern gitignore's rules cannot read."""
    from pathspec import GitIgnoreSpec

    for pattern in patterns:
        try:
            GitIgnoreSpec.from_lines([pattern])
        except Exception as exc:  # pathspec's pattern errors have no common public base
            raise ValueError(f"{pattern!r} is not a gitignore pattern ({exc})") from None
    return GitIgnoreSpec.from_lines(patterns)


def _git_top(start: str) -> str | None:
    for d in (start, *_parents(start)):
        if os.path.lexists(os.path.join(d, ".git")):
            return d
    return None


def _parents(path: str) -> list[str]:
    out: list[str] = []
    while True:
        parent = os.path.dirname(path)
        if parent == path:
            return out
        out.append(parent)
        path = parent


def _read_ignore(path: str) -> GitIgnoreSpec | None:
    from pathspec import GitIgnoreSpec

    try:
        text = read_regular(path, _GITIGNORE_MAX_BYTES, follow=False).decode("utf-8", "replace")
    except (FileProblem, OSError):
        return None
    try:
        return GitIgnoreSpec.from_lines(text.splitlines())
    except Exception:  # git skips a line it cannot read; pathspec refuses the file: so do we
        return None


class Exclusions:
    """Decides, directory by directory during one walk, whether an entry is left out."""

    def __init__(self, root: str, patterns: Sequence[str], *, gitignore: bool) -> None:
        self.root = os.path.abspath(root)
        self._spec = compile_patterns(patterns) if patterns else None
        self._top = _git_top(self.root) if gitignore else None
        #: directory (absolute) -> the .gitignore specs that apply in it, outermost first, with their base
        self._ignores: dict[str, list[tuple[str, GitIgnoreSpec]]] = {}
        if self._top is not None:
            chain: list[tuple[str, GitIgnoreSpec]] = []
            info = _read_ignore(os.path.join(self._top, ".git", "info", "exclude"))
            if info is not None:
                chain.append((self._top, info))
            path = [self.root, *_parents(self.root)]
            for d in reversed(path[: path.index(self._top) + 1]):
                spec = _read_ignore(os.path.join(d, ".gitignore"))
                if spec is not None:
                    chain.append((d, spec))
                self._ignores[d] = list(chain)

    @property
    def active(self) -> bool:
        return self._spec is not None or self._top is not None

    def enter(self, directory: str, names: Sequence[str]) -> None:
        """Called for each directory the walk lists (``names``: its entries), parent before child."""
        if self._top is None:
            return
        d = os.path.abspath(directory)
        if d in self._ignores:
            return
        chain = self._ignores.get(os.path.dirname(d), [])
        if ".gitignore" in names:
            spec = _read_ignore(os.path.join(d, ".gitignore"))
            if spec is not None:
                chain = [*chain, (d, spec)]
        self._ignores[d] = chain

    def excluded(self, directory: str, name: str, *, is_dir: bool) -> bool:
        """Whether ``directory/name`` is left out (a directory's contents with it)."""
        d = os.path.abspath(directory)
        full = os.path.join(d, name)
        suffix = "/" if is_dir else ""
        if self._spec is not None:
            rel = os.path.relpath(full, self.root)
            if not rel.startswith("..") and self._spec.match_file(rel.replace(os.sep, "/") + suffix):
                return True
        for base, spec in reversed(self._ignores.get(d, ())):
            decided = spec.check_file(os.path.relpath(full, base).replace(os.sep, "/") + suffix).include
            if decided is not None:
                return decided
        return False
