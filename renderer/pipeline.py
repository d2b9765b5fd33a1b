"""load → validate (→ capacity model → lint → render, in later stages). Returns results; never prints."""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import wraps
from pathlib import Path
from typing import ParamSpec, TypeVar

from renderer.findings import Finding, SourceRef
from renderer.validation.load import LoadResult
from renderer.validation.load import load as _load

__all__ = ["LintResult", "LoadResult", "lint", "load", "render"]


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
    return _load(paths, max_file_bytes=max_file_bytes)


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
        from renderer.validation.revision import load_revision

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
