"""YAML tags and the scalars they construct, as Kubernetes reads them: ``StrictLoader`` and ``construct_plain``.

``StrictLoader`` is PyYAML's C loader with the project's rules: no base-60 numbers (``1:30`` is a string, as in
go-yaml), duplicate keys refused, and every tag's constructor replaced by a checked one, so that a tag or a value
that does not read as its type is one located AL001 finding saying what to change, never an exception from inside
PyYAML. ``construct_plain`` builds the value of an alias-free node in one tight recursion.

Cost: O(1) per scalar on top of PyYAML's own conversion; a message quotes the tag from the node's own line, found
from the node's character offset (O(that line), never O(the text before it)).
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.constructor import SafeConstructor

from renderer.loading.yamlerrors import ParseProblem

__all__ = ["StrictLoader", "construct_plain", "json_tag"]

try:  # pragma: no cover - depends on the wheel
    _BaseLoader: Any = yaml.CSafeLoader
except AttributeError:  # pragma: no cover
    _BaseLoader = yaml.SafeLoader

# YAML 1.1 reads 1:30 as the base-60 number 90. Kubernetes (go-yaml) does not, and a quantity or label value
# written that way is a string there: resolve ints and floats without the base-60 forms.
_INT_RE = re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$")
_FLOAT_RE = re.compile(
    r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
    r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
)
_NO_BASE_60 = {"tag:yaml.org,2002:int": _INT_RE, "tag:yaml.org,2002:float": _FLOAT_RE}


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


def _tag_at(loader: Any, node: yaml.Node) -> str | None:
    """The tag as written at the node's start (``!!bool``, ``!<tag:...>``, ``!local``), when ``source_text`` is kept
    on the loader and the node starts with one; else None. Found from the node's character offset: O(the tag)."""
    text: str | None = getattr(loader, "source_text", None)
    i = node.start_mark.index
    if text is None or text[i : i + 1] != "!":
        return None
    if text[i : i + 2] == "!<":
        line_end = text.find("\n", i)
        close = text.find(">", i, len(text) if line_end == -1 else line_end)
        if close != -1:
            return text[i : close + 1]
    end = _TAG_END.search(text, i)
    return text[i : end.start() if end else len(text)]


def _tag_name(loader: Any, node: yaml.Node) -> str:
    """The node's tag as written in the file (``!!bool``, ``!<tag:...>``, ``!local``); else its short form."""
    written = _tag_at(loader, node)
    if written is not None:
        return written
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

    A tagged node starts at its tag, so the source character at the node's offset tells (the text is kept on the
    loader as ``source_text``); without it, a plain scalar that resolves to its own tag counts as implicit.
    """
    text: str | None = getattr(loader, "source_text", None)
    if text is not None:
        i = node.start_mark.index
        return text[i : i + 1] != "!"
    return not node.style and loader.resolve(yaml.ScalarNode, node.value, (True, False)) == node.tag


def _unsupported_tag(loader: Any, node: yaml.Node) -> Any:
    tag = _tag_name(loader, node)
    raise _problem_at(
        node,
        f"the tag {tag} is not supported: policy files hold plain mappings, lists, strings, numbers, booleans and "
        f"null, as Kubernetes reads them; remove {tag}"
        + (" and quote the value" if isinstance(node, yaml.ScalarNode) else ""),
    )


#: The longest integer literal read (a 64-bit value in binary, with "_" separators, fits many times over).
_MAX_INT_CHARS = 640


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


def json_tag(text: str) -> tuple[int, int] | None:
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
