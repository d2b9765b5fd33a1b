"""The validators a clean run checks every kind with: pydantic's own core schemas, run by pydantic_core alone.

Importing pydantic and building the models is most of a cold ``allocatable lint``. The core schemas pydantic builds
from ``renderer.models.schema`` do not change between runs, so the first run writes them, as compiled Python
(``renderer.models.schema.compile``), into the user's cache under a key made of everything they depend on: the
sources of ``renderer/models``, the pydantic and pydantic_core releases and the Python version. Later runs load that
file and import no pydantic. Any pydantic 2.x works: a new release is a new key, compiled once.

Where: ``$ALLOCATABLE_CACHE_DIR``, else ``$XDG_CACHE_HOME/allocatable``, else ``~/.cache/allocatable``; an empty
``ALLOCATABLE_CACHE_DIR`` turns the cache off. What is read: only a regular file this user owns, not writable by
others, in a directory this user owns and only they can write (never through a symlink). Anything else, an
unwritable cache (a read-only root file system) or a broken file, costs speed, never a result: the validators are
built in memory, or the schema models validate. Nothing read from the repo or the input goes into the cache.

An image whose root file system is read-only at run time fills the cache while it is built, as the user it runs as:
``python -m renderer.models.validators`` writes the file and exits 1 when it could not (argocd/Dockerfile).

Cost: a cache hit reads ~30 small source files to hash them and one cache file (about 1 ms); a miss builds the
pydantic models once (about 0.2 s).
"""

from __future__ import annotations

import importlib.util
import marshal
import os
import stat
import sys
from pathlib import Path
from types import CodeType
from typing import Any

from pydantic_core import SchemaSerializer, SchemaValidator
from pydantic_core import __version__ as _PYDANTIC_CORE

__all__ = ["cache_dir", "dump", "new", "ready", "validator", "warm"]

_PACKAGE = Path(__file__).resolve().parent
_PREFIX = "validators-"
_SUFFIX = ".bin"
#: A cache file older than this that belongs to another key (an older release) is removed when a new one is written.
_STALE_SECONDS = 30 * 24 * 3600

_namespace: dict[str, Any] | None = None
_loaded = False
_validators: dict[str, SchemaValidator] = {}
_serializers: dict[str, SchemaSerializer] = {}


def cache_dir() -> Path | None:
    """The cache directory (None when the cache is turned off)."""
    configured = os.environ.get("ALLOCATABLE_CACHE_DIR")
    if configured is not None:
        return Path(configured) if configured else None
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "allocatable"
    home = os.environ.get("HOME") or os.path.expanduser("~")
    return Path(home) / ".cache" / "allocatable" if os.path.isabs(home) else None


def _pydantic_release() -> bytes:
    """pydantic's version file, read without importing pydantic (its schemas are part of what the cache holds)."""
    spec = importlib.util.find_spec("pydantic")
    if spec is None or not spec.submodule_search_locations:
        return b""
    try:
        return Path(next(iter(spec.submodule_search_locations)), "version.py").read_bytes()
    except OSError:
        return b""


def _key() -> str:
    """64 bits of the sources, the releases and the Python version: the keyed hash Python checks hash-based ``.pyc``
    files with (``importlib.util.source_hash``), which needs no ``hashlib`` (its OpenSSL module is ~4 ms of a cold
    start)."""
    parts = [
        path.relative_to(_PACKAGE).as_posix().encode() + b"\0" + path.read_bytes() + b"\0"
        for path in sorted([*_PACKAGE.glob("*.py"), *_PACKAGE.glob("schema/*.py")])
    ]
    parts.append(_pydantic_release() + b"\0" + _PYDANTIC_CORE.encode() + b"\0")
    parts.append(sys.implementation.cache_tag.encode() if sys.implementation.cache_tag else b"")
    return importlib.util.source_hash(b"".join(parts)).hex()


def _private(st: os.stat_result, kind: int) -> bool:
    """Of this user, of the right type, writable by nobody else."""
    return stat.S_IFMT(st.st_mode) == kind and st.st_uid == os.geteuid() and not st.st_mode & 0o022


def _read(directory: Path, name: str) -> CodeType | None:
    try:
        if not _private(os.lstat(directory), stat.S_IFDIR):
            return None
        fd = os.open(directory / name, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not _private(st, stat.S_IFREG) or st.st_size > 16 << 20:
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read()
        code = marshal.loads(data)
    except (OSError, EOFError, ValueError, TypeError):
        return None
    finally:
        os.close(fd)
    return code if isinstance(code, CodeType) else None


def _write(directory: Path, name: str, code: CodeType) -> None:
    """Store ``code`` atomically (a private temporary file renamed into place); any failure only costs speed."""
    import tempfile

    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not _private(os.lstat(directory), stat.S_IFDIR):
            return
        fd, tmp = tempfile.mkstemp(prefix=".tmp-", dir=directory)
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(marshal.dumps(code))
            os.replace(tmp, directory / name)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        _remove_stale(directory, name)
    except OSError:
        return


def _remove_stale(directory: Path, keep: str) -> None:
    import time

    now = time.time()
    for entry in os.scandir(directory):
        if entry.name != keep and entry.name.startswith(_PREFIX) and entry.name.endswith(_SUFFIX):
            try:
                if now - entry.stat(follow_symlinks=False).st_mtime > _STALE_SECONDS:
                    os.unlink(entry.path)
            except OSError:
                continue


def _build() -> CodeType | None:
    """Compile the validators module from the schema models (imports pydantic); None if that cannot be done."""
    try:
        from renderer.models.schema.compile import generate

        return compile(generate(), "<allocatable validators>", "exec")
    except Exception:  # a pydantic release the compiler does not understand: the schema models validate
        return None


def _load() -> dict[str, Any] | None:
    global _namespace, _loaded
    if _loaded:
        return _namespace
    _loaded = True
    directory = cache_dir()
    name = f"{_PREFIX}{_key()}{_SUFFIX}"
    code = _read(directory, name) if directory is not None else None
    fresh = code is None
    if code is None:
        code = _build()
    if code is None:
        return None
    namespace: dict[str, Any] = {"__name__": "renderer.models._validators", "validator": validator}
    try:
        exec(code, namespace)
        if namespace.get("PYDANTIC_CORE") != _PYDANTIC_CORE:
            return None
    except Exception:  # a damaged cache file that still unmarshals: build it again, once
        if fresh:
            return None
        code = _build()
        if code is None:
            return None
        namespace = {"__name__": "renderer.models._validators", "validator": validator}
        exec(code, namespace)
        fresh = True
    if fresh and directory is not None:
        _write(directory, name, code)
    _namespace = namespace
    return namespace


def ready() -> bool:
    """True when the compiled validators are available (from the cache, or built in this run)."""
    return _load() is not None


def _schemas() -> dict[str, Any]:
    namespace = _load()
    if namespace is None:
        raise RuntimeError("the compiled validators are not available: check ready() first")
    schemas: dict[str, Any] = namespace["SCHEMAS"]
    return schemas


def validator(name: str) -> SchemaValidator:
    """The validator of a kind (or of a model used as a default), built on first use. Cost: O(schema size)."""
    found = _validators.get(name)
    if found is None:
        found = _validators[name] = SchemaValidator(_schemas()[name])
    return found


def _serializer(name: str) -> SchemaSerializer:
    found = _serializers.get(name)
    if found is None:
        found = _serializers[name] = SchemaSerializer(_schemas()[name])
    return found


def new(name: str) -> Any:
    """The record of kind ``name`` with every field at its default (e.g. the settings of a repo without a file)."""
    if not ready():
        from renderer.models.schema import kinds

        return kinds()[name]()
    return validator(name).validate_python({})


def dump(name: str, record: Any, mode: str = "python") -> Any:
    """``model_dump(mode=...)`` of a record of kind ``name``."""
    if hasattr(record, "model_dump"):  # a schema model's own instance
        return record.model_dump(mode=mode)
    return _serializer(name).to_python(record, mode=mode)


def warm() -> Path | None:
    """Build the validators and write them to the cache now; the cache file, once read back as a later run reads
    it (None when there is no cache directory, or it cannot be written or read). Cost: one build (about 0.2 s)."""
    directory = cache_dir()
    if directory is None:
        return None
    name = f"{_PREFIX}{_key()}{_SUFFIX}"
    code = _build()
    if code is None:
        return None
    _write(directory, name, code)
    return directory / name if _read(directory, name) is not None else None


if __name__ == "__main__":  # pragma: no cover - run by image builds; tested through tests/delivery
    written = warm()
    if written is None:
        sys.stderr.write(
            f"allocatable: error: the validators cache could not be written to {cache_dir() or 'no directory'}; "
            "set ALLOCATABLE_CACHE_DIR to a directory this user owns and only it can write\n"
        )
        raise SystemExit(1)
    sys.stderr.write(f"allocatable: validators cached in {written}\n")
