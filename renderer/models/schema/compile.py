"""Source of the validators module: pydantic's own validators for every kind, usable without pydantic.

pydantic turns each model into a core schema that ``pydantic_core`` runs. Building those schemas (and importing
pydantic) is most of a cold ``allocatable lint``; the schemas do not change between runs, so they are written out
here as Python, once per pydantic release and models, and kept in the user's cache by ``renderer.models.validators``:
the same core schemas, with each model class replaced by its runtime record class (``renderer.models.<kind>``, plus
the slots pydantic_core fills) and every validator function referenced by name. A document the compiled validator
accepts is exactly one pydantic accepts, with equal field values; a document it rejects is validated again by the
pydantic model, whose errors are the ones reported (``tests/test_compiled.py`` compares the two).

Cost: O(size of the schemas × their nesting depth), once per cache key.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import pydantic_core
from pydantic import BaseModel

from renderer.models.record import Record
from renderer.models.schema import kinds

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


HEADER = '''"""pydantic's core schemas of every kind, for pydantic_core alone (no pydantic import on a clean run).

Generated by ``renderer.models.schema.compile`` into the user's cache (see ``renderer.models.validators``, which runs
it with ``validator`` in its namespace).
"""

from __future__ import annotations

from typing import Any

'''


def generate() -> str:
    """The source of the validators module (``validator`` comes from the namespace it is run in)."""
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
    imports.append(("renderer.models.record", "NotKept", "_NotKept"))
    for package, name, alias in sorted(imports, key=lambda i: (i[0], i[1].lower() if i[1].islower() else i[1])):
        lines.append(f"from {package} import {name} as {alias}")
    lines += [
        "",
        "#: What pydantic_core sets besides the fields (the runtime classes keep them out of ``vars()``); the set",
    ]
    lines.append("#: of fields given is not kept at all (``renderer.models.record.NotKept``).")
    lines.append('_SLOTS = ("__pydantic_extra__", "__pydantic_private__")')
    for rec, name in writer.records.items():
        lines += [
            "",
            "",
            f"class {name}(_{rec.__name__}):",
            "    __slots__ = _SLOTS",
            "    __pydantic_fields_set__ = _NotKept()",
        ]
    for name, factory in writer.factories.items():
        lines += ["", "", f"def {factory}() -> Any:", f"    return validator({name!r}).validate_python({{}})"]
    lines += ["", "", "SCHEMAS: dict[str, Any] = {"]
    for name, text in schemas:
        lines.append(f"    {name!r}: {text},")
    lines.append("}")
    lines.append("KINDS = " + repr(tuple(kinds())))
    lines.append(f"PYDANTIC_CORE = {pydantic_core.__version__!r}")
    return "\n".join(lines) + "\n"


def main() -> int:
    """``python -m renderer.models.schema.compile``: print the module the cache holds (for reading, not for use)."""
    sys.stdout.write(generate())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
