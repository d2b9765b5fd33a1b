"""The GitHub Action's text helpers (renderer/integrations/github.py), one by one: which comment is ours, which
next page may be fetched with the token, how a section or comment is cut. The Action-level tests
(test_action.py) run them through run.sh against a fake API; these pin the edges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from renderer.integrations import github


@pytest.mark.parametrize("path", ["policies", "./policies", "policies/", "policies//", "/policies"])
def test_one_marker_per_policy_path_however_written(path: str) -> None:
    assert github.marker(path) == "<!-- allocatable-comment path=policies -->"


@pytest.mark.parametrize("path", ["a-->b", "x --> <script>", "team a/cap\nacity", "-"])
def test_a_marker_never_ends_its_html_comment_early(path: str) -> None:
    mark = github.marker(path)
    assert mark.count("-->") == 1 and mark.endswith(" -->") and "\n" not in mark and "<script" not in mark
    assert github.marker("team-a") != github.marker("team-b")


def test_our_comment_is_the_one_whose_first_line_is_the_marker() -> None:
    mark = github.marker("policies")
    page = [
        {"id": 1, "body": f"> {mark}\n> quoted in a reply"},
        {"id": 2, "body": f"text first\n{mark}"},
        {"id": True, "body": mark},  # not an id
        {"id": 3, "body": github.marker("other") + "\n"},
        {"id": 4, "body": mark + "\r\n### Capacity diff"},
        {"id": 5, "body": mark},
    ]
    assert github.find_comment(page, "policies") == 4
    assert github.find_comment(page, "other") == 3
    assert github.find_comment({"message": "Not Found"}, "policies") is None
    assert github.find_comment(page[:3], "policies") is None


API = "https://ghe.example/api/v3"


@pytest.mark.parametrize(
    ("link", "expected"),
    [
        (f'<{API}/repos/o/r/issues/1/comments?page=2>; rel="next", <{API}/x?page=9>; rel="last"', "page=2"),
        (f'<{API}/x?page=9>; rel="last", <{API}/repos/o/r/issues/1/comments?page=3>; rel="next"', "page=3"),
        (f'<{API}/repos/o/r/issues/1/comments?page=1>; rel="prev"', None),
        ('<https://ghe.example.evil/api/v3/x?page=2>; rel="next"', None),  # another host gets no token
        ('<https://ghe.example/api/v3.evil/x>; rel="next"', None),
        ('<http://ghe.example/api/v3/x?page=2>; rel="next"', None),  # nor plain http
        ('<https://other.example/api/v3/x?page=2>; rel="next"', None),
    ],
)
def test_the_next_page_is_fetched_only_below_the_api_url(link: str, expected: str | None) -> None:
    headers = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nLink: {link}\r\n\r\n"
    url = github.next_page(headers, API)
    assert (url is None) if expected is None else (url is not None and url.startswith(API + "/") and expected in url)
    assert github.next_page("HTTP/1.1 200 OK\r\n\r\n", API) is None


def _chars(text: str) -> int:
    return len(text)


def _note(lines: int, size: int) -> str:
    return f"[{lines} lines, {size} cut]"


def test_a_text_that_fits_is_left_as_it_is() -> None:
    assert github.bound("a\nb\n", 4, _chars, _note) == ("a\nb\n", False)


def test_a_cut_closes_what_it_opened_and_says_what_it_left_out() -> None:
    text = "<details>\n<summary>s</summary>\n\n```\ncode 1\ncode 2\ncode 3\n```\n\n</details>\nafter\n"
    assert len(text) == 79 and text.count("\n") == 11
    # By hand: a line is kept while it, the closings it needs ("```\n" 4, "</details>\n" 11) and the longest
    # note ("\n[11 lines, 79 cut]\n", 20) fit in 75: the first four (36 characters; 36 + 4 + 11 + 20 = 71), not
    # "code 1" (43 + 4 + 11 + 20 = 78). Left out: 7 lines, 79 - 36 = 43 characters.
    out, cut = github.bound(text, 75, _chars, _note)
    assert cut and out == "<details>\n<summary>s</summary>\n\n```\n```\n</details>\n\n[7 lines, 43 cut]\n"
    assert len(out) <= 75


def test_a_first_line_longer_than_the_limit_leaves_only_the_note() -> None:
    out, cut = github.bound("x" * 500 + "\nshort\n", 40, _chars, _note)
    assert cut and out == "\n[2 lines, 507 cut]\n"


def test_the_summary_counts_bytes_and_the_comment_characters() -> None:
    text = "é" * 700 + "\n"  # 701 characters, 1,401 bytes
    assert github.summary_section(text, 1401, "t") == (text, False)
    cut, was_cut = github.summary_section(text, 1400, "t")
    assert was_cut and "1 line (2 KiB) of this section are not shown" in cut


def _event(tmp_path: Path, doc: object) -> None:
    (tmp_path / "event.json").write_text(json.dumps(doc))


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        (
            {"pull_request": {"number": 7, "head": {"sha": "ab" * 20}}, "repository": {"full_name": "o/r"}},
            ("o/r", 7, "ab" * 20),
        ),
        (
            {"pull_request": {"number": 7, "head": {"sha": "not hex"}}, "repository": {"full_name": "o/r"}},
            ("o/r", 7, ""),
        ),
        ({"pull_request": {"number": "7"}, "repository": {"full_name": "o/r"}}, None),
        ({"pull_request": {"number": True}, "repository": {"full_name": "o/r"}}, None),
        ({"pull_request": {"number": 0}, "repository": {"full_name": "o/r"}}, None),
        ({"pull_request": {"number": 7}, "repository": {"full_name": "o/r; rm -rf /"}}, None),
        ({"pull_request": {"number": 7}, "repository": {"full_name": "../../x"}}, None),
        ({"ref": "refs/heads/main", "repository": {"full_name": "o/r"}}, None),  # a push
        ([], None),
    ],
)
def test_the_pull_request_comes_from_the_event_payload_validated(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, doc: object, expected: object
) -> None:
    _event(tmp_path, doc)
    monkeypatch.setenv("GITHUB_EVENT_PATH", str(tmp_path / "event.json"))
    monkeypatch.delenv("GITHUB_REPOSITORY", raising=False)
    assert github.pull_request() == expected


def test_no_change_body_and_lint_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_EVENT_PATH", "GITHUB_RUN_ID", "GITHUB_REPOSITORY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("INPUT_PATH", "team `a`")
    monkeypatch.setenv("LINT_EXIT", "1")
    monkeypatch.setenv("LINT_ERRORS", "3")
    monkeypatch.setenv("LINT_WARNINGS", "x")  # not a number: counted as 0
    monkeypatch.setenv("INPUT_FAIL_ON", "warning")
    body = github.comment_body("ignored", changed=False)
    assert body.splitlines()[0] == "<!-- allocatable-comment path=team%20%60a%60 -->"
    assert "### Capacity diff: no change" in body and "ignored" not in body
    assert "**allocatable lint failed** on `` team `a` ``: ❌ 3 errors · ⚠️ 0 warnings · ℹ️ 0 notices" in body
    assert "(fail-on: `warning`)" in body and "<sub>allocatable · workflow run</sub>" in body
