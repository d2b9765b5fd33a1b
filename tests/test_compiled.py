"""The compiled validators (``renderer.models.validators``): cached safely, pydantic-free, equal to the schema models.

A clean run validates with pydantic_core alone; the schema models (pydantic) only report errors. These tests check
that the first run writes the validators into the user's cache and a later clean ``lint`` imports no pydantic, that
only a private cache file is ever loaded, and compare both validators document by document, with whatever pydantic
is installed: every policy, settings file and Node this repo holds (examples, corpus, rule and render cases, real
nodes), and a few thousand variations of them (each value swapped for values of other types, keys dropped or added).
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic_core import ValidationError

from renderer.models import validators
from renderer.models.record import Record
from renderer.models.schema import kinds

REPO_ROOT = Path(__file__).resolve().parents[1]
_HEAVY = (
    "import sys\n"
    "from renderer.cli import main\n"
    "code = main(['lint', 'policies'])\n"
    "heavy = ('pydantic', 'jsonschema', 'ruamel', 'jinja2', 'shtab')\n"
    "print(code, sorted({m.split('.')[0] for m in sys.modules if m.split('.')[0] in heavy}), file=sys.stderr)\n"
)


def _lint_in_subprocess(cache: Path | str) -> str:
    """The last stderr line of a lint of policies/ in a fresh interpreter: exit code and heavy libraries imported."""
    proc = subprocess.run(
        [sys.executable, "-c", _HEAVY],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
        env={**os.environ, "ALLOCATABLE_CACHE_DIR": str(cache)},
    )
    return proc.stderr.splitlines()[-1]


def _cache_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("validators-*.bin"))


def test_the_first_run_fills_the_cache_and_a_clean_lint_then_imports_no_heavy_library(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    assert _lint_in_subprocess(cache) == "0 ['pydantic']"  # builds the validators from the schema models, once
    (written,) = _cache_files(cache)
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700 and stat.S_IMODE(written.stat().st_mode) == 0o600
    assert _lint_in_subprocess(cache) == "0 []"
    assert _cache_files(cache) == [written]


@pytest.mark.parametrize("how", ["group-writable directory", "symlinked file", "group-writable file"])
def test_a_cache_file_others_could_have_written_is_never_loaded(tmp_path: Path, how: str) -> None:
    cache = tmp_path / "cache"
    assert _lint_in_subprocess(cache) == "0 ['pydantic']"
    (written,) = _cache_files(cache)
    if how == "group-writable directory":
        cache.chmod(0o770)
    elif how == "group-writable file":
        written.chmod(0o660)
    else:
        elsewhere = tmp_path / "elsewhere.bin"
        written.rename(elsewhere)
        written.symlink_to(elsewhere)
    # Not loaded: the schema models validate (pydantic is imported again), with the same result.
    assert _lint_in_subprocess(cache) == "0 ['pydantic']"


def test_a_damaged_cache_file_is_rebuilt(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    _lint_in_subprocess(cache)
    (written,) = _cache_files(cache)
    written.write_bytes(written.read_bytes()[:100])
    assert _lint_in_subprocess(cache) == "0 ['pydantic']"
    assert _lint_in_subprocess(cache) == "0 []"


def test_an_empty_cache_dir_setting_turns_the_cache_off(tmp_path: Path) -> None:
    assert _lint_in_subprocess("") == "0 ['pydantic']"


def test_the_key_changes_with_pydantic_core_and_with_the_models(monkeypatch: pytest.MonkeyPatch) -> None:
    key = validators._key()
    monkeypatch.setattr(validators, "_PYDANTIC_CORE", "0.0.0-another")
    assert validators._key() != key


def _documents() -> Iterator[tuple[str, str, Any]]:
    """(where, kind, document) for every policy, settings file and Node in the repo's YAML files."""
    known = set(kinds())
    paths = sorted({*REPO_ROOT.glob("policies/**/*.yaml"), *REPO_ROOT.glob("tests/**/*.yaml")})
    paths += sorted({*REPO_ROOT.glob("policies/**/.allocatable.yaml"), *REPO_ROOT.glob("tests/**/.allocatable.yaml")})
    for path in paths:
        try:
            docs = list(yaml.safe_load_all(path.read_text(encoding="utf-8")))
        except Exception:  # the bad-input corpus holds files PyYAML cannot read (tags, bombs, encodings)
            continue
        where = str(path.relative_to(REPO_ROOT))
        for i, doc in enumerate(docs):
            if not isinstance(doc, dict):
                continue
            if path.name == ".allocatable.yaml":
                yield f"{where}#{i}", "Settings", doc
            elif doc.get("kind") == "List" and isinstance(doc.get("items"), list):
                for j, item in enumerate(doc["items"][:5]):
                    if isinstance(item, dict) and item.get("kind") == "Node":
                        yield f"{where}#{i}.{j}", "Node", item
            elif isinstance(doc.get("kind"), str) and doc["kind"] in known:
                yield f"{where}#{i}", str(doc["kind"]), doc


DOCUMENTS = list(_documents())


def _outcome(kind: str, data: Any, compiled_side: bool) -> tuple[str, Any]:
    try:
        if compiled_side:
            record = validators.validator(kind).validate_python(data)
            assert isinstance(record, Record) and not hasattr(record, "model_dump")
            return "ok", validators.dump(kind, record)
        return "ok", kinds()[kind].model_validate(data).model_dump()
    except ValidationError as exc:
        return "error", [(e["type"], e["loc"], e["msg"]) for e in exc.errors(include_url=False)]


def _variations(data: Any) -> Iterator[Any]:
    """``data`` with one change: a value replaced by one of another type, a key dropped, an unknown key added."""
    others: list[Any] = [None, True, 0, 7, -3, 1.0, 2.5, "", "x", "100", "1Gi", [], ["a"], {}, {"a": "b"}]
    if isinstance(data, dict):
        for key, value in data.items():
            for other in others:
                if type(other) is not type(value):
                    yield {**data, key: other}
            yield {k: v for k, v in data.items() if k != key}
            for changed in _variations(value):
                yield {**data, key: changed}
        yield {**data, "unexpected": 1}
    elif isinstance(data, list):
        for i, value in enumerate(data[:3]):
            for changed in _variations(value):
                yield [*data[:i], changed, *data[i + 1 :]]
        if data:
            yield [*data, data[0]]


def test_the_repo_holds_documents_of_every_kind() -> None:
    assert {kind for _, kind, _ in DOCUMENTS} == set(kinds())
    assert len(DOCUMENTS) > 150


@pytest.mark.parametrize(("where", "kind", "doc"), DOCUMENTS, ids=[w for w, _, _ in DOCUMENTS])
def test_compiled_and_schema_models_agree(where: str, kind: str, doc: Any) -> None:
    assert _outcome(kind, doc, True) == _outcome(kind, doc, False)


def test_they_agree_on_variations_of_every_kind() -> None:
    seen: dict[str, int] = {}
    for where, kind, doc in DOCUMENTS:
        if seen.get(kind, 0) >= 3:  # a few documents of each kind, every variation of each
            continue
        seen[kind] = seen.get(kind, 0) + 1
        for variant in _variations(doc):
            assert _outcome(kind, variant, True) == _outcome(kind, variant, False), (where, variant)


def test_without_the_compiled_validators_the_schema_models_validate_with_the_same_result() -> None:
    def lint(prelude: str) -> subprocess.CompletedProcess[str]:
        code = f"{prelude}\nimport sys\nfrom renderer.cli import main\nsys.exit(main(['lint', '-o', 'json', 'policies']))\n"
        return subprocess.run(
            [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, check=False, timeout=120
        )

    compiled_run = lint("")
    fallback = lint("import renderer.models.validators as v\nv._loaded = True\nv._namespace = None")
    assert compiled_run.returncode == fallback.returncode == 0
    assert compiled_run.stdout == fallback.stdout and compiled_run.stderr == fallback.stderr
    assert '"objects": 17' in compiled_run.stdout and '"code": "AL204"' in compiled_run.stdout


def _schema_models() -> list[type[Any]]:
    import importlib
    import pkgutil

    from pydantic import BaseModel

    import renderer.models.schema as pkg

    out: list[type[Any]] = []
    for info in pkgutil.iter_modules(pkg.__path__):
        module = importlib.import_module(f"{pkg.__name__}.{info.name}")
        out += [
            v
            for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, BaseModel) and v.__module__ == module.__name__ and v.model_fields
        ]
    return out


@pytest.mark.parametrize("model", _schema_models(), ids=lambda m: m.__qualname__)
def test_every_schema_model_declares_the_fields_of_its_record_in_order(model: type[Any]) -> None:
    from renderer.models.schema.compile import record_of

    record = record_of(model)
    assert record.__name__ == model.__name__ and record.__module__ == model.__module__.replace(".schema", "")
    assert list(model.model_fields) == list(vars(record)["__annotations__"])
