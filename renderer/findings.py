"""The one finding shape every command reports (validate, lint, render, diff)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}

FieldPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class SourceRef:
    """Where an object came from: file (repo-relative, POSIX), document index, optional List item index."""

    path: str
    doc: int = 0
    item: int | None = None
    line: int = 1
    column: int = 1
    #: A List item's character range in its file: its position is found by reading just that text.
    span: tuple[int, int] | None = None

    def field_path(self, field_path: FieldPath) -> FieldPath:
        """The path from the document root for a path relative to the object."""
        if self.item is None:
            return field_path
        return ("items", self.item, *field_path)


@dataclass(slots=True)
class Finding:
    code: str
    severity: Severity
    message: str
    path: str
    line: int = 0
    column: int = 0
    object: str | None = None
    hint: str | None = None
    # Unresolved location: the source document and a field path within the object. Resolved lazily
    # (only findings need positions) by loading.positions.resolve().
    source: SourceRef | None = field(default=None, repr=False, compare=False)
    field_path: FieldPath | None = field(default=None, repr=False, compare=False)
    at_key: bool = field(default=False, repr=False, compare=False)

    def sort_key(self) -> tuple[Any, ...]:
        return (self.path, self.line, self.column, SEVERITY_ORDER[self.severity], self.code, self.message)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "code": self.code,
            "severity": self.severity,
            "message": self.message,
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "object": self.object,
        }
        if self.hint:
            out["hint"] = self.hint
        return out


def worst_exit(findings: list[Finding], *, error_exit: int = 1, strict: bool = False) -> int:
    """0 when nothing at error level (or warning with strict), else error_exit."""
    for f in findings:
        if f.severity == "error" or (strict and f.severity == "warning"):
            return error_exit
    return 0
