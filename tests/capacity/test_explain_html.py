"""``allocatable explain -o html``: one self-contained page, escaped, accessible, rendered by headless Chromium.

Chromium is Debian's ``chromium`` package (``.ci/run`` installs it; the helpers are ``tests/support/html_pages.py``); it
renders the page to a PNG and its console log (``--enable-logging=stderr``) must hold no message from the page. A
control page that does log to the console proves the check can fail.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run_cli
from support.factory import Document, node_pool, write_repo
from support.html_pages import assert_self_contained, console, png_size, screenshot
from support.html_pages import page as _page

REPO_ROOT = Path(__file__).resolve().parents[2]
POLICIES = REPO_ROOT / "policies"


def _pool(name: str = "batch", **extended: str) -> Document:
    """3 nodes of 4 cpu and 16Gi, with ``extended`` resources (``**{"nvidia.com/gpu": "4"}``)."""
    capacity = {"ephemeral-storage": "100Gi", "pods": "110", **extended}
    return node_pool(name, tier="batch", cpu="4", memory="16Gi", capacity=capacity)


def _html(*args: str, cwd: Path | None = None) -> str:
    res = run_cli("explain", *args, "-o", "html", cwd=cwd)
    assert res.exit_code == 0, res.stderr
    assert res.stderr == ""
    return res.stdout


def test_self_contained_no_script_no_external_resource() -> None:
    assert_self_contained(_html(str(POLICIES)))


def test_bars_are_accessible_and_the_numbers_are_text() -> None:
    html = _html(str(POLICIES))
    page = _page(html)
    charts = [a for t, a in page.tags if t == "svg" and a.get("role") == "img"]
    pools = json.loads(run_cli("explain", str(POLICIES), "-o", "json").stdout)["pools"]
    assert len(charts) == len(pools) + 1  # one per pool, one for the cluster totals
    for chart in charts:
        for ref in str(chart["aria-labelledby"]).split():
            assert ref in page.ids
    assert page.rects > 0 and page.titled_rects == page.rects, "every bar segment has a <title>"
    text = "".join(page.text)
    # the values a reader needs, as text: eks-general-purpose allocatable and committed cpu, memory in GiB, and
    # exactly as the kubelet writes it
    assert "29.82Gi" in text and "memory 31267292Ki" in text and "11.685" in text and "140.22" in text
    for label in ("system-reserved", "kube-reserved", "hard eviction", "allocatable", "commit-class amplification"):
        assert label in text  # the legend names every segment; colour is not the only carrier
    assert 'class="seg seg-amplified"' in html and 'class="seg seg-held"' in html  # over- and under-commit shown


def test_each_pool_has_its_runtime_class_overhead() -> None:
    # The same figures as -o text and -o json: gvisor (podFixed cpu 100m, memory 64Mi) on eks-general-purpose,
    # 11.685 committed cores / 100m = 116 pods by cpu (floored); runc has no overhead.
    html = _html(str(POLICIES), "--pool", "eks-general-purpose")
    section = html.split("RuntimeClasses that can run here", 1)[1].split("</table>", 1)[0]
    rows = [r for r in section.split("<tr>")[2:]]
    (pool,) = json.loads(run_cli("explain", str(POLICIES), "--pool", "eks-general-purpose", "-o", "json").stdout)[
        "pools"
    ]
    assert len(rows) == len(pool["runtimeClasses"]) == 2
    assert (
        '<th scope="row">gvisor</th><td>runsc</td><td>cpu 100m, memory 64Mi</td><td>116 by cpu, 477 by memory'
        in section
    )
    assert '<th scope="row">runc</th><td>runc</td><td>no overhead</td>' in section
    every = _html(str(POLICIES))
    with_classes = [
        p for p in json.loads(run_cli("explain", str(POLICIES), "-o", "json").stdout)["pools"] if p["runtimeClasses"]
    ]
    assert every.count("RuntimeClasses that can run here") == len(with_classes)


def test_amplification_is_drawn_beyond_the_capacity_marker() -> None:
    html = _html(str(POLICIES), "--pool", "eks-compute-optimized").split('role="img"', 1)[1]  # the chart
    # high-cpu-density: cpu 1000% → committed 157.9 cores of 16: the amplified part starts at the capacity marker
    seg = html.split('class="seg seg-amplified" x="', 1)[1]
    x = float(seg.split('"', 1)[0])
    marker = float(html.split('class="marker" x1="', 1)[1].split('"', 1)[0])
    assert x == pytest.approx(marker, abs=0.02)
    assert "commit-class amplification 142.11 cores (888.2%)" in html  # 157.9 − 15.79 cores, of 16


GPU_NODE = REPO_ROOT / "tests/real-nodes/eks/mng-al2023-g4dn-xlarge-gpu-1-34.yaml"


def test_a_real_gpu_node_has_its_gpu_bar_and_column() -> None:
    # The published EKS g4dn.xlarge (tests/real-nodes/eks/mng-al2023-g4dn-xlarge-gpu-1-34.yaml, its source in its
    # header): capacity and allocatable nvidia.com/gpu "1". The kubelet reserves no GPU and no CommitClass applies to
    # one, so its bar is one allocatable segment, 100% of capacity, and its column says 1 in every row it has.
    html = _html(str(GPU_NODE))
    text = "".join(_page(html).text)
    assert "nvidia.com/gpu: capacity 1; allocatable 1 (100.0%); committed allocatable 1" in text
    assert "<title>nvidia.com/gpu: allocatable 1 (100.0% of capacity)</title>" in html
    assert html.count(">no CommitClass</text>") == 1  # the pool's bar; the totals' says "× nodes, summed"
    pool_table, totals_table = html.split("<table>")[1:3]
    for table in (pool_table, totals_table):
        assert '<th scope="col">nvidia.com/gpu</th>' in table
    # hugepages-* (0 on this node) stay for -o wide; the page adds the extended resources only
    assert "hugepages-" not in html.split("</style>", 1)[1]


def test_a_cpu_only_pool_keeps_its_columns_beside_a_gpu_pool(tmp_path: Path) -> None:
    write_repo(tmp_path / "policies", {"batch.yaml": _pool(), "gpu.yaml": _pool("gpu", **{"nvidia.com/gpu": "4"})})
    html = _html(cwd=tmp_path)
    batch, gpu_section = html.split('<section id="pool-1"')[1], html.split('<section id="pool-2"')[1]
    assert "nvidia.com/gpu" not in batch.split("</section>", 1)[0]
    assert '<th scope="col">nvidia.com/gpu</th>' in gpu_section.split("</section>", 1)[0]
    # 3 nodes × 4 GPUs in the cluster totals
    assert "nvidia.com/gpu: capacity 12; allocatable 12 (100.0%); committed allocatable 12" in html


def test_every_policy_value_is_escaped(tmp_path: Path) -> None:
    hostile = 'x<img src=y onerror="alert(1)">&amp;\x1b.yaml'
    write_repo(tmp_path / "policies", {hostile: _pool()})
    html = _html(cwd=tmp_path)
    assert "<img" not in html and 'onerror="' not in html
    assert "x&lt;img src=y onerror=&#34;alert(1)&#34;&gt;&amp;amp;\\x1b.yaml" in html
    assert "\x1b" not in html


def test_byte_stable() -> None:
    assert _html(str(POLICIES)) == _html(str(POLICIES))


@pytest.mark.external
def test_chromium_renders_the_page_without_console_messages(tmp_path: Path) -> None:
    page = tmp_path / "capacity.html"
    page.write_text(_html(str(POLICIES)), encoding="utf-8")
    png = tmp_path / "capacity.png"
    log = screenshot(page, png, tmp_path / "profile")
    assert console(log) == [], log
    assert png_size(png) == (1000, 1800)
    assert png.stat().st_size > 50_000  # a page with content, not a blank one


@pytest.mark.external
def test_the_console_check_can_fail(tmp_path: Path) -> None:
    page = tmp_path / "control.html"
    page.write_text("<!DOCTYPE html><title>c</title><script>console.error('control message')</script>")
    log = screenshot(page, tmp_path / "control.png", tmp_path / "profile")
    assert any("control message" in ln for ln in console(log)), log
