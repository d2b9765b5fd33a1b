"""The first two stages together: read every policy file (``renderer.loading``) and validate it.

``load(paths)`` returns a :class:`LoadResult`, the product every later stage (capacity model, lint, render, diff)
starts from. It lives here, below those stages, so none of them imports the pipeline that composes them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from renderer.findings import Finding
from renderer.loading.documents import Bounds, Source, read
from renderer.loading.files import (
    SETTINGS_FILE,
    FileProblem,
    PolicyFile,
    discover,
    is_stdin,
    policy_root,
    read_regular,
    settings_file,
)
from renderer.loading.positions import PositionResolver
from renderer.validation.validate import PolicySet, Validator

if TYPE_CHECKING:
    from renderer.loading.exclude import Exclusions
    from renderer.loading.git import MirroredRevision, Revision
    from renderer.models.settings import Settings
    from renderer.validation.reuse import FileMemo

__all__ = ["LoadResult", "load"]


@dataclass(eq=False, repr=False)
class LoadResult:
    """What ``load`` read: the policy set, its findings, the files and where to look up positions."""

    policies: PolicySet
    findings: list[Finding]
    files: list[PolicyFile]
    resolver: PositionResolver
    settings_path: Path | None = None
    #: Loaded from git objects (``renderer.validation.revision``): the mirror the files were read from, kept alive
    #: as long as this result; None for the work tree.
    mirrored: MirroredRevision | None = None

    @property
    def revision(self) -> Revision | None:
        """The git revision loaded (None: the work tree)."""
        return self.mirrored.revision if self.mirrored is not None else None

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def finish(self, findings: list[Finding]) -> list[Finding]:
        """Resolve positions (lazily, only for these findings) and sort."""
        self.resolver.resolve(findings)
        findings.sort(key=Finding.sort_key)
        return findings


def _exclusions(root: Path, settings: Settings) -> Exclusions | None:
    """What the walk leaves out: ``exclude:``, ``--exclude`` and, in a git work tree, what git ignores."""
    from renderer.loading.exclude import COMMAND_LINE, Exclusions

    patterns = [*settings.exclude, *COMMAND_LINE.get()]
    if is_stdin(root) or not root.is_dir():
        return None
    found = Exclusions(str(root), patterns, gitignore=settings.respectGitignore)
    return found if found.active else None


def _chart_hint(findings: list[Finding], path: Path, root: Path) -> list[Finding]:
    """A Helm chart's template is not YAML until Helm renders it: its AL001 says how to leave the chart out."""
    from renderer.validation.foreign import chart_directory, exclude_hint

    if is_stdin(root) or chart_directory(path, root) is None:
        return findings
    hint = exclude_hint(path, root)
    for f in findings:
        if f.code == "AL001":
            f.hint = hint if f.hint is None else f"{f.hint}; {hint}"
    return findings


def load(paths: list[Path], *, max_file_bytes: int | None = None, memo: FileMemo | None = None) -> LoadResult:
    """Read and validate every policy document under ``paths`` (default: ``policies/``).

    ``memo``: shared by the loads of two revisions, a file whose bytes another load validated without a finding
    is not read again (``renderer.validation.reuse``)."""
    if not paths:
        paths = [Path("policies")]
    root = policy_root(paths) if paths[0].exists() or is_stdin(paths[0]) else paths[0]
    validator = Validator()
    validator.policies.root = root
    abspaths: dict[str, Path] = {}

    settings_shown: Path | None = None
    settings, problems = settings_file(root)
    validator.findings.extend(problems)
    if settings is not None:
        got = read(Source.file(settings.abspath, settings.display), Bounds(max_file_bytes or Bounds().max_file_bytes))
        docs = got.documents
        validator.findings.extend(got.findings())
        if got.ok:
            abspaths[settings.display] = settings.abspath
            real_docs = [d for d in docs if d.data is not None]
            validator.set_settings(real_docs[0] if real_docs else None, len(real_docs))
        settings_shown = root / SETTINGS_FILE
    limit = max_file_bytes or validator.policies.settings.limits.maxFileBytes

    exclusions = _exclusions(root, validator.policies.settings)
    files, problems = discover(paths, root, max_bytes=limit, exclusions=exclusions)
    validator.findings.extend(problems)
    bounds = Bounds(max_file_bytes=limit)
    for pf in files:
        source = Source.file(pf.abspath, pf.display)
        key = None
        if memo is not None:
            try:
                data = read_regular(pf.abspath, bounds.max_file_bytes)
            except FileProblem:
                pass  # read below, as without a memo: the problem is worded there
            else:
                key = memo.key(pf.display, bounds, data)
                known = memo.get(key)
                if known is not None:
                    abspaths[pf.display] = pf.abspath
                    for record in known:
                        validator.register(*record)
                    continue
                source = Source.of_bytes(data, pf.display)
                del data
        got = read(source, bounds)
        del source
        if not got.ok:
            validator.findings.extend(_chart_hint(got.findings(), pf.abspath, root))
            continue
        docs = got.documents
        abspaths[pf.display] = pf.abspath  # positions are looked up only in files that were read
        if all(d.data is None for d in docs):
            validator.findings.append(
                Finding(
                    "AL003", "error", "file holds no policy documents; add one or delete the file", pf.display, 1, 1
                )
            )
            continue
        if key is None:
            for doc in docs:
                validator.add_document(doc)
            continue
        assert memo is not None
        before, validator.recording = validator.findings.added, []
        for doc in docs:
            validator.add_document(doc)
        if validator.findings.added == before:
            memo.put(key, validator.recording)
        validator.recording = None
    result = LoadResult(
        policies=validator.policies,
        findings=validator.findings.close(),
        files=files,
        resolver=PositionResolver(abspaths),
        settings_path=settings_shown,
    )
    return result
