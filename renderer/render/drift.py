"""``render --check``: how an output directory differs from a render, with a short diff, and CRLF said as such."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from renderer.render.dirtree import Tree, check_root, removable
from renderer.render.manifest import MANIFEST, manifest_bytes, previous_manifest
from renderer.render.target import Delivered
from renderer.render.transaction import dirs_of, leftovers

DIFF_LINES = 40


@dataclass
class Difference:
    path: str
    status: str  # "changed", "missing", "stale", "leftover"
    diff: list[str] = field(default_factory=list)


def _short_diff(path: str, old: bytes, new: bytes) -> list[str]:
    a = old.decode("utf-8", errors="replace").splitlines(keepends=True)
    b = new.decode("utf-8", errors="replace").splitlines(keepends=True)
    lines = [line.rstrip("\n") for line in difflib.unified_diff(a, b, f"{path} (on disk)", f"{path} (rendered)", n=2)]
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f"... {len(lines) - DIFF_LINES} more diff lines"]
    return lines


def _changed(rel: str, current: bytes, expected: bytes) -> Difference:
    """A file that differs. Rendered files are LF; a checkout with CRLF line endings (Windows' ``core.autocrlf``)
    is said as such instead of a diff whose lines look the same, and a real change in such a file is diffed
    without the line endings."""
    if b"\r\n" not in current or b"\r\n" in expected:
        return Difference(rel, "changed", _short_diff(rel, current, expected))
    lf = current.replace(b"\r\n", b"\n")
    if lf == expected:
        why = (
            "CRLF on disk, LF rendered: git converts it on checkout (core.autocrlf); keep the rendered tree LF with "
            "a .gitattributes line such as `rendered/** text eol=lf` (allocatable init writes one)"
        )
        return Difference(rel, "differs only in line endings", [why])
    return Difference(rel, "changed (and CRLF line endings on disk)", _short_diff(rel, lf, expected))


def check(root: Path, files: dict[str, bytes], delivered: dict[str, Delivered] | None = None) -> list[Difference]:
    """How ``root`` differs from ``files`` (and their manifest, with ``delivered``); empty when a render would change
    nothing.

    The manifest is reported only when nothing else differs (it was edited by hand or is missing). Staged or kept
    files of a killed render are reported as "leftover"."""
    check_root(root)
    expected = {**files, MANIFEST: manifest_bytes(files, delivered)}
    out: list[Difference] = []
    with Tree(root) as tree:
        for rel in sorted(expected):
            current = tree.read(rel)
            if current is None:
                out.append(Difference(rel, "missing"))
            elif current != expected[rel]:
                out.append(_changed(rel, current, expected[rel]))
        previous = previous_manifest(tree)[0]
        for rel in sorted(set(previous) - set(files)):
            if removable(tree, rel):
                out.append(Difference(rel, "stale"))
        ours = set(previous) | set(files)
        out.extend(Difference(rel, "leftover") for rel in leftovers(tree, dirs_of(ours), ours))
    if any(d.path != MANIFEST for d in out):
        out = [d for d in out if d.path != MANIFEST]  # the manifest only follows the files; its diff is noise then
    return out


# ------------------------------------------------------------------------------------------------ where to write
