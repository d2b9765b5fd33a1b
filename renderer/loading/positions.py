"""The one place that maps (file, document, field path) to ``line:column``.

The bulk parse keeps no node marks. When findings need positions, the few files concerned are re-read once
with ruamel.yaml's round-trip loader, which records line/column for every key, value and sequence item.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from renderer.findings import FieldPath, Finding, SourceRef


class PositionResolver:
    def __init__(self, abspaths: dict[str, Path]) -> None:
        self._abspaths = abspaths  # display path -> file on disk
        self._docs: dict[str, list[Any] | None] = {}
        self._lines: dict[str, list[str]] = {}

    def _load(self, path: str) -> list[Any] | None:
        if path in self._docs:
            return self._docs[path]
        docs: list[Any] | None = None
        abspath = self._abspaths.get(path)
        if abspath is not None:
            try:
                from ruamel.yaml import YAML

                text = abspath.read_bytes().decode("utf-8-sig")
                self._lines[path] = text.splitlines()
                y = YAML(typ="rt", pure=False)
                y.allow_duplicate_keys = True
                docs = list(y.load_all(text))
            except Exception:  # positions are best effort: the document-level line still applies
                docs = None
        self._docs[path] = docs
        return docs

    def locate(self, source: SourceRef, field_path: FieldPath, at_key: bool = False) -> tuple[int, int]:
        """Line and column (1-based) of the deepest existing node on ``field_path``.

        ``at_key`` points at the key of the last element (for unknown fields); otherwise at its value.
        A path that leaves the document (a missing field) ends at the closest existing parent key.
        """
        docs = self._load(source.path)
        if not docs or source.doc >= len(docs):
            return source.line, source.column
        node = docs[source.doc]
        best = (source.line, source.column)
        lc = getattr(node, "lc", None)
        if lc is not None and lc.line is not None:
            best = (lc.line + 1, lc.col + 1)
        full = source.field_path(field_path)
        for i, step in enumerate(full):
            last = i == len(full) - 1
            lc = getattr(node, "lc", None)
            if isinstance(node, dict) and step in node:
                if lc is not None:
                    try:
                        value = node[step]
                        # Keys for intermediate steps, unknown fields and nested blocks; the value for scalars.
                        # An empty (null) value has no position of its own: ruamel gives the next token's.
                        use_key = not last or at_key or value is None or isinstance(value, (dict, list))
                        pos = lc.key(step) if use_key else lc.value(step)
                        best = (pos[0] + 1, pos[1] + 1)
                    except (KeyError, TypeError):
                        pass
                node = node[step]
            elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
                if lc is not None:
                    try:
                        pos = lc.item(step)
                        best = (pos[0] + 1, pos[1] + 1)
                    except (KeyError, TypeError):
                        pass
                node = node[step]
            else:
                break
        return best

    def source_line(self, path: str, line: int) -> str | None:
        self._load(path)
        lines = self._lines.get(path)
        if lines is None or not (1 <= line <= len(lines)):
            return None
        return lines[line - 1]

    def resolve(self, findings: Iterable[Finding]) -> None:
        for f in findings:
            if f.source is not None and f.field_path is not None and f.line == 0:
                f.line, f.column = self.locate(f.source, f.field_path, f.at_key)
            elif f.source is not None and f.line == 0:
                f.line, f.column = f.source.line, f.source.column
