"""Every code the tool reports, for ``allocatable rules``, docs/rules.md and SARIF's rule list: validation and the
lint rules (``renderer.lint.catalog``) and the render stage's codes (``renderer.render.codes``)."""

from __future__ import annotations

from renderer.codes import CodeInfo
from renderer.lint.catalog import catalog as lint_catalog
from renderer.render.codes import all_codes


def catalog() -> dict[str, CodeInfo]:
    """Every code, by code. Cost: O(codes)."""
    out = lint_catalog()
    for code, cls in all_codes().items():
        out[code] = cls.info()
    return dict(sorted(out.items()))
