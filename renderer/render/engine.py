"""The render stage: targets turn the capacity model into files. Returns bytes; never prints, never writes.

A target is one module in ``renderer/render/targets`` with one ``@register``-ed :class:`Target` subclass; its name
is the module name with ``_`` written as ``-`` (``openshift_kubeletconfig.py`` → ``openshift-kubeletconfig``), so the
command line can list target names without importing them. Targets return :class:`Output` values (a path and the
objects in it); the engine serialises them once, with one YAML writer, in a fixed order, so the same input always
gives the same bytes.

Entry points (``renderer.pipeline.render`` composes them): :func:`build` → :class:`RenderResult` (files, outputs,
findings), never raises on policy problems; :func:`stream_bytes` → one YAML stream of every cluster object, for
``--stdout``.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from renderer import submodules
from renderer.findings import Finding
from renderer.render.target import TARGETS, Delivered, Output, RenderContext, Target, UnknownTargetError

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel
    from renderer.models.settings import RenderSettings
    from renderer.validation.load import LoadResult

__all__ = [
    "RenderResult",
    "UnknownTargetError",
    "all_targets",
    "build",
    "default_targets",
    "select_targets",
    "stream_bytes",
    "target_names",
]

_DISCOVERED: list[bool] = []  # set once every target module has been imported


def target_names() -> list[str]:
    """Every target name, from the module names alone (cheap: imports nothing)."""
    import renderer.render.targets as pkg

    return sorted(name.replace("_", "-") for name in submodules.names(pkg.__path__))


def all_targets() -> dict[str, type[Target]]:
    """Every target, by name, found by importing each module in renderer.render.targets (once)."""
    if not _DISCOVERED:
        import renderer.render.targets as pkg

        for name in submodules.names(pkg.__path__):
            importlib.import_module(f"{pkg.__name__}.{name}")
        _DISCOVERED.append(True)
    return dict(sorted(TARGETS.items()))


def default_targets(settings: RenderSettings) -> list[str]:
    if settings.targets is not None:
        return list(settings.targets)
    return [name for name, cls in all_targets().items() if cls.default]


def select_targets(settings: RenderSettings, requested: Iterable[str] | None) -> list[str]:
    """The target names to run: --target values, else render.targets, else the defaults. Raises on unknown names."""
    known = all_targets()
    names = list(dict.fromkeys(requested)) if requested else default_targets(settings)
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UnknownTargetError(
            f"unknown render target{'s' if len(unknown) > 1 else ''} {', '.join(unknown)}; "
            f"known targets: {', '.join(known)}"
        )
    if not requested and not settings.koordinator and "koordinator" in names:
        names.remove("koordinator")
    return names


@dataclass
class RenderResult:
    files: dict[str, bytes]
    outputs: list[Output]
    findings: list[Finding]
    targets: list[str]
    #: every file that delivers pools' kubelet settings (a ``delivers`` target's) → its target and those pools
    delivered: dict[str, Delivered] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not any(f.severity == "error" for f in self.findings)

    def cluster_documents(self) -> list[Any]:
        docs: list[Any] = []
        for out in sorted(self.outputs, key=lambda o: o.path):
            if out.cluster:
                docs.extend(out.documents)
        return docs

    def cluster_sources(self) -> list[str]:
        seen: dict[str, None] = {}
        for out in sorted(self.outputs, key=lambda o: o.path):
            if out.cluster:
                for s in out.sources:
                    seen.setdefault(s, None)
        return sorted(seen)


def build(load: LoadResult, model: CapacityModel, targets: list[str] | None = None) -> RenderResult:
    """Run the selected targets (default: as configured) and serialise their outputs."""
    from renderer.render.yamlout import writer

    names = select_targets(load.policies.settings.render, targets)
    known = all_targets()
    ctx = RenderContext(load=load, model=model)
    ordered = sorted(names, key=lambda n: (known[n].aggregate, n))
    delivering: list[tuple[str, Output]] = []
    for name in ordered:
        produced = known[name]().render(ctx)
        ctx.outputs.extend(produced)
        if known[name].delivers:
            delivering.extend((name, o) for o in produced)
    files: dict[str, bytes] = {}
    w = writer()
    for out in sorted(ctx.outputs, key=lambda o: o.path):
        if out.path in files:
            raise RuntimeError(f"two render targets produce {out.path}")
        files[out.path] = _serialise(out, w)
    findings = [*ctx.findings, *_name_findings(load, ctx.outputs)]
    result = RenderResult(files=files, outputs=ctx.outputs, findings=configured(load, _unique(findings)), targets=names)
    result.delivered = _delivered(ctx, delivering)
    return result


def _delivered(ctx: RenderContext, outputs: list[tuple[str, Output]]) -> dict[str, Delivered]:
    """Path → the target and the pools a delivering target's file carries settings to: the pools among its sources
    (each pool's source line is exactly ``ctx.pool_source(pc)``). Cost: O(pools + sources of these outputs)."""
    by_source = {ctx.pool_source(pc): pc.pool.ref for pc in ctx.model.pools if pc.pool.origin == "NodePool"}
    out: dict[str, Delivered] = {}
    for target, o in sorted(outputs, key=lambda t: t[1].path):
        refs = tuple(dict.fromkeys(by_source[s] for s in o.sources if s in by_source))
        if refs:
            out[o.path] = Delivered(target, refs)
    return out


def configured(load: LoadResult, findings: list[Finding]) -> list[Finding]:
    """The render findings as ``rules:`` in ``.allocatable.yaml`` sets them, as lint does for its rules: a code
    switched off is dropped, another severity applies. Codes whose ``fixed`` says why they cannot be configured
    keep theirs (lint reports such an entry, AL904, and render does not run then). Cost: O(findings)."""
    from renderer.render.codes import all_codes

    rules = load.policies.settings.rules
    if not rules:
        return findings
    codes = all_codes()
    out: list[Finding] = []
    for f in findings:
        cfg = rules.get(f.code)
        code = codes.get(f.code)
        if cfg is None or code is None or code.fixed is not None:
            out.append(f)
        elif cfg.enabled:
            if cfg.severity is not None:
                f.severity = cfg.severity
            out.append(f)
    return out


def _serialise(out: Output, w: Any) -> bytes:
    """One file's bytes in its format; every writer is deterministic (keys in the order the target built them)."""
    if out.format == "json":
        import json

        (doc,) = out.documents
        return (json.dumps(doc, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if out.format == "toml":
        import tomli_w

        from renderer.render.yamlout import header

        (doc,) = out.documents
        return (header(out.sources, out.notes) + tomli_w.dumps(doc, multiline_strings=False)).encode("utf-8")
    data: bytes = w.file(out.documents, out.sources, out.notes)
    return data


def _name_findings(load: LoadResult, outputs: list[Output]) -> list[Finding]:
    """A located error for each rendered file whose name no file system takes (``safepath.name_problem``: a
    253-character ``metadata.name`` plus ``.yaml``), at the ``metadata.name`` it comes from, before anything is
    written. Cost: O(outputs × path components); the owner is looked up only for a name that is too long."""
    from pathlib import PurePosixPath

    from renderer.render.codes import NotRenderable
    from renderer.safepath import name_problem

    out: list[Finding] = []
    for o in outputs:
        for part in PurePosixPath(o.path).parts:
            problem = name_problem(part)
            if problem is None:
                continue
            owners = [(p.name, p.source, p.ref) for p in load.policies.pools]
            pols = load.policies
            for group in (pols.reservation_policies, pols.commit_classes, pols.runtime_classes):
                owners.extend((loaded.name, loaded.source, loaded.ref) for loaded in group)
            named = [owner for owner in owners if owner[0] and owner[0] in part]
            if not named:  # pragma: no cover - every rendered name comes from an object's name
                continue
            name, source, ref = max(named, key=lambda owner: len(owner[0]))
            out.append(
                Finding(
                    code=NotRenderable.code,
                    severity="error",
                    message=f"the rendered file {o.path} cannot be written: {problem}",
                    path=source.path,
                    object=ref,
                    hint=f"shorten metadata.name (it is {len(name)} characters; the file name adds to it)",
                    source=source,
                    field_path=("metadata", "name"),
                )
            )
            break
    return out


def _unique(findings: list[Finding]) -> list[Finding]:
    """One finding per problem: a policy that selects several pools is reported once, not once per pool."""
    seen: set[tuple[Any, ...]] = set()
    out: list[Finding] = []
    for f in findings:
        key = (f.code, f.severity, f.message, f.path, f.object, f.source, f.field_path)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out


def stream_bytes(result: RenderResult) -> bytes:
    from renderer.render.yamlout import header, writer

    docs = result.cluster_documents()
    return (header(result.cluster_sources()) + writer().dump(docs)).encode("utf-8")
