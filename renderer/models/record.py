"""Base of the runtime model classes: plain objects with the fields of their pydantic schema.

Every policy kind has two classes of one name. The one in ``renderer.models.<kind>`` (a :class:`Record`) is what the
stages read: fields only, no pydantic import. The one in ``renderer.models.schema.<kind>`` subclasses it and declares
each field's constraints for pydantic; it is the source of ``schemas/``, of the compiled validators
(``renderer.models.validators``) that build the records on a clean run, and of every validation message.
"""

from __future__ import annotations

import copy
from typing import Any, TypeVar

R = TypeVar("R")


class Record:
    """Fields as attributes; equal when of one type with equal fields (as pydantic models compare).

    Validated records come from ``renderer.models.validators``; ``Record(**fields)`` sets exactly the fields given.
    """

    def __init__(self, **fields: Any) -> None:
        vars(self).update(fields)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record):
            return NotImplemented
        return type(self) is type(other) and vars(self) == vars(other)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items())
        return f"{type(self).__name__}({fields})"


class NotKept:
    """A class attribute that takes what is assigned to it on an instance and keeps nothing.

    pydantic_core sets ``__pydantic_fields_set__`` on every record it builds (a set of the field names given, 216
    bytes and more each: 30,000 selector requirements held 6.5 MB of them); no stage reads it (nothing dumps with
    ``exclude_unset``), so the compiled validators' record classes declare it with this instead of a slot."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    def __get__(self, obj: object, owner: type | None = None) -> None:
        if obj is None:
            return None
        raise AttributeError(f"{self.name} is not kept on records")

    def __set__(self, obj: object, value: object) -> None:
        pass


def field_names(cls: type) -> frozenset[str]:
    """The field names a record class declares (its own annotations)."""
    return frozenset(vars(cls).get("__annotations__", {}))


def as_dict(obj: Record) -> dict[str, Any]:
    """The fields of a record, in declaration order (``model_dump()`` of a model whose fields are plain values)."""
    return dict(vars(obj))


def replace(obj: R, **changes: Any) -> R:
    """A shallow copy of a record with some fields changed (``model_copy(update=...)``)."""
    new = copy.copy(obj)
    vars(new).update(changes)
    return new
