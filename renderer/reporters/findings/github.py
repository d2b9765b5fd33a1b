"""GitHub Actions workflow commands: one ``::error``/``::warning``/``::notice`` line per finding, so findings
show up as annotations on the pull request. (The command prints the summary line on stderr, as for every format.)

``file=`` is relative to the repository root (the git top-level), as GitHub expects. Escaping follows the
workflow-command rules: in the message ``%``, ``\\r`` and ``\\n`` are percent-encoded; in properties also ``:``
and ``,``; other control characters of input data are written as visible escapes first (``renderer.escaping``), so
a value can never end the command or start another.

GitHub shows at most 10 annotations of each level (error, warning, notice) per step and 50 per job, and drops the
rest without a word (actions/toolkit, docs/problem-matchers.md, "Limitations"; GitHub's "Workflow commands"
reference). So this format writes at most what GitHub shows, the most severe first (errors, then warnings, then
notices, each in file order), and when anything is left out one more notice says how many of each level and where
they are; the findings left out follow as plain log lines (``-o text``'s), with workflow commands stopped around
them, so the log still holds every finding. ``ALLOCATABLE_GITHUB_ANNOTATIONS`` (a whole number from 0 to 50,
default 50) lowers the total for a step that shares its job's 50 with others; the summary notice counts in it.

Cost: O(n log n) in the findings (one stable sort by level), one pass to write them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import TextIO, TypeVar

from renderer.escaping import workflow_data, workflow_property, workflow_verbatim
from renderer.findings import Finding
from renderer.reporters.findings import Report
from renderer.reporters.findings._paths import relative_to_root, repo_root

COMMAND = {"error": "error", "warning": "warning", "info": "notice"}
#: GitHub's display limits (actions/toolkit docs/problem-matchers.md, "Limitations": "10 warning annotations,
#: 10 error annotations, and 10 notice annotations per step", "50 annotations per job").
PER_LEVEL = 10
PER_JOB = 50
#: The environment variable that lowers the number of annotations one run writes (the summary notice included).
BUDGET_ENV = "ALLOCATABLE_GITHUB_ANNOTATIONS"
_LEVELS = ("error", "warning", "notice")


#: GitHub's escaping of workflow commands, after control characters are made visible (renderer.escaping).
escape_data = workflow_data
escape_property = workflow_property

T = TypeVar("T")


def budget(environ: dict[str, str] | None = None) -> int:
    """The most annotations one run writes: ``ALLOCATABLE_GITHUB_ANNOTATIONS``, else GitHub's 50 per job. A value
    that is not a whole number from 0 to 50 is a usage error (exit 2, one line)."""
    raw = (os.environ if environ is None else environ).get(BUDGET_ENV, "").strip()
    if not raw:
        return PER_JOB
    if not (raw.isascii() and raw.isdigit() and len(raw) <= 3 and int(raw) <= PER_JOB):
        from renderer.loading.files import UsageError

        shown = raw if len(raw) <= 24 else raw[:20] + "…"
        raise UsageError(
            f"{BUDGET_ENV} must be a whole number from 0 to {PER_JOB} (annotations GitHub shows per job), got {shown!r}"
        )
    return int(raw)


def select(
    items: Sequence[T], level: Callable[[T], str], total: int, *, notices_used: int = 0
) -> tuple[list[T], list[T]]:
    """(annotated, left out): at most ``PER_LEVEL`` of each level and ``total`` in all, the most severe first
    (``level`` gives "error", "warning" or "notice"; items keep their order within a level). When anything is left
    out, one slot is kept free for the summary notice: a notice slot, within ``total``. ``notices_used``: notices the
    step writes besides these (they count against the level's ``PER_LEVEL``)."""
    ranked = sorted(items, key=lambda it: _LEVELS.index(level(it)))
    shown: list[T] = []
    per = dict.fromkeys(_LEVELS, 0)
    per["notice"] = notices_used
    for it in ranked:
        lv = level(it)
        if per[lv] < PER_LEVEL and len(shown) < total:
            shown.append(it)
            per[lv] += 1
    if len(shown) < len(ranked):
        while shown and (per["notice"] >= PER_LEVEL or len(shown) >= total):
            per[level(shown.pop())] -= 1  # the least severe shown makes room for the summary notice
    kept = {id(it) for it in shown}
    return shown, [it for it in ranked if id(it) not in kept]


def left_out(left: Sequence[T], level: Callable[[T], str], of: int, noun: str, where: str) -> str:
    """What ``select`` left out, in one line: how many of each level, GitHub's limits, and ``where`` to see them."""
    counts = [(lv, sum(1 for it in left if level(it) == lv)) for lv in _LEVELS]
    parts = ", ".join(f"{n} {lv}{'s' if n != 1 else ''}" for lv, n in counts if n)
    return (
        f"{len(left)} of {of} {noun} are not annotated ({parts}): GitHub shows {PER_LEVEL} annotations of each "
        f"level per step and {PER_JOB} per job; {where}"
    )


def annotated_report(items: Sequence[tuple[str, str]], noun: str, where: str, report: str) -> str:
    """(level, workflow command) pairs within GitHub's limits (``select``), one notice for what was left out, then
    ``report`` (a text report) with workflow commands stopped around it: what ``verify -o github`` and
    ``impact -o github`` write. Cost: one sort of the items."""
    total = budget()
    shown, left = select(items, lambda it: it[0], total)
    lines = [command for _, command in shown]
    head = ""
    if left:
        message = left_out(left, lambda it: it[0], len(items), noun, where)
        if total > len(shown):
            lines.append(notice(message))
        else:  # no annotation at all (a budget of 0): the summary is a log line too
            head = message + "\n"
    return "".join(line + "\n" for line in lines) + workflow_verbatim(head + report)


def notice(message: str) -> str:
    """A ``::notice`` of this tool's own (no file)."""
    return f"::notice title={escape_property('allocatable')}::{escape_data(message)}"


def annotation(f: Finding, file: str) -> str:
    props = [f"file={escape_property(file)}"]
    if f.line > 0:
        props.append(f"line={f.line}")
        if f.column > 0:
            props.append(f"col={f.column}")
    props.append(f"title={escape_property(f.code)}")
    message = f.message if not f.hint else f"{f.message}; {f.hint}"
    if f.object:
        message += f" ({f.object})"
    return f"::{COMMAND[f.severity]} {','.join(props)}::{escape_data(message)}"


def _level(f: Finding) -> str:
    return COMMAND[f.severity]


def write(report: Report, out: TextIO) -> None:
    from renderer.reporters.findings.text import format_finding

    total = budget()
    head: list[str] = []
    if report.base is not None and total > 0:  # which commit --base read: a notice of its own, within the budget
        head.append(f"::notice title=allocatable --base::{escape_data('compared with ' + report.base.describe())}")
    root = repo_root([f.path for f in report.findings])
    shown, left = select(report.findings, _level, total - len(head), notices_used=len(head))
    lines = head + [annotation(f, relative_to_root(f.path, root)) for f in shown]
    rest = ""
    if left:
        where = (
            "they follow in this log; `-o sarif` gives every finding to code scanning, and the allocatable action "
            "lists them all in the job summary"
        )
        message = left_out(left, _level, len(report.findings), "findings", where)
        if total > len(lines):
            lines.append(notice(message))
        else:  # no annotation at all (a budget of 0): the summary is a log line too
            rest = message + "\n"
        rest += "".join(format_finding(f) + "\n" for f in left)
    out.write("".join(line + "\n" for line in lines) + workflow_verbatim(rest))
