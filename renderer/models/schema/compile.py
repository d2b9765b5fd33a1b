"""Writes ``renderer/models/compiled.py``: pydantic's own validators for every kind, usable without pydantic.

pydantic turns each model into a core schema that ``pydantic_core`` runs. Building those schemas (and importing
pydantic) is most of a cold ``allocatable lint``; the schemas do not change between runs, so they are generated
here, once, and committed: the same core schemas, with each model class replaced by its runtime record class
(``renderer.models.<kind>``, plus the slots pydantic_core fills) and every validator function referenced by name.
A document the compiled validator accepts is exactly one pydantic accepts, with equal field values; a document it
rejects is validated again by the pydantic model, whose errors are the ones reported.

Run ``python -m renderer.models.schema.compile`` after changing a model; ``tests/test_compiled.py`` fails on a stale
file. Cost: O(size of the schemas × their nesting depth), once per change.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pydantic_core
from pydantic import BaseModel

from renderer.models.record import Record
from renderer.models.schema import kinds

TARGET = Path(__file__).resolve().parents[1] / "compiled.py"

#: Keys of a core schema that only pydantic itself reads (JSON Schema hooks, definition names): left out.
_DROPPED = ("metadata", "ref")


def record_of(model: type[BaseModel]) -> type[Record]:
    """The runtime record class a schema model declares the fields of."""
    for base in model.__mro__[1:]:
        if issubclass(base, Record) and not issubclass(base, BaseModel):
            return base
    raise TypeError(f"{model.__qualname__} does not subclass a Record from renderer.models")


class _Writer:
    def __init__(self) -> None:
        self.imports: dict[str, str] = {}  # module -> alias
        self.records: dict[type[Record], str] = {}  # record class -> generated class name
        self.factories: dict[str, str] = {}  # generated class name -> its factory's name
        self.pending: list[tuple[str, type[BaseModel]]] = []  # factories whose schema is still to be written

    def module(self, name: str) -> str:
        if name not in self.imports:
            self.imports[name] = "_" + name.rsplit(".", 1)[-1]
        return self.imports[name]

    def record(self, model: type[BaseModel]) -> str:
        rec = record_of(model)
        if rec not in self.records:
            name = rec.__name__
            if name in self.records.values():
                raise ValueError(f"two record classes named {name}: rename one")
            self.records[rec] = name
        return self.records[rec]

    def function(self, fn: Callable[..., Any]) -> str:
        module, qualname = fn.__module__, fn.__qualname__
        if module == "builtins":
            return qualname
        if "." in qualname or "<" in qualname or module.startswith("renderer.models.schema"):
            raise ValueError(f"{module}.{qualname}: validators must be module-level functions outside the schema")
        return f"{self.module(module)}.{qualname}"

    def value(self, obj: Any, indent: int, names: bool = False) -> str:
        """``obj`` as Python source: on one line when it fits, else one item a line."""
        flat = self._value(obj, 0, names, flat=True)
        if len(flat) + 4 * indent <= 110:
            return flat
        return self._value(obj, indent, names, flat=False)

    def _value(self, obj: Any, indent: int, names: bool, flat: bool) -> str:
        pad = "    " * (indent + 1)
        if isinstance(obj, dict):
            if not names and obj.get("type") in ("definitions", "definition-ref"):
                # Shared or recursive models would need their definitions named; none is, so refs are dropped.
                raise ValueError("a model is reused or recursive: teach the compiler to keep pydantic's definitions")
            items = []
            for key, val in obj.items():
                if not names and key in _DROPPED:
                    continue
                if not names and key == "cls":
                    text = self.record(val)
                elif not names and key == "default_factory" and isinstance(val, type) and issubclass(val, BaseModel):
                    text = self.factory(val)
                elif flat:
                    text = self._value(val, 0, key == "fields" and not names, flat=True)
                else:
                    text = self.value(val, indent + 1, names=key == "fields" and not names)
                items.append(f"{key!r}: {text}")
            if flat or not items:
                return "{" + ", ".join(items) + "}"
            return "{\n" + "".join(f"{pad}{item},\n" for item in items) + "    " * indent + "}"
        if isinstance(obj, list | tuple):
            if flat or not obj:
                return "[" + ", ".join(self._value(v, 0, False, flat=True) for v in obj) + "]"
            return "[\n" + "".join(f"{pad}{self.value(v, indent + 1)},\n" for v in obj) + "    " * indent + "]"
        if obj is None or isinstance(obj, bool | int | float | str):
            return repr(obj)
        if callable(obj) and getattr(obj, "__module__", None) is not None and hasattr(obj, "__qualname__"):
            return self.function(obj)
        raise TypeError(f"cannot write {obj!r} into a compiled schema")

    def factory(self, model: type[BaseModel]) -> str:
        """``default_factory=SomeModel``: a function returning the record of that model's defaults."""
        name = self.record(model)
        if name not in self.factories:
            self.factories[name] = f"_new_{name}"
            self.pending.append((name, model))
        return self.factories[name]


HEADER = '''"""pydantic's core schemas of every kind, compiled for pydantic_core alone (no pydantic import on a clean run).

GENERATED by ``python -m renderer.models.schema.compile`` from ``renderer.models.schema``: do not edit; regenerate
after changing a model (``tests/test_compiled.py`` fails on a stale file). See that module for how it is made.
"""

from __future__ import annotations

from typing import Any

from pydantic_core import SchemaSerializer, SchemaValidator
from pydantic_core import __version__ as _running

'''

FOOTER = '''

#: The schemas are pydantic_core's of this release; with another one installed, the schema models validate instead.
CURRENT = _running == PYDANTIC_CORE

_validators: dict[str, SchemaValidator] = {}
_serializers: dict[str, SchemaSerializer] = {}


def validator(name: str) -> SchemaValidator:
    """The validator of a kind (or of a model used as a default), built on first use. Cost: O(schema size)."""
    found = _validators.get(name)
    if found is None:
        found = _validators[name] = SchemaValidator(SCHEMAS[name])
    return found


def serializer(name: str) -> SchemaSerializer:
    """The serializer of a kind, built on first use."""
    found = _serializers.get(name)
    if found is None:
        found = _serializers[name] = SchemaSerializer(SCHEMAS[name])
    return found


def new(name: str) -> Any:
    """The record of kind ``name`` with every field at its default (e.g. the settings of a repo without a file)."""
    if not CURRENT:
        from renderer.models.schema import kinds

        return kinds()[name]()
    return validator(name).validate_python({})


def dump(name: str, record: Any, mode: str = "python") -> Any:
    """``model_dump(mode=...)`` of a record of kind ``name``."""
    if hasattr(record, "model_dump"):  # a schema model's own instance
        return record.model_dump(mode=mode)
    return serializer(name).to_python(record, mode=mode)
'''


def generate() -> str:
    """The text of ``renderer/models/compiled.py``."""
    writer = _Writer()
    schemas: list[tuple[str, str]] = []
    for kind, model in kinds().items():
        schemas.append((kind, writer.value(model.__pydantic_core_schema__, 1)))
    done: set[str] = set()
    while writer.pending:
        name, model = writer.pending.pop(0)
        if name not in done:
            done.add(name)
            schemas.append((name, writer.value(model.__pydantic_core_schema__, 1)))
    lines = [HEADER.rstrip("\n"), ""]
    imports = [(m.rpartition(".")[0], m.rpartition(".")[2], alias) for m, alias in writer.imports.items()]
    imports += [(rec.__module__, rec.__name__, f"_{rec.__name__}") for rec in writer.records]
    for package, name, alias in sorted(imports, key=lambda i: (i[0], i[1].lower() if i[1].islower() else i[1])):
        lines.append(f"from {package} import {name} as {alias}")
    lines += ["", "#: What pydantic_core sets besides the fields (the runtime classes keep them out of ``vars()``)."]
    lines.append('_SLOTS = ("__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__")')
    for rec, name in writer.records.items():
        lines += ["", "", f"class {name}(_{rec.__name__}):", "    __slots__ = _SLOTS"]
    for name, factory in writer.factories.items():
        lines += ["", "", f"def {factory}() -> Any:", f"    return validator({name!r}).validate_python({{}})"]
    lines += ["", "", "SCHEMAS: dict[str, Any] = {"]
    for name, text in schemas:
        lines.append(f"    {name!r}: {text},")
    lines.append("}")
    lines.append("KINDS = " + repr(tuple(kinds())))
    lines.append(f"PYDANTIC_CORE = {pydantic_core.__version__!r}")
    return "\n".join(lines) + "\n" + FOOTER


def main() -> int:
    text = generate()
    current = TARGET.read_text(encoding="utf-8") if TARGET.exists() else None
    if current == text:
        return 0
    TARGET.write_text(text, encoding="utf-8")
    sys.stdout.write(f"wrote {TARGET.name}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
