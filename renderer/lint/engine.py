"""Run the rules over the capacity model; apply settings (on/off, severity) and suppressions."""

from __future__ import annotations

from renderer.capacity.model import CapacityModel
from renderer.findings import Finding
from renderer.lint.rule import LintContext, all_rules
from renderer.pipeline import LoadResult


def run_rules(load: LoadResult, model: CapacityModel, *, base_model: CapacityModel | None = None) -> list[Finding]:
    """Lint findings (not including validation findings), positions unresolved."""
    ctx = LintContext(load=load, model=model, base_model=base_model)
    settings = load.policies.settings
    findings: list[Finding] = []
    for code, cls in all_rules().items():
        cfg = settings.rules.get(code)
        if cfg is not None and not cfg.enabled:
            continue
        for f in cls().check(ctx):
            if cfg is not None and cfg.severity is not None:
                f.severity = cfg.severity
            findings.append(f)
    return findings
