"""Bulk parsing with libyaml (PyYAML's C parser): the fast path every command takes.

Only what every document needs is kept: the data and the line of its root node. Exact positions of fields are
looked up lazily, for the few objects that have findings, by ``renderer.loading.positions``.

Checks done here, because they need the parser: duplicate mapping keys, alias expansion bounds, nesting depth,
file size and encoding. Each problem becomes a Finding with file, line and column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from renderer.findings import Finding

try:  # pragma: no cover - depends on the wheel
    _BaseLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _BaseLoader = yaml.SafeLoader

DEFAULT_MAX_FILE_BYTES = 8 * 1024 * 1024
MAX_EXPANDED_NODES = 100_000
MAX_DEPTH = 64

_ALIAS_RE = re.compile(r"(?:^|[\s\[{,:\-])\*[^\s,\]}]")
# Deep nesting needs either deep indentation or many brackets; only then is the depth walk worth its cost.
_DEEP_INDENT_RE = re.compile(r"^[ \t\-?:]{" + str(MAX_DEPTH) + ",}", re.MULTILINE)


@dataclass(frozen=True, slots=True)
class RawDocument:
    path: str
    index: int
    line: int  # 1-based line of the document's root node
    data: Any


class _ParseProblem(Exception):
    def __init__(self, code: str, message: str, line: int, column: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.hint = hint


class _StrictLoader(_BaseLoader):  # type: ignore[misc]
    """SafeLoader (C parser) that refuses duplicate keys, as the Kubernetes API server does."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[str, yaml.Node] = {}
        for key_node, _ in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                k = key_node.value
                first = seen.get(k)
                if first is not None and key_node.tag == first.tag:
                    m = key_node.start_mark
                    raise _ParseProblem(
                        "AL002",
                        f'duplicate key "{k}" (first defined at line {first.start_mark.line + 1}); '
                        "each key may appear once in a mapping",
                        m.line + 1,
                        m.column + 1,
                    )
                seen[k] = key_node
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


def _expanded_size(node: yaml.Node, memo: dict[int, int], depth: int = 0) -> int:
    """Number of nodes after alias expansion (memoised, so linear in the graph, not in the expansion)."""
    if depth > MAX_DEPTH:
        m = node.start_mark
        raise _ParseProblem("AL001", f"document is nested more than {MAX_DEPTH} levels deep", m.line + 1, m.column + 1)
    got = memo.get(id(node))
    if got is not None:
        return got
    size = 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            size += _expanded_size(k, memo, depth + 1) + _expanded_size(v, memo, depth + 1)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            size += _expanded_size(v, memo, depth + 1)
    memo[id(node)] = size
    return size


def _check_depth(data: Any, limit: int = MAX_DEPTH) -> bool:
    """True when ``data`` nests no deeper than ``limit`` (iterative: never recurses)."""
    stack: list[tuple[Any, int]] = [(data, 0)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return False
        if isinstance(item, dict):
            stack.extend((v, depth + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, depth + 1) for v in item)
    return True


_HINTS: tuple[tuple[str, str], ...] = (
    ("'\\t'", "YAML does not allow tabs for indentation; indent with spaces"),
    ("found undefined alias", "define the anchor (&name) before using the alias (*name)"),
    ("mapping values are not allowed here", "check the indentation of this line, or quote a value containing ': '"),
    ("expected <block end>", "check the indentation of this line against the lines above"),
)


def _yaml_error_message(exc: yaml.MarkedYAMLError) -> tuple[str, str | None]:
    problem = exc.problem or exc.context or "unparseable YAML"
    text = f"invalid YAML: {problem}"
    if exc.context and exc.problem:
        text = f"invalid YAML: {problem} ({exc.context}"
        if exc.context_mark is not None:
            text += f" at line {exc.context_mark.line + 1}"
        text += ")"
    hint = None
    for needle, h in _HINTS:
        if needle in problem:
            hint = h
            break
    return text, hint


def decode(raw: bytes, path: str) -> tuple[str | None, Finding | None]:
    """UTF-8 (a leading BOM is accepted and dropped); anything else is an error at the offending byte."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, Finding("AL001", "error", "file is UTF-16 encoded; save it as UTF-8", path, 1, 1)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        col = exc.start - (before.rfind(b"\n") + 1) + 1
        return None, Finding(
            "AL001",
            "error",
            f"file is not valid UTF-8 (byte 0x{raw[exc.start]:02x}); save it as UTF-8",
            path,
            line,
            col,
        )
    if "\x00" in text:
        i = text.index("\x00")
        line = text.count("\n", 0, i) + 1
        return None, Finding("AL001", "error", "file contains a NUL character; is it a binary file?", path, line, 1)
    return text, None


def parse_text(text: str, path: str) -> tuple[list[RawDocument], list[Finding]]:
    """Parse a YAML/JSON stream into documents. On the first error the whole file is rejected."""
    docs: list[RawDocument] = []
    check_aliases = _ALIAS_RE.search(text) is not None
    check_depth = (
        text.count("[") + text.count("{") > MAX_DEPTH or _DEEP_INDENT_RE.search(text) is not None or check_aliases
    )
    loader = _StrictLoader(text)
    try:
        index = 0
        while loader.check_node():
            node = loader.get_node()
            if node is None:  # pragma: no cover - libyaml returns a null scalar instead
                index += 1
                continue
            if check_aliases and _expanded_size(node, {}) > MAX_EXPANDED_NODES:
                m = node.start_mark
                raise _ParseProblem(
                    "AL001",
                    f"aliases expand to more than {MAX_EXPANDED_NODES} nodes; refusing to expand "
                    "(is this a billion-laughs document?)",
                    m.line + 1,
                    m.column + 1,
                )
            data = loader.construct_document(node)
            if check_depth and not _check_depth(data):
                m = node.start_mark
                raise _ParseProblem(
                    "AL001", f"document is nested more than {MAX_DEPTH} levels deep", m.line + 1, m.column + 1
                )
            docs.append(RawDocument(path=path, index=index, line=node.start_mark.line + 1, data=data))
            index += 1
    except _ParseProblem as p:
        return [], [Finding(p.code, "error", p.message, path, p.line, p.column, hint=p.hint)]
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        msg, hint = _yaml_error_message(exc)
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else 1
        return [], [Finding("AL001", "error", msg, path, line, col, hint=hint)]
    except yaml.YAMLError as exc:
        return [], [Finding("AL001", "error", f"invalid YAML: {exc}", path, 1, 1)]
    except RecursionError:
        return [], [Finding("AL001", "error", "document is nested too deeply to read", path, 1, 1)]
    except (ValueError, OverflowError) as exc:  # e.g. a float literal the constructor cannot represent
        return [], [Finding("AL001", "error", f"invalid YAML value: {exc}", path, 1, 1)]
    finally:
        loader.dispose()
    return docs, []


def read_file(
    abspath: str, display: str, max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> tuple[list[RawDocument], list[Finding]]:
    try:
        with open(abspath, "rb") as fh:
            raw = fh.read(max_bytes + 1)
    except IsADirectoryError:
        return [], [Finding("AL006", "error", "is a directory, expected a policy file", display, 1, 1)]
    except OSError as exc:
        return [], [Finding("AL006", "error", f"cannot read file: {exc.strerror}", display, 1, 1)]
    if len(raw) > max_bytes:
        return [], [
            Finding(
                "AL006",
                "error",
                f"file is larger than the {max_bytes} byte limit; split it, or raise the limit with "
                "--max-file-size or limits.maxFileBytes in .allocatable.yaml",
                display,
                1,
                1,
            )
        ]
    text, problem = decode(raw, display)
    if problem is not None or text is None:
        return [], [problem] if problem else []
    return parse_text(text, display)
