"""``allocatable diff -o html``: the reviewer's page — before → after bars per changed pool and for the cluster,
the impact table with the Pending pods, self-contained, escaped, byte-stable, rendered by headless Chromium.

The change is docs/examples/impact's (worked by hand in docs/impact.md): the batch nodes' kube-reserved cpu goes
from 500m to 1500m, so a batch node's committed cpu goes 7.5 → 6.5 cores, the cluster's 22 → 20 cores (two batch
nodes at 8 − reserved, two general nodes at 3.5), two report pods no longer fit and wait Pending, and the autoscaler
would add one c6i.2xlarge for them. Bar widths: the longer bar of a pair is 560 px (the page's ``BAR_WIDTH``), the
other in proportion.
"""

from __future__ import annotations

import html as htmllib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from support.html_pages import assert_self_contained, console, page, png_size, screenshot

REPO_ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = REPO_ROOT / "docs" / "examples" / "impact"
HOSTILE_FILE = 'x<img src=y onerror="alert(1)">&amp;\x1b\u202e.yaml'
HOSTILE_POD = "report-<script>alert(1)</script>\u202egpj.exe"


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo), "GIT_CONFIG_GLOBAL": os.devnull}
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", *args],
        cwd=repo,
        capture_output=True,
        env=env,
        check=True,
    )


def _pr(tmp_path: Path, pools_file: str = "pools.yaml", pod_name: str | None = None) -> Path:
    """main: the batch kube-reserved cpu at 500m (what the nodes run); the work tree: 1500m (the example as
    committed). ``pools_file``: the name of the file holding the NodePools; ``pod_name``: a new name for the first
    report pod of the snapshot."""
    repo = tmp_path / "repo"
    shutil.copytree(EXAMPLE / "policies", repo / "policies")
    if pools_file != "pools.yaml":
        (repo / "policies" / "pools.yaml").rename(repo / "policies" / pools_file)
    reservations = repo / "policies" / "reservations.yaml"
    changed = reservations.read_text(encoding="utf-8")
    reservations.write_text(changed.replace("cpu: 1500m", "cpu: 500m"), encoding="utf-8")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "base")
    reservations.write_text(changed, encoding="utf-8")
    snapshot = (EXAMPLE / "snapshot.json").read_text(encoding="utf-8")
    if pod_name is not None:
        snapshot = snapshot.replace('"report-29001-7f9c"', json.dumps(pod_name))
    (repo / "snapshot.json").write_text(snapshot, encoding="utf-8")
    return repo


def _diff(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "renderer", "diff", "policies", "--base", "main", *args],
        cwd=repo,
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )


def _page(repo: Path) -> str:
    done = _diff(repo, "--snapshot", "snapshot.json", "-o", "html")
    # 2 pods newly Pending > impact.maxNewPendingPods 0: exit 1, as every format of diff with a snapshot
    assert done.returncode == 1, done.stderr
    assert done.stderr == "impact: 4 nodes, 15 pods: 2 displaced, 2 newly Pending (impact.maxNewPendingPods 0: fails)\n"
    return done.stdout


def _text(html: str) -> str:
    return htmllib.unescape("".join(page(html).text))


def test_before_after_bars_per_pool_and_for_the_cluster(tmp_path: Path) -> None:
    html = _page(_pr(tmp_path))
    assert_self_contained(html)
    pool = html.split('<section id="pool-1"', 1)[1].split("</section>", 1)[0]
    assert "<h2" in pool and "NodePool/eks-batch (changed)" in pool
    # Only cpu moves on eks-batch: one pair of bars. 7.5 cores fills 560 px; 6.5 / 7.5 × 560 = 485.33.
    assert pool.count('class="bar-before"') == 1 and pool.count('class="bar-after down"') == 1
    assert 'width="560.00" height="18"><title>cpu before: 7.5 cores</title>' in pool
    assert 'width="485.33" height="18"><title>cpu after: 6.5 cores (-1 (-13.3%))</title>' in pool
    # The cluster: 2 × 7.5 + 2 × 3.5 = 22 cores before, 2 × 6.5 + 2 × 3.5 = 20 after: 20 / 22 × 560 = 509.09.
    totals = html.split('<section id="totals"', 1)[1].split("</section>", 1)[0]
    assert 'width="509.09" height="18"><title>cpu after: 20 cores (-2 (-9.1%))</title>' in totals
    assert '<tr><th scope="row">Δ</th><td>0</td><td>-2 (-9.1%)</td>' in totals
    # Each chart is described by elements that exist (a screen reader reads the title and the description).
    parsed = page(html)
    charts = [a for t, a in parsed.tags if t == "svg" and a.get("role") == "img"]
    assert len(charts) == 2
    for chart in charts:
        assert all(ref in parsed.ids for ref in str(chart["aria-labelledby"]).split())


def test_the_impact_table_and_the_pending_pods(tmp_path: Path) -> None:
    repo = _pr(tmp_path)
    html = _page(repo)
    impact = html.split('<section id="impact"', 1)[1].split("</section>", 1)[0]
    # The pool row as -o text prints it: Pending 0 → 2 on eks-batch, the autoscaler 0 → 1 node (bound 1).
    assert (
        '<tr><th scope="row"><code>eks-batch</code></th><td>c6i.2xlarge</td><td>2</td><td>2</td><td>0 → 2</td>'
        "<td>0 → 1 (≥ 1)</td><td>0</td></tr>"
    ) in impact
    # The run fails the threshold: the Pending pods are open, the verdict is the stderr summary.
    assert '<details id="impact-pending" open>' in impact
    assert '<p class="verdict-fails">impact: 4 nodes, 15 pods: 2 displaced, 2 newly Pending' in impact
    text = _text(impact)
    assert "batch/report-29001-7f9c: cpu 2, memory 1Gi; 0/4 nodes are available: 2 Insufficient cpu" in text
    # The headline is the one the text and JSON reports give, word for word.
    doc = json.loads(_diff(repo, "--snapshot", "snapshot.json", "-o", "json").stdout)
    assert doc["impact"]["headline"] in text and f"Impact: {doc['impact']['headline']}" in _text(html)
    assert doc["summary"]["headline"] in _text(html)


def test_without_a_snapshot_the_page_has_no_impact_section(tmp_path: Path) -> None:
    done = _diff(_pr(tmp_path), "-o", "html")
    assert done.returncode == 0 and done.stderr == ""
    assert '<section id="impact"' not in done.stdout and 'href="#impact"' not in done.stdout
    assert "NodePool/eks-batch (changed)" in done.stdout


def test_a_priced_change_leads_the_page_with_its_money(tmp_path: Path) -> None:
    """With ``pricing`` (docs/examples/cost-pr's settings: builtin us-east-1 on-demand), the page says what the change
    adds to the bill, as the PR comment does. The autoscaler adds 1 × c6i.2xlarge (docs/impact.md); the builtin
    snapshot prices it at $0.34 an hour (Karpenter's generated AWS table of 2026-01-19, docs/cost.md), × 730 hours
    = $248.20 a month."""
    repo = _pr(tmp_path)
    settings = (REPO_ROOT / "docs" / "examples" / "cost-pr" / "base" / ".allocatable.yaml").read_text(encoding="utf-8")
    (repo / "policies" / ".allocatable.yaml").write_text(settings, encoding="utf-8")
    html = _diff(repo, "--snapshot", "snapshot.json", "-o", "html").stdout
    text = _text(html)
    assert 'id="cost"' in html
    assert "this change adds $248.20/month (1 × c6i.2xlarge on eks-batch)" in text
    assert html.index('id="cost"') < html.index("<figure>")  # the money right under the headlines, before the bars


def test_byte_stable(tmp_path: Path) -> None:
    repo = _pr(tmp_path)
    assert _page(repo) == _page(repo)


def test_hostile_names_are_text(tmp_path: Path) -> None:
    html = _page(_pr(tmp_path, pools_file=HOSTILE_FILE, pod_name=HOSTILE_POD))
    assert_self_contained(html)
    assert "<img" not in html and "<script" not in html and 'onerror="' not in html
    # Control characters and the bidirectional override are shown as escapes, then the markup is escaped.
    assert "\x1b" not in html and "\u202e" not in html
    assert "x&lt;img src=y onerror=&#34;alert(1)&#34;&gt;&amp;amp;\\x1b\\u202e.yaml" in html
    assert "batch/report-&lt;script&gt;alert(1)&lt;/script&gt;\\u202egpj.exe" in html


@pytest.mark.external
def test_chromium_renders_the_page_without_console_messages(tmp_path: Path) -> None:
    html_file = tmp_path / "diff.html"
    html_file.write_text(_page(_pr(tmp_path)), encoding="utf-8")
    png = tmp_path / "diff.png"
    log = screenshot(html_file, png, tmp_path / "profile", size="1000,2400")
    assert console(log) == [], log
    assert png_size(png) == (1000, 2400)
    assert png.stat().st_size > 50_000  # a page with content, not a blank one
