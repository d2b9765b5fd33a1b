"""SARIF 2.1.0 for GitHub code scanning (``github/codeql-action/upload-sarif``) and other SARIF consumers.

One run; ``tool.driver`` lists every code the tool can report (validation, lint rules, render) with id,
name, short and full description, help (plain text and markdown, from the rule's docstring) and default level.
Each result has ruleId and ruleIndex, level, message, one physical location — ``artifactLocation.uri`` relative to
the repository root (the git top-level of the reported files, else the current directory) with ``uriBaseId``
``%SRCROOT%``, and a region — and ``partialFingerprints`` that stay stable when lines move (rule, file, object,
field and message, not the line number).
"""

from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any, TextIO

from renderer import __version__
from renderer.escaping import json_raw_escapes, plain, uri_path
from renderer.findings import Finding
from renderer.loading.files import MAX_FILE_BYTES_CEILING, FileProblem, read_regular
from renderer.reporters.findings import Report
from renderer.reporters.findings._paths import relative_to_root, repo_root

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
LEVEL = {"error": "error", "warning": "warning", "info": "note"}
FINGERPRINT_KEY = "allocatableFindingHash/v1"


def _plain(markdown: str) -> str:
    """The docstring for plain-text readers: headings as lines of their own, code fences removed."""
    out = []
    for line in markdown.splitlines():
        if line.startswith("```"):
            continue
        out.append(line[3:] + ":" if line.startswith("## ") else line)
    return "\n".join(out).strip()


def rule_descriptors() -> tuple[list[dict[str, Any]], dict[str, int]]:
    from renderer.lint.catalog import section
    from renderer.reporters.catalog import catalog

    rules: list[dict[str, Any]] = []
    index: dict[str, int] = {}
    for code, info in catalog().items():
        full = section(info.doc, "What it does") or info.summary
        index[code] = len(rules)
        rules.append(
            {
                "id": code,
                "name": info.name,
                "shortDescription": {"text": info.summary},
                "fullDescription": {"text": " ".join(full.split())},
                "help": {"text": _plain(info.doc), "markdown": info.doc},
                "defaultConfiguration": {"level": LEVEL[info.severity]},
                "properties": {"tags": ["allocatable", info.group]},
            }
        )
    return rules, index


@lru_cache(maxsize=256)
def _lines(path: str) -> tuple[str, ...]:
    """The lines of a reported file, for end columns: regular files only, never blocking, size-bounded."""
    try:
        return tuple(read_regular(path, MAX_FILE_BYTES_CEILING).decode("utf-8-sig").splitlines())
    except (FileProblem, UnicodeDecodeError):
        return ()


def region(f: Finding) -> dict[str, int]:
    line = max(f.line, 1)
    column = max(f.column, 1)
    lines = () if f.code == "AL006" else _lines(f.path)  # AL006: a file the tool refused to read stays unread
    text = lines[line - 1].rstrip() if line <= len(lines) else ""
    end = max(len(text) + 1, column + 1)
    return {"startLine": line, "startColumn": column, "endLine": line, "endColumn": end}


def fingerprint(f: Finding, uri: str) -> str:
    where = json.dumps(list(f.field_path), default=str) if f.field_path is not None else f"{f.line}:{f.column}"
    key = "\0".join([f.code, uri, f.object or "", where, f.message])
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()  # a lone surrogate is data too


def sarif_log(report: Report) -> dict[str, Any]:
    rules, index = rule_descriptors()
    root = repo_root([f.path for f in report.findings])
    results = []
    for f in report.findings:
        uri = uri_path(relative_to_root(f.path, root))  # percent-encoded: non-UTF-8 and hostile names included
        message = plain(f.message if not f.hint else f"{f.message}; {f.hint}")
        if f.object:
            message += f" ({plain(f.object)})"
        result: dict[str, Any] = {
            "ruleId": f.code,
            "level": LEVEL[f.severity],
            "message": {"text": message},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                        "region": region(f),
                    }
                }
            ],
            "partialFingerprints": {FINGERPRINT_KEY: fingerprint(f, uri)},
        }
        if f.code in index:
            result["ruleIndex"] = index[f.code]
        if f.object:
            result["properties"] = {"object": f.object}
        results.append(result)
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": "allocatable",
                "version": __version__,
                "semanticVersion": __version__,
                "rules": rules,
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": results,
    }
    if report.base is not None:  # the commit a --base compared with, in the run's property bag (SARIF §3.8)
        run["properties"] = {"base": report.base.as_dict()}
    return {"$schema": SCHEMA, "version": "2.1.0", "runs": [run]}


def write(report: Report, out: TextIO) -> None:
    # Non-ASCII as itself where the stream takes UTF-8, else as JSON escapes (never an encoding error, same data);
    # control characters JSON lets through raw (DEL, C1, line separators) as escapes too.
    utf8 = (getattr(out, "encoding", None) or "utf-8").lower().replace("_", "-") in ("utf-8", "utf8")
    text = json.dumps(sarif_log(report), indent=2, ensure_ascii=not utf8)
    out.write(json_raw_escapes(text))
    out.write("\n")
