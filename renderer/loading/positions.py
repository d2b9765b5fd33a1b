"""The one place that maps (file, document, field path) to ``line:column``.

The bulk parse keeps no node marks. When findings need positions, each file concerned is read once more and only
what the findings point into is composed into YAML nodes (libyaml, no Python objects constructed): the documents
that have findings (composed up to the last of them, each other one dropped at once), or, for an item of a ``v1 List``, just that item's
text (its span was recorded while the List was read). The nodes are walked along each field path and released
before the next file.

Cost: O(size of the files with findings) to skip through them, plus O(size of the documents or items with
findings) to compose them; memory O(one file's text + the largest composed document).
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import yaml

from renderer.findings import FieldPath, Finding, SourceRef
from renderer.loading.files import MAX_FILE_BYTES_CEILING, FileProblem, read_regular

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


def _mark(node: yaml.Node, line_offset: int = 0) -> tuple[int, int]:
    return node.start_mark.line + 1 + line_offset, node.start_mark.column + 1


def _is_empty(node: yaml.Node) -> bool:
    """A null written as nothing or ``~`` (plain style): it has no position of its own."""
    return isinstance(node, yaml.ScalarNode) and not node.style and node.value in ("", "~")


_TAG_OF_KIND: dict[type, str] = {
    yaml.ScalarNode: "tag:yaml.org,2002:str",
    yaml.SequenceNode: "tag:yaml.org,2002:seq",
    yaml.MappingNode: "tag:yaml.org,2002:map",
}


class _PositionLoader(_Loader):  # type: ignore[misc]
    """Composes nodes only for their marks: no implicit tag resolution (a regex per scalar), which positions do not
    need (empty values are recognised by their text)."""

    def resolve(self, kind: type, value: object, implicit: object) -> str:
        return _TAG_OF_KIND[kind]


def walk(node: yaml.Node, full: FieldPath, at_key: bool = False, line_offset: int = 0) -> tuple[int, int]:
    """Line and column (1-based) of the deepest existing node on ``full`` below ``node``.

    ``at_key`` points at the key of the last element (for unknown fields); otherwise at its value.
    A path that leaves the document (a missing field) ends at the closest existing parent key.
    """
    best = _mark(node, line_offset)
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
            best = _mark(key, line_offset) if use_key else _mark(value, line_offset)
            node = value
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and 0 <= step < len(node.value):
            node = node.value[step]
            best = _mark(node, line_offset)
        else:
            break
    return best


def _compose_documents(text: str, wanted: set[int]) -> dict[int, yaml.Node | None]:
    """The node trees of the documents numbered in ``wanted`` (each other document is dropped once composed)."""
    out: dict[int, yaml.Node | None] = {}
    loader = _PositionLoader(text)
    try:
        index = 0
        last = max(wanted, default=-1)
        while index <= last and loader.check_node():
            node = loader.get_node()
            if index in wanted:
                out[index] = node
            index += 1
    except yaml.YAMLError:
        pass  # positions are best effort: the document-level line still applies
    finally:
        loader.dispose()
    return out


def compose_item(text: str, source: SourceRef) -> tuple[yaml.Node | None, int]:
    """The node tree of one List item from its own text (indented as in the file), and its line offset."""
    assert source.span is not None
    start, end = source.span
    chunk = " " * (source.column - 1) + text[start:end]
    try:
        loader = _PositionLoader(chunk)
        try:
            return loader.get_single_node(), source.line - 1
        finally:
            loader.dispose()
    except yaml.YAMLError:
        return None, 0


class PositionResolver:
    def __init__(self, abspaths: dict[str, Path]) -> None:
        self._abspaths = abspaths  # display path -> file on disk

    def _text(self, path: str) -> str | None:
        abspath = self._abspaths.get(path)
        if abspath is None:
            return None
        try:  # regular files only, never blocking (a file replaced by a FIFO since it was parsed)
            return read_regular(abspath, MAX_FILE_BYTES_CEILING).decode("utf-8-sig")
        except (FileProblem, UnicodeDecodeError):
            return None

    def locate(self, source: SourceRef, field_path: FieldPath, at_key: bool = False) -> tuple[int, int]:
        """Line and column (1-based) of the deepest existing node on ``field_path`` of one object."""
        finding = Finding("", "info", "", source.path, source=source, field_path=field_path, at_key=at_key)
        self.resolve([finding])
        return finding.line, finding.column

    def resolve(self, findings: Iterable[Finding]) -> None:
        """Set line and column of every finding that has none yet, one file at a time."""
        by_path: dict[str, list[Finding]] = {}
        for f in findings:
            if f.source is None or f.line != 0:
                continue
            if f.field_path is None:
                f.line, f.column = f.source.line, f.source.column
                continue
            by_path.setdefault(f.source.path, []).append(f)
        for path in sorted(by_path):
            group = by_path[path]
            text = self._text(path)
            if text is None:
                for f in group:
                    assert f.source is not None
                    f.line, f.column = f.source.line, f.source.column
                continue
            wanted = {f.source.doc for f in group if f.source is not None and f.source.span is None}
            documents = _compose_documents(text, wanted) if wanted else {}
            items: dict[tuple[int, int], tuple[yaml.Node | None, int]] = {}
            for f in group:
                source = f.source
                assert source is not None and f.field_path is not None
                if source.span is not None:
                    if source.span not in items:
                        items[source.span] = compose_item(text, source)
                    node, offset = items[source.span]
                    full: FieldPath = f.field_path
                else:
                    node, offset = documents.get(source.doc), 0
                    full = source.field_path(f.field_path)
                if node is None:
                    f.line, f.column = source.line, source.column
                else:
                    f.line, f.column = walk(node, full, f.at_key, offset)
            del documents, items  # released before the next file
