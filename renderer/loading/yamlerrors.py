"""The wording of YAML errors: one located line that says what to change, whatever libyaml said.

:class:`ParseProblem` is a problem already worded and located (a tag, a duplicate key, a nesting or alias bound);
``yaml_error_message`` words a parser error: an unclosed quote blamed where it opens, a tag that never ended, a run of
flow openers that crosses the nesting bound reported as that bound, hints for tabs and indentation.

Cost: nothing on the read path; on the error path O(the lines around the error).
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from renderer.loading.bounds import MAX_DEPTH

__all__ = ["ParseProblem", "yaml_error_message"]


class ParseProblem(Exception):
    def __init__(self, code: str, message: str, line: int, column: int, hint: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.hint = hint


_TAB_HINT = "YAML does not allow tabs for indentation; indent with spaces"
_INDENT_HINT = "check the indentation of this line against the lines above"
_HINTS: tuple[tuple[str, str], ...] = (
    ("'\\t'", _TAB_HINT),
    ("found undefined alias", "define the anchor (&name) before using the alias (*name), in the same document"),
    ("mapping values are not allowed", "check the indentation of this line, or quote a value containing ': '"),
    ("expected <block end>", _INDENT_HINT),
    ("did not find expected key", _INDENT_HINT),
    ("found unhashable key", "a key must be a plain value: a [list] or {mapping} cannot be a key"),
    ("found incompatible YAML document", "remove the %YAML directive or make it %YAML 1.1 or 1.2"),
    ("while parsing a flow sequence", "close the [ with ], or add the missing comma between items"),
    ("while parsing a flow mapping", "close the { with }, or add the missing comma between entries"),
)


# A quoted value that starts a block mapping value or sequence item and has no closing quote on its line.
_OPEN_QUOTE_RE = r"""^[ ]*(?:- +)*(?:[^\s#'"][^#'"]*?:[ ]+)?(?:- +)*(["'])(.*)$"""  # compiled on first use


def _unclosed_quote(text: str, first: int, last: int, loader_cls: Any) -> tuple[int, int] | None:
    """(line, column), 0-based, of a quote in lines ``first``..``last`` that is not closed and caused the error.

    libyaml continues a quoted string over line breaks and fails wherever the next quote happens to be, often
    lines later with a message about keys; the opening quote is what needs fixing. A candidate is blamed only
    when closing it on its own line lets the parser get past the original error (a quoted string may span lines
    on purpose).
    """
    lines = text.split("\n")
    for i in range(first, min(last, len(lines))):
        m = re.match(_OPEN_QUOTE_RE, lines[i])
        if m is None:
            continue
        quote, rest = m.group(1), m.group(2)
        rest = rest.replace("\\\\", "").replace('\\"', "") if quote == '"' else rest.replace("''", "")
        if quote in rest:
            continue
        loader = loader_cls("\n".join([*lines[:i], lines[i] + quote, *lines[i + 1 :]]))
        try:
            while loader.check_node():
                loader.get_node()
        except yaml.MarkedYAMLError as exc:
            if exc.problem_mark is None or exc.problem_mark.line <= last:
                return None
        except Exception:  # any other problem: keep the parser's own message
            return None
        finally:
            loader.dispose()
        return i, m.start(1)
    return None


#: Flow-collection openers and the blanks between them, read backwards from a parser error.
_OPENERS_BACKWARDS = r"[\[{ \t\r\n]*"
_OPENER = r"[\[{]"
#: How far back a run of openers is followed (libyaml's scanner fails 1,000 levels in).
_RUN_LOOKBACK = 1 << 20


def _deep_flow_run(text: str, mark: yaml.Mark) -> yaml.Mark | None:
    """Where the project's nesting bound is crossed, when a parser error stands inside a run of flow openers.

    libyaml's scanner reads up to 1,024 characters ahead of the parser, so in ``[[[[...`` its own depth limit (1,000
    levels since libyaml 0.2.6) can fire before the events reach ``MAX_DEPTH``: the bound this project promises is
    then reported here, at the opener that crosses it, whatever libyaml says. Cost: O(the run before the error, at
    most ``_RUN_LOOKBACK`` characters), on the error path only."""
    end = mark.index + 1
    if not 0 < end <= len(text) or text[end - 1] not in "[{":
        return None
    start = max(0, end - _RUN_LOOKBACK)
    run = re.match(_OPENERS_BACKWARDS, text[start:end][::-1])
    first = end - (run.end() if run is not None else 0)
    crossing = next(
        (m for i, m in enumerate(re.compile(_OPENER).finditer(text, first, end), 1) if i == MAX_DEPTH + 2), None
    )
    if crossing is None:
        return None
    line = text.count("\n", 0, crossing.start())
    column = crossing.start() - (text.rfind("\n", 0, crossing.start()) + 1)
    return yaml.Mark(mark.name, crossing.start(), line, column, None, 0)


def yaml_error_message(
    exc: yaml.MarkedYAMLError, text: str, kind: str, loader_cls: Any
) -> tuple[str, str | None, yaml.Mark | None]:
    """(message, hint, where to point) for a parser error."""
    problem = exc.problem or exc.context or "unparseable YAML"
    mark = exc.problem_mark or exc.context_mark
    deep = _deep_flow_run(text, mark) if mark is not None else None
    if deep is not None:
        return f"document is nested more than {MAX_DEPTH} levels deep", None, deep
    if exc.problem_mark is not None and not (exc.context or "").startswith("while scanning"):
        first = exc.context_mark.line if exc.context_mark is not None else max(0, exc.problem_mark.line - 20)
        quote = _unclosed_quote(text, first, exc.problem_mark.line, loader_cls)
        if quote is not None:
            return (
                f"invalid {kind}: quoted string is not closed on its line; the parser only failed at line "
                f"{exc.problem_mark.line + 1} ({problem})",
                "add the closing quote",
                yaml.Mark(exc.problem_mark.name, 0, quote[0], quote[1], None, 0),
            )
    if (exc.context or "").startswith("while scanning a tag") and exc.context_mark is not None:
        # A tag runs up to the next space: "[a, !!str]" or "!!str,x" is a tag that never ended. Point at the tag.
        start, end = exc.context_mark, exc.problem_mark
        tag = "this tag"
        if end is not None and end.line == start.line and end.column > start.column:
            line = text.split("\n", start.line + 1)[start.line] if start.line <= text.count("\n") else ""
            tag = f"the tag {line[start.column : end.column]}"
        return (
            f"invalid {kind}: {tag} is not followed by a space or a line break ({problem})",
            'remove the tag, or quote the value if the "!" belongs to it',
            exc.context_mark,
        )
    if (exc.context or "").startswith("while scanning a quoted scalar") and exc.context_mark is not None:
        # The scanner notices only at the end of the file (or the next "---"); the culprit is the opening quote.
        where = f" at line {exc.problem_mark.line + 1}" if exc.problem_mark is not None else ""
        return (
            f"invalid {kind}: quoted string is not closed ({problem}{where})",
            "add the closing quote",
            exc.context_mark,
        )
    message = f"invalid {kind}: {problem}"
    if exc.context and exc.problem:
        message = f"invalid {kind}: {problem} ({exc.context}"
        if exc.context_mark is not None:
            message += f" at line {exc.context_mark.line + 1}"
        message += ")"
    hint = None
    if mark is not None and "\t" in text:
        line = text.split("\n", mark.line + 1)[mark.line] if mark.line <= text.count("\n") else ""
        indent = line[: len(line) - len(line.lstrip(" \t"))]
        if "\t" in indent or line[mark.column : mark.column + 1] == "\t":
            hint = _TAB_HINT
    for needle, h in _HINTS:
        if hint is None and (needle in problem or needle in (exc.context or "")):
            hint = h
    return message, hint, mark
