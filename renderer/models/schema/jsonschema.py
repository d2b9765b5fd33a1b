"""JSON Schemas (2020-12) generated from the pydantic schema models; committed under ``schemas/``."""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def schema_models() -> dict[str, type[BaseModel]]:
    """File name → model, for every kind a user writes."""
    from renderer.models.schema.commitclass import CommitClass
    from renderer.models.schema.nodepool import NodePool
    from renderer.models.schema.reservationpolicy import ReservationPolicy
    from renderer.models.schema.runtimeclass import RuntimeClass
    from renderer.models.schema.settings import Settings

    return {
        "commitclass.json": CommitClass,
        "runtimeclass.json": RuntimeClass,
        "nodepool.json": NodePool,
        "reservationpolicy.json": ReservationPolicy,
        "settings.json": Settings,
    }


def generate(extra: dict[str, dict[str, Any]] | None = None) -> dict[str, str]:
    """File name → byte-stable JSON text: every policy kind's schema, plus ``extra`` (hand-written schemas without a
    pydantic model, e.g. the rendered KubeletConfiguration's, handed in by the composer)."""
    files: dict[str, str] = {}
    for filename, model in schema_models().items():
        schema = model.model_json_schema(mode="validation")
        doc = {"$schema": DIALECT, **schema}
        files[filename] = json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    for filename, schema in (extra or {}).items():
        files[filename] = json.dumps(schema, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return files
