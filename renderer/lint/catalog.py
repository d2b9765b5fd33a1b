"""The codes of validation (AL001-AL006) and of the lint rules, for listings and SARIF (the render stage's codes
are ``renderer.render.codes``; ``renderer.reporters.catalog`` lists them all)."""

from __future__ import annotations

from renderer.codes import CodeInfo, group_of
from renderer.lint.registry import all_rules

__all__ = ["VALIDATION_CODES", "VALIDATION_FIXED", "CodeInfo", "catalog", "group_of", "section"]

#: Codes produced by `validate` (and by lint, which validates first). They are errors and cannot be suppressed.
VALIDATION_CODES: dict[str, tuple[str, str]] = {
    "AL001": (
        "not-parseable",
        "not parseable: YAML syntax, encoding, nesting, alias-expansion or document-size (8 MiB) limits",
    ),
    "AL002": ("duplicate-key", "a mapping has the same key twice"),
    "AL003": ("unsupported-object", "not a supported object: unknown kind or apiVersion, not a mapping, no documents"),
    "AL004": ("invalid-field", "a field is unknown, missing, of the wrong type, or has an invalid value"),
    "AL005": ("duplicate-name", "the same kind and name is defined twice"),
    "AL006": ("file-problem", "a file-system problem: size limit, symlink leaving the repo, broken symlink"),
}

#: Why a validation code cannot be configured in ``.allocatable.yaml`` (nor suppressed by annotation).
VALIDATION_FIXED = "validation errors stop every command before any rule runs"


def catalog() -> dict[str, CodeInfo]:
    out: dict[str, CodeInfo] = {}
    for code, (name, summary) in VALIDATION_CODES.items():
        doc = (
            f"## What it does\n{summary[0].upper() + summary[1:]}.\n\n"
            "## Fix\nCorrect the file; `allocatable validate` prints the exact field and what it expects. "
            "Validation errors stop `lint` before any rule runs and cannot be suppressed."
        )
        out[code] = CodeInfo(code, name, "error", summary, doc, group_of(code), VALIDATION_FIXED)
    for code, cls in all_rules().items():
        out[code] = CodeInfo(code, cls.name, cls.severity, cls.summary, cls.doc(), group_of(code))
    return dict(sorted(out.items()))


def section(doc: str, heading: str) -> str:
    """The text under ``## heading`` in a rule's markdown docs ('' when missing)."""
    lines = doc.splitlines()
    out: list[str] = []
    inside = False
    for line in lines:
        if line.startswith("## "):
            if inside:
                break
            inside = line[3:].strip() == heading
            continue
        if inside:
            out.append(line)
    return "\n".join(out).strip()
