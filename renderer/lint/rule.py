"""What a lint rule is. One rule = one module in ``renderer/lint/rules`` with one ``@register``-ed class.

The class docstring *is* the rule's documentation (shown by ``allocatable rules CODE`` and in docs/rules.md) and
uses the headings ``What it does``, ``Why is this bad?``, ``Example``, ``Use instead`` and ``Fix``.

A rule reports on one object (the finding's ``object``, where its line and column point) and may name other
objects that cause the finding (``related``): an ``allocatable.dev/ignore`` annotation on any of them suppresses
it (see ``renderer.lint.suppression``).

Most rules look at the policies and the capacity model (``check``). Rules of the ``after`` phase look at what the
others reported once suppressions are applied (``check_after``); the AL9xx meta rules about suppressions work
that way.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, Literal

from renderer.codes import DOC_HEADINGS
from renderer.findings import FieldPath, Finding, Severity, SourceRef
from renderer.reprs import fields_repr

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel
    from renderer.lint.suppression import SuppressionIndex
    from renderer.measured import Measured
    from renderer.models.settings import Settings
    from renderer.validation.load import LoadResult

Phase = Literal["model", "after"]
__all__ = ["DOC_HEADINGS", "LintContext", "LintFinding", "Phase", "Rule", "register"]


@dataclass(slots=True, repr=False)
class LintFinding(Finding):
    """A finding of a lint rule, with the objects that cause it besides the one it points at."""

    __repr__ = fields_repr

    related: tuple[str, ...] = field(default=(), repr=False, compare=False)


@dataclass(eq=False, repr=False)
class LintContext:
    """What every rule reads: the load, the capacity model, the base's model, and the engine's settings."""

    load: LoadResult
    model: CapacityModel
    base_model: CapacityModel | None = None  # the policy repo at --base, when given
    suppressions: SuppressionIndex | None = None  # set by the engine before the "after" phase
    known_codes: frozenset[str] = frozenset()  # every rule code, set by the engine (rules cannot import the registry)
    #: The codes other stages report (validation, render), each with why ``.allocatable.yaml`` cannot configure it
    #: (None: it can); set by the engine.
    other_codes: Mapping[str, str | None] = field(default_factory=dict)
    base_ref: str | None = None  # the --base revision as the user wrote it
    skipped_rules: frozenset[str] = frozenset()  # rules turned off or not applicable, set by the engine
    measured: Measured | None = None  # measured usage per pool (lint --usage/--prometheus): rule AL216

    @property
    def settings(self) -> Settings:
        return self.load.policies.settings


class Rule:
    code: ClassVar[str]
    name: ClassVar[str]  # kebab-case, e.g. "memory-over-commit"
    severity: ClassVar[Severity]
    summary: ClassVar[str]  # one line, shown in `allocatable rules` and SARIF shortDescription
    phase: ClassVar[Phase] = "model"
    #: compares with the policy repo at a base revision (``ctx.base_model``): runs only with one (lint --base, diff)
    needs_base: ClassVar[bool] = False

    def applicable(self, ctx: LintContext) -> bool:
        """False when the rule cannot run in this invocation (e.g. AL210 without --base).

        The engine skips it then, and does not report its suppressions as unused."""
        return not self.needs_base or ctx.base_model is not None

    def check(self, ctx: LintContext) -> Iterator[Finding]:
        raise NotImplementedError

    def check_after(self, ctx: LintContext, findings: list[Finding]) -> Iterator[Finding]:
        raise NotImplementedError

    @classmethod
    def doc(cls) -> str:
        return inspect.cleandoc(cls.__doc__ or "")

    def finding(
        self,
        message: str,
        *,
        source: SourceRef,
        obj: str | None,
        field_path: FieldPath = (),
        at_key: bool = False,
        hint: str | None = None,
        severity: Severity | None = None,
        related: tuple[str, ...] | list[str] = (),
    ) -> LintFinding:
        """A finding of this rule; its line/column are resolved lazily from ``source`` + ``field_path``."""
        return LintFinding(
            code=self.code,
            severity=severity or self.severity,
            message=message,
            path=source.path,
            object=obj,
            hint=hint,
            source=source,
            field_path=field_path,
            at_key=at_key,
            related=tuple(r for r in dict.fromkeys(related) if r != obj),
        )


_RULES: dict[str, type[Rule]] = {}
_discovered = False


def register(cls: type[Rule]) -> type[Rule]:
    if cls.code in _RULES and _RULES[cls.code] is not cls:
        raise RuntimeError(f"rule code {cls.code} registered twice")
    _RULES[cls.code] = cls
    return cls
