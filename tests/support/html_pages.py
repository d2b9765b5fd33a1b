"""What the HTML reports' tests share: a parser that keeps tags, ids and text, the self-contained check, and headless
Chromium (Debian's ``chromium`` package, which ``.ci/run`` installs) rendering a page to a PNG with its console log
(``--enable-logging=stderr``), so a test can require that the page logs nothing."""

from __future__ import annotations

import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path

from support import tools


class Page(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.ids: set[str] = set()
        self.text: list[str] = []
        self.open: list[str] = []
        self.titled_rects = 0
        self.rects = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        self.tags.append((tag, a))
        if a.get("id"):
            self.ids.add(str(a["id"]))
        if tag == "rect" and "seg" in str(a.get("class", "")).split() and "svg-chart" in self.open:
            self.rects += 1
        self.open.append("svg-chart" if tag == "svg" and a.get("role") == "img" else tag)

    def handle_endtag(self, tag: str) -> None:
        if tag == "title" and len(self.open) >= 2 and self.open[-2] == "rect":
            self.titled_rects += 1
        if self.open:
            self.open.pop()

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.open.pop()

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def page(html: str) -> Page:
    p = Page()
    p.feed(html)
    return p


def assert_self_contained(html: str) -> None:
    """No script, no external resource (link, image, frame, src, a link out, a stylesheet import or url()), no event
    handler: the page reads the same offline and runs nothing."""
    parsed = page(html)
    tags = {t for t, _ in parsed.tags}
    assert "script" not in tags and "link" not in tags and "img" not in tags and "iframe" not in tags
    for tag, attrs in parsed.tags:
        assert not any(k.startswith("on") for k in attrs), (tag, attrs)  # no event handlers
        assert "src" not in attrs, (tag, attrs)
        href = attrs.get("href")
        assert href is None or href.startswith("#"), (tag, attrs)
    assert "@import" not in html and "url(http" not in html and "//" not in html.split("<body>")[0].split("<style>")[1]
    assert html.count("url(") == html.count("url(#")


def chromium() -> str:
    return tools.find("chromium", "chromium-browser", "google-chrome", how="apt-get install chromium")


def screenshot(html_file: Path, png: Path, profile: Path, size: str = "1000,1800") -> str:
    """Render ``html_file`` headless into ``png``; return Chromium's log (stderr)."""
    proc = subprocess.run(
        [
            chromium(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            "--enable-logging=stderr",
            "--v=0",
            "--hide-scrollbars",
            f"--window-size={size}",
            f"--screenshot={png}",
            html_file.as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stderr


def console(log: str) -> list[str]:
    return [ln for ln in log.splitlines() if ":CONSOLE" in ln]


def png_size(png: Path) -> tuple[int, int]:
    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height
