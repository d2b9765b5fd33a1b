"""The reader's bounds: how large a file and a document may be, how deep a document may nest, how far aliases may
expand. One set for every input the reader takes (policies, settings, node and pod dumps, git blobs).

The file-size limit only guards against reading something that is not a policy file at all; memory is bounded per
document (``max_document_chars``, each List item on its own).
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["DEFAULT_MAX_DOCUMENT_CHARS", "DEFAULT_MAX_FILE_BYTES", "MAX_DEPTH", "MAX_EXPANDED_NODES", "Bounds"]

#: Files larger than this are not read (a real 10,000-node ``kubectl get nodes -o yaml`` is well below it).
DEFAULT_MAX_FILE_BYTES = 256 * 1024 * 1024
#: One document, or one item of a List, may span at most this many characters.
DEFAULT_MAX_DOCUMENT_CHARS = 8 * 1024 * 1024
#: Nodes a document may hold once its aliases are expanded (a billion-laughs document stops here).
MAX_EXPANDED_NODES = 100_000
#: Levels of nesting below a document's root.
MAX_DEPTH = 64


class Bounds(NamedTuple):
    """What one read may cost: ``max_file_bytes`` read at most, ``max_document_chars`` per document or List item."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    max_document_chars: int = DEFAULT_MAX_DOCUMENT_CHARS
