"""The GitHub Action's helpers (``.github/action/run.sh``): its job-summary sections within GitHub's 1 MiB per step,
and the sticky pull-request comment — which comment is ours, its body within GitHub's 65,536 characters, the next
page of a comment listing. The HTTP requests themselves are curl's, in the shell step (docs/github-action.md says
why); this module only reads and writes text.

Run as ``python -m renderer.integrations.github COMMAND`` by the Python that runs allocatable. Every value comes
from the environment or standard input, never from the command line (``INPUT_PATH``, ``GITHUB_EVENT_PATH``, ...):
nothing a pull request controls can become an option. Commands:

  summary TITLE      standard input (a Markdown section) appended to ``$GITHUB_STEP_SUMMARY``, cut to what the step
                     has left of 1 MiB with a line saying what was cut; when cut, the whole section goes to the log
                     (standard output) in a group named TITLE, with workflow commands stopped around it
  pull-request       ``OWNER/REPO NUMBER`` of the pull request in ``$GITHUB_EVENT_PATH``; nothing for other events
  comment-body       the JSON request body (``{"body": ...}``) of the comment, from the diff step's Markdown
                     (``DIFF_FILE``), ``CAPACITY_CHANGED`` and the lint step's counts
  find-comment       standard input: one page of ``GET .../issues/N/comments``; the id of the comment whose first
                     line is this policy path's marker, or nothing
  next-page          standard input: the response headers; the ``rel="next"`` URL of the Link header when it is
                     below ``$GITHUB_API_URL`` (the token is never sent anywhere else), or nothing
  api-message        standard input: an API response; its ``message``, one line, or nothing

Cost: linear in the text read; a section or comment is cut in one pass over its lines.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import sys
from collections.abc import Callable
from urllib.parse import quote

from renderer.escaping import markdown_code, plain, workflow_data, workflow_verbatim

#: GitHub keeps at most 1 MiB of job summary per step ("Job summaries are isolated between steps and each step is
#: restricted to a maximum size of 1MiB", docs.github.com, Workflow commands for GitHub Actions, "Step isolation
#: and limits"); more fails the step's summary upload as a whole.
SUMMARY_BYTES = 1024 * 1024
#: GitHub refuses a comment body longer than 65,536 characters (422 "body is too long (maximum is 65536
#: characters)", the REST API's answer to a longer create or update; github.com/orgs/community/discussions/27190).
COMMENT_CHARS = 65536
#: The largest event payload read (GitHub's own are far smaller); the reader never takes more.
MAX_EVENT_BYTES = 32 * 1024 * 1024
#: The first line of our comment, per policy path.
MARKER_PREFIX = "<!-- allocatable-comment path="

_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_SHA = re.compile(r"[0-9a-f]{7,64}")
_SERVER = re.compile(r"https?://[A-Za-z0-9.:-]+(/[A-Za-z0-9._~/-]*)?")


def marker(path: str) -> str:
    """The hidden first line of the comment for policy path ``path``: one comment per PR and policy path. The path is
    normalised (``policies/`` and ``./policies`` are one) and percent-encoded, so it cannot end the HTML comment."""
    norm = posixpath.normpath(path or "policies").lstrip("/") or "."
    return f"{MARKER_PREFIX}{quote(norm, safe='/._')} -->"


def bound(text: str, limit: int, measure: Callable[[str], int], note: Callable[[int, int], str]) -> tuple[str, bool]:
    """(``text``, False) when ``measure(text) <= limit``; else its first whole lines that fit with ``note(lines left
    out, their size)`` after them, every ``<details>`` and code fence it opened closed again (a cut never leaves the
    rest of the page folded or in code), and True. ``measure`` is additive over lines (characters or bytes)."""
    if measure(text) <= limit:
        return text, False
    lines = text.splitlines(keepends=True)
    reserve = measure(f"\n{note(len(lines), measure(text))}\n")
    closing = measure("</details>\n")
    fence = measure("```\n")
    kept: list[str] = []
    used = 0
    opened = 0
    in_fence = False
    for line in lines:
        size = measure(line if line.endswith("\n") else line + "\n")
        stripped = line.strip()
        opens = opened + stripped.count("<details") - stripped.count("</details>")
        fenced = in_fence != stripped.startswith("```")
        tail = max(opens, 0) * closing + (fence if fenced else 0)
        if used + size + tail + reserve > limit:
            break
        kept.append(line if line.endswith("\n") else line + "\n")
        used += size
        opened, in_fence = opens, fenced
    left = lines[len(kept) :]
    out = "".join(kept) + ("```\n" if in_fence else "") + "</details>\n" * max(opened, 0)
    return f"{out}\n{note(len(left), measure(''.join(left)))}\n", True


def _bytes(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))


def _size(n: int) -> str:
    return f"{n / 1024 / 1024:.1f} MiB" if n >= 1024 * 1024 else f"{(n + 1023) // 1024} KiB"


def _lines(n: int) -> str:
    return f"{n:,} line{'s' if n != 1 else ''}"


def summary_section(text: str, room: int, title: str) -> tuple[str, bool]:
    """A job-summary section within ``room`` bytes, with the line that says what was cut and where it is whole."""

    def note(lines: int, size: int) -> str:
        return (
            f"*… {_lines(lines)} ({_size(size)}) of this section are not shown: GitHub keeps at most 1 MiB of job "
            f"summary per step. The whole section is in this step's log, group {markdown_code(title)}.*"
        )

    return bound(text, room, _bytes, note)


def _env(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def _event() -> dict[str, object]:
    path = _env("GITHUB_EVENT_PATH")
    if not path:
        return {}
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_EVENT_BYTES + 1)
        if len(data) > MAX_EVENT_BYTES:
            return {}
        event = json.loads(data)
    except (OSError, ValueError):
        return {}
    return event if isinstance(event, dict) else {}


def pull_request() -> tuple[str, int, str] | None:
    """(OWNER/REPO, number, head SHA) of the event's pull request (``pull_request``, ``pull_request_target``), or
    None. The repository is the event's (the base repository, where the comment goes), else
    ``$GITHUB_REPOSITORY``."""
    event = _event()
    pr = event.get("pull_request")
    if not isinstance(pr, dict):
        return None
    number = pr.get("number")
    if not isinstance(number, int) or isinstance(number, bool) or number <= 0:
        return None
    repository = event.get("repository")
    name = repository.get("full_name") if isinstance(repository, dict) else None
    if not isinstance(name, str):
        name = _env("GITHUB_REPOSITORY")
    if not _REPO.fullmatch(name):
        return None
    head = pr.get("head")
    sha = head.get("sha") if isinstance(head, dict) else None
    return name, number, sha if isinstance(sha, str) and _SHA.fullmatch(sha) else ""


def _run_url() -> str:
    server, repo, run = (
        _env("GITHUB_SERVER_URL", "https://github.com"),
        _env("GITHUB_REPOSITORY"),
        _env("GITHUB_RUN_ID"),
    )
    if _SERVER.fullmatch(server) and _REPO.fullmatch(repo) and run.isascii() and run.isdigit():
        return f"{server.rstrip('/')}/{repo}/actions/runs/{run}"
    return ""


def _count(name: str) -> int:
    value = _env(name)
    return int(value) if value.isascii() and value.isdigit() and len(value) < 10 else 0


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def _lint_line(path: str) -> str:
    errors, warnings, notices = _count("LINT_ERRORS"), _count("LINT_WARNINGS"), _count("LINT_NOTICES")
    verdict = {"0": "passed", "1": "failed"}.get(_env("LINT_EXIT"), "could not run")
    return (
        f"**allocatable lint {verdict}** on {markdown_code(path)}: ❌ {_plural(errors, 'error')} · "
        f"⚠️ {_plural(warnings, 'warning')} · ℹ️ {_plural(notices, 'notice')} "
        f"(fail-on: {markdown_code(_env('INPUT_FAIL_ON', 'error'))})"
    )


def comment_body(diff: str, changed: bool) -> str:
    """The comment: the marker, the capacity diff (or one line saying the change no longer moves capacity), the
    lint summary and where the run is; at most ``COMMENT_CHARS`` characters, the diff cut first."""
    path = _env("INPUT_PATH", "policies")
    pr = pull_request()
    run = _run_url()
    where = f"[workflow run]({run})" if run else "workflow run"
    head = [marker(path)]
    tail = ["", "---", "", _lint_line(path), ""]
    footer = f"<sub>allocatable · {where}"
    if pr is not None and pr[2]:
        footer += f" · for {markdown_code(pr[2][:12])}"
    tail.append(footer + "</sub>")
    if changed:
        middle = diff.rstrip("\n")
    else:
        middle = (
            "### Capacity diff: no change\n\n"
            "This pull request no longer changes committed allocatable of any pool (an earlier commit of it did)."
        )
    fixed = "\n".join(head) + "\n" + "\n".join(tail) + "\n"
    room = COMMENT_CHARS - len(fixed) - 1

    def note(lines: int, size: int) -> str:
        return (
            f"*… {_lines(lines)} ({size:,} characters) of the capacity diff are left out: GitHub takes at most "
            f"{COMMENT_CHARS:,} characters in a comment. The full report is in the job summary of the {where} "
            "(and its log).*"
        )

    middle, _ = bound(middle + "\n", room, len, note)
    return "\n".join(head) + "\n" + middle.rstrip("\n") + "\n" + "\n".join(tail) + "\n"


def find_comment(page: object, path: str) -> int | None:
    """The id of the first comment of ``page`` (a decoded ``GET .../comments`` answer) that starts with the marker
    of ``path``, or None."""
    mark = marker(path)
    if not isinstance(page, list):
        return None
    for c in page:
        if not isinstance(c, dict):
            continue
        body, cid = c.get("body"), c.get("id")
        ours = isinstance(body, str) and body.split("\n", 1)[0].rstrip("\r") == mark
        if ours and isinstance(cid, int) and not isinstance(cid, bool) and cid > 0:
            return cid
    return None


_LINK = re.compile(r'<([^<>\s]+)>\s*;\s*rel="?next"?', re.IGNORECASE)


def next_page(headers: str, api: str) -> str | None:
    """The ``rel="next"`` URL of the Link header in ``headers``, only when it lies below ``api`` (same scheme, host
    and path prefix): a listing cannot send the token elsewhere."""
    links = [line.split(":", 1)[1] for line in headers.splitlines() if line.lower().startswith("link:")]
    if not links:
        return None
    m = _LINK.search(links[-1])
    if m is None:
        return None
    url = m.group(1)
    prefix = api.rstrip("/") + "/"
    return url if url.startswith(prefix) and url.isascii() and url.isprintable() else None


def _stdin() -> str:
    """The step's piped input; closed or failing standard input is no input (each command then does nothing)."""
    from renderer.stdio import InputError, read_input

    parts: list[bytes] = []
    try:
        while chunk := read_input(1 << 16):
            parts.append(chunk)
    except InputError:
        return ""
    return b"".join(parts).decode("utf-8", "replace")


def _stdin_json() -> object:
    try:
        return json.loads(_stdin())
    except ValueError:
        return None


def _summary(title: str) -> str:
    target, text = _env("GITHUB_STEP_SUMMARY"), _stdin()
    if not target or not text:
        return ""
    try:
        room = SUMMARY_BYTES - os.path.getsize(target)
    except OSError:
        room = SUMMARY_BYTES
    section, cut = summary_section(text, max(room, 0), title)
    with open(target, "a", encoding="utf-8", errors="surrogateescape") as f:
        f.write(section)
    return f"::group::{workflow_data(title)}\n{workflow_verbatim(text)}::endgroup::\n" if cut else ""


def _pull_request() -> str:
    pr = pull_request()
    return "" if pr is None else f"{pr[0]} {pr[1]}\n"


def _comment_body() -> str:
    diff = ""
    if _env("DIFF_FILE"):
        try:
            with open(_env("DIFF_FILE"), encoding="utf-8", errors="replace") as f:
                diff = f.read()
        except OSError:
            diff = ""
    return json.dumps({"body": comment_body(diff, _env("CAPACITY_CHANGED") == "true")}) + "\n"


def _find_comment() -> str:
    found = find_comment(_stdin_json(), _env("INPUT_PATH", "policies"))
    return "" if found is None else f"{found}\n"


def _next_page() -> str:
    url = next_page(_stdin(), _env("GITHUB_API_URL", "https://api.github.com"))
    return "" if url is None else url + "\n"


def _api_message() -> str:
    answer = _stdin_json()
    message = answer.get("message") if isinstance(answer, dict) else None
    return plain(message[:300]) + "\n" if isinstance(message, str) else ""


_COMMANDS: dict[str, Callable[[], str]] = {
    "pull-request": _pull_request,
    "comment-body": _comment_body,
    "find-comment": _find_comment,
    "next-page": _next_page,
    "api-message": _api_message,
}


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) == 2 and args[0] == "summary":
        sys.stdout.write(_summary(args[1]))
        return 0
    if len(args) == 1 and args[0] in _COMMANDS:
        sys.stdout.write(_COMMANDS[args[0]]())
        return 0
    sys.stderr.write(__doc__.split("Commands:", 1)[1] if __doc__ else "")
    return 2


if __name__ == "__main__":  # pragma: no cover - exercised through the Action's shell steps
    raise SystemExit(main())
