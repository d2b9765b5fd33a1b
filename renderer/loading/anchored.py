"""Documents with anchors, aliases, explicit tags or merge keys: PyYAML's composer and constructor, per document.

The event reader (``renderer.loading.events``) builds plain documents straight from libyaml's events; a document it
cannot build is composed here instead, as a node tree, by PyYAML's composer in Python (``GuardedLoader``: one level
at a time, stopping at ``MAX_DEPTH`` before libyaml ever sees the deep part), its alias expansion bounded
(``expanded_size``: ``MAX_EXPANDED_NODES``), then constructed with the checked constructors of
``renderer.loading.tags``. Only that document takes this path: the documents before and after it are read by the
event reader from the same parser.

Cost: O(size of the document) for composing and constructing, O(nodes) for the expansion count (memoised per node,
so aliases are counted, never expanded); ``document_sizes`` is one event pass over the text.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.composer import Composer

from renderer.loading.bounds import MAX_DEPTH, MAX_EXPANDED_NODES
from renderer.loading.events import EventReader, NestedTooDeep
from renderer.loading.tags import StrictLoader
from renderer.loading.yamlerrors import ParseProblem

__all__ = ["GuardedLoader", "document_sizes", "expanded_size"]


class GuardedLoader(StrictLoader):
    """Composes in Python, one level at a time, and stops at ``MAX_DEPTH``; keeps its text as ``source_text`` so a
    message about a tag can quote the tag as written (``renderer.loading.tags``). Its events are libyaml's: the
    event reader reads the other documents of the same text from it."""

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
        self.source_text = stream

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


def expanded_size(node: yaml.Node, memo: dict[int, int], depth: int = 0, active: set[int] | None = None) -> int:
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
            size += expanded_size(k, memo, depth + 1, active) + expanded_size(v, memo, depth + 1, active)
    elif isinstance(node, yaml.SequenceNode):
        for v in node.value:
            size += expanded_size(v, memo, depth + 1, active)
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


def document_sizes(text: str, limit: int) -> list[tuple[yaml.Mark, int]]:
    """(start mark of the root, characters spanned) of every document of ``text``, in order, from events alone
    (anchors and aliases allowed, nothing built, nesting bounded); stops quietly at a syntax error or the nesting
    bound, which the composer then reports itself. Cost: one event pass over the text."""
    reader = EventReader(text, max_depth=MAX_DEPTH, max_document_chars=limit)
    sizes: list[tuple[yaml.Mark, int]] = []
    try:
        for start, end in reader.document_spans():
            sizes.append((start, end.index - start.index))
    except (yaml.YAMLError, NestedTooDeep):
        pass
    finally:
        reader.dispose()
    return sizes
