"""Parsing policy files with libyaml (PyYAML's C parser): the fast path every command takes.

Only what every document needs is kept: the data and the line of its root node (and, for the items of a
``v1 List``, each item's span in the text). Exact positions of fields are looked up lazily, for the few objects
that have findings, by ``renderer.loading.positions``.

JSON files are read with the json module's C scanner (List items one at a time), falling back to the YAML reader
for anything it would read differently or must report. Documents are built from libyaml's events by
``renderer.loading.stream`` (no node tree), which checks the bounds
per document while it reads: nesting depth (``MAX_DEPTH``), document size (``DEFAULT_MAX_DOCUMENT_CHARS``, each
List item on its own) and duplicate keys. Node Lists are read item by item and pruned to the fields the model
needs (``LIST_PRUNE``), so a 5,000-node ``kubectl get nodes -o yaml`` never exists as a whole in memory. A file
whose documents use anchors, aliases, explicit tags or merge keys is read by PyYAML's own composer and
constructor instead, in Python, one level at a time (``_GuardedLoader``: it stops at ``MAX_DEPTH`` before libyaml
ever sees the deep part) and with alias expansion bounded (``MAX_EXPANDED_NODES``).

The file-size limit (``DEFAULT_MAX_FILE_BYTES``, ``--max-file-size``, ``limits.maxFileBytes``) only guards against
reading something that is not a policy file at all; memory is bounded per document.

Cost: O(size of the file) time; memory O(largest document + the kept fields of List items).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import yaml
from yaml.composer import Composer
from yaml.constructor import SafeConstructor

from renderer.findings import Finding
from renderer.loading.files import FileProblem, UsageError, read_regular
from renderer.loading.stream import (
    NODE_FIELDS,
    DocumentTooLarge,
    DuplicateKey,
    EventReader,
    NeedsFullConstructor,
    NeedsYamlPath,
    NestedTooDeep,
    Prune,
    Span,
    read_json_document,
)

try:  # pragma: no cover - depends on the wheel
    _BaseLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _BaseLoader = yaml.SafeLoader

#: Files larger than this are not read (a real 10,000-node ``kubectl get nodes -o yaml`` is well below it).
DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024
#: One document, or one item of a List, may span at most this many characters.
DEFAULT_MAX_DOCUMENT_CHARS = 8 * 1024 * 1024
MAX_EXPANDED_NODES = 100_000
MAX_DEPTH = 64
#: List items pruned while they are read: only what the model needs of a Node is kept.
LIST_PRUNE: Prune = {("v1", "Node"): NODE_FIELDS}

# YAML 1.1 reads 1:30 as the base-60 number 90. Kubernetes (go-yaml) does not, and a quantity or label value
# written that way is a string there: resolve ints and floats without the base-60 forms.
_INT_RE = re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$")
_FLOAT_RE = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_NO_BASE_60 = {"tag:yaml.org,2002:int": _INT_RE, "tag:yaml.org,2002:float": _FLOAT_RE}
#: The longest integer literal read (a 64-bit value in binary, with "_" separators, fits many times over).
_MAX_INT_CHARS = 640


@dataclass(frozen=True, slots=True)
class RawDocument:
    path: str
    index: int
    line: int  # 1-based line of the document's root node
    data: Any
    #: For a document with a root ``items`` sequence (a v1 List): where each item sits in the text.
    item_spans: tuple[Span, ...] | None = None


class ParseProblem(Exception):
    def __init__(self, code: str, message: str, line: int, column: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.hint = hint


class StrictLoader(_BaseLoader):  # type: ignore[misc]
    """SafeLoader (C parser) that refuses duplicate keys, as the Kubernetes API server does."""

    yaml_implicit_resolvers = {
        first: [(tag, _NO_BASE_60.get(tag, regexp)) for tag, regexp in resolvers]
        for first, resolvers in _BaseLoader.yaml_implicit_resolvers.items()
    }

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: dict[str, yaml.Node] = {}
        for key_node, _ in node.value:
            if key_node.tag == _VALUE_TAG:  # PyYAML would read a YAML 1.1 "=" value key as the string "="
                _unsupported_tag(self, key_node)
            if isinstance(key_node, yaml.ScalarNode):
                k = key_node.value
                first = seen.get(k)
                if first is not None and key_node.tag == first.tag:
                    raise _duplicate(key_node, first)
                seen[k] = key_node
        return super().construct_mapping(node, deep=deep)  # type: ignore[no-any-return]


_STR_TAG = "tag:yaml.org,2002:str"
_VALUE_TAG = "tag:yaml.org,2002:value"
_MAP_TAG = "tag:yaml.org,2002:map"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MERGE_TAG = "tag:yaml.org,2002:merge"


def _duplicate(key_node: yaml.Node, first: yaml.Node) -> ParseProblem:
    m = key_node.start_mark
    return ParseProblem(
        "AL002",
        f'duplicate key "{key_node.value}" (first defined at line {first.start_mark.line + 1}); '
        "each key may appear once in a mapping",
        m.line + 1,
        m.column + 1,
    )


def construct_plain(loader: StrictLoader, node: yaml.Node) -> Any:
    """Build the Python value of an alias-free node: the same result as SafeConstructor, in one tight recursion.

    PyYAML's constructor is generic (generators, alias bookkeeping, a call per node through a dispatch table);
    for the plain maps, lists and strings that policies are made of that overhead was most of the load time.
    Anything unusual (merge keys, explicit tags, non-string scalars) still goes through PyYAML's own code.
    Only valid for documents without aliases: a repeated node would be built twice instead of shared.
    """
    if isinstance(node, yaml.ScalarNode):
        if node.tag == _STR_TAG:
            return node.value
        return (
            loader.yaml_constructors[node.tag](loader, node)
            if node.tag in _SCALAR_TAGS
            else (loader.construct_object(node, deep=True))
        )
    if isinstance(node, yaml.MappingNode):
        if node.tag != _MAP_TAG or any(k.tag == _MERGE_TAG for k, _ in node.value):
            return loader.construct_object(node, deep=True)
        out: dict[Any, Any] = {}
        seen: dict[str, yaml.Node] = {}
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                first = seen.get(key_node.value)
                if first is not None and first.tag == key_node.tag:
                    raise _duplicate(key_node, first)
                seen[key_node.value] = key_node
            key = construct_plain(loader, key_node)
            try:
                out[key] = construct_plain(loader, value_node)
            except TypeError:  # an unhashable key: let PyYAML report it with its mark
                return loader.construct_object(node, deep=True)
        return out
    if isinstance(node, yaml.SequenceNode) and node.tag == _SEQ_TAG:
        return [construct_plain(loader, v) for v in node.value]
    return loader.construct_object(node, deep=True)


_SCALAR_TAGS = frozenset("tag:yaml.org,2002:" + t for t in ("null", "bool", "int", "float", "timestamp", "binary"))


# --- tags and the scalars they construct --------------------------------------------------------------------------
#
# Kubernetes reads manifests as plain JSON data: mappings, lists, strings, numbers, booleans and null. Every other
# tag, and every tag whose value does not read as its type, is one AL001 finding at the tag's own line and column
# saying what to change -- never an exception from inside PyYAML's constructor, never a position of 1:1. Both the
# fast constructor (``construct_plain``) and PyYAML's own (the guarded path, and documents with aliases) go through
# the constructors installed here. Cost: O(1) per scalar on top of PyYAML's own conversion.

_CORE_TAG = "tag:yaml.org,2002:"
_NULL_WORDS = frozenset(("", "~", "null", "Null", "NULL"))
#: What a scalar tagged ``!!<name>`` must read as, and how to write one, for messages.
_TAG_MEANS = {
    "bool": ("a boolean", "write true or false"),
    "int": ("an integer", "write a whole number such as 3"),
    "float": ("a number", "write a number such as 1.5"),
    "null": ("null", "write null or ~"),
    "timestamp": ("a date", "write a date such as 2024-01-31"),
    "str": ("a string", "write a string"),
}
_SHOWN_VALUE_CHARS = 40


_TAG_END = re.compile(r"[\s,\[\]{}]")


def _source_line(loader: Any, node: yaml.Node) -> str | None:
    """The source line a node starts on, when ``parse_text`` kept the text on the loader."""
    text: str | None = getattr(loader, "source_text", None)
    m = node.start_mark
    if text is None or m.line > text.count("\n"):
        return None
    return text.split("\n", m.line + 1)[m.line]


def _tag_name(loader: Any, node: yaml.Node) -> str:
    """The node's tag as written in the file (``!!bool``, ``!<tag:...>``, ``!local``); else its short form."""
    line = _source_line(loader, node)
    col = node.start_mark.column
    if line is not None and line[col : col + 1] == "!":
        if line[col : col + 2] == "!<" and ">" in line[col:]:
            return line[col : line.index(">", col) + 1]
        end = _TAG_END.search(line, col)
        return line[col : end.start() if end else len(line)]
    tag = node.tag
    return "!!" + tag[len(_CORE_TAG) :] if tag.startswith(_CORE_TAG) else tag


def _shown(value: str) -> str:
    return value if len(value) <= _SHOWN_VALUE_CHARS else value[:_SHOWN_VALUE_CHARS] + "…"


def _node_kind(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "a mapping"
    if isinstance(node, yaml.SequenceNode):
        return "a list"
    return "a single value"


def _problem_at(node: yaml.Node, message: str) -> ParseProblem:
    m = node.start_mark
    return ParseProblem("AL001", message, m.line + 1, m.column + 1)


def _is_implicit(loader: Any, node: yaml.ScalarNode) -> bool:
    """True when the scalar's type comes from its spelling, not from a tag written in the file.

    A tagged node starts at its tag, so the source character at the node's mark tells (the text is kept on the
    loader by ``parse_text``); without it, a plain scalar that resolves to its own tag counts as implicit.
    """
    line = _source_line(loader, node)
    if line is not None:
        return line[node.start_mark.column : node.start_mark.column + 1] != "!"
    return not node.style and loader.resolve(yaml.ScalarNode, node.value, (True, False)) == node.tag


def _unsupported_tag(loader: Any, node: yaml.Node) -> Any:
    tag = _tag_name(loader, node)
    raise _problem_at(
        node,
        f"the tag {tag} is not supported: policy files hold plain mappings, lists, strings, numbers, booleans and "
        f"null, as Kubernetes reads them; remove {tag}"
        + (" and quote the value" if isinstance(node, yaml.ScalarNode) else ""),
    )


def _scalar(name: str, build: Any) -> Any:
    """A constructor for the scalar tag ``!!name`` that turns every failure into a located finding."""

    def construct(loader: Any, node: yaml.Node) -> Any:
        tag = _tag_name(loader, node)
        if not isinstance(node, yaml.ScalarNode):
            raise _problem_at(
                node, f"the tag {tag} needs a single value, but it is on {_node_kind(node)}; remove {tag}"
            )
        if name == "int" and len(node.value) > _MAX_INT_CHARS and _is_implicit(loader, node):
            # Checked before conversion: hexadecimal, octal and binary convert at any length, and the huge number
            # then fails wherever it is printed (sys.get_int_max_str_digits). No field holds more than 64 bits.
            raise _problem_at(
                node,
                f"the number {node.value[:20]}… has {len(node.value)} digits, too many to read; put it in quotes if "
                "it is text",
            )
        try:
            return build(loader, node)
        except ParseProblem:
            raise
        except (ValueError, KeyError, AttributeError, TypeError, OverflowError) as exc:
            value = node.value
            if _is_implicit(loader, node):
                if name == "int":  # more digits than Python converts (sys.get_int_max_str_digits)
                    raise _problem_at(
                        node,
                        f"the number {value[:20]}… has {len(value)} digits, too many to read; "
                        "put it in quotes if it is text",
                    ) from None
                if name == "timestamp":
                    raise _problem_at(
                        node,
                        f'"{_shown(value)}" is read as a date, but it is not a valid one ({exc}); '
                        "put it in quotes if it is not meant as a date",
                    ) from None
            noun, fix = _TAG_MEANS[name]
            raise _problem_at(
                node,
                f'"{_shown(value)}" is tagged {tag} but is not {noun}: {fix}, or remove {tag} '
                "(and quote the value if it is text)",
            ) from None

    return construct


def _build_null(loader: Any, node: yaml.ScalarNode) -> None:
    if node.value not in _NULL_WORDS:
        raise ValueError(node.value)
    return None


def _collection(tag: str, kind: type[yaml.Node]) -> Any:
    build = SafeConstructor.yaml_constructors[tag]

    def construct(loader: Any, node: yaml.Node) -> Any:
        if not isinstance(node, kind):
            name = _tag_name(loader, node)
            raise _problem_at(
                node,
                f"the tag {name} needs {'a mapping' if kind is yaml.MappingNode else 'a list'}, but it is on "
                f"{_node_kind(node)}; remove {name}",
            )
        return build(loader, node)

    return construct


def _install_tag_constructors(loader_cls: Any) -> None:
    """Replace PyYAML's constructors on ``loader_cls`` (its own table, not SafeLoader's) with checked ones."""
    safe = SafeConstructor.yaml_constructors
    for name in ("bool", "int", "float", "timestamp", "str"):
        loader_cls.add_constructor(_CORE_TAG + name, _scalar(name, safe[_CORE_TAG + name]))
    loader_cls.add_constructor(_CORE_TAG + "null", _scalar("null", _build_null))
    loader_cls.add_constructor(_CORE_TAG + "map", _collection(_CORE_TAG + "map", yaml.MappingNode))
    loader_cls.add_constructor(_CORE_TAG + "seq", _collection(_CORE_TAG + "seq", yaml.SequenceNode))
    for name in ("binary", "set", "omap", "pairs"):  # YAML 1.1 types with no JSON equivalent
        loader_cls.add_constructor(_CORE_TAG + name, _unsupported_tag)
    loader_cls.add_constructor(None, _unsupported_tag)  # local tags (!foo), !!python/..., any other URI


def _json_tag(text: str) -> tuple[int, int] | None:
    """(line, column), 1-based, of the first YAML tag in a .json file: JSON has none (only scanned when a "!" is
    there at all, so plain JSON pays one ``in``)."""
    if "!" not in text:
        return None
    try:
        for token in yaml.scan(text, Loader=_BaseLoader):
            if isinstance(token, yaml.TagToken):
                return token.start_mark.line + 1, token.start_mark.column + 1
    except yaml.YAMLError:
        return None  # the parser reports the syntax error itself
    return None


_install_tag_constructors(StrictLoader)


class _GuardedLoader(StrictLoader):
    """Composes in Python, one level at a time, and stops at ``MAX_DEPTH``: for files that could nest deeply."""

    check_node = Composer.check_node
    get_node = Composer.get_node
    compose_document = Composer.compose_document
    compose_scalar_node = Composer.compose_scalar_node
    compose_sequence_node = Composer.compose_sequence_node
    compose_mapping_node = Composer.compose_mapping_node

    def __init__(self, stream: str) -> None:
        super().__init__(stream)
        Composer.__init__(self)
        self._depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node | None:
        self._depth += 1
        try:
            if self._depth > MAX_DEPTH + 1:  # the root is level 0
                m = self.peek_event().start_mark
                raise ParseProblem(
                    "AL001", f"document is nested more than {MAX_DEPTH} levels deep", m.line + 1, m.column + 1
                )
            return Composer.compose_node(self, parent, index)
        finally:
            self._depth -= 1


def _expanded_size(node: yaml.Node, memo: dict[int, int], depth: int = 0, active: set[int] | None = None) -> int:
    """Number of nodes after alias expansion (memoised, so linear in the graph, not in the expansion).

    Stops at the first (innermost) node whose expansion is too large, so the error points at the culprit.
    """
    if depth > MAX_DEPTH:
        m = node.start_mark
        raise ParseProblem("AL001", f"document is nested more than {MAX_DEPTH} levels deep", m.line + 1, m.column + 1)
    got = memo.get(id(node))
    if got is not None:
        return got
    active = set() if active is None else active
    if id(node) in active:
        m = node.start_mark
        raise ParseProblem(
            "AL001",
            "an alias refers to a node that contains it (a recursive structure); policies cannot be recursive",
            m.line + 1,
            m.column + 1,
        )
    active.add(id(node))
    size = 1
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            size += _expanded_size(k, memo, depth + 1, active) + _expanded_size(v, memo, depth + 1, active)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            size += _expanded_size(v, memo, depth + 1, active)
    active.discard(id(node))
    if size > MAX_EXPANDED_NODES:
        m = node.start_mark
        raise ParseProblem(
            "AL001",
            f"aliases expand to more than {MAX_EXPANDED_NODES} nodes; refusing to expand "
            "(is this a billion-laughs document?)",
            m.line + 1,
            m.column + 1,
        )
    memo[id(node)] = size
    return size


_TAB_HINT = "YAML does not allow tabs for indentation; indent with spaces"
_INDENT_HINT = "check the indentation of this line against the lines above"
_HINTS: tuple[tuple[str, str], ...] = (
    ("'\\t'", _TAB_HINT),
    ("found undefined alias", "define the anchor (&name) before using the alias (*name), in the same document"),
    ("mapping values are not allowed", "check the indentation of this line, or quote a value containing ': '"),
    ("expected <block end>", _INDENT_HINT),
    ("did not find expected key", _INDENT_HINT),
    ("found unhashable key", "a key must be a plain value: a [list] or {mapping} cannot be a key"),
    ("found incompatible YAML document", "remove the %YAML directive or make it %YAML 1.1 or 1.2"),
    ("while parsing a flow sequence", "close the [ with ], or add the missing comma between items"),
    ("while parsing a flow mapping", "close the { with }, or add the missing comma between entries"),
)


# A quoted value that starts a block mapping value or sequence item and has no closing quote on its line.
_OPEN_QUOTE_RE = re.compile(r"""^[ ]*(?:- +)*(?:[^\s#'"][^#'"]*?:[ ]+)?(?:- +)*(["'])(.*)$""")


def _unclosed_quote(text: str, first: int, last: int, loader_cls: Any) -> tuple[int, int] | None:
    """(line, column), 0-based, of a quote in lines ``first``..``last`` that is not closed and caused the error.

    libyaml continues a quoted string over line breaks and fails wherever the next quote happens to be, often
    lines later with a message about keys; the opening quote is what needs fixing. A candidate is blamed only
    when closing it on its own line lets the parser get past the original error (a quoted string may span lines
    on purpose).
    """
    lines = text.split("\n")
    for i in range(first, min(last, len(lines))):
        m = _OPEN_QUOTE_RE.match(lines[i])
        if m is None:
            continue
        quote, rest = m.group(1), m.group(2)
        rest = rest.replace("\\\\", "").replace('\\"', "") if quote == '"' else rest.replace("''", "")
        if quote in rest:
            continue
        loader = loader_cls("\n".join([*lines[:i], lines[i] + quote, *lines[i + 1 :]]))
        try:
            while loader.check_node():
                loader.get_node()
        except yaml.MarkedYAMLError as exc:
            if exc.problem_mark is None or exc.problem_mark.line <= last:
                return None
        except Exception:  # any other problem: keep the parser's own message
            return None
        finally:
            loader.dispose()
        return i, m.start(1)
    return None


#: Flow-collection openers and the blanks between them, read backwards from a parser error.
_OPENERS_BACKWARDS = re.compile(r"[\[{ \t\r\n]*")
_OPENER = re.compile(r"[\[{]")
#: How far back a run of openers is followed (libyaml's scanner fails 1,000 levels in).
_RUN_LOOKBACK = 1 << 20


def _deep_flow_run(text: str, mark: yaml.Mark) -> yaml.Mark | None:
    """Where the project's nesting bound is crossed, when a parser error stands inside a run of flow openers.

    libyaml's scanner reads up to 1,024 characters ahead of the parser, so in ``[[[[...`` its own depth limit (1,000
    levels since libyaml 0.2.6) can fire before the events reach ``MAX_DEPTH``: the bound this project promises is
    then reported here, at the opener that crosses it, whatever libyaml says. Cost: O(the run before the error, at
    most ``_RUN_LOOKBACK`` characters), on the error path only."""
    end = mark.index + 1
    if not 0 < end <= len(text) or text[end - 1] not in "[{":
        return None
    start = max(0, end - _RUN_LOOKBACK)
    run = _OPENERS_BACKWARDS.match(text[start:end][::-1])
    first = end - (run.end() if run is not None else 0)
    crossing = next((m for i, m in enumerate(_OPENER.finditer(text, first, end), 1) if i == MAX_DEPTH + 2), None)
    if crossing is None:
        return None
    line = text.count("\n", 0, crossing.start())
    column = crossing.start() - (text.rfind("\n", 0, crossing.start()) + 1)
    return yaml.Mark(mark.name, crossing.start(), line, column, None, 0)


def yaml_error_message(
    exc: yaml.MarkedYAMLError, text: str, kind: str, loader_cls: Any
) -> tuple[str, str | None, yaml.Mark | None]:
    """(message, hint, where to point) for a parser error."""
    problem = exc.problem or exc.context or "unparseable YAML"
    mark = exc.problem_mark or exc.context_mark
    deep = _deep_flow_run(text, mark) if mark is not None else None
    if deep is not None:
        return f"document is nested more than {MAX_DEPTH} levels deep", None, deep
    if exc.problem_mark is not None and not (exc.context or "").startswith("while scanning"):
        first = exc.context_mark.line if exc.context_mark is not None else max(0, exc.problem_mark.line - 20)
        quote = _unclosed_quote(text, first, exc.problem_mark.line, loader_cls)
        if quote is not None:
            return (
                f"invalid {kind}: quoted string is not closed on its line; the parser only failed at line "
                f"{exc.problem_mark.line + 1} ({problem})",
                "add the closing quote",
                yaml.Mark(exc.problem_mark.name, 0, quote[0], quote[1], None, 0),
            )
    if (exc.context or "").startswith("while scanning a tag") and exc.context_mark is not None:
        # A tag runs up to the next space: "[a, !!str]" or "!!str,x" is a tag that never ended. Point at the tag.
        start, end = exc.context_mark, exc.problem_mark
        tag = "this tag"
        if end is not None and end.line == start.line and end.column > start.column:
            line = text.split("\n", start.line + 1)[start.line] if start.line <= text.count("\n") else ""
            tag = f"the tag {line[start.column : end.column]}"
        return (
            f"invalid {kind}: {tag} is not followed by a space or a line break ({problem})",
            'remove the tag, or quote the value if the "!" belongs to it',
            exc.context_mark,
        )
    if (exc.context or "").startswith("while scanning a quoted scalar") and exc.context_mark is not None:
        # The scanner notices only at the end of the file (or the next "---"); the culprit is the opening quote.
        where = f" at line {exc.problem_mark.line + 1}" if exc.problem_mark is not None else ""
        return (
            f"invalid {kind}: quoted string is not closed ({problem}{where})",
            "add the closing quote",
            exc.context_mark,
        )
    message = f"invalid {kind}: {problem}"
    if exc.context and exc.problem:
        message = f"invalid {kind}: {problem} ({exc.context}"
        if exc.context_mark is not None:
            message += f" at line {exc.context_mark.line + 1}"
        message += ")"
    hint = None
    if mark is not None and "\t" in text:
        line = text.split("\n", mark.line + 1)[mark.line] if mark.line <= text.count("\n") else ""
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if "\t" in indent or line[mark.column : mark.column + 1] == "\t":
            hint = _TAB_HINT
    for needle, h in _HINTS:
        if hint is None and (needle in problem or needle in (exc.context or "")):
            hint = h
    return message, hint, mark


def _looks_utf16(raw: bytes) -> bool:
    """UTF-16 without a byte order mark: mostly-ASCII text has a NUL in every other byte."""
    sample = raw[:4096]
    half = len(sample) // 2
    return half >= 4 and (sample[1::2].count(0) >= half * 0.9 or sample[0::2].count(0) >= half * 0.9)


def decode(raw: bytes, path: str) -> tuple[str | None, Finding | None]:
    """UTF-8 (a leading BOM is accepted and dropped); anything else is an error at the offending byte."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return None, Finding("AL001", "error", "file is UTF-16 encoded; save it as UTF-8", path, 1, 1)
    if b"\x00" in raw and _looks_utf16(raw):
        return None, Finding(
            "AL001", "error", "file looks UTF-16 encoded (without a byte order mark); save it as UTF-8", path, 1, 1
        )
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
        col = i - (text.rfind("\n", 0, i) + 1) + 1
        return None, Finding("AL001", "error", "file contains a NUL character; is it a binary file?", path, line, col)
    return text, None


_SURROGATE_ESCAPE = re.compile(r"(\\+)u[dD]([89a-fA-F])[0-9a-fA-F]{2}")


#: The message for a JSON ``\\ud800`` escape that is not half of a pair (libyaml says it of YAML files itself).
LONE_SURROGATE = (
    "a \\u escape names a lone surrogate (\\ud800-\\udfff), which is no character and cannot be stored; write the "
    "character itself, or both halves of its surrogate pair"
)


def lone_surrogate_escape(text: str) -> int | None:
    """The offset of the first ``\\uD800``-style escape in a JSON text that is not half of a pair (the json module
    would keep it as a lone surrogate, which nothing downstream can encode), or None. Cost: one ``in`` for the usual
    text without ``\\u``; else one regular-expression pass."""
    if "\\u" not in text:
        return None
    pending = -1  # offset of a high surrogate escape still waiting for its low half
    pending_end = -1
    for m in _SURROGATE_ESCAPE.finditer(text):
        if len(m[1]) % 2 == 0:  # "\\\\ud800": an escaped backslash, then text
            continue
        start = m.start() + len(m[1]) - 1
        high = m[2] in "89abAB"
        if pending >= 0 and (high or start != pending_end):
            return pending
        if not high and pending < 0:
            return start
        pending, pending_end = (start, m.end()) if high else (-1, -1)
    return pending if pending >= 0 else None


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line_start = text.rfind("\n", 0, offset) + 1
    return text.count("\n", 0, offset) + 1, offset - line_start + 1


def parse_text(
    text: str, path: str, *, max_document_chars: int = DEFAULT_MAX_DOCUMENT_CHARS
) -> tuple[list[RawDocument], list[Finding]]:
    """Parse a YAML/JSON stream into documents. On the first error the whole file is rejected."""
    return _parse(text, path, max_document_chars, lambda: text)


def _parse(
    source: str | bytes, path: str, max_document_chars: int, text_of: Callable[[], str]
) -> tuple[list[RawDocument], list[Finding]]:
    """``source``: the text, or its UTF-8 bytes (already checked by ``decode``; libyaml reads them in place, so a
    large file is held once, not as bytes, text and libyaml's own UTF-8 copy). ``text_of`` gives the text when an
    error message or the full constructor needs it."""
    kind = "JSON" if path.endswith(".json") else "YAML"
    if kind == "JSON":
        text = text_of()
        lone = lone_surrogate_escape(text)
        if lone is not None:
            return [], [Finding("AL001", "error", LONE_SURROGATE, path, *_line_col(text, lone))]
        try:
            doc = read_json_document(text, max_depth=MAX_DEPTH, max_document_chars=max_document_chars, prune=LIST_PRUNE)
            return [RawDocument(path, 0, doc.span.line, doc.data, doc.item_spans)], []
        except NeedsYamlPath:
            pass  # the YAML reader decides: same values, its messages and positions
        tagged = _json_tag(text)
        if tagged is not None:
            return [], [
                Finding(
                    "AL001",
                    "error",
                    "invalid JSON: a YAML tag (!...) is not JSON; remove it, or rename the file to .yaml",
                    path,
                    *tagged,
                )
            ]
    loader = StrictLoader(source)
    reader = EventReader(
        source,
        loader=loader,
        max_depth=MAX_DEPTH,
        max_document_chars=max_document_chars,
        prune=LIST_PRUNE,
        construct_scalar=construct_plain,
    )
    try:
        docs = [RawDocument(path, d.index, d.span.line, d.data, d.item_spans) for d in reader.documents()]
    except NeedsFullConstructor:
        loader.dispose()
        return _parse_full(text_of(), path, kind, max_document_chars)
    except NestedTooDeep as exc:
        return [], [_at(path, exc.mark, "AL001", f"document is nested more than {MAX_DEPTH} levels deep")]
    except DocumentTooLarge as exc:
        return [], [
            _at(
                path,
                exc.mark,
                "AL001",
                f"{exc.what} is larger than {exc.limit} characters; split it into smaller documents",
            )
        ]
    except DuplicateKey as exc:
        loader.dispose()
        if len(source) <= max_document_chars:  # PyYAML's constructor names the first occurrence too
            _, findings = _parse_full(text_of(), path, kind, max_document_chars)
            if findings and findings[0].code == "AL002":
                return [], findings[:1]
        return [], [_at(path, exc.mark, "AL002", f'duplicate key "{exc.key}"; each key may appear once in a mapping')]
    except ParseProblem as p:
        return [], [Finding(p.code, "error", p.message, path, p.line, p.column, hint=p.hint)]
    except yaml.MarkedYAMLError as exc:
        msg, hint, mark = yaml_error_message(exc, text_of(), kind, StrictLoader)
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else 1
        return [], [Finding("AL001", "error", msg, path, line, col, hint=hint)]
    except yaml.YAMLError as exc:
        return [], [Finding("AL001", "error", f"invalid {kind}: {exc}", path, 1, 1)]
    except RecursionError:  # pragma: no cover - nesting is bounded far below the recursion limit
        return [], [Finding("AL001", "error", "document is nested too deeply to read", path, 1, 1)]
    except (ValueError, OverflowError) as exc:  # e.g. a float literal the constructor cannot represent
        return [], [Finding("AL001", "error", f"invalid YAML value: {exc}", path, 1, 1)]
    finally:
        loader.dispose()
    return docs, []


def _at(path: str, mark: yaml.Mark, code: str, message: str) -> Finding:
    return Finding(code, "error", message, path, mark.line + 1, mark.column + 1)


def _parse_full(text: str, path: str, kind: str, max_document_chars: int) -> tuple[list[RawDocument], list[Finding]]:
    """PyYAML's composer (in Python, depth-bounded) and constructor: for anchors, aliases, tags and merge keys.

    Each document is composed as a node tree, so a document larger than the limit is refused before that."""
    if len(text) > max_document_chars:
        too_large = _largest_document(text, max_document_chars)
        if too_large is not None:
            return [], [
                _at(
                    path,
                    too_large,
                    "AL001",
                    f"document uses anchors, aliases or tags and is larger than {max_document_chars} characters; "
                    "split it, or write it without anchors",
                )
            ]
    docs: list[RawDocument] = []
    loader = _GuardedLoader(text)
    loader.source_text = text  # for messages about tags (see _is_implicit); read only when a value fails
    try:
        index = 0
        while loader.check_node():
            node = loader.get_node()
            if node is None:  # pragma: no cover - libyaml returns a null scalar instead
                index += 1
                continue
            _expanded_size(node, {})
            data = loader.construct_document(node)
            docs.append(RawDocument(path=path, index=index, line=node.start_mark.line + 1, data=data))
            index += 1
    except ParseProblem as p:
        return [], [Finding(p.code, "error", p.message, path, p.line, p.column, hint=p.hint)]
    except yaml.MarkedYAMLError as exc:
        msg, hint, mark = yaml_error_message(exc, text, kind, type(loader))
        line = mark.line + 1 if mark else 1
        col = mark.column + 1 if mark else 1
        return [], [Finding("AL001", "error", msg, path, line, col, hint=hint)]
    except yaml.YAMLError as exc:
        return [], [Finding("AL001", "error", f"invalid {kind}: {exc}", path, 1, 1)]
    except RecursionError:
        return [], [Finding("AL001", "error", "document is nested too deeply to read", path, 1, 1)]
    except (ValueError, OverflowError) as exc:  # e.g. a float literal the constructor cannot represent
        return [], [Finding("AL001", "error", f"invalid YAML value: {exc}", path, 1, 1)]
    finally:
        loader.dispose()
    return docs, []


def _largest_document(text: str, limit: int) -> yaml.Mark | None:
    """Start of the first document spanning more than ``limit`` characters (events only, depth-bounded)."""
    reader = EventReader(text, max_depth=MAX_DEPTH, max_document_chars=limit)
    try:
        for start, end in reader.document_spans():
            if end.index - start.index > limit:
                return start
    except (yaml.YAMLError, NestedTooDeep):
        return None  # the full read reports it
    finally:
        reader.dispose()
    return None


_UTF8_BOM = b"\xef\xbb\xbf"


def read_file(
    abspath: str, display: str, max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> tuple[list[RawDocument], list[Finding]]:
    """Read (``renderer.loading.files.read_regular``: regular files only, never blocking, size-bounded) and parse."""
    if max_bytes < 1:  # only --max-file-size can get here: the settings value is validated as > 0
        raise UsageError(f"--max-file-size must be a positive number of bytes, got {max_bytes}")
    try:
        raw = read_regular(abspath, max_bytes)
    except FileProblem as exc:
        message = str(exc)
        if message == "is a directory":
            message = "is a directory, expected a policy file"
        elif message.startswith("is "):
            message += ", not a regular file; policy files must be regular files: replace it with one or remove it"
        return [], [Finding("AL006", "error", message, display, 1, 1)]
    text, problem = decode(raw, display)
    if problem is not None or text is None:
        return [], [problem] if problem else []
    if display.endswith(".json") or raw.startswith(_UTF8_BOM):
        del raw
        return parse_text(text, display)
    del text  # libyaml reads the checked bytes; the text is decoded again only for an error message
    return _parse(raw, display, DEFAULT_MAX_DOCUMENT_CHARS, lambda: raw.decode("utf-8"))
