"""``renderer.reprs.fields_repr`` gives what the ``__repr__`` ``@dataclass`` writes gives, for the classes that use it
instead (each saves compiling one at import)."""

from __future__ import annotations

import ast
import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from renderer.reprs import fields_repr

RENDERER = Path(__file__).resolve().parents[1] / "renderer"


@dataclass
class Generated:
    a: int
    b: str = "x"
    hidden: int = field(default=0, repr=False)
    other: Any = None


@dataclass(repr=False)
class Shared:
    __repr__ = fields_repr

    a: int
    b: str = "x"
    hidden: int = field(default=0, repr=False)
    other: Any = None


@dataclass(frozen=True, slots=True)
class GeneratedSlots:
    a: int
    b: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True, repr=False)
class SharedSlots:
    __repr__ = fields_repr

    a: int
    b: tuple[int, ...] = ()


def _named(text: str, name: str) -> str:
    """The generated repr's text under the other class's name."""
    return name + text[text.index("(") :]


@pytest.mark.parametrize("args", [(1,), (2, "y\n'q'", 5), (3, "", 0, [1, {"k": None}])])
def test_the_same_text_as_the_generated_repr(args: tuple[Any, ...]) -> None:
    assert repr(Shared(*args)) == _named(repr(Generated(*args)), "Shared")
    assert repr(SharedSlots(args[0], (1, 2))) == _named(repr(GeneratedSlots(args[0], (1, 2))), "SharedSlots")


def test_a_cycle_is_shown_as_dots_as_the_generated_one_shows_it() -> None:
    gen, shared = Generated(1), Shared(1)
    gen.other, shared.other = [gen], [shared]
    assert repr(shared) == _named(repr(gen), "Shared") == "Shared(a=1, b='x', other=[...])"
    nested = Shared(2, other=Shared(3, other=None))
    assert repr(nested) == "Shared(a=2, b='x', other=Shared(a=3, b='x', other=None))"


def _users() -> list[tuple[str, str]]:
    """(module file, class) of every class in renderer/ that assigns ``__repr__ = fields_repr``."""
    found = []
    for path in sorted(RENDERER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                for stmt in node.body:
                    if (
                        isinstance(stmt, ast.Assign)
                        and [getattr(t, "id", None) for t in stmt.targets] == ["__repr__"]
                        and getattr(stmt.value, "id", None) == "fields_repr"
                    ):
                        found.append((path.relative_to(RENDERER).as_posix(), node.name))
    return found


def test_every_user_is_a_dataclass_that_does_not_write_its_own() -> None:
    """A class with ``repr=True`` would compile the generated one anyway (and keep it): the saving needs
    ``repr=False``."""
    import importlib

    users = _users()
    assert len(users) >= 15
    for module_file, name in users:
        module = importlib.import_module(
            "renderer." + module_file.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
        )
        cls = getattr(module, name)
        assert dataclasses.is_dataclass(cls), name
        assert cls.__repr__ is fields_repr, f"{module_file}: {name} has repr=True (or its own __repr__)"
