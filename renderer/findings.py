"""The one finding shape every command reports (validate, lint, render, diff)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

from renderer.reprs import fields_repr

Severity = Literal["error", "warning", "info"]
SEVERITY_ORDER: dict[str, int] = {"error": 0, "warning": 1, "info": 2}

FieldPath = tuple[str | int, ...]


class SourceRef(NamedTuple):
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


@dataclass(slots=True, repr=False)
class Finding:
    """One problem found (validation, lint, render): a code, a severity, the words and where it is."""

    __repr__ = fields_repr

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


#: At most this many findings of one rule in one file are kept; the others are counted, and one more finding of the
#: same rule says how many were left out (a 570,000-Node List of one duplicated name is 1,001 findings, not 569,999).
MAX_PER_RULE_AND_FILE = 1000


class CappedFindings(list[Finding]):
    """A list of findings that keeps at most ``limit`` per (code, path) as they are added.

    The first finding left out of each (code, path) is kept, reworded by ``close`` into the count of what was left
    out (located where that first one was), so memory grows with the findings shown, not with the input.
    Cost: O(1) per finding added."""

    def __init__(self, findings: Iterable[Finding] = (), limit: int = MAX_PER_RULE_AND_FILE) -> None:
        super().__init__()
        self.limit = limit
        self.added = 0  # every finding added, kept or not
        self._counts: dict[tuple[str, str], int] = {}
        self._first_left_out: dict[tuple[str, str], Finding] = {}
        self.extend(findings)

    def append(self, finding: Finding) -> None:
        self.added += 1
        key = (finding.code, finding.path)
        count = self._counts.get(key, 0) + 1
        self._counts[key] = count
        if count <= self.limit:
            super().append(finding)
        elif count == self.limit + 1:
            self._first_left_out[key] = finding

    def extend(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            self.append(finding)

    @property
    def left_out(self) -> int:
        """How many findings were not kept."""
        return sum(max(0, n - self.limit) for n in self._counts.values())

    def close(self) -> list[Finding]:
        """The findings kept, plus one per (code, path) that lost some: ``N more <code> findings in this file``."""
        out = list(self)
        for key, first in self._first_left_out.items():
            n = self._counts[key] - self.limit
            out.append(
                Finding(
                    code=first.code,
                    severity=first.severity,
                    message=f"{n} more {first.code} finding{'s' if n != 1 else ''} in this file left out "
                    f"(at most {self.limit} of one rule per file are reported); the first is here",
                    path=first.path,
                    line=first.line,
                    column=first.column,
                    object=first.object,
                    hint="fix the ones reported, or the input that repeats them, and run again",
                    source=first.source,
                    field_path=first.field_path,
                    at_key=first.at_key,
                )
            )
        return out
