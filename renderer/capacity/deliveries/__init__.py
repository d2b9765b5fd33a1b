"""The platforms' own kubelet APIs, one module each (``renderer/capacity/deliveries/<name>.py``, found by its name):
``WAY`` (the ``NodePool.spec.delivery`` field that chooses it), ``API`` and ``translate(pc, settings)`` →
``renderer.capacity.delivery_api.Translation``. Lint rule AL327 and the render targets of the same names read them
through :func:`module_for`. Cost: the modules are imported once, on first use.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import TYPE_CHECKING

from renderer import submodules

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity

__all__ = ["apis", "module_for"]

_APIS: dict[str, ModuleType] = {}


def apis() -> dict[str, ModuleType]:
    """Every API module, by the ``NodePool.spec.delivery`` way that chooses it (imported once)."""
    if not _APIS:
        import renderer.capacity.deliveries as pkg

        for name in submodules.names(pkg.__path__):
            module = importlib.import_module(f"{pkg.__name__}.{name}")
            _APIS[module.WAY] = module
    return _APIS


def module_for(pc: PoolCapacity) -> ModuleType | None:
    """The API module of a NodePool's delivery, None when its delivery is another (or none)."""
    delivery = pc.pool.delivery
    if pc.pool.origin != "NodePool" or delivery is None:
        return None
    for way in delivery.ways():
        found = apis().get(way)
        if found is not None:
            return found
    return None
