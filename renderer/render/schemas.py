"""JSON Schemas for rendered artefacts (no pydantic model behind them). Filled in by the render stage."""

from __future__ import annotations

from typing import Any


def rendered_schemas() -> dict[str, dict[str, Any]]:
    return {}
