"""Run the rules over the capacity model; apply settings (on/off, severity) and suppressions.

Order: every enabled, applicable ``model``-phase rule runs; findings covered by a suppression (with a reason) are
dropped and the suppression is marked used; then the ``after``-phase rules (AL9xx) see the remaining findings
and the suppression index; finally severities are overridden from ``.allocatable.yaml``.
"""

from __future__ import annotations

from collections.abc import Mapping

from renderer.capacity.model import CapacityModel
from renderer.findings import CappedFindings, Finding
from renderer.lint.registry import all_rules
from renderer.lint.rule import LintContext, Rule
from renderer.lint.suppression import build_index
from renderer.measured import Measured
from renderer.validation.load import LoadResult

#: Codes an annotation cannot name: the meta rules about suppressions themselves.
META_PREFIX = "AL9"


def suppressible_codes(rules: dict[str, type[Rule]]) -> set[str]:
    return {code for code in rules if not code.startswith(META_PREFIX)}


def run_rules(
    load: LoadResult,
    model: CapacityModel,
    *,
    base_model: CapacityModel | None = None,
    base_ref: str | None = None,
    other_codes: Mapping[str, str | None] | None = None,
    measured: Measured | None = None,
) -> list[Finding]:
    """Lint findings (not including validation findings), positions unresolved.

    ``base_model``/``base_ref``: the policy repo at ``--base`` and the revision as the user wrote it.
    ``other_codes``: the codes of the stages lint does not run (the render stage's), each with why
    ``.allocatable.yaml`` cannot configure it (None: it can), so AL903 and AL904 know them. ``measured``: usage per
    pool (``lint --usage/--prometheus``), for AL216."""
    from renderer.lint.catalog import VALIDATION_CODES, VALIDATION_FIXED

    rules = all_rules()
    others = {code: VALIDATION_FIXED for code in VALIDATION_CODES} | dict(other_codes or {})
    ctx = LintContext(
        load=load,
        model=model,
        base_model=base_model,
        known_codes=frozenset(rules),
        other_codes=others,
        base_ref=base_ref,
        measured=measured,
    )
    settings = load.policies.settings
    enabled: dict[str, Rule] = {}
    skipped: set[str] = set()
    for code, cls in rules.items():
        cfg = settings.rules.get(code)
        rule = cls()
        if (cfg is not None and not cfg.enabled) or not rule.applicable(ctx):
            skipped.add(code)
            continue
        enabled[code] = rule

    index = build_index(load.policies, suppressible_codes(rules))
    ctx.suppressions = index
    ctx.skipped_rules = frozenset(skipped)

    findings = CappedFindings()  # at most MAX_PER_RULE_AND_FILE of one rule per file: memory bounded by what is shown
    for rule in enabled.values():
        if rule.phase != "model":
            continue
        for f in rule.check(ctx):
            s = index.match(f)
            if s is not None:
                s.used = True
                continue
            findings.append(f)
    after: list[Finding] = []
    for rule in enabled.values():
        if rule.phase == "after":
            after.extend(rule.check_after(ctx, findings))
    findings.extend(after)

    out = findings.close()
    for f in out:
        cfg = settings.rules.get(f.code)
        if cfg is not None and cfg.severity is not None:
            f.severity = cfg.severity
    return out
