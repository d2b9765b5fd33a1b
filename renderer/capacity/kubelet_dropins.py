"""The effective KubeletConfiguration of a kubelet started with ``--config`` and ``--config-dir``, and which file
sets each field.

What the kubelet does (kubernetes/kubernetes ``cmd/kubelet/app/server.go``; the drop-in directory is beta since 1.30
and GA in 1.35, KEP-3983):

- ``loadConfigFile`` reads the base file (``--config``). When it sets no ``evictionHard``, the kubelet puts its
  default thresholds in *before* any drop-in is read (``kc.EvictionHard = eviction.DefaultEvictionHard``, PR
  110263), so a drop-in's ``evictionHard`` then adds to those defaults key by key instead of replacing them.
- ``mergeKubeletConfigurations`` walks the directory with ``filepath.WalkDir`` (lexical order of the names,
  a subdirectory's files where its name sorts) and takes every file whose extension is exactly ``.conf``
  (``filepath.Ext(name) == ".conf"``: ``50-x.conf.bak`` and ``50-x.CONF`` are not read). Each is merged into the
  configuration so far with ``jsonpatch.MergePatch`` (RFC 7386 JSON merge patch): objects are merged key by key, at
  every depth; any other value, lists included, replaces the earlier one whole; ``null`` removes the field.
- kubernetes/website ``content/en/docs/reference/node/kubelet-config-directory-merging.md`` shows the same with
  examples: structure fields overridden field by field (``authorization``), a list replaced whole (``clusterDNS``),
  map entries overridden one by one (``featureGates``), and in a ``map[string][]string`` the list of one key
  replaced whole (``staticPodURLHeader``).
- Command-line flags are re-applied over the merged result (``kubeletConfigFlagPrecedence``); this module models
  files only, so a flag a platform passes is its module's business.

Cost: O(fields of all files); nothing here reads a file (the callers know what each file holds).
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

from renderer import platforms
from renderer.models.kubelet_fields import KUBELET_DEFAULT_EVICTION_HARD

if TYPE_CHECKING:
    from renderer.platforms import KubeletFiles, PoolView, SettingsView

#: The extension the kubelet reads in the drop-in directory (``dropinFileExtension`` in server.go).
DROPIN_EXTENSION = ".conf"

FieldPath = tuple[str, ...]


@dataclass(frozen=True)
class ConfigFile:
    """One KubeletConfiguration file on the node: ``path`` as the node has it, ``fields`` what it sets (no
    apiVersion/kind), ``writer`` who writes it ("nodeadm", "k3s", "allocatable", ...)."""

    path: str
    fields: Mapping[str, Any]
    writer: str = ""

    @property
    def name(self) -> str:
        return posixpath.basename(self.path)


#: Stands for the thresholds the kubelet puts in itself when the base file sets no evictionHard.
KUBELET_DEFAULTS = ConfigFile("the kubelet's default", KUBELET_DEFAULT_EVICTION_HARD, "kubelet")


@dataclass(frozen=True)
class EffectiveConfig:
    """The merged configuration, and for each value the files that set it, in merge order (the last one wins)."""

    fields: dict[str, Any]
    setters: dict[FieldPath, tuple[ConfigFile, ...]]
    #: the base file, then the drop-ins in the order they were merged
    applied: tuple[ConfigFile, ...]
    base: ConfigFile | None = None
    #: files in the directory that the kubelet does not read (their extension is not ``.conf``)
    ignored: tuple[ConfigFile, ...] = ()

    def winner(self, *path: str) -> ConfigFile | None:
        """The file whose value the kubelet uses at ``path`` (``KUBELET_DEFAULTS`` for a default the kubelet put in
        itself; None: nothing sets it)."""
        got = self.setters.get(path)
        return got[-1] if got else None

    @cached_property
    def notes(self) -> list[str]:
        """Explain's note on this merge (:func:`notes`), made once."""
        return notes(self)

    def get(self, *path: str) -> Any:
        value: Any = self.fields
        for key in path:
            if not isinstance(value, dict) or key not in value:
                return None
            value = value[key]
        return value


def is_dropin(path: str) -> bool:
    """Whether the kubelet reads ``path`` from its drop-in directory: ``filepath.Ext`` of the name is ``.conf``
    (the text from the last dot of the last element, so ``.conf`` itself counts and ``a.conf.d`` does not)."""
    name = posixpath.basename(path)
    dot = name.rfind(".")
    return dot >= 0 and name[dot:] == DROPIN_EXTENSION


def walk_order(directory: str, path: str) -> tuple[str, ...]:
    """Sort key of ``filepath.WalkDir``: the path's elements below ``directory``, compared element by element
    (WalkDir reads each directory's names sorted, and enters a subdirectory where its name sorts). Python compares
    str by code point, which is the order of their UTF-8 bytes, as Go's sort of names is."""
    rel = posixpath.relpath(path, directory) if directory else path
    return tuple(rel.split("/"))


def _drop(setters: dict[FieldPath, tuple[ConfigFile, ...]], prefix: FieldPath) -> None:
    for p in [p for p in setters if p[: len(prefix)] == prefix]:
        del setters[p]


def _patch(
    target: dict[str, Any],
    patch: Mapping[str, Any],
    prefix: FieldPath,
    source: ConfigFile,
    setters: dict[FieldPath, tuple[ConfigFile, ...]],
) -> None:
    """RFC 7386 MergePatch of ``patch`` into ``target`` (in place), recording ``source`` as a setter of every leaf
    it writes."""
    for key, value in patch.items():
        path = (*prefix, key)
        if value is None:  # "null" removes the member (RFC 7386 section 2)
            target.pop(key, None)
            _drop(setters, path)
            continue
        if isinstance(value, Mapping):
            current = target.get(key)
            if not isinstance(current, dict):  # a non-object is replaced by the patch applied to {}
                _drop(setters, path)
                current = target[key] = {}
            _patch(current, value, path, source, setters)
            if not value:  # "{}" sets an empty object where there was none: a leaf of its own
                setters[path] = (*setters.get(path, ()), source)
            continue
        # a scalar or a list replaces what was there, whole
        if isinstance(target.get(key), dict):
            _drop(setters, path)
        target[key] = list(value) if isinstance(value, (list, tuple)) else value
        setters[path] = (*setters.get(path, ()), source)


def merge(base: ConfigFile | None, directory: str, dropins: Iterable[ConfigFile]) -> EffectiveConfig:
    """What the kubelet runs with: ``base`` (``--config``; None when the kubelet gets no file) and the files of
    ``directory`` (``--config-dir``) in the order the kubelet merges them. ``dropins`` may come in any order and
    may include files the kubelet does not read (they are reported in ``ignored``)."""
    fields: dict[str, Any] = {}
    setters: dict[FieldPath, tuple[ConfigFile, ...]] = {}
    applied: list[ConfigFile] = []
    if base is not None:
        if "evictionHard" not in base.fields:  # loadConfigFile: the defaults go in before the drop-ins
            _patch(fields, {"evictionHard": KUBELET_DEFAULT_EVICTION_HARD}, (), KUBELET_DEFAULTS, setters)
        _patch(fields, base.fields, (), base, setters)
        applied.append(base)
    files = list(dropins)
    ignored = tuple(sorted((f for f in files if not is_dropin(f.path)), key=lambda f: walk_order(directory, f.path)))
    for f in sorted((f for f in files if is_dropin(f.path)), key=lambda f: walk_order(directory, f.path)):
        _patch(fields, f.fields, (), f, setters)
        applied.append(f)
    return EffectiveConfig(fields, setters, tuple(applied), base, ignored)


def _origin(effective: EffectiveConfig, path: FieldPath) -> str:
    """ "from 40-nodeadm.conf (drop-in) over config.json": the file that wins ``path`` and those it overrides."""
    got = effective.setters[path]
    win = got[-1]
    kind = "" if win is effective.base or win is KUBELET_DEFAULTS else " (drop-in)"
    losers = list(dict.fromkeys(f.name for f in got[:-1] if f is not win))
    return f"from {win.name}{kind}" + (f" over {', '.join(losers)}" if losers else "")


def describe(effective: EffectiveConfig, paths: Iterable[FieldPath]) -> list[str]:
    """One phrase per path a file sets, in the order given: "maxPods from 40-nodeadm.conf (drop-in) over
    config.json", "evictionHard.nodefs.available from config.json"; a map's keys sharing their origin are one
    phrase ("kubeReserved cpu, memory from ..."). Paths no file sets are left out."""
    groups: dict[tuple[str, str], list[str]] = {}
    for path in paths:
        if path in effective.setters:
            groups.setdefault((path[0], _origin(effective, path)), []).append(".".join(path[1:]))
    return [
        f"{name} {', '.join(keys)} {origin}" if any(keys) else f"{name} {origin}"
        for (name, origin), keys in groups.items()
    ]


# -- a pool's files -------------------------------------------------------------------------------------------------

#: The writer of the file this repository renders.
OURS = "allocatable"
#: The fields of a KubeletConfiguration the capacity model reads (explain names the file that sets each).
COUNTED = ("systemReserved", "kubeReserved", "evictionHard", "maxPods")


def pool_files(pool: PoolView, settings: SettingsView) -> KubeletFiles | None:
    """The files of the pool's platform when the pool's kubelet settings reach its nodes as a drop-in beside the
    platform's own (``Platform.kubelet_files`` and the pool's delivery; for a Node, its OS image where the platform
    names one), else None."""
    files = platforms.effective(pool, settings).kubelet_files
    if files is None:
        return None
    if getattr(pool, "origin", "") == "Node" and files.os_image is not None:  # verify: what the node shows
        return files if getattr(pool, "node_info", {}).get("osImage", "").startswith(files.os_image) else None
    delivery = getattr(pool, "delivery", None)
    ways = delivery.ways() if delivery is not None else []
    return files if ways == ([files.delivery] if files.delivery else []) else None


def _freeze(value: Any) -> Any:
    if isinstance(value, Mapping):
        return ("{", tuple((k, _freeze(v)) for k, v in value.items()))
    if isinstance(value, (list, tuple)):
        return ("[", tuple(_freeze(v) for v in value))
    return value


def _thaw(value: Any) -> Any:
    if isinstance(value, tuple) and value[:1] == ("{",):
        return {k: _thaw(v) for k, v in value[1]}
    if isinstance(value, tuple) and value[:1] == ("[",):
        return [_thaw(v) for v in value[1]]
    return value


def layered(files: KubeletFiles, theirs: Mapping[str, Any], ours: Mapping[str, Any]) -> EffectiveConfig:
    """The merge of the platform's file (``theirs``: what it sets of ``COUNTED``) and the file this repository
    renders (``ours``), where ``files`` puts them. Pools of one shape get one merge (and one note): the result is
    read only, like the model's other shared values."""
    return _layered(files, _freeze(theirs), _freeze(ours))


@lru_cache(maxsize=4096)
def _layered(files: KubeletFiles, frozen_theirs: Any, frozen_ours: Any) -> EffectiveConfig:
    theirs, ours = _thaw(frozen_theirs), _thaw(frozen_ours)
    platform = ConfigFile(files.platform_file, theirs, files.writer)
    own = ConfigFile(files.ours, ours, OURS)
    if files.base == files.platform_file:
        return merge(platform, files.directory, [own])
    base = ConfigFile(files.base, {}, files.writer) if files.base is not None else None
    return merge(base, files.directory, [platform, own])


def kept(effective: EffectiveConfig | None, *path: str) -> bool:
    """Whether the kubelet takes ``path`` from a file other than the one this repository renders."""
    if effective is None:
        return False
    win = effective.winner(*path)
    return win is not None and win.writer != OURS


def label(f: ConfigFile) -> str:
    """How explain names a file: ``config.json (nodeadm)``."""
    return f"{f.name} ({f.writer})" if f.writer and f.writer != OURS else f.name


def notes(effective: EffectiveConfig) -> list[str]:
    """Explain's note on a merged configuration: the files in merge order, then each counted field another file
    sets (kept or overridden), with the file that wins it."""
    paths = [p for p in effective.setters if p[0] in COUNTED and any(f.writer != OURS for f in effective.setters[p])]
    if not paths:
        return []
    paths.sort(key=lambda p: (COUNTED.index(p[0]), p))
    files = " + ".join(label(f) for f in effective.applied)
    return [
        f"kubelet configuration: {files}, merged in this order by the kubelet (maps key by key): "
        + "; ".join(describe(effective, paths))
    ]
