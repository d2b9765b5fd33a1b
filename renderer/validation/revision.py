"""``load_revision(paths, ref)``: the policy repo as it is at a git revision, loaded and validated.

The files come from git objects (``renderer.loading.git.mirror_revision``: never the work tree or the index), written
into a private mirror of the work tree and loaded from there with the working directory mirrored too, so display
paths come out exactly as a work-tree load prints them (``policies/pools/eks.yaml``) and findings and diffs of the two
line up. File-system paths in the result (``files[].abspath``, ``policies.root``, ``settings_path``) point into the
mirror, consistently with each other; the mirror lives as long as the result (or its resolver) does.

A path that does not exist at ``ref`` loads as an empty policy set (everything in the work tree is then "added").
A ref git cannot resolve, a path outside any git repository, or a missing ``git`` is a ``UsageError``.

``ref`` may be a ``--base`` (``renderer.loading.git.BaseSpec``): the commit read is then its merge-base with the head
unless the tip was asked for (``resolve_base``); ``result.revision`` says which commit that was.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from renderer.findings import Finding, SourceRef
from renderer.loading.git import BaseSpec, Revision, mirror_revision
from renderer.validation.load import LoadResult, load

if TYPE_CHECKING:
    from renderer.validation.reuse import FileMemo

__all__ = ["load_revision"]


def load_revision(
    paths: list[Path],
    ref: str | BaseSpec | Revision,
    *,
    max_file_bytes: int | None = None,
    memo: FileMemo | None = None,
) -> LoadResult:
    """Load ``paths`` (default ``policies/``) as they are at git revision ``ref``; see the module docstring.
    ``memo``: as :func:`renderer.validation.load.load` takes it."""
    mirrored = mirror_revision(paths, ref)
    try:
        with mirrored.working_directory():
            result = load(mirrored.load_paths, max_file_bytes=max_file_bytes, memo=memo)
    except BaseException:
        mirrored.checkout.cleanup()
        raise
    _unmirror(result, mirrored.checkout.path)
    result.mirrored = mirrored
    # The resolver reads files lazily: keep the mirror alive as long as the resolver is.
    setattr(result.resolver, "_checkout", mirrored.checkout)  # noqa: B010
    return result


def _unmirror(result: LoadResult, checkout: Path) -> None:
    """Display paths that left the mirror as absolute paths (a working directory far from the repo) lose the
    mirror's prefix. Display paths relative to the working directory are already identical to the work tree's.
    File-system paths (``files[].abspath``, ``policies.root``, ``settings_path``) keep pointing into the mirror,
    where the files can be read while the result lives."""
    prefix = checkout.as_posix()

    def fix(s: str) -> str:
        return s.replace(prefix + "/", "/") if prefix in s else s

    def fix_source(src: SourceRef | None) -> SourceRef | None:
        return src._replace(path=fix(src.path)) if src is not None and prefix in src.path else src

    def fix_finding(f: Finding) -> None:
        f.path = fix(f.path)
        f.message = fix(f.message)
        if f.hint:
            f.hint = fix(f.hint)
        f.source = fix_source(f.source)

    for f in result.findings:
        fix_finding(f)
    pols = result.policies
    for group in (pols.commit_classes, pols.reservation_policies, pols.runtime_classes):
        for loaded in group:
            src = fix_source(loaded.source)
            if src is not None:
                loaded.source = src
    for i, pool in enumerate(pols.pools):
        if prefix in pool.source.path:
            pols.pools[i] = replace(pool, source=pool.source._replace(path=fix(pool.source.path)))
    pols.settings_source = fix_source(pols.settings_source)
    result.files[:] = [pf._replace(display=fix(pf.display)) for pf in result.files]
    abspaths = getattr(result.resolver, "_abspaths", None)
    if isinstance(abspaths, dict) and any(prefix in k for k in abspaths):
        fixed = {fix(k): v for k, v in abspaths.items()}
        abspaths.clear()
        abspaths.update(fixed)
