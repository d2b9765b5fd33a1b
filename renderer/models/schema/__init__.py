"""The pydantic schema of every kind: each field's type, constraints and description, on subclasses of the runtime
records in ``renderer.models``. Imported to report validation errors, to write ``schemas/`` and to compile
``renderer.models.validators`` — never on a clean run once the cache holds them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic import BaseModel


def kinds() -> dict[str, type[BaseModel]]:
    """The schema model of every kind a document may be (and of the settings file), by kind name."""
    from renderer.models.schema.commitclass import CommitClass
    from renderer.models.schema.node import Node
    from renderer.models.schema.nodepool import NodePool
    from renderer.models.schema.reservationpolicy import ReservationPolicy
    from renderer.models.schema.runtimeclass import RuntimeClass
    from renderer.models.schema.settings import Settings

    return {
        "CommitClass": CommitClass,
        "RuntimeClass": RuntimeClass,
        "NodePool": NodePool,
        "ReservationPolicy": ReservationPolicy,
        "Node": Node,
        "Settings": Settings,
    }
