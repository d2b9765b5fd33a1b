"""What ``recommend`` advises, against statistics worked out by hand.

The planted fleet (tests/support/fleet.py: every planted value and why is written there) was loaded into a real
Prometheus 2.42 and the default queries' answers exported to docs/examples/recommend/usage/ (test_live.py checks
they are still what the server answers). Here the advice read from those files is compared with the arithmetic done
by hand from the plant. Other cases build the per-node days directly, each with its reasoning.

Published references: the VPA recommender's 15 % safety margin (autoscaler, vertical-pod-autoscaler/pkg/recommender,
``--recommendation-margin-fraction`` default 0.15); the EKS kube-reserved memory line ``11Mi × maxPods + 255Mi``
(amazon-eks-ami bootstrap.sh, from the measurements of awslabs/amazon-eks-ami#419); OpenShift's
SystemMemoryExceedsReservation alert (machine-config-operator, openshift/runbooks): it fires when /system.slice uses
more than 95 % of capacity − allocatable.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from renderer.pipeline import recommend
from renderer.recommend.advice import MI, Options, advise
from renderer.recommend.nodes import NodeDays, node_days
from renderer.recommend.usage import Usage
from support import fleet

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "recommend"
D0 = fleet.START // 86400


def _example(**kw: object) -> object:
    done = recommend(
        [EXAMPLE / "policies"],
        usage=sorted(str(p) for p in (EXAMPLE / "usage").glob("*.json")),
        nodes=str(EXAMPLE / "nodes.json"),
        **kw,  # type: ignore[arg-type]
    )
    assert done.result is not None
    return done.result


def _by(advice: object) -> dict[tuple[str, str], object]:
    return {(r.slice, r.resource): r for r in advice.reservations}  # type: ignore[attr-defined]


def test_the_planted_fleet() -> None:
    result = _example()
    pools = {p.pool: p for p in result.pools}  # type: ignore[attr-defined]
    general = pools["general"]
    r = _by(general)
    # kube memory = 180Mi + 4Mi x pods; pods peak at 36 on gp-3 (n = 3, d mod 4 = 3: first on day 3, 2025-11-04)
    assert r[("kube", "memory")].observed == pytest.approx(324 * MI)
    assert (r[("kube", "memory")].node, r[("kube", "memory")].day) == ("gp-3", D0 + 3)
    # other daemons: 150Mi, 400Mi on gp-2 on day 5; the total there: kube 180 + 4 x 26 (pods(2, 5) = 12 + 12 + 2) + 400
    assert r[("system", "memory")].observed == pytest.approx(400 * MI)
    assert r[("total", "memory")].observed == pytest.approx(684 * MI)
    assert (r[("total", "memory")].node, r[("total", "memory")].day) == ("gp-2", D0 + 5)
    # system memory: 400Mi x 1.15 = 460Mi
    assert r[("system", "memory")].recommended == 460 * MI
    # the slope: an exact line, R² 1; perPod 4Mi x 1.15 = 4710.4Ki -> 4711Ki; base 180Mi x 1.15 = 207Mi;
    # at maxPods 58: 4711Ki x 58 + 207Mi = 485206Ki = 473.8Mi -> 474Mi
    s = general.slope
    assert s is not None and s.used
    assert s.per_pod == pytest.approx(4 * MI)
    assert s.base == pytest.approx(180 * MI)
    assert s.r2 == pytest.approx(1.0)
    assert (s.per_pod_recommended, s.base_recommended) == (4711 * 1024, 207 * MI)
    assert r[("kube", "memory")].recommended == 474 * MI
    assert r[("total", "memory")].recommended == (474 + 460) * MI
    # cpu: kubelet 0.12 + containerd 0.05 = 0.17 cores -> x 1.15 = 0.1955 -> 200m; other 0.20 once -> 0.23 -> 230m
    assert r[("kube", "cpu")].observed == pytest.approx(0.17)
    assert r[("kube", "cpu")].recommended == pytest.approx(0.20)
    assert r[("system", "cpu")].observed == pytest.approx(0.20)
    assert (r[("system", "cpu")].node, r[("system", "cpu")].day) == ("gp-1", D0 + 3)
    assert r[("system", "cpu")].recommended == pytest.approx(0.23)
    # the current policy: kube 255Mi, system 100Mi -> total 355Mi; every node-day's total (at least 150 + 180 + 4 x 18
    # = 402Mi) exceeds it: 24 node-days; kube memory exceeds 255Mi from 19 pods up (180 + 4 x 19 = 256): every node-day
    # but gp-1's two days at 18 pods (days 0 and 4): 22
    assert len(r[("total", "memory")].exceeded) == 24
    assert len(r[("kube", "memory")].exceeded) == 22
    assert r[("total", "memory")].exceeded[0].peak == pytest.approx(684 * MI)
    # system cpu (50m) is exceeded once: gp-1 on day 3 (0.20); other days 0.03
    assert [(e.node, e.day) for e in r[("system", "cpu")].exceeded] == [("gp-1", D0 + 3)]
    # walk-forward back-test, min 7 days: day 7 (2025-11-08) against days 0-6 on 3 nodes; nothing larger than before
    assert (r[("total", "memory")].backtest_exceeded, r[("total", "memory")].backtest_days) == (0, 3)
    # commit: cpu p99 of usage / requests: 1.5 / 6 = 0.25 (gp-3: 1.8 / 6 = 0.3); the 5-core spike is one 5-minute
    # step of 288 a day, above the p99 (rank 0.99 x 287 = 284.1 of the sorted steps, among the 12-hour plateau);
    # 100 x 0.8 / 0.3 = 266.7 -> 265
    commits = {c.resource: c for c in general.commits}
    assert commits["cpu"].ratio == pytest.approx(0.3)
    assert commits["cpu"].node == "gp-3"
    assert commits["cpu"].recommended == 265
    # memory: peak 14Gi of 20Gi requested = 0.7; 100 / (0.7 x 1.15) = 124.2 -> 120, never above 100 (AL201)
    assert commits["memory"].ratio == pytest.approx(0.7)
    assert commits["memory"].recommended == 100
    # batch: bt-1 has 3 days: no number; stray-1 is in no pool
    batch = pools["batch"]
    assert not batch.reservations and not batch.commits
    assert batch.coverage.why[0] == "3 days of data, 7 needed (--min-days)"
    assert result.unplaced == ["stray-1 (not in the inventory nor in the node dump)"]  # type: ignore[attr-defined]


def test_openshifts_alert_would_not_fire_on_the_recommended_total() -> None:
    # SystemMemoryExceedsReservation fires when /system.slice > 0.95 x (capacity - allocatable). The reservation part
    # of capacity - allocatable is the recommended total; with the 15 % margin, 0.95 x 1.15 = 1.09 > 1: the window's
    # peaks stay under the threshold on every node-day.
    result = _example()
    general = next(p for p in result.pools if p.pool == "general")  # type: ignore[attr-defined]
    total = _by(general)[("total", "memory")]
    assert total.observed < 0.95 * total.recommended
    # and the current total (355Mi) would have fired it: 684Mi > 0.95 x 355Mi
    assert total.observed > 0.95 * total.current


def _nodes(rows: dict[str, dict[int, tuple[float, float, float]]]) -> list[NodeDays]:
    """node → day → (kube memory bytes, other system memory bytes, running pods)."""
    out = []
    for name, days in rows.items():
        nd = NodeDays(name)
        nd.kube = {"memory": {d: k for d, (k, _, _) in days.items()}, "cpu": {d: 0.1 for d in days}}
        nd.system = {"memory": {d: s for d, (_, s, _) in days.items()}, "cpu": {d: 0.05 for d in days}}
        nd.total = {r: {d: nd.kube[r][d] + nd.system[r][d] for d in days} for r in ("memory", "cpu")}
        nd.pods = {d: p for d, (_, _, p) in days.items()}
        nd.layout = "nested"
        out.append(nd)
    return out


CURRENT: dict[tuple[str, str], float | None] = {
    ("kube", "memory"): 893 * MI,
    ("system", "memory"): 100 * MI,
    ("total", "memory"): 993 * MI,
    ("kube", "cpu"): 0.11,
    ("system", "cpu"): 0.1,
    ("total", "cpu"): 0.21,
}


def test_the_eks_line_is_recovered_from_its_own_measurements() -> None:
    # kubelet + runtime memory on the EKS line 255Mi + 11Mi x pods (amazon-eks-ami#419's measurements, as
    # bootstrap.sh writes them), at 10..50 running pods on 5 nodes over 8 days: the fit finds 11Mi and 255Mi; the
    # formula is 11Mi x 1.15 = 12.65Mi = 12953.6Ki -> 12954Ki per pod, 255Mi x 1.15 = 293.25Mi -> 294Mi base.
    rows = {
        f"n{k}": {d: ((255 + 11 * (10 + 8 * k + d % 3)) * MI, 120 * MI, 10 + 8 * k + d % 3) for d in range(8)}
        for k in range(5)
    }
    a = advise("p", _nodes(rows), 5, 58, CURRENT, {}, Options())
    s = a.slope
    assert s is not None and s.used
    assert s.per_pod == pytest.approx(11 * MI)
    assert s.base == pytest.approx(255 * MI)
    assert (s.per_pod_recommended, s.base_recommended) == (12954 * 1024, 294 * MI)
    # at 58 pods: 12954Ki x 58 + 294Mi = 751332Ki + 301056Ki = 1052388Ki = 1027.7Mi -> 1028Mi; EKS itself reserves
    # 11 x 58 + 255 = 893Mi: the recommendation is EKS's line with the margin on it
    assert s.at_max_pods == 1028 * MI


@pytest.mark.parametrize(
    ("pods_of", "why"),
    [
        # every node runs about the same pods (20 or 21): no spread to fit a slope on
        (lambda k, d: 20 + d % 2, "distinct counts"),
        # memory falls as pods grow: no per-pod cost
        (lambda k, d: 10 + 5 * k + d, "does not grow"),
    ],
)
def test_no_slope_without_evidence(pods_of: object, why: str) -> None:
    grows = why != "does not grow"
    rows = {
        f"n{k}": {
            d: ((300 + (3 if grows else -3) * pods_of(k, d)) * MI, 100 * MI, pods_of(k, d))  # type: ignore[operator]
            for d in range(8)
        }
        for k in range(4)
    }
    a = advise("p", _nodes(rows), 4, 58, CURRENT, {}, Options())
    assert a.slope is not None and not a.slope.used
    assert why in a.slope.why
    kube = _by(a)[("kube", "memory")]
    assert kube.recommended == pytest.approx(-(-kube.observed * 1.15 // MI) * MI)  # the static value


def test_a_poor_fit_falls_back_to_the_static_value() -> None:
    # pods 10..47, memory 1Mi per pod on top of 300Mi or 600Mi by the parity of k + d: the per-pod part explains
    # about 130 of the 22,500 Mi² of variance: R² near 0
    rows = {
        f"n{k}": {
            d: ((300 if (k + d) % 2 else 600) * MI + (10 + 10 * k + d) * MI, 100 * MI, 10 + 10 * k + d)
            for d in range(8)
        }
        for k in range(4)
    }
    a = advise("p", _nodes(rows), 4, 58, CURRENT, {}, Options())
    assert a.slope is not None and not a.slope.used and "R²" in a.slope.why
    # the static value: the largest peak, k = 3 and d = 7 (even: 600Mi) + 47 pods = 647Mi; x 1.15 = 744.05 -> 745Mi
    assert _by(a)[("kube", "memory")].recommended == 745 * MI


def test_the_back_test_walks_forward() -> None:
    # one node, 10 days, other-system memory 100Mi for days 0-6, 200Mi on day 7, 100Mi after: the recommendation
    # made on day 7 from days 0-6 is 115Mi, exceeded on day 7; those of days 8 and 9 (from peaks up to 200Mi: 230Mi)
    # are not: 1 of 3 node-days.
    rows = {"n": {d: (300 * MI, (200 if d == 7 else 100) * MI, 20) for d in range(10)}}
    a = advise("p", _nodes(rows), 1, 58, CURRENT, {}, Options())
    system = _by(a)[("system", "memory")]
    assert (system.backtest_exceeded, system.backtest_days) == (1, 3)


def test_coverage_comes_before_advice() -> None:
    rows = {"n": {d: (300 * MI, 100 * MI, 20) for d in range(5)}}
    a = advise("p", _nodes(rows), 4, 58, CURRENT, {}, Options(min_nodes=2))
    assert not a.reservations and not a.commits
    assert a.coverage.why[:2] == [
        "5 days of data, 7 needed (--min-days)",
        "1 node(s) with reserved-slice data, 2 needed (--min-nodes)",
    ]
    assert "pods_cpu_ratio: no series on 1 of 1 node (n)" in a.coverage.missing


def test_commit_percents_reason_in_words() -> None:
    nodes = _nodes({f"n{k}": {d: (300 * MI, 100 * MI, 20) for d in range(7)} for k in range(2)})
    for nd in nodes:
        nd.cpu_ratio = {d: 0.9 for d in range(7)}  # p99 cpu at 90 % of requests
        nd.memory_ratio = {d: 1.1 for d in range(7)}  # pods' peaks 10 % above their requests
    nodes[1].cpu_ratio[3] = 0.05
    a = advise("p", nodes, 2, 58, CURRENT, {"cpu": 150, "memory": 100}, Options(cpu_target=0.8))
    c = {k.resource: k for k in a.commits}
    # cpu: 100 x 0.8 / 0.9 = 88.9 -> 85: an under-commit
    assert c["cpu"].recommended == 85 and "under-commit" in c["cpu"].reasoning
    # memory: 100 / (1.1 x 1.15) = 79.1 -> 75
    assert c["memory"].recommended == 75 and "under-commit" in c["memory"].reasoning
    # very low cpu use: capped at the repo's ceiling
    for nd in nodes:
        nd.cpu_ratio = {d: 0.01 for d in range(7)}
    a = advise("p", nodes, 2, 58, CURRENT, {}, Options(cpu_ceiling=400))
    assert next(k for k in a.commits if k.resource == "cpu").recommended == 400


def _usage(rows: dict[tuple[str, str], float], query: str = "reserved_memory") -> Usage:
    u = Usage()
    u.days[query] = {key: {D0: value} for key, value in rows.items()}
    return u


def test_services_under_the_system_slice_are_not_counted_twice() -> None:
    # systemd: /system.slice (900Mi) holds kubelet (300Mi) and containerd (100Mi): the total is 900Mi, the other
    # daemons 500Mi. Where the services sit beside it (/runtime.slice), the total is 900 + 400 = 1300Mi.
    nested = node_days(
        _usage(
            {
                ("a", "/system.slice"): 900 * MI,
                ("a", "/system.slice/kubelet.service"): 300 * MI,
                ("a", "/system.slice/containerd.service"): 100 * MI,
            }
        )
    )["a"]
    assert (nested.total["memory"][D0], nested.system["memory"][D0], nested.kube["memory"][D0]) == (
        900 * MI,
        500 * MI,
        400 * MI,
    )
    assert nested.layout == "nested"
    beside = node_days(
        _usage(
            {
                ("b", "/system.slice"): 900 * MI,
                ("b", "/runtime.slice/kubelet.service"): 300 * MI,
                ("b", "/runtime.slice/crio.service"): 100 * MI,
            }
        )
    )["b"]
    assert (beside.total["memory"][D0], beside.system["memory"][D0]) == (1300 * MI, 900 * MI)
    assert beside.layout == "beside"
    partial = node_days(_usage({("c", "/system.slice"): 900 * MI}))["c"]
    assert partial.missing == ["kubelet.service", "runtime service"]


def test_mixed_layouts_are_said() -> None:
    usage = _usage(
        {
            **{(n, "/system.slice"): 900 * MI for n in ("a", "b")},
            ("a", "/system.slice/kubelet.service"): 300 * MI,
            ("a", "/system.slice/containerd.service"): 100 * MI,
            ("b", "/kubelet.service"): 300 * MI,
            ("b", "/crio.service"): 100 * MI,
        }
    )
    a = advise("p", list(node_days(usage).values()), 2, 58, CURRENT, {}, Options(min_days=1))
    assert a.coverage.mixed.startswith("mixed cgroup layouts: kubelet/runtime under /system.slice on 1 node(s) (a)")


def test_the_back_test_replays_at_most_the_last_30_days() -> None:
    # 40 days on one node: days 0-9 are history only, days 10-39 are replayed (BACKTEST_DAYS = 30), each against the
    # running peak before it. Day 25 jumps to 200Mi of other-system memory (above 115Mi, the recommendation from the
    # 100Mi days before it): 1 of 30.
    rows = {"n": {d: (300 * MI, (200 if d == 25 else 100) * MI, 20) for d in range(40)}}
    a = advise("p", _nodes(rows), 1, 58, CURRENT, {}, Options())
    system = _by(a)[("system", "memory")]
    assert (system.backtest_exceeded, system.backtest_days) == (1, 30)


def test_memory_pressure_is_evidence_beside_the_statistics() -> None:
    # planted: gp-2 reported MemoryPressure on day 5 only (2025-11-06); the other days and nodes answered 0
    general = next(p for p in _example().pools if p.pool == "general")  # type: ignore[attr-defined]
    assert general.pressure == [("gp-2", D0 + 5)]
