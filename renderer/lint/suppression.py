"""Inline suppressions: the ``allocatable.dev/ignore`` annotation on a policy object.

Grammar of the annotation value: entries separated by commas, each ``CODE: reason``::

    allocatable.dev/ignore: "AL203: batch-only pool, measured p99 cpu use 8%"
    allocatable.dev/ignore: "AL203: batch-only pool, AL204: headroom is intended"
    allocatable.dev/ignore: "AL203, AL204: one reason for both"

A new entry starts only where a comma is followed by a rule code, so reasons may contain commas. Codes listed
without a reason take the reason of the next entry that has one ("AL203, AL204: why"); a code with no reason
after it has none.

What a suppression covers: findings of that code whose object is the annotated object, or that name it as a
cause (``LintFinding.related``). So an annotation on a CommitClass also covers AL101 reported on a pool that the
class selects together with another class, and AL205 on a pool whose advertised capacity the class shrinks.

A suppression without a reason is not applied (AL901): a suppression records a decision, and a decision without
its reason cannot be reviewed. Entries that cannot be read, name an unknown code or a code that cannot be
suppressed are AL903; suppressions that suppress nothing are AL902.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from renderer.findings import Finding, SourceRef
from renderer.reprs import fields_repr
from renderer.validation.validate import PolicySet

ANNOTATION = "allocatable.dev/ignore"
ANNOTATION_PATH = ("metadata", "annotations", ANNOTATION)
_CODE = re.compile(r"AL[0-9]{3}")
_SPLIT = re.compile(r",\s*(?=[Aa][Ll][0-9]{3}\b)")
_ENTRY = re.compile(r"^(?P<code>[A-Za-z]{2}[0-9]{3})\b\s*(?::\s*(?P<reason>.*))?$", re.DOTALL)


@dataclass(repr=False)
class Suppression:
    """One ``allocatable.dev/ignore`` entry of an object: the code, why, and whether a finding used it."""

    __repr__ = fields_repr

    code: str
    reason: str
    obj: str
    source: SourceRef
    used: bool = False


@dataclass(repr=False)
class Problem:
    """An annotation entry that could not be used (reported by AL901/AL903)."""

    __repr__ = fields_repr

    kind: str  # "no-reason", "unreadable", "unknown-code" (or not suppressible), "duplicate"
    text: str
    obj: str
    source: SourceRef
    code: str | None = None


@dataclass(eq=False, repr=False)
class SuppressionIndex:
    """The suppressions of a repo by object and code, and the entries that could not be read."""

    by_object: dict[str, dict[str, Suppression]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    def all(self) -> Iterator[Suppression]:
        for per_code in self.by_object.values():
            yield from per_code.values()

    def match(self, finding: Finding) -> Suppression | None:
        """The suppression that covers ``finding``: on its object first, then on an object that causes it."""
        refs: list[str] = [finding.object] if finding.object else []
        refs.extend(getattr(finding, "related", ()))
        for ref in refs:
            s = self.by_object.get(ref, {}).get(finding.code)
            if s is not None:
                return s
        return None


def parse(value: str) -> list[tuple[str, str | None, str]]:
    """``(code or raw text, reason or None, raw entry)`` per entry; code is None-like (raw text) if unreadable.

    The first element is the upper-cased code when the entry starts with one, otherwise the raw entry (callers
    check it against the code pattern)."""
    out: list[tuple[str, str | None, str]] = []
    pending: list[tuple[str, str]] = []
    for raw in _SPLIT.split(value.strip()):
        entry = raw.strip()
        m = _ENTRY.match(entry)
        if not m:
            out.extend((code, None, text) for code, text in pending)
            pending.clear()
            out.append((entry, None, entry))
            continue
        code = m.group("code").upper()
        reason = (m.group("reason") or "").strip()
        if reason:
            out.extend((c, reason, t) for c, t in pending)
            pending.clear()
            out.append((code, reason, entry))
        elif m.group("reason") is None:
            pending.append((code, entry))
        else:  # "AL203:" with an empty reason
            out.extend((c, None, t) for c, t in pending)
            pending.clear()
            out.append((code, None, entry))
    out.extend((code, None, text) for code, text in pending)
    return out


def _annotated(policies: PolicySet) -> Iterable[tuple[str, dict[str, str] | None, SourceRef]]:
    for group in (policies.commit_classes, policies.reservation_policies, policies.runtime_classes):
        for loaded in group:
            yield loaded.ref, loaded.model.metadata.annotations, loaded.source
    for pool in policies.pools:
        yield pool.ref, pool.annotations, pool.source


def build_index(policies: PolicySet, suppressible: set[str]) -> SuppressionIndex:
    """Read every object's annotation. ``suppressible``: the codes an annotation may name."""
    index = SuppressionIndex()
    for ref, notes, source in _annotated(policies):
        value = (notes or {}).get(ANNOTATION)
        if value is None:
            continue
        per_code: dict[str, Suppression] = {}
        entries = parse(value)
        if not entries or entries == [("", None, "")]:
            index.problems.append(Problem("unreadable", value, ref, source))
            continue
        for code, reason, text in entries:
            if not _CODE.fullmatch(code):
                index.problems.append(Problem("unreadable", text, ref, source))
            elif code not in suppressible:
                index.problems.append(Problem("unknown-code", text, ref, source, code))
            elif code in per_code:
                index.problems.append(Problem("duplicate", text, ref, source, code))
            elif reason is None:
                index.problems.append(Problem("no-reason", text, ref, source, code))
            else:
                per_code[code] = Suppression(code, reason, ref, source)
        if per_code:
            index.by_object[ref] = per_code
    return index
