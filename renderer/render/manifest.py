"""``.allocatable-rendered.json``: the files of the last render (path → sha256) and what each delivers.

The manifest says which files of an output directory are ours; it also records, for each file that delivers kubelet
settings, its target and pools (``delivers``: path → ``{"target", "pools"}``), so that a render that would remove one
can say whose it was. A file an older allocatable rendered names its pools in its own header (``header_pools``).
"""

from __future__ import annotations

import hashlib
import json
import re

from renderer.render.dirtree import OutputError, Tree, check_relative
from renderer.render.target import Delivered
from renderer.render.yamlout import HEADER_MARK

MANIFEST = ".allocatable-rendered.json"
MANIFEST_VERSION = 1


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_bytes(files: dict[str, bytes], delivered: dict[str, Delivered] | None = None) -> bytes:
    """The manifest of a render of ``files``; ``delivered``: the target and pools of each delivering file (kept
    when the file is among ``files``)."""
    doc: dict[str, object] = {
        "generator": "allocatable",
        "version": MANIFEST_VERSION,
        "files": {path: _sha256(files[path]) for path in sorted(files)},
    }
    owned = {
        path: {"target": d.target, "pools": list(d.pools)}
        for path, d in sorted((delivered or {}).items())
        if path in files and d.pools
    }
    if owned:
        doc["delivers"] = owned
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8")


def previous_manifest(tree: Tree) -> tuple[dict[str, str], dict[str, Delivered] | None]:
    """(path → sha256, path → target and pools) of the last render's manifest; the second is None for a manifest
    of an allocatable that did not record deliveries yet."""
    data = tree.read(MANIFEST)
    if data is None:
        return {}, None
    try:
        doc = json.loads(data)
        files = doc["files"]
        if not isinstance(files, dict):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        raise OutputError(
            f"{tree.shown(MANIFEST)} is not a manifest written by allocatable; remove it or choose another "
            "output directory"
        ) from None
    out: dict[str, str] = {}
    for path, digest in files.items():
        if isinstance(path, str) and isinstance(digest, str):
            try:
                check_relative(path)
            except OutputError:
                continue  # never act on a path that would leave the directory
            out[path] = digest
    raw = doc.get("delivers") if isinstance(doc, dict) else None
    delivered: dict[str, Delivered] | None = None
    if isinstance(raw, dict):
        delivered = {}
        for path, entry in raw.items():
            if not (isinstance(path, str) and path in out and isinstance(entry, dict)):
                continue
            target, refs = entry.get("target"), entry.get("pools")
            if isinstance(refs, list):
                pools = tuple(r for r in refs if isinstance(r, str))
                delivered[path] = Delivered(target if isinstance(target, str) else "", pools)
    return out, delivered


#: A pool among the sources in a rendered file's header: ``#   pools/eks.yaml (NodePool/eks-general-purpose)``.
_HEADER_POOL = re.compile(r"^#\s.*\((NodePool/[^()\s]+)\)\s*$")


def header_pools(data: bytes) -> tuple[str, ...] | None:
    """The pools a rendered file's own header names as sources (a file an older allocatable rendered, whose manifest
    does not record them); None when the file has no header (JSON)."""
    if not data.startswith(HEADER_MARK.encode()):
        return None
    refs: list[str] = []
    for line in data[: 1 << 16].decode("utf-8", "replace").splitlines():
        if not line.startswith("#"):
            break
        m = _HEADER_POOL.match(line)
        if m:
            refs.append(m.group(1))
    return tuple(dict.fromkeys(refs))
