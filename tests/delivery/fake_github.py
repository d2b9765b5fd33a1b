"""A small fake of GitHub's REST API for issue comments, served over HTTP by the standard library in a thread, for the
Action's pull-request comment step (curl talks to it as it would to api.github.com or a GHES ``/api/v3``).

What it reproduces, from GitHub's documentation of the endpoints (docs.github.com/rest/issues/comments) and of
pagination (docs.github.com/rest/using-the-rest-api/using-pagination-in-the-rest-api):

- ``GET /repos/{owner}/{repo}/issues/{number}/comments``: comments by ascending id, ``per_page`` default 30 and at
  most 100, ``page`` from 1, a ``Link`` header with ``rel="next"`` (and ``rel="last"``) while pages follow;
- ``POST`` there: 201 with the comment; ``PATCH /repos/{owner}/{repo}/issues/comments/{id}``: 200;
- a body over 65,536 characters: 422 "body is too long (maximum is 65536 characters)" (the answer GitHub gives,
  github.com/orgs/community/discussions/27190);
- ``read_only=True`` (a fork's pull request, whose GITHUB_TOKEN is read-only): every write is 403 "Resource not
  accessible by integration", the message GitHub returns for it;
- a request without ``Authorization: Bearer <token>`` is 401.

Every request is recorded (method, path with query, JSON body) for the tests to inspect.
"""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

PREFIX = "/api/v3"  # as on GitHub Enterprise Server: GITHUB_API_URL is https://HOST/api/v3
TOKEN = "ghs_fake0123456789"
MAX_BODY = 65536


@dataclass
class FakeGitHub:
    repo: str = "octo/capacity"
    number: int = 7
    read_only: bool = False
    comments: list[dict[str, Any]] = field(default_factory=list)
    requests: list[tuple[str, str, Any]] = field(default_factory=list)
    url: str = ""
    _next_id: int = 1000

    def add(self, body: str, login: str = "someone") -> dict[str, Any]:
        self._next_id += 1
        c = {
            "id": self._next_id,
            "body": body,
            "user": {"login": login, "type": "User"},
            "html_url": f"https://github.example/{self.repo}/pull/{self.number}#issuecomment-{self._next_id}",
        }
        self.comments.append(c)
        return c

    @property
    def api(self) -> str:
        return self.url + PREFIX

    def writes(self) -> list[tuple[str, str, Any]]:
        return [r for r in self.requests if r[0] != "GET"]


def _handler(fake: FakeGitHub) -> type[BaseHTTPRequestHandler]:
    list_path = f"{PREFIX}/repos/{fake.repo}/issues/{fake.number}/comments"
    one_path = re.compile(rf"{re.escape(PREFIX)}/repos/{re.escape(fake.repo)}/issues/comments/(\d+)")

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:  # quiet
            pass

        def _send(self, status: int, doc: Any = None, headers: dict[str, str] | None = None) -> None:
            data = b"" if doc is None else json.dumps(doc).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def _body(self) -> Any:
            n = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(n) if n else b""
            return json.loads(raw) if raw else None

        def _handle(self, method: str) -> None:
            body = self._body() if method in ("POST", "PATCH") else None
            fake.requests.append((method, self.path, body))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                return self._send(401, {"message": "Bad credentials"})
            parts = urlsplit(self.path)
            m = one_path.fullmatch(parts.path)
            if method != "GET" and fake.read_only:
                return self._send(403, {"message": "Resource not accessible by integration"})
            if method in ("POST", "PATCH") and (not isinstance(body, dict) or not isinstance(body.get("body"), str)):
                return self._send(422, {"message": "Invalid request"})
            if method in ("POST", "PATCH") and len(body["body"]) > MAX_BODY:
                return self._send(
                    422,
                    {
                        "message": "Validation Failed",
                        "errors": [
                            {
                                "resource": "IssueComment",
                                "code": "custom",
                                "field": "body",
                                "message": "body is too long (maximum is 65536 characters)",
                            }
                        ],
                    },
                )
            if parts.path == list_path and method == "GET":
                query = parse_qs(parts.query)
                per_page = min(int(query.get("per_page", ["30"])[0]), 100)
                page = int(query.get("page", ["1"])[0])
                items = fake.comments[(page - 1) * per_page : page * per_page]
                last = max(1, -(-len(fake.comments) // per_page))
                headers = {}
                if page < last:
                    base = f"{fake.api}/repos/{fake.repo}/issues/{fake.number}/comments"
                    headers["Link"] = (
                        f'<{base}?per_page={per_page}&page={page + 1}>; rel="next", '
                        f'<{base}?per_page={per_page}&page={last}>; rel="last"'
                    )
                return self._send(200, items, headers)
            if parts.path == list_path and method == "POST":
                return self._send(201, fake.add(body["body"], login="github-actions[bot]"))
            if m and method == "PATCH":
                found = [c for c in fake.comments if c["id"] == int(m.group(1))]
                if not found:
                    return self._send(404, {"message": "Not Found"})
                found[0]["body"] = body["body"]
                return self._send(200, found[0])
            return self._send(404, {"message": "Not Found"})

        def do_GET(self) -> None:
            self._handle("GET")

        def do_POST(self) -> None:
            self._handle("POST")

        def do_PATCH(self) -> None:
            self._handle("PATCH")

    return Handler


@contextmanager
def serve(fake: FakeGitHub) -> Iterator[FakeGitHub]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(fake))
    fake.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()


def event(fake: FakeGitHub, head_sha: str = "0123456789abcdef0123456789abcdef01234567") -> dict[str, Any]:
    """The parts of a ``pull_request`` event payload the action reads."""
    return {
        "action": "synchronize",
        "number": fake.number,
        "pull_request": {"number": fake.number, "head": {"sha": head_sha}},
        "repository": {"full_name": fake.repo},
    }
