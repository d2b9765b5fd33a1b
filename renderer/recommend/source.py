"""Where measured usage comes from: ``--usage`` files (offline) or a Prometheus-compatible server (``--prometheus``).

Both go through one reader (``renderer.recommend.exports``) into one :class:`~renderer.recommend.usage.Usage`: the
live mode asks the server the printed queries and reads each response's bytes exactly as an exported file is read,
so ``recommend --prometheus`` and ``recommend --usage`` on the server's own exports say the same thing.

An export's query is named by its file name: ``reserved_memory.json`` or ``reserved_memory.<anything>.json`` (several
files of one query are merged; each day keeps its largest value).

Cost: the reader's (one pass, memory O(chunk + largest series)), plus O(nodes × cgroups × days) kept.
"""

from __future__ import annotations

import os
from pathlib import Path

from renderer.errors import UserError
from renderer.recommend.exports import ExportError, read_export
from renderer.recommend.queries import Query
from renderer.recommend.usage import BadSample, Usage

__all__ = ["MAX_SUMMARY_BYTES", "UsageInputError", "query_of", "read_files", "read_stream"]

#: A Summary API dump is read whole (``renderer.recommend.summary.MAX_BYTES``).
MAX_SUMMARY_BYTES = 64 << 20


class UsageInputError(UserError):
    """An input that cannot be read: one line, ``source:line:column: what``."""


def query_of(path: str, queries: tuple[Query, ...]) -> Query:
    """The query a file holds, by its name. Raises :class:`UsageInputError`."""
    name = os.path.basename(path).split(".", 1)[0]
    for q in queries:
        if q.name == name:
            return q
    known = ", ".join(f"{q.name}.json" for q in queries)
    raise UsageInputError(
        f"{path}: the file name names no query and the file is no kubelet Summary API dump: name each export after "
        f"its query ({known}); `allocatable recommend --print-queries` prints them"
    )


def read_stream(usage: Usage, display: str, query: Query, read: object, max_bytes: int) -> None:
    """Read one export (``read(n)`` gives bytes) of ``query`` into ``usage``. Raises :class:`UsageInputError`."""
    where = [1, 1]

    def sink(metric: dict[str, str], samples: list[object], line: int, column: int) -> None:
        where[0], where[1] = line, column
        usage.add(query.name, metric, samples)

    try:
        export = read_export(read, max_bytes, sink)  # type: ignore[arg-type]
    except ExportError as exc:
        raise UsageInputError(f"{display}:{exc.line}:{exc.column}: {exc.message}") from None
    except BadSample as exc:
        raise UsageInputError(f"{display}:{where[0]}:{where[1]}: {exc}") from None
    if export.result_type not in ("matrix", "vector"):
        raise UsageInputError(f"{display}: resultType {export.result_type!r}: expected matrix or vector")
    usage.sources.append(display)
    usage.bytes_read += export.bytes
    usage.series_read += export.series
    usage.warnings.extend((display, w) for w in export.warnings)
    usage.days.setdefault(query.name, {})


def read_files(
    paths: list[str], queries: tuple[Query, ...], max_bytes: int, memory_field: str = "workingSetBytes"
) -> Usage:
    """Every ``--usage`` file: a query's export, named after its query, or a kubelet Summary API dump
    (``renderer.recommend.summary``; ``memory_field``: its memory statistic). Raises :class:`UsageInputError`."""
    from renderer.safepath import FileProblem, open_regular, source_problem

    usage = Usage()
    for path in paths:
        display = Path(path).as_posix()
        problem = source_problem(path, what="it")
        if problem is not None:
            raise UsageInputError(f"{display}: {problem}")
        try:
            query: Query | None = query_of(display, queries)
        except UsageInputError:
            query = None  # a Summary API dump, or the error below
        try:
            fd = open_regular(path)
        except FileProblem as exc:
            raise UsageInputError(f"{display}: {exc}") from None
        with os.fdopen(fd, "rb") as f:
            if query is not None:
                read_stream(usage, display, query, f.read, max_bytes)
            else:
                _summary(usage, display, f.read(MAX_SUMMARY_BYTES + 1), queries, memory_field)
    return usage


def _summary(usage: Usage, display: str, data: bytes, queries: tuple[Query, ...], memory_field: str) -> None:
    import json

    from renderer.recommend.summary import MAX_BYTES, book, is_summary

    doc = None
    # what a dump starts with ({"node": {"nodeName": ...), so one cut short is still told from any other file
    looks = data.lstrip()[:1] == b"{" and b'"nodeName"' in data[:4096]
    if len(data) > MAX_BYTES and looks:
        raise UsageInputError(f"{display}: a kubelet Summary API dump larger than {MAX_BYTES >> 20} MiB: not read")
    if len(data) <= MAX_BYTES:
        try:
            doc = json.loads(data)
        except json.JSONDecodeError as exc:
            if looks:  # a dump cut short (a kubectl killed mid-write, a full disk): say where, not "no query"
                end = not data[exc.pos :].strip() or not data.rstrip().endswith(b"}")
                what = "ends early (truncated?)" if end else f"is not valid JSON: {exc.msg}"
                raise UsageInputError(
                    f"{display}:{exc.lineno}:{exc.colno}: a kubelet Summary API dump that {what}"
                ) from None
            doc = None
        except (ValueError, RecursionError):
            doc = None
    if not is_summary(doc):
        query_of(display, queries)  # raises: the name names no query, and the text is no Summary API dump
    assert isinstance(doc, dict)
    usage.sources.append(display)
    usage.summary_notes.extend(f"{display}: {p}" for p in book(usage, doc, memory_field))
