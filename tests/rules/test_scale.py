"""A repo shaped to expose any step whose cost grows faster than (pools × policies that select them) + findings.

20,000 pools; 200 RuntimeClasses that can all land on every pool (4 million pool/class pairs: allowed, linear in
what the policies select); 2,000 CommitClasses and 1,000 ReservationPolicies with 3 terms each, every term an In
on a shared team label plus Gt/Lt bounds on a slot label, each class covering its own slot range. A rule that loops
RuntimeClass × pool × RuntimeClass, a matcher that scans every pool of a team per term, or an overlap check that
compares all term pairs of a team takes minutes to hours here; the linear pipeline takes seconds. The bound below
is generous on purpose (shared CI machines); speed itself is measured by bench/, not here.
"""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import scaled
from renderer import pipeline

pytestmark = pytest.mark.slow

# The sizes above in the deep profile (.ci/run); a plain run builds the same shape at a fifth of them.
POOLS = scaled(20_000, 4_000)
RUNTIME_CLASSES = scaled(200, 40)
COMMIT_CLASSES = scaled(2_000, 400)
RESERVATION_POLICIES = scaled(1_000, 200)
TEAMS = ("platform", "data", "search", "payments")
BOUND_SECONDS = 120
SIZES = ((4, 16), (8, 32), (16, 64), (32, 128), (64, 256))
OVERHEADS = (("kata-qemu", "250m", "160Mi"), ("runsc", "100m", "64Mi"), ("kata-fc", "250m", "130Mi"))


def _ranged(team: str, low: int, high: int, extra: str) -> str:
    return (
        "    - matchExpressions:\n"
        f"        - {{key: example.com/team, operator: In, values: [{team}]}}\n"
        f'        - {{key: example.com/slot, operator: Gt, values: ["{low - 1}"]}}\n'
        f'        - {{key: example.com/slot, operator: Lt, values: ["{high}"]}}\n'
        f"        - {extra}\n"
    )


def _selector(i: int, width: int) -> str:
    low, high = 10_000 + i * width, 10_000 + (i + 1) * width
    team = TEAMS[i % len(TEAMS)]
    return "  selector:\n" + "".join(
        _ranged(team, low, high, extra)
        for extra in (
            '{key: example.com/cpu, operator: Lt, values: ["17"]}',
            '{key: example.com/cpu, operator: Gt, values: ["16"]}',
            '{key: example.com/gen, operator: Gt, values: ["5"]}',
        )
    )


def _write_repo(root: Path) -> None:
    cc_width = POOLS // COMMIT_CLASSES
    rp_width = POOLS // RESERVATION_POLICIES
    pools = []
    for j in range(POOLS):
        cpu, mem = SIZES[j % len(SIZES)]
        team = TEAMS[(j // cc_width) % len(TEAMS)]
        pools.append(
            "apiVersion: policy.allocatable.dev/v1alpha1\nkind: NodePool\n"
            f"metadata: {{name: pool-{j:05d}}}\n"
            "spec:\n"
            f'  labels: {{example.com/team: {team}, example.com/slot: "{10_000 + j}", example.com/cpu: "{cpu}", '
            f'example.com/gen: "{5 + j % 3}"}}\n'
            f'  capacity: {{cpu: "{cpu}", memory: {mem}Gi, pods: "110"}}\n'
            "  count: 3\n"
        )
    classes = [
        "apiVersion: node.k8s.io/v1alpha1\nkind: CommitClass\n"
        f"metadata: {{name: commit-{i:04d}}}\nspec:\n{_selector(i, cc_width)}"
        "  resources: [{name: cpu, percent: 150}]\n"
        for i in range(COMMIT_CLASSES)
    ]
    policies = []
    for i in range(RESERVATION_POLICIES):
        selector = _selector(i, rp_width).replace(
            f"values: [{TEAMS[i % len(TEAMS)]}]", "values: [" + ", ".join(TEAMS) + "]"
        )
        policies.append(
            "apiVersion: policy.allocatable.dev/v1alpha1\nkind: ReservationPolicy\n"
            f"metadata: {{name: reserve-{i:04d}}}\nspec:\n{selector}"
            "  systemReserved: {cpu: 100m, memory: 200Mi}\n  kubeReserved: {cpu: 100m, memory: 500Mi}\n"
        )
    runtimes = []
    for i in range(RUNTIME_CLASSES):
        handler, cpu, mem = OVERHEADS[i % len(OVERHEADS)]
        runtimes.append(
            f"apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {{name: {handler}-{i:03d}}}\n"
            f"handler: {handler}\noverhead:\n  podFixed: {{cpu: {cpu}, memory: {mem}}}\n"
        )
    for name, docs in (("pools", pools), ("classes", classes), ("policies", policies), ("runtimes", runtimes)):
        for part in range(0, len(docs), 2_000):
            (root / f"{name}-{part // 2_000:02d}.yaml").write_text("---\n".join(docs[part : part + 2_000]))


def test_a_repo_that_would_expose_a_quadratic_step_lints_in_seconds(tmp_path: Path) -> None:
    root = tmp_path / "policies"
    root.mkdir()
    _write_repo(root)
    start = time.perf_counter()
    done = pipeline.lint([root])
    elapsed = time.perf_counter() - start
    assert done.valid, [f.message for f in done.findings[:3]]
    codes = Counter(f.code for f in done.findings)
    # Each class selects its own slot range exactly: no conflicts, no overlaps, nothing unmatched.
    assert not {"AL101", "AL102", "AL103", "AL104", "AL105"} & set(codes), codes
    # Every RuntimeClass lands on every pool; on the 4-CPU pools 110 pods of 250m overhead do not fit.
    assert codes["AL213"] >= RUNTIME_CLASSES
    assert elapsed < BOUND_SECONDS, f"lint took {elapsed:.0f} s: some step grows faster than the data it reads"
