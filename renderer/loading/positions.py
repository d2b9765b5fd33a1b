"""The one place that maps (file, document, field path) to ``line:column``.

The bulk parse keeps no node marks. When findings need positions, the files concerned are composed once more
into YAML nodes — with libyaml, no Python objects are constructed — and each field path is walked through the
nodes' marks. (ruamel.yaml's round-trip loader records the same marks but measured about ten times slower on
repos where many files have findings; its marks are not needed for anything else.)
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import yaml

from renderer.findings import FieldPath, Finding, SourceRef
from renderer.loading.files import MAX_FILE_BYTES_CEILING, read_regular

try:  # pragma: no cover - depends on the wheel
    _Loader: type = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _Loader = yaml.SafeLoader

_BOOL_WORDS = {
    True: {"y", "yes", "true", "on"},
    False: {"n", "no", "false", "off"},
}


def _key_matches(key: yaml.Node, step: str | int | bool) -> bool:
    if not isinstance(key, yaml.ScalarNode):
        return False
    if isinstance(step, bool):
        return key.value.lower() in _BOOL_WORDS[step]
    return bool(key.value == str(step))


def _mark(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


def _is_empty(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:null" and node.value in ("", "~")


class PositionResolver:
    def __init__(self, abspaths: dict[str, Path]) -> None:
        self._abspaths = abspaths  # display path -> file on disk
        self._docs: dict[str, list[yaml.Node | None] | None] = {}
        self._lines: dict[str, list[str]] = {}

    def _load(self, path: str) -> list[yaml.Node | None] | None:
        if path in self._docs:
            return self._docs[path]
        docs: list[yaml.Node | None] | None = None
        abspath = self._abspaths.get(path)
        if abspath is not None:
            try:
                text = read_regular(abspath, MAX_FILE_BYTES_CEILING).decode("utf-8-sig")  # never blocks
                self._lines[path] = text.splitlines()
                loader = _Loader(text)
                try:
                    docs = []
                    while loader.check_node():
                        docs.append(loader.get_node())
                finally:
                    loader.dispose()
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
        if not docs or source.doc >= len(docs) or docs[source.doc] is None:
            return source.line, source.column
        node = docs[source.doc]
        assert node is not None
        best = _mark(node)
        full = source.field_path(field_path)
        for i, step in enumerate(full):
            last = i == len(full) - 1
            if isinstance(node, yaml.MappingNode):
                pair = next(((k, v) for k, v in node.value if _key_matches(k, step)), None)
                if pair is None:
                    break
                key, value = pair
                # Keys for intermediate steps, unknown fields and nested blocks; the value for scalars.
                # An empty (null) value has no position of its own, so it is reported at its key.
                use_key = not last or at_key or _is_empty(value) or not isinstance(value, yaml.ScalarNode)
                best = _mark(key) if use_key else _mark(value)
                node = value
            elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
                node = node.value[step]
                best = _mark(node)
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
