"""load → validate (→ capacity model → lint → render, in later stages). Returns results; never prints."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import wraps
from pathlib import Path
from typing import ParamSpec, TypeVar

from renderer.findings import Finding, SourceRef
from renderer.loading.files import SETTINGS_FILE, PolicyFile, discover, display_path, policy_root
from renderer.loading.parse import DEFAULT_MAX_FILE_BYTES, read_file
from renderer.loading.positions import PositionResolver
from renderer.validation.validate import PolicySet, Validator


@dataclass
class LoadResult:
    policies: PolicySet
    findings: list[Finding]
    files: list[PolicyFile]
    resolver: PositionResolver
    settings_path: Path | None = None
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def finish(self, findings: list[Finding]) -> list[Finding]:
        """Resolve positions (lazily, only for these findings) and sort."""
        self.resolver.resolve(findings)
        findings.sort(key=Finding.sort_key)
        return findings


_P = ParamSpec("_P")
_R = TypeVar("_R")


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while a stage builds many objects, then restore it.

    Policy data has no reference cycles worth collecting mid-run, but the collector still scans every live object
    each time a generation fills up; on 10,000-document repos that made load and lint grow faster than linearly.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _stage(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    @wraps(fn)
    def run(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with _gc_paused():
            return fn(*args, **kwargs)

    return run


@_stage
def load(paths: list[Path], *, max_file_bytes: int | None = None) -> LoadResult:
    """Read and validate every policy document under ``paths`` (default: ``policies/``)."""
    if not paths:
        paths = [Path("policies")]
    root = policy_root(paths) if paths[0].exists() else paths[0]
    validator = Validator()
    validator.policies.root = root
    abspaths: dict[str, Path] = {}

    settings_path = root / SETTINGS_FILE
    settings_shown: Path | None = None
    if settings_path.exists() or settings_path.is_symlink():
        shown = display_path(settings_path.absolute())
        abspaths[shown] = settings_path.absolute()
        docs, problems = read_file(str(settings_path), shown, max_file_bytes or DEFAULT_MAX_FILE_BYTES)
        validator.findings.extend(problems)
        if not problems:
            real_docs = [d for d in docs if d.data is not None]
            validator.set_settings(real_docs[0] if real_docs else None, len(real_docs))
        settings_shown = settings_path
    limit = max_file_bytes or validator.policies.settings.limits.maxFileBytes

    files, problems = discover(paths, root)
    validator.findings.extend(problems)
    for pf in files:
        abspaths[pf.display] = pf.abspath
        docs, problems = read_file(str(pf.abspath), pf.display, limit)
        if problems:
            validator.findings.extend(problems)
            continue
        if all(d.data is None for d in docs):
            validator.findings.append(
                Finding(
                    "AL003", "error", "file holds no policy documents; add one or delete the file", pf.display, 1, 1
                )
            )
            continue
        for doc in docs:
            validator.add_document(doc)
    result = LoadResult(
        policies=validator.policies,
        findings=validator.findings,
        files=files,
        resolver=PositionResolver(abspaths),
        settings_path=settings_shown,
    )
    return result


def object_source(path: str, doc: int = 0) -> SourceRef:
    return SourceRef(path=path, doc=doc)


@dataclass
class LintResult:
    """``load`` plus the lint stage: every finding (validation first if any), positions resolved, sorted."""

    load: LoadResult
    findings: list[Finding]

    @property
    def valid(self) -> bool:
        """False when validation failed (no rule ran then)."""
        return self.load.ok


@_stage
def lint(
    paths: list[Path],
    *,
    max_file_bytes: int | None = None,
    base: str | None = None,
) -> LintResult:
    """Validate, build the capacity model and apply the lint rules; ``base``: also compare with that git revision.

    Validation errors stop here (their findings are returned, no rule runs). A ``base`` git cannot resolve raises
    ``UsageError``."""
    from renderer.capacity.model import build
    from renderer.lint.engine import run_rules

    result = load(paths, max_file_bytes=max_file_bytes)
    if not result.ok:
        return LintResult(result, result.finish(result.findings))
    base_model = None
    if base is not None:
        from renderer.loading.git import load_revision

        base_model = build(load_revision(paths or [Path("policies")], base, max_file_bytes=max_file_bytes).policies)
    findings = run_rules(result, build(result.policies), base_model=base_model, base_ref=base)
    return LintResult(result, result.finish([*result.findings, *findings]))


@_stage
def render(
    paths: list[Path], *, max_file_bytes: int | None = None, targets: list[str] | None = None
) -> dict[str, bytes]:
    """load → validate → capacity model → lint → render, in memory: relative path → file content.

    Raises ``RenderError`` when validation or lint reports errors (nothing is rendered then)."""
    from renderer.capacity.model import build
    from renderer.lint.engine import run_rules
    from renderer.render import engine

    result = load(paths, max_file_bytes=max_file_bytes)
    if not result.ok:
        raise engine.RenderError(result.finish(result.findings))
    model = build(result.policies)
    lint_findings = run_rules(result, model)
    if any(f.severity == "error" for f in lint_findings):
        raise engine.RenderError(result.finish(lint_findings))
    return engine.render(result, model, targets)
