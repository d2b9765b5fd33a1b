"""What a policy file's bytes validated into, kept so that a second revision's unchanged file is not read again.

``diff --base``, ``lint --base`` and ``verify --base`` load two revisions of one repo, and most files are the same
in both: a :class:`FileMemo` passed to both loads keeps, per file that validated without a single finding, the
records its documents became, keyed by the file's display path, the read bounds and a digest of its bytes. The
other revision's file with the same key is not parsed nor validated again: its records are registered anew (names
are checked for duplicates against *that* revision's files, pools are built again), so the result is what reading
it would give. A file that gave any finding or problem is always read again (its findings are its revision's own
objects: they are placed and reworded later). The records are the first load's own objects, which that load's
result keeps anyway: the memo costs a list per file.

Cost: one BLAKE2b digest of each file's bytes (C, about a gigabyte a second), one lookup per file.
"""

from __future__ import annotations

import hashlib

from renderer.loading.bounds import Bounds
from renderer.validation.validate import Registered

__all__ = ["FileMemo", "Registered"]


class FileMemo:
    """The records of the files read so far that gave no finding, by (display, bounds, digest of the bytes)."""

    __slots__ = ("_files",)

    def __init__(self) -> None:
        self._files: dict[tuple[str, Bounds, bytes], list[Registered]] = {}

    @staticmethod
    def key(display: str, bounds: Bounds, data: bytes) -> tuple[str, Bounds, bytes]:
        return display, bounds, hashlib.blake2b(data, digest_size=20).digest()

    def get(self, key: tuple[str, Bounds, bytes]) -> list[Registered] | None:
        return self._files.get(key)

    def put(self, key: tuple[str, Bounds, bytes], records: list[Registered]) -> None:
        self._files[key] = records
