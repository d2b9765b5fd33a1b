"""``monitoring/``: what runs ``allocatable serve`` in the cluster and alerts on what it finds (docs/serve.md).

- ``serviceaccount.yaml``, ``rbac.yaml``: a ServiceAccount and a read-only ClusterRole (nodes get/list/watch: all
  serve reads; with ``render.monitoring.configz``, nodes/proxy get too, for ``serve --configz``, which is not
  read-only: it reaches every kubelet's whole API, exec included) with its ClusterRoleBinding.
- ``deployment.yaml``: one replica of ``allocatable serve`` (the image of argocd/serve.Dockerfile) and a git-sync sidecar
  keeping a checkout of the policy repository (``allocatable-serve-source``: ``repo`` and ``ref``, to set); serve
  evaluates ``/git/current/<the policy directory>`` and reloads it on every new commit. Non-root, read-only root
  file system, no capability, probes on ``/healthz`` and ``/readyz``.
- ``service.yaml``, ``servicemonitor.yaml``: the metrics port and the Prometheus Operator's scrape of it.
- ``prometheusrule.yaml``: the alerts, each with a ``runbook_url`` into docs/serve.md: ``AllocatableDrift`` (a node
  differs from the repo for longer than the rollout window, 1 hour), ``AllocatableNotRolledOut`` (nodes still match
  the policy before a change 6 hours after the change), ``ReservationExhausted`` (``renderer.promql``, on the series
  ``recommend`` reads, the repo's ``recommend.selectors``), ``AllocatablePolicyStale`` and ``AllocatableServeStale``
  (serve itself cannot do its job); with ``render.monitoring.configz``, ``AllocatableConfigDrift`` (a kubelet runs
  another value of a field the repo renders for its node, for longer than the rollout window).

Not rendered unless asked (``--target monitoring`` or ``render.targets``). Cost: constant.
"""

from __future__ import annotations

import os
from typing import Any

from renderer import __version__, promql
from renderer.render.target import MANAGED_BY, Output, RenderContext, Target, register
from renderer.render.yamlout import Literal

NAMESPACE = "allocatable"
NAME = "allocatable-serve"
PORT = 8080
RUNBOOK = "https://github.com/allocatable-dev/allocatable/blob/main/docs/serve.md#"
IMAGE = f"ghcr.io/allocatable-dev/allocatable-serve:v{__version__}"
#: registry.k8s.io/git-sync/git-sync v4: flags and variables GITSYNC_* (kubernetes/git-sync README, v4.x).
GIT_SYNC_IMAGE = "registry.k8s.io/git-sync/git-sync:v4.4.0"
#: How long a node may differ from the repo before AllocatableDrift fires, and how old a policy change may be while
#: nodes still match the policy before it.
DRIFT_FOR = "1h"
ROLLOUT_HOURS = 6
LABELS = {"app.kubernetes.io/name": NAME, "app.kubernetes.io/part-of": "allocatable", **MANAGED_BY}
SELECTOR = {"app.kubernetes.io/name": NAME}


def _meta(name: str, namespaced: bool = True) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespaced:
        meta["namespace"] = NAMESPACE
    meta["labels"] = dict(LABELS)
    return meta


def _policy_path(ctx: RenderContext) -> str:
    """The policy directory inside the checkout: relative to the directory of ``.allocatable.yaml`` (the repo's
    top), else the checkout itself."""
    root = ctx.load.policies.root.absolute()
    settings = ctx.load.settings_path
    if settings is None:
        return "/git/current"
    rel = os.path.relpath(root, settings.absolute().parent)
    return "/git/current" if rel == "." else f"/git/current/{rel.replace(os.sep, '/')}"


def _rbac(configz: bool) -> tuple[dict[str, Any], ...]:
    rules: list[dict[str, Any]] = [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch"]}]
    if configz:
        # GET /api/v1/nodes/NAME/proxy/configz: the subresource nodes/proxy, verb get (and nothing else of it)
        rules.append({"apiGroups": [""], "resources": ["nodes/proxy"], "verbs": ["get"]})
    role = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRole",
        "metadata": _meta(NAME, namespaced=False),
        "rules": rules,
    }
    binding = {
        "apiVersion": "rbac.authorization.k8s.io/v1",
        "kind": "ClusterRoleBinding",
        "metadata": _meta(NAME, namespaced=False),
        "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole", "name": NAME},
        "subjects": [{"kind": "ServiceAccount", "name": NAME, "namespace": NAMESPACE}],
    }
    return role, binding


def _restricted() -> dict[str, Any]:
    return {
        "allowPrivilegeEscalation": False,
        "readOnlyRootFilesystem": True,
        "runAsNonRoot": True,
        "capabilities": {"drop": ["ALL"]},
    }


def _deployment(policy_path: str, configz: bool) -> dict[str, Any]:
    source = {"name": f"{NAME}-source"}
    args = ["serve", policy_path, f"--listen=:{PORT}", "--interval=5m", "--in-cluster"]
    if configz:
        args.append("--configz")
    serve = {
        "name": "serve",
        "image": IMAGE,
        "args": args,
        "ports": [{"name": "metrics", "containerPort": PORT, "protocol": "TCP"}],
        "livenessProbe": {"httpGet": {"path": "/healthz", "port": "metrics"}, "periodSeconds": 30},
        "readinessProbe": {"httpGet": {"path": "/readyz", "port": "metrics"}, "periodSeconds": 10},
        "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}, "limits": {"memory": "512Mi"}},
        "securityContext": _restricted(),
        "volumeMounts": [{"name": "git", "mountPath": "/git", "readOnly": True}, {"name": "tmp", "mountPath": "/tmp"}],
    }
    sync = {
        "name": "git-sync",
        "image": GIT_SYNC_IMAGE,
        "args": ["--root=/git", "--link=current", "--period=60s", "--depth=1"],
        "env": [
            {"name": "GITSYNC_REPO", "valueFrom": {"configMapKeyRef": {**source, "key": "repo"}}},
            {"name": "GITSYNC_REF", "valueFrom": {"configMapKeyRef": {**source, "key": "ref"}}},
        ],
        "resources": {"requests": {"cpu": "10m", "memory": "32Mi"}, "limits": {"memory": "256Mi"}},
        "securityContext": _restricted(),
        "volumeMounts": [{"name": "git", "mountPath": "/git"}, {"name": "tmp", "mountPath": "/tmp"}],
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": _meta(NAME),
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": dict(SELECTOR)},
            "template": {
                "metadata": {"labels": dict(LABELS)},
                "spec": {
                    "serviceAccountName": NAME,
                    "securityContext": {
                        "runAsUser": 65532,
                        "runAsGroup": 65532,
                        "fsGroup": 65532,
                        "seccompProfile": {"type": "RuntimeDefault"},
                    },
                    "terminationGracePeriodSeconds": 30,
                    "containers": [serve, sync],
                    "volumes": [{"name": "git", "emptyDir": {}}, {"name": "tmp", "emptyDir": {}}],
                },
            },
        },
    }


def _source() -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": _meta(f"{NAME}-source"),
        "data": {"repo": "https://git.example.com/platform/node-policies.git", "ref": "main"},
    }


def _service() -> tuple[dict[str, Any], ...]:
    service = {
        "apiVersion": "v1",
        "kind": "Service",
        "metadata": _meta(NAME),
        "spec": {
            "selector": dict(SELECTOR),
            "ports": [{"name": "metrics", "port": PORT, "targetPort": "metrics", "protocol": "TCP"}],
        },
    }
    monitor = {
        "apiVersion": "monitoring.coreos.com/v1",
        "kind": "ServiceMonitor",
        "metadata": _meta(NAME),
        "spec": {
            "selector": {"matchLabels": dict(SELECTOR)},
            "endpoints": [{"port": "metrics", "path": "/metrics", "interval": "60s"}],
        },
    }
    return service, monitor


def _alert(name: str, expr: str, duration: str, summary: str, description: str) -> dict[str, Any]:
    return {
        "alert": name,
        "expr": Literal(expr + "\n") if "\n" in expr else expr,
        "for": duration,
        "labels": {"severity": "warning"},
        "annotations": {
            "summary": summary,
            "description": description,
            "runbook_url": RUNBOOK + name.lower(),
        },
    }


def _config_drift() -> dict[str, Any]:
    return _alert(
        "AllocatableConfigDrift",
        "count by (node, pool) (allocatable_node_config_drift == 1) > 0",
        DRIFT_FOR,
        "The kubelet on {{ $labels.node }} runs another configuration than the policy repo renders.",
        "{{ $value }} KubeletConfiguration field(s) the policy repo renders for node {{ $labels.node }} (pool "
        "{{ $labels.pool }}) have had another value in the kubelet's /configz for "
        + DRIFT_FOR
        + ": allocatable_node_config_drift names them (its field label).",
    )


def rules(selectors: promql.Selectors | None = None, configz: bool = False) -> dict[str, Any]:
    """The ``spec`` of the PrometheusRule: also what ``promtool check rules`` reads (its ``groups``).
    ``selectors``: the series ``allocatable recommend`` reads (the repo's ``recommend.selectors``), which
    ReservationExhausted measures too; ``configz``: serve reads the kubelets' /configz (AllocatableConfigDrift)."""
    return {
        "groups": [
            {
                "name": "allocatable",
                "rules": [
                    _alert(
                        "AllocatableDrift",
                        'count by (node, pool, cause) (allocatable_node_drift{cause!="awaiting-rollout"}) > 0',
                        DRIFT_FOR,
                        "Node {{ $labels.node }} differs from what the policy repo predicts.",
                        "Node {{ $labels.node }} (pool {{ $labels.pool }}) has reported another allocatable than the "
                        "policy repo predicts for "
                        + DRIFT_FOR
                        + ", and it does not match the previous policy either; verify names the cause: "
                        "{{ $labels.cause }}.",
                    ),
                    _alert(
                        "AllocatableNotRolledOut",
                        'sum by (pool) (allocatable_pool_nodes{state="awaiting-rollout"}) > 0\n'
                        "and on () (time() - max(allocatable_policy_change_timestamp_seconds)) > "
                        + str(ROLLOUT_HOURS * 3600),
                        "15m",
                        "Pool {{ $labels.pool }} still runs the policy before the last change.",
                        "{{ $value }} node(s) of pool {{ $labels.pool }} still match the policy before the change "
                        "committed more than "
                        + str(ROLLOUT_HOURS)
                        + " hours ago: the change has not been rolled out to them (node replacement, a provisioner "
                        "that does not roll nodes, a paused pool).",
                    ),
                    _alert(
                        "ReservationExhausted",
                        promql.reservation_exhausted(selectors),
                        promql.RESERVATION_EXHAUSTED_FOR,
                        "System daemons on {{ $labels.node }} use more than 95% of the memory the repo reserves.",
                        "The kubelet, the container runtime and the system services on {{ $labels.node }} use "
                        "{{ $value | humanize1024 }}B, more than 95% of the systemReserved + kubeReserved memory the "
                        "policy repo gives its pool: raise the reservation before workloads are starved or the node "
                        "goes out of memory.",
                    ),
                    _alert(
                        "AllocatablePolicyStale",
                        "max(allocatable_policy_stale) == 1",
                        "15m",
                        "The newest policy commit does not load; serve evaluates an older one.",
                        "allocatable serve cannot load the newest state of the policy directory and keeps evaluating "
                        "the last good one; its log names the file, line and column.",
                    ),
                    _alert(
                        "AllocatableServeStale",
                        # the last success, not allocatable_data_age_seconds: that series is absent until the first
                        # good cycle, so a serve that never succeeds (RBAC missing from the start) would raise nothing
                        "time() - max(allocatable_last_success_timestamp_seconds) > 1800",
                        "10m",
                        "allocatable serve has had no good cycle for 30 minutes.",
                        "allocatable serve has had no good cycle for more than 30 minutes, or none since it started: "
                        "the figures it exports are old or absent (allocatable_cycle_errors_total says at which stage "
                        "cycles fail, its log says why).",
                    ),
                    *([_config_drift()] if configz else []),
                ],
            }
        ]
    }


@register
class MonitoringTarget(Target):
    name = "monitoring"
    summary = (
        "allocatable serve in the cluster: Deployment (with git-sync), read-only RBAC, Service, ServiceMonitor and "
        "the PrometheusRule alerts (monitoring/)"
    )
    default = False

    def render(self, ctx: RenderContext) -> list[Output]:
        configz = ctx.settings.monitoring.configz
        note = ("allocatable serve: docs/serve.md",)
        account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": _meta(NAME)}
        rule = {
            "apiVersion": "monitoring.coreos.com/v1",
            "kind": "PrometheusRule",
            "metadata": _meta(NAME),
            "spec": rules(ctx.load.policies.settings.recommend.selectors.promql(), configz),
        }
        access = (
            "nodes get/list/watch (read-only), and nodes/proxy get for serve --configz (render.monitoring.configz): "
            "NOT read-only, it reaches every kubelet's whole API (docs/serve.md#kubelet-configuration-configz)"
            if configz
            else "read-only: nodes get/list/watch"
        )
        return [
            Output("monitoring/serviceaccount.yaml", (account,), notes=note),
            Output("monitoring/rbac.yaml", _rbac(configz), notes=(access,)),
            Output(
                "monitoring/deployment.yaml",
                (_source(), _deployment(_policy_path(ctx), configz)),
                notes=("set repo and ref of ConfigMap allocatable-serve-source to the policy repository",),
            ),
            Output("monitoring/service.yaml", _service(), notes=note),
            Output("monitoring/prometheusrule.yaml", (rule,), notes=("runbooks: docs/serve.md",)),
        ]
