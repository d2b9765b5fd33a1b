"""The render stage: targets turn the capacity model into files. Returns bytes; never prints, never writes.

A target is one module in ``renderer/render/targets`` with one ``@register``-ed :class:`Target` subclass; its name
is the module name with ``_`` written as ``-`` (``openshift_kubeletconfig.py`` → ``openshift-kubeletconfig``), so the
command line can list target names without importing them. Targets return :class:`Output` values (a path and the
objects in it); the engine serialises them once, with one YAML writer, in a fixed order, so the same input always
gives the same bytes.

Public entry points for other callers (bench, Argo CD plugin, diff):

- :func:`build` → :class:`RenderResult` (files, outputs, findings), never raises on policy problems;
- :func:`render` → ``{relative path: bytes}``, raises :class:`RenderError` when a finding is at error level;
- :func:`stream` → one YAML stream (bytes) of every cluster object, for ``--stdout``.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from renderer.findings import FieldPath, Finding, Severity, SourceRef

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel, PoolCapacity
    from renderer.models.settings import RenderSettings
    from renderer.pipeline import LoadResult

MANAGED_BY = {"app.kubernetes.io/managed-by": "allocatable"}


class RenderError(Exception):
    """Rendering refused: at least one finding is at error level. ``findings`` holds all of them."""

    def __init__(self, findings: list[Finding]) -> None:
        errors = [f for f in findings if f.severity == "error"]
        super().__init__(f"{len(errors)} error{'s' if len(errors) != 1 else ''} prevent rendering")
        self.findings = findings


class UnknownTargetError(ValueError):
    """A target name that no module in renderer/render/targets provides."""


@dataclass(frozen=True)
class Output:
    """One rendered file: its path below the output directory and the documents in it."""

    path: str
    documents: tuple[Any, ...]
    sources: tuple[str, ...] = ()
    cluster: bool = True  # Kubernetes objects for the cluster (kustomization, --stdout); False for node files
    notes: tuple[str, ...] = ()  # extra header comment lines


@dataclass
class RenderContext:
    load: LoadResult
    model: CapacityModel
    findings: list[Finding] = field(default_factory=list)
    outputs: list[Output] = field(default_factory=list)  # outputs of the targets run so far
    memo: dict[str, Any] = field(default_factory=dict)  # results shared by several targets, computed once
    _paths: dict[str, str] = field(default_factory=dict)

    @property
    def settings(self) -> RenderSettings:
        return self.load.policies.settings.render

    def relpath(self, shown: str) -> str:
        """A source file's path relative to the policy directory (stable across working directories)."""
        if not self._paths:
            root = self.load.policies.root.absolute()
            for pf in self.load.files:
                self._paths[pf.display] = Path(os.path.relpath(pf.abspath, root)).as_posix()
            if self.load.settings_path is not None:
                from renderer.loading.files import display_path

                settings_abs = self.load.settings_path.absolute()
                self._paths[display_path(settings_abs)] = Path(os.path.relpath(settings_abs, root)).as_posix()
        found = self._paths.get(shown)
        return found if found is not None else Path(shown).name

    def source(self, src: SourceRef, ref: str) -> str:
        return f"{self.relpath(src.path)} ({ref})"

    def pool_source(self, pc: PoolCapacity) -> str:
        return self.source(pc.pool.source, pc.pool.ref)

    def settings_source(self) -> str | None:
        src = self.load.policies.settings_source
        return None if src is None else self.source(src, "Settings")

    def report(
        self,
        code: str,
        severity: Severity,
        message: str,
        source: SourceRef,
        obj: str | None,
        field_path: FieldPath = (),
        hint: str | None = None,
    ) -> None:
        self.findings.append(
            Finding(
                code=code,
                severity=severity,
                message=message,
                path=source.path,
                object=obj,
                hint=hint,
                source=source,
                field_path=field_path,
            )
        )

    def reporter(
        self, code: str, severity: Severity, source: SourceRef, obj: str | None
    ) -> Callable[[str, FieldPath], None]:
        """A callback reporting problems at field paths of one object (the message is prefixed with the path)."""

        def problem(message: str, where: FieldPath) -> None:
            self.report(code, severity, f"{'.'.join(str(p) for p in where)}: {message}", source, obj, where)

        return problem


class Target:
    """One kind of rendered artefact. Subclasses set the class variables and implement :meth:`render`."""

    name: ClassVar[str]
    summary: ClassVar[str]
    default: ClassVar[bool] = True  # rendered when neither --target nor render.targets says otherwise
    aggregate: ClassVar[bool] = False  # runs after the other targets and sees their outputs (kustomization)

    def render(self, ctx: RenderContext) -> list[Output]:
        raise NotImplementedError


_TARGETS: dict[str, type[Target]] = {}
_DISCOVERED: list[bool] = []  # set once every target module has been imported


def register(cls: type[Target]) -> type[Target]:
    if cls.name in _TARGETS and _TARGETS[cls.name] is not cls:
        raise RuntimeError(f"render target {cls.name} registered twice")
    _TARGETS[cls.name] = cls
    return cls


def target_names() -> list[str]:
    """Every target name, from the module names alone (cheap: imports nothing)."""
    import renderer.render.targets as pkg

    return sorted(m.name.replace("_", "-") for m in pkgutil.iter_modules(pkg.__path__) if not m.name.startswith("_"))


def all_targets() -> dict[str, type[Target]]:
    """Every target, by name, found by importing each module in renderer.render.targets (once)."""
    if not _DISCOVERED:
        import renderer.render.targets as pkg

        for mod in pkgutil.iter_modules(pkg.__path__):
            if not mod.name.startswith("_"):
                importlib.import_module(f"{pkg.__name__}.{mod.name}")
        _DISCOVERED.append(True)
    return dict(sorted(_TARGETS.items()))


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
    for name in ordered:
        produced = known[name]().render(ctx)
        ctx.outputs.extend(produced)
    files: dict[str, bytes] = {}
    w = writer()
    for out in sorted(ctx.outputs, key=lambda o: o.path):
        if out.path in files:
            raise RuntimeError(f"two render targets produce {out.path}")
        files[out.path] = w.file(out.documents, out.sources, out.notes)
    return RenderResult(files=files, outputs=ctx.outputs, findings=_unique(ctx.findings), targets=names)


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


def render(load: LoadResult, model: CapacityModel, targets: list[str] | None = None) -> dict[str, bytes]:
    """Relative path → file content. Raises :class:`RenderError` when a policy problem prevents rendering."""
    result = build(load, model, targets)
    if not result.ok:
        raise RenderError(result.findings)
    return result.files


def stream_bytes(result: RenderResult) -> bytes:
    from renderer.render.yamlout import header, writer

    docs = result.cluster_documents()
    return (header(result.cluster_sources()) + writer().dump(docs)).encode("utf-8")


def stream(load: LoadResult, model: CapacityModel, targets: list[str] | None = None) -> bytes:
    """Every cluster object (not the KubeletConfiguration files, not kustomization.yaml) as one YAML stream."""
    result = build(load, model, targets)
    if not result.ok:
        raise RenderError(result.findings)
    return stream_bytes(result)


# Codes of the findings the render stage reports itself (lint and validation have their own ranges).
POOLS_DISAGREE = "AL801"  # NodePools in one MachineConfigPool would render different configurations
SELECTOR_NOT_EXPRESSIBLE = "AL802"  # a CommitClass selector has no Koordinator label-selector equivalent
PLATFORM_OWNED_FIELD = "AL803"  # a field the Machine Config Operator owns is left out of a KubeletConfig
AUTO_SIZING_WITH_SYSTEM_RESERVED = "AL804"  # autoSizingReserved and systemReserved cannot be set together
NOT_RENDERABLE = "AL805"  # a value cannot be rendered (type, key)
NO_MACHINE_CONFIG_POOL = "AL806"  # an OpenShift pool names no MachineConfigPool; nothing is rendered for it
