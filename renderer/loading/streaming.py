"""The streaming reader: a large ``kubectl ... -o json`` dump read in chunks, one List item at a time.

``stream(source, bounds, keep, max_stream_bytes=...)`` is the reader of ``renderer.loading.documents`` for dumps too
large to hold whole: memory follows the largest item and what the caller keeps, not the size of the dump. It reads
through the same safe-path layer, with the same bounds, and falls back to ``documents.read`` for anything the
whole-text readers decide (YAML, an empty input, a value JSON alone cannot decide, a syntax error), so a streamed
dump gives the same values and the same problems as a whole read. Cost: one pass over the input (two when it is read
whole after a stop).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from renderer.loading.bounds import MAX_DEPTH, Bounds
from renderer.loading.decoding import UTF8_BOM
from renderer.loading.documents import Problem, Read, Source, read
from renderer.loading.files import FileProblem, stdin_file
from renderer.loading.jsonstream import CHUNK, Stop, StreamedItem, stream_json
from renderer.loading.prune import Prune

__all__ = ["Reread", "StreamProblem", "StreamedItem", "stream"]


class Reread(Exception):
    """The streaming reader stopped after ``done`` items and the input was read whole instead (``got``): the caller
    goes on from item ``done`` of ``got`` (same values, same problems as a whole read)."""

    def __init__(self, got: Read, done: int) -> None:
        super().__init__(f"read whole after {done} items")
        self.got = got
        self.done = done


class StreamProblem(Exception):
    """The streaming reader stopped on an input too large to read whole: one located problem."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(problem.message)
        self.problem = problem


def stream(
    source: Source, bounds: Bounds, keep: Prune, *, max_stream_bytes: int, positions: bool = True
) -> Iterator[StreamedItem] | Read:
    """A ``kubectl ... -o json`` dump read in chunks, one List item at a time (``renderer.loading.jsonstream``):
    memory follows the largest item and what the caller keeps, not the size of the dump, which may be up to
    ``max_stream_bytes``. Anything that is not a JSON object (YAML, an empty input, an array) or cannot be opened
    is read whole instead, as ``read(..., dump=True, keep_text=True)`` reads it, and that ``Read`` is returned.

    The iterator raises :class:`Reread` when the stream stops on something the whole-text readers decide (a value
    YAML reads, a syntax error, a bound) and the input is within ``bounds.max_file_bytes``, else
    :class:`StreamProblem`. Cost: one pass over the input (two when it is read whole after a stop)."""
    import os

    if source.blob is not None or source.text is not None:
        return read(source, bounds, keep, dump=True, positions=positions, keep_text=True)
    try:
        if source.stdin:
            path: Path = stdin_file(max_stream_bytes)
        else:
            assert source.path is not None
            path = source.path
            if source.named is not None:
                from renderer import safepath

                problem = safepath.source_problem(path, what=source.named)
                if problem is not None:
                    raise FileProblem(problem)
        from renderer.safepath import open_regular

        fd = open_regular(path)
    except FileProblem:
        return read(source, bounds, keep, dump=True, positions=positions, keep_text=True)
    try:
        size = os.fstat(fd).st_size
        head = os.read(fd, 4096)
    except OSError:
        os.close(fd)
        return read(source, bounds, keep, dump=True, positions=positions, keep_text=True)
    body = head[3:] if head.startswith(UTF8_BOM) else head
    if body.lstrip()[:1] != b"{" or size <= CHUNK:
        os.close(fd)  # small, or not JSON: the whole-text readers
        return read(source, bounds, keep, dump=True, positions=positions, keep_text=True)
    return _streamed(source, fd, head, size, bounds, keep, max_stream_bytes, positions)


def _streamed(
    source: Source, fd: int, head: bytes, size: int, bounds: Bounds, keep: Prune, limit: int, positions: bool
) -> Iterator[StreamedItem]:
    import os

    pending = [head]

    def chunk(n: int) -> bytes:
        if pending:
            return pending.pop()
        return os.read(fd, n)

    try:
        yield from stream_json(
            chunk, prune=keep, max_item_chars=bounds.max_document_chars, max_bytes=limit, max_depth=MAX_DEPTH
        )
    except Stop as stop:
        if size <= bounds.max_file_bytes and stop.cause != "file":
            raise Reread(
                read(source, bounds, keep, dump=True, positions=positions, keep_text=True), stop.items
            ) from None
        message = stop.message
        if stop.cause == "value":
            message = f"{message}; read this dump as a file of at most {bounds.max_file_bytes} bytes, or fix the item"
        raise StreamProblem(
            Problem("AL001", message, stop.line, stop.column, cause=stop.cause, detail=stop.message)
        ) from None
    except OSError as exc:
        raise StreamProblem(
            Problem("AL006", f"cannot read file: {exc.strerror or exc}", cause="file", detail="cannot read")
        ) from None
    finally:
        os.close(fd)
