"""``render --target monitoring``: the alerting rules pass the real ``promtool check rules`` and fire (and stay quiet)
on hand-made series as ``promtool test rules`` evaluates them; the RBAC is read-only; every runbook has its anchor.

promtool is the Debian package's (``/usr/bin/promtool``, installed by .ci/run), skipped with the reason where missing.
Every expected value is worked out by hand beside its series.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import REPO_ROOT, chdir
from renderer.capacity.pools import build as build_model
from renderer.pipeline import load
from renderer.render.engine import build
from support.tools import find

MI = 1 << 20
SERVE_DOC = REPO_ROOT / "docs/serve.md"
CASE = REPO_ROOT / "tests/render/cases/monitoring"


def _rendered() -> dict[str, list[Any]]:
    """The monitoring case rendered as ``allocatable render`` renders it: file → its YAML documents."""
    with chdir(CASE.parent):
        result = load([Path(CASE.name)])
        assert result.ok
        files = build(result, build_model(result.policies), ["monitoring"]).files
    return {name: [d for d in yaml.safe_load_all(data.decode()) if d is not None] for name, data in files.items()}


def rules() -> dict[str, Any]:
    """The ``spec`` of the rendered PrometheusRule (its ``groups``: what promtool reads)."""
    (rule,) = _rendered()["monitoring/prometheusrule.yaml"]
    assert rule["kind"] == "PrometheusRule"
    return rule["spec"]  # type: ignore[no-any-return]


def _rules_file(tmp_path: Path) -> Path:
    path = tmp_path / "rules.yaml"
    path.write_text(yaml.safe_dump(rules(), sort_keys=False), encoding="utf-8")
    return path


def configz_rules(tmp_path: Path) -> dict[str, Any]:
    """The ``spec`` of the PrometheusRule the monitoring case renders with ``render.monitoring.configz: true``."""
    policies = tmp_path / "monitoring"
    policies.mkdir(parents=True)
    for name in ("pools.yaml", "reservations.yaml"):
        (policies / name).write_text((CASE / name).read_text("utf-8"), "utf-8")
    (policies / ".allocatable.yaml").write_text(
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nrender:\n  monitoring:\n    configz: true\n",
        "utf-8",
    )
    with chdir(tmp_path):
        result = load([Path("monitoring")])
        assert result.ok, result.findings
        files = build(result, build_model(result.policies), ["monitoring"]).files
    (rule,) = [d for d in yaml.safe_load_all(files["monitoring/prometheusrule.yaml"].decode()) if d]
    return rule["spec"]  # type: ignore[no-any-return]


def _annotations(alert: str, spec: dict[str, Any] | None = None, **values: str) -> dict[str, str]:
    """The rule's annotations with its template fields filled in by hand (``node``, ``pool``, ``cause``, ``value``)."""
    (rule,) = [r for g in (spec or rules())["groups"] for r in g["rules"] if r["alert"] == alert]
    out = {}
    for key, text in rule["annotations"].items():
        for name, value in values.items():
            text = re.sub(
                r"\{\{ \$" + ("value" if name == "value" else r"labels\." + name) + r"( \| \w+)? \}\}", value, text
            )
        out[key] = text
    return out


@pytest.mark.external
def test_promtool_check_rules(tmp_path: Path) -> None:
    promtool = find("promtool", how="apt-get install prometheus")
    done = subprocess.run([promtool, "check", "rules", str(_rules_file(tmp_path))], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


def _cadvisor(node: str, cgroup: str, metric: str = "container_memory_working_set_bytes") -> str:
    """A cAdvisor series as the kubelet ServiceMonitor of kube-prometheus-stack labels it (recommend's default)."""
    return f'{metric}{{job="kubelet",metrics_path="/metrics/cadvisor",node="{node}",id="{cgroup}"}}'


def _tests() -> list[dict[str, Any]]:
    drift = 'allocatable_node_drift{node="n1",pool="p",resource="cpu",unit="core",cause="policy-not-rolled-out"}'
    awaiting = 'allocatable_node_drift{node="n2",pool="p",resource="cpu",unit="core",cause="awaiting-rollout"}'
    return [
        {
            # Drift held for 90 minutes on n1; n2 differs only by the change under rollout (never AllocatableDrift).
            "interval": "1m",
            "input_series": [{"series": drift, "values": "0.43x90"}, {"series": awaiting, "values": "0.43x90"}],
            "alert_rule_test": [
                {"eval_time": "30m", "alertname": "AllocatableDrift", "exp_alerts": []},  # < 1h: pending only
                {
                    "eval_time": "70m",
                    "alertname": "AllocatableDrift",
                    "exp_alerts": [
                        {
                            "exp_labels": {
                                "severity": "warning",
                                "node": "n1",
                                "pool": "p",
                                "cause": "policy-not-rolled-out",
                            },
                            "exp_annotations": _annotations(
                                "AllocatableDrift", node="n1", pool="p", cause="policy-not-rolled-out"
                            ),
                        }
                    ],
                },
            ],
        },
        {
            # The change was committed at time 0 (timestamp 0); 2 nodes of pool p still match the policy before it,
            # pool q has none. time() − 0 > 21600 from 6 h on, held 15 minutes: firing at 7 h, not at 3 h.
            "interval": "1m",
            "input_series": [
                {"series": 'allocatable_pool_nodes{pool="p",state="awaiting-rollout"}', "values": "2x480"},
                {"series": 'allocatable_pool_nodes{pool="q",state="awaiting-rollout"}', "values": "0x480"},
                {"series": "allocatable_policy_change_timestamp_seconds", "values": "0x480"},
            ],
            "alert_rule_test": [
                {"eval_time": "3h", "alertname": "AllocatableNotRolledOut", "exp_alerts": []},
                {
                    "eval_time": "7h",
                    "alertname": "AllocatableNotRolledOut",
                    "exp_alerts": [
                        {
                            "exp_labels": {"severity": "warning", "pool": "p"},
                            "exp_annotations": _annotations("AllocatableNotRolledOut", pool="p", value="2"),
                        }
                    ],
                },
            ],
        },
        {
            # Pool p reserves system 512Mi + kube 512Mi = 1024Mi for daemons (eviction 100Mi is not theirs);
            # 95 % of it is 972.8Mi. The series are recommend's (the working set of its reserved cgroups, scraped as
            # kube-prometheus-stack scrapes cAdvisor). n1's daemons use 700Mi (/system.slice) + 300Mi (containerd
            # in /runtime.slice, beside it) = 1000Mi: over, it fires after 15 minutes (and it would not if the
            # eviction 100Mi counted: 95 % of 1124Mi is 1067.8Mi). n2 uses 900Mi in /system.slice, which holds its
            # kubelet.service (400Mi, nested: already in the 900Mi; counted twice it would be 1300Mi and fire), and
            # 4000Mi in /kubepods.slice (pods: not counted), and 2000Mi of /system.slice from another job (not the
            # kubelet's cAdvisor): quiet.
            "interval": "1m",
            "input_series": [
                {"series": 'allocatable_node_info{node="n1",pool="p"}', "values": "1x30"},
                {"series": 'allocatable_node_info{node="n2",pool="p"}', "values": "1x30"},
                {
                    "series": 'allocatable_pool_reserved_memory_bytes{pool="p",slice="system"}',
                    "values": f"{512 * MI}x30",
                },
                {"series": 'allocatable_pool_reserved_memory_bytes{pool="p",slice="kube"}', "values": f"{512 * MI}x30"},
                {
                    "series": 'allocatable_pool_reserved_memory_bytes{pool="p",slice="eviction"}',
                    "values": f"{100 * MI}x30",
                },
                {"series": _cadvisor("n1", "/system.slice"), "values": f"{700 * MI}x30"},
                {"series": _cadvisor("n1", "/runtime.slice/containerd.service"), "values": f"{300 * MI}x30"},
                {"series": _cadvisor("n2", "/system.slice"), "values": f"{900 * MI}x30"},
                {"series": _cadvisor("n2", "/system.slice/kubelet.service"), "values": f"{400 * MI}x30"},
                {"series": _cadvisor("n2", "/kubepods.slice"), "values": f"{4000 * MI}x30"},
                {
                    "series": 'container_memory_working_set_bytes{job="other",node="n2",id="/system.slice"}',
                    "values": f"{2000 * MI}x30",
                },
            ],
            "alert_rule_test": [
                {"eval_time": "10m", "alertname": "ReservationExhausted", "exp_alerts": []},
                {
                    "eval_time": "20m",
                    "alertname": "ReservationExhausted",
                    "exp_alerts": [
                        {
                            "exp_labels": {"severity": "warning", "node": "n1"},
                            # 1000Mi = 1048576000 bytes, which humanize1024 writes 1000Mi
                            "exp_annotations": _annotations("ReservationExhausted", node="n1", value="1000Mi"),
                        }
                    ],
                },
            ],
        },
        {
            # serve's own health: a policy that does not load for 20 minutes; the last good cycle at 600 s (10m) and
            # none after it. time() − 600 > 1800 from 2460 s (41m; at 40m it is 1800, not more), held 10 minutes:
            # quiet at 30m (1200 s old) and at 45m (pending for 4 minutes), firing at 55m.
            "interval": "1m",
            "input_series": [
                {"series": "allocatable_policy_stale", "values": "1x20"},
                {"series": "allocatable_last_success_timestamp_seconds", "values": "600x60"},
            ],
            "alert_rule_test": [
                {"eval_time": "10m", "alertname": "AllocatablePolicyStale", "exp_alerts": []},
                {
                    "eval_time": "16m",
                    "alertname": "AllocatablePolicyStale",
                    "exp_alerts": [
                        {
                            "exp_labels": {"severity": "warning"},
                            "exp_annotations": _annotations("AllocatablePolicyStale"),
                        }
                    ],
                },
                {"eval_time": "30m", "alertname": "AllocatableServeStale", "exp_alerts": []},
                {"eval_time": "45m", "alertname": "AllocatableServeStale", "exp_alerts": []},
                {
                    "eval_time": "55m",
                    "alertname": "AllocatableServeStale",
                    "exp_alerts": [
                        {
                            "exp_labels": {"severity": "warning"},
                            "exp_annotations": _annotations("AllocatableServeStale"),
                        }
                    ],
                },
            ],
        },
        {
            # A serve that never has a good cycle (its RBAC missing from the start): last success 0 ("none yet"),
            # and allocatable_data_age_seconds absent, so an alert on the data's age would never fire. promtool's
            # clock starts at 0, so time() − 0 > 1800 from 31m, held 10 minutes: quiet at 35m, firing at 45m. (In a
            # cluster time() is about 1.8e9: it fires 10 minutes after serve starts.)
            "interval": "1m",
            "input_series": [
                {"series": "allocatable_last_success_timestamp_seconds", "values": "0x60"},
                {"series": 'allocatable_cycle_errors_total{stage="nodes"}', "values": "0+1x60"},
            ],
            "alert_rule_test": [
                {"eval_time": "35m", "alertname": "AllocatableServeStale", "exp_alerts": []},
                {
                    "eval_time": "45m",
                    "alertname": "AllocatableServeStale",
                    "exp_alerts": [
                        {
                            "exp_labels": {"severity": "warning"},
                            "exp_annotations": _annotations("AllocatableServeStale"),
                        }
                    ],
                },
            ],
        },
    ]


@pytest.mark.external
def test_promtool_test_rules_fire_and_stay_quiet(tmp_path: Path) -> None:
    promtool = find("promtool", how="apt-get install prometheus")
    _rules_file(tmp_path)
    spec = tmp_path / "tests.yaml"
    spec.write_text(
        yaml.safe_dump({"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": _tests()}, sort_keys=False),
        encoding="utf-8",
    )
    done = subprocess.run([promtool, "test", "rules", str(spec)], capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()


@pytest.mark.external
def test_promtool_test_rules_catches_a_wrong_expectation(tmp_path: Path) -> None:
    """The harness can fail: expecting ReservationExhausted on n2 (900Mi, under 972.8Mi) is refused."""
    promtool = find("promtool", how="apt-get install prometheus")
    _rules_file(tmp_path)
    wrong = _tests()[2]
    wrong["alert_rule_test"][1]["exp_alerts"][0]["exp_labels"]["node"] = "n2"
    spec = tmp_path / "tests.yaml"
    spec.write_text(yaml.safe_dump({"rule_files": ["rules.yaml"], "tests": [wrong]}), encoding="utf-8")
    done = subprocess.run([promtool, "test", "rules", str(spec)], capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode != 0


def test_every_runbook_url_has_its_heading_in_docs_serve() -> None:
    text = SERVE_DOC.read_text(encoding="utf-8")
    anchors = {
        re.sub(r"[^a-z0-9 -]", "", h.strip().lower()).replace(" ", "-") for h in re.findall(r"^#+ (.+)$", text, re.M)
    }
    for group in rules()["groups"]:
        for rule in group["rules"]:
            url = rule["annotations"]["runbook_url"]
            assert url.startswith("https://github.com/allocatable-dev/allocatable/blob/main/docs/serve.md#")
            assert url.rsplit("#", 1)[1] in anchors, f"docs/serve.md has no heading for {rule['alert']}"


def test_the_rendered_rbac_is_read_only_and_nodes_only() -> None:
    files = _rendered()
    role, binding = files["monitoring/rbac.yaml"]
    assert role["kind"] == "ClusterRole" and binding["roleRef"]["name"] == role["metadata"]["name"]
    assert role["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]}]
    (account,) = files["monitoring/serviceaccount.yaml"]
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": account["metadata"]["name"], "namespace": "allocatable"}
    ]
    _, deployment = files["monitoring/deployment.yaml"]
    pod = deployment["spec"]["template"]["spec"]
    assert pod["serviceAccountName"] == account["metadata"]["name"]
    for container in pod["containers"]:
        ctx = container["securityContext"]
        assert ctx["readOnlyRootFilesystem"] and ctx["runAsNonRoot"] and not ctx["allowPrivilegeEscalation"]


def _selector(promql_text: str, metric: str) -> str:
    """The label matchers of ``metric``'s first selector in ``promql_text``."""
    m = re.search(re.escape(metric) + r"\{([^}]*)\}", promql_text)
    assert m is not None, promql_text
    return m.group(1)


def test_reservation_exhausted_reads_what_recommend_measures() -> None:
    """Issue 33: the alert measures the series ``recommend``'s reserved_memory query reads (one definition)."""
    from renderer.recommend.queries import by_name

    (rule,) = [r for g in rules()["groups"] for r in g["rules"] if r["alert"] == "ReservationExhausted"]
    query = by_name()["reserved_memory"].promql
    metric = "container_memory_working_set_bytes"
    assert _selector(rule["expr"], metric).startswith(_selector(query, metric) + ", ")


def test_the_repo_selectors_choose_the_series_for_both(tmp_path: Path) -> None:
    """A repo whose recommend.selectors read the RSS (as OpenShift's alert does) from another cAdvisor job: the
    rendered alert and ``recommend --print-queries`` both read exactly that."""
    from conftest import run_cli

    repo = tmp_path / "monitoring"
    repo.mkdir()
    for name in ("pools.yaml", "reservations.yaml"):
        (repo / name).write_text((CASE / name).read_text("utf-8"), "utf-8")
    (repo / ".allocatable.yaml").write_text(
        "apiVersion: policy.allocatable.dev/v1alpha1\nkind: Settings\nrecommend:\n  selectors:\n"
        "    memoryMetric: container_memory_rss\n    cadvisor: 'job=\"cadvisor\"'\n",
        encoding="utf-8",
    )
    with chdir(tmp_path):
        result = load([Path("monitoring")])
        assert result.ok, result.findings
        files = build(result, build_model(result.policies), ["monitoring"]).files
    (rule_doc,) = [d for d in yaml.safe_load_all(files["monitoring/prometheusrule.yaml"].decode()) if d]
    (rule,) = [r for g in rule_doc["spec"]["groups"] for r in g["rules"] if r["alert"] == "ReservationExhausted"]
    printed = run_cli("recommend", "--print-queries", str(repo)).stdout
    line = next(ln for ln in printed.splitlines() if "container_memory_rss{" in ln and "system.slice" in ln)
    assert "container_memory_working_set_bytes" not in rule["expr"]
    alert = _selector(rule["expr"], "container_memory_rss")
    assert alert.startswith('job="cadvisor", id=~"')
    assert alert.startswith(_selector(line, "container_memory_rss") + ", ")


@pytest.mark.external
def test_config_drift_fires_and_stays_quiet(tmp_path: Path) -> None:
    """AllocatableConfigDrift (render.monitoring.configz): n1's kubelet runs two fields other than the repo renders
    for 90 minutes; n2's differed for 30 minutes and then matched (its series ends: serve exports only differing
    fields). At 30 minutes nothing fires (pending for 1 hour); at 70 minutes n1 fires with value 2 (two fields), and
    n2, whose difference ended at 30 minutes, does not."""
    promtool = find("promtool", how="apt-get install prometheus")
    spec = configz_rules(tmp_path / "render")
    (tmp_path / "rules.yaml").write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    n1 = 'allocatable_node_config_drift{node="n1",pool="p",field="kubeReserved.%s"}'
    n2 = 'allocatable_node_config_drift{node="n2",pool="p",field="evictionHard.memory.available"}'
    test = {
        "interval": "1m",
        "input_series": [
            {"series": n1 % "memory", "values": "1x90"},
            {"series": n1 % "cpu", "values": "1x90"},
            {"series": n2, "values": "1x30 _x60"},
        ],
        "alert_rule_test": [
            {"eval_time": "30m", "alertname": "AllocatableConfigDrift", "exp_alerts": []},
            {
                "eval_time": "70m",
                "alertname": "AllocatableConfigDrift",
                "exp_alerts": [
                    {
                        "exp_labels": {"severity": "warning", "node": "n1", "pool": "p"},
                        "exp_annotations": _annotations("AllocatableConfigDrift", spec, node="n1", pool="p", value="2"),
                    }
                ],
            },
        ],
    }
    spec_file = tmp_path / "tests.yaml"
    spec_file.write_text(
        yaml.safe_dump({"rule_files": ["rules.yaml"], "evaluation_interval": "1m", "tests": [test]}, sort_keys=False),
        encoding="utf-8",
    )
    done = subprocess.run([promtool, "test", "rules", str(spec_file)], capture_output=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stdout.decode() + done.stderr.decode()
    checked = subprocess.run([promtool, "check", "rules", "rules.yaml"], capture_output=True, timeout=60, cwd=tmp_path)
    assert checked.returncode == 0, checked.stdout.decode() + checked.stderr.decode()
    # the harness can fail: n2 expected to fire as well is refused
    test["alert_rule_test"][1]["exp_alerts"].append(  # type: ignore[index]
        {"exp_labels": {"severity": "warning", "node": "n2", "pool": "p"}}
    )
    spec_file.write_text(yaml.safe_dump({"rule_files": ["rules.yaml"], "tests": [test]}), encoding="utf-8")
    wrong = subprocess.run([promtool, "test", "rules", str(spec_file)], capture_output=True, timeout=120, cwd=tmp_path)
    assert wrong.returncode != 0
    # its runbook is a heading of docs/serve.md
    text = SERVE_DOC.read_text(encoding="utf-8")
    (rule,) = [r for g in spec["groups"] for r in g["rules"] if r["alert"] == "AllocatableConfigDrift"]
    assert rule["annotations"]["runbook_url"].endswith("#allocatableconfigdrift")
    assert re.search(r"^### AllocatableConfigDrift$", text, re.M)
