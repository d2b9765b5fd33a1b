"""What a render target is: the :class:`Target` base, its :class:`RenderContext`, the :class:`Output` it returns
and ``@register`` (the codes of the findings the render stage reports are ``renderer.render.codes``). Targets import
this module; the engine (``renderer.render.engine``) finds the targets and runs them.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from renderer.findings import FieldPath, Finding, Severity, SourceRef

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel, PoolCapacity
    from renderer.models.settings import RenderSettings
    from renderer.render.codes import RenderCode
    from renderer.validation.load import LoadResult

MANAGED_BY = {"app.kubernetes.io/managed-by": "allocatable"}


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
    #: how the file is written: "yaml" (one document each, the header as comments), "toml" (one table, the header as
    #: comments; Bottlerocket user data) or "json" (one value, no header: JSON has no comments)
    format: str = "yaml"


@dataclass(frozen=True)
class Delivered:
    """A file of a ``delivers`` target: the target that wrote it ("" when not known: a file an older allocatable
    rendered) and the pools whose kubelet settings it carries."""

    target: str
    pools: tuple[str, ...]


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
        code: type[RenderCode],
        message: str,
        source: SourceRef,
        obj: str | None,
        field_path: FieldPath = (),
        hint: str | None = None,
        severity: Severity | None = None,
    ) -> None:
        """A finding of ``code`` (``renderer.render.codes``), at its own severity unless ``severity`` says."""
        self.findings.append(
            Finding(
                code=code.code,
                severity=severity or code.severity,
                message=message,
                path=source.path,
                object=obj,
                hint=hint,
                source=source,
                field_path=field_path,
            )
        )

    def reporter(self, code: type[RenderCode], source: SourceRef, obj: str | None) -> Callable[[str, FieldPath], None]:
        """A callback reporting problems at field paths of one object (the message is prefixed with the path)."""

        def problem(message: str, where: FieldPath) -> None:
            self.report(code, f"{'.'.join(str(p) for p in where)}: {message}", source, obj, where)

        return problem


class Target:
    """One kind of rendered artefact. Subclasses set the class variables and implement :meth:`render`."""

    name: ClassVar[str]
    summary: ClassVar[str]
    default: ClassVar[bool] = True  # rendered when neither --target nor render.targets says otherwise
    aggregate: ClassVar[bool] = False  # runs after the other targets and sees their outputs (kustomization)
    #: its files carry pools' kubelet settings to their nodes: the engine records which pools each file delivers to
    #: (from the pools among its sources), so a render never removes one unseen (``renderer.render.removals``)
    delivers: ClassVar[bool] = False

    def render(self, ctx: RenderContext) -> list[Output]:
        raise NotImplementedError


TARGETS: dict[str, type[Target]] = {}


def register(cls: type[Target]) -> type[Target]:
    if cls.name in TARGETS and TARGETS[cls.name] is not cls:
        raise RuntimeError(f"render target {cls.name} registered twice")
    TARGETS[cls.name] = cls
    return cls
