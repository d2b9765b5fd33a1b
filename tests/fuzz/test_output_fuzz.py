"""Output fuzzer (issue 12, class 15): hostile strings through every output format.

Every reporter (``renderer.reporters``: text, json, sarif, github) and both human forms of ``diff`` (text and
markdown) get findings and pool data whose path, message, hint, object, names and labels are drawn from an alphabet
of control characters, line separators, bidirectional overrides, workflow-command and Markdown syntax. For every
example: one finding per line, no raw control character anywhere, no line a value could have started (a workflow
command, a heading, a list item), no live Markdown link, image or HTML, and JSON formats that still parse.
Examples per run: 1,500 for the reporters, 500 for diff.
"""

from __future__ import annotations

import io
import json
import re

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import examples
from renderer import reporters
from renderer.capacity.diff import Change, DiffResult, ObjectChanges, PoolDiff
from renderer.escaping import markdown, plain, workflow_data
from renderer.findings import Finding
from renderer.quantity import Quantity
from renderer.reporters.findings import Report

pytestmark = pytest.mark.slow

HOSTILE = st.sampled_from(
    [
        "\x1b[2J\x1b[H",  # clear the screen
        "\x1b]0;owned\x07",  # set the terminal title
        "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\",  # OSC 8 hyperlink
        "\x00",
        "\r",
        "\n",
        "\r\n",
        "\t",
        "\x7f",
        "\x85",
        "\x9b31m",
        "\u2028",
        "\u2029",
        "\u202e",
        "\u2066",
        "\ufeff",
        "\ud800",  # lone surrogates (issue 21): a JSON "\ud800", a non-UTF-8 file name's byte
        "\udcff",
        "\u200e",  # bidi marks and invisible characters
        "\u061c",
        "\u200b",
        "\u2060",
        "https://evil.example/x",  # bare URLs GitHub would link
        "www.evil.example",
        "\n::error::injected",
        "\n::add-mask::x",
        "%0A::warning::x",
        "%25",
        "::",
        ",",
        "\n# heading",
        "\n- item",
        "\n> quote",
        "[link](https://evil.example)",
        "![img](https://evil.example/x.png)",
        "<img src=x onerror=alert(1)>",
        "<details>",
        "| pipe |",
        "`code`",
        "```",
        "*bold*",
        "_em_",
        "~~strike~~",
        "$x$",
        "&amp;",
        "\\",
        "−→×≈…",
        "name",
        "",
    ]
)
TEXT = st.lists(HOSTILE, min_size=1, max_size=6).map("".join)
RAW_CONTROL = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028\u2029\u202a-\u202e\u2060-\u2069\ufeff\ud800-\udfff]"
)
#: What GitHub autolinks in Markdown text: a URL scheme's colon, or "www." (an escaped one stays text).
AUTOLINK = re.compile(r"(?<!\\)(?:https?|ftp|mailto):|(?<![\\\w])www\.(?=\w)", re.I)


def fast(n: int) -> settings:
    return settings(max_examples=examples(n), deadline=None, suppress_health_check=[HealthCheck.too_slow])


FINDINGS = st.lists(
    st.builds(
        Finding,
        code=st.sampled_from(["AL001", "AL004", "AL006", "AL201"]),
        severity=st.sampled_from(["error", "warning", "info"]),
        message=TEXT,
        path=TEXT.map(lambda s: f"policies/{s}.yaml"),
        line=st.integers(0, 99),
        column=st.integers(0, 99),
        object=st.one_of(st.none(), TEXT),
        hint=st.one_of(st.none(), TEXT),
    ),
    min_size=1,
    max_size=5,
)


def _no_raw_controls(out: str) -> None:
    m = RAW_CONTROL.search(out)
    assert m is None, repr(out[max(0, m.start() - 80) : m.end() + 80])


@fast(1500)
@given(FINDINGS)
def test_every_reporter_keeps_one_finding_per_line_and_no_raw_control_characters(findings: list[Finding]) -> None:
    report = Report("lint", sorted(findings, key=Finding.sort_key), files=1, objects=1)
    for name in reporters.names():
        out = io.StringIO()
        spec = f'{name}={{range .findings[*]}}{{.path}}: {{.message}}{{"\\n"}}{{end}}' if name == "jsonpath" else name
        reporters.get("findings", spec)(report, out)
        text = out.getvalue()
        _no_raw_controls(text)
        lines = text.splitlines()
        if name in ("text", "jsonpath"):
            assert len([ln for ln in lines if ln]) == len(findings)
        elif name == "github":
            assert len(lines) == len(findings)
            assert all(re.match(r"^::(error|warning|notice) file=[^:]*::", ln) for ln in lines), lines
        elif name == "markdown":  # a header, then one table row per finding
            assert len(lines) == len(findings) + 2 and lines[1] == "|---|---|---|---|---|"
            assert all(ln.startswith("| ") and ln.endswith(" |") for ln in lines[2:]), lines
        elif name == "yaml":  # whatever the strings, the document reads back as the JSON one
            assert yaml.safe_load(text) == json.loads(_format(report, "json"))
        else:  # json, sarif: whatever the strings, the document parses
            json.loads(text)


def _format(report: Report, name: str) -> str:
    out = io.StringIO()
    reporters.get("findings", name)(report, out)
    return out.getvalue()


@fast(1500)
@given(TEXT)
def test_the_escapes_are_one_inert_line(text: str) -> None:
    for escaped in (plain(text), workflow_data(text), markdown(text)):
        assert "\n" not in escaped and "\r" not in escaped
        _no_raw_controls(escaped)
    assert "<" not in markdown(text) and "](" not in markdown(text).replace("\\](", "")
    assert AUTOLINK.search(markdown(text)) is None, markdown(text)
    # GitHub decodes %25, %0D and %0A (and nothing else) in a command's message: decoding gives the text back,
    # with only CR and LF as line breaks inside the one annotation.
    decoded = workflow_data(text).replace("%0D", "\r").replace("%0A", "\n").replace("%25", "%")
    assert decoded.replace("\r", "").replace("\n", "") == plain(text.replace("\r", "").replace("\n", ""))


def _pool(name: str, source: str, platform: str, classes: list[str]) -> PoolDiff:
    q = Quantity.parse
    return PoolDiff(
        ref=f"NodePool/{name}",
        name=name,
        origin="NodePool",
        status="changed",
        count=(3, 4),
        committed={"cpu": Change(q("8"), q("12"))},
        allocatable={"cpu": Change(q("8"), q("8"))},
        cluster={"cpu": Change(q("24"), q("48"))},
        commit_classes=(classes, classes[::-1]),
        reservation_policies=([], classes),
        percent=({"cpu": 100}, {"cpu": 150}),
        platform=platform,
        source=source,
    )


@fast(500)
@given(TEXT, TEXT, TEXT, st.lists(TEXT, max_size=3), FINDINGS, TEXT)
def test_diff_text_and_markdown_never_let_data_start_a_line_or_markup(
    name: str, source: str, platform: str, classes: list[str], findings: list[Finding], label: str
) -> None:
    q = Quantity.parse
    result = DiffResult(
        base_label=label,
        head_label="working tree",
        base_ref=label,
        base_commit="0" * 40,
        head_ref=None,
        head_commit=None,
        pools=[_pool(name, source, platform, classes)],
        totals={"cpu": Change(q("24"), q("48"))},
        nodes=(3, 4),
        objects=ObjectChanges(added=[f"CommitClass/{name}"], changed=classes),
        new_findings=findings,
        fixed_findings=findings[:1],
        unchanged_findings=0,
        head_findings=findings,
        invalid=(1, 0),
    )
    text = _written("text", result)
    _no_raw_controls(text)
    for line in text.splitlines():
        assert not line.startswith(("::", "#", ">", "-", "[")), line
    md = _written("markdown", result)
    _no_raw_controls(md)
    ours = re.compile(
        r"^(<!-- allocatable-diff -->|### |#### |\*\*|> ⚠️ |\| |\|---|- (added|removed|changed|❌|⚠️|ℹ️|…)|<details|<summary|</details>|Committed |Cluster |nodes |Commit percent|… and|$)"
    )
    for line in md.splitlines():
        assert ours.match(line), line
    # Code spans show their content literally (a backslash-escaped backtick opens none).
    rendered_as_text = re.sub(r"(?<![\\`])(`+)(?!`).*?(?<!`)\1(?!`)", "", md)
    for live in (r"<img", r"<script", r"(?<!\\)\]\(https://evil", r"(?<!\\)!(?<!\\)\[img"):
        assert re.search(live, rendered_as_text) is None, live  # an escaped "\]" or "\[" renders as text


def _written(fmt: str, result: DiffResult) -> str:
    out = io.StringIO()
    reporters.get("diff", fmt)(result, out)
    return out.getvalue()
