"""Write the inputs of an ``allocatable verify`` benchmark: a policy repo, a Node dump (YAML and JSON) and a Pod dump.

    python bench/verify_dumps.py OUTDIR [--nodes 5000] [--pods 20000] [--seed S]

- ``OUTDIR/repo/``: the ``inventory`` shape's policies (a CommitClass and a ReservationPolicy per Karpenter
  NodePool, three RuntimeClasses, ``.allocatable.yaml``) without its Node List, so ``verify`` reads the Nodes from
  the dump only;
- ``OUTDIR/nodes.yaml`` and ``OUTDIR/nodes.json``: the ``inventory`` and ``inventory-json`` shapes' Node Lists
  (``bench/generate.py``: the real Node layout of ``fleet.py``), as ``kubectl get nodes -o yaml|json`` prints them;
- ``OUTDIR/pods.json``: ``kubectl get pods -A -o json`` of as many pods spread over those Nodes, laid out as the API
  server returns them (see ``pod_object``).

Then, for example::

    allocatable verify OUTDIR/repo --nodes OUTDIR/nodes.json
    allocatable verify OUTDIR/repo --nodes OUTDIR/nodes.json --pods OUTDIR/pods.json

Deterministic for the counts and the seed.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
from pathlib import Path
from typing import Any

import fleet
import generate

# (namespace, workload, owner kind, containers as (name, image, cpu request, memory request), init containers as
# (name, image, cpu, memory, restartPolicy or None), weight). Images and requests are plausible, not transcribed:
# the layout (which fields, how deep, how long) is what matters to reading the dump.
_WORKLOADS: tuple[tuple[str, str, str, tuple[tuple[str, str, str, str], ...], tuple[Any, ...], int], ...] = (
    (
        "kube-system",
        "aws-node",
        "DaemonSet",
        (
            ("aws-node", "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni:v1.19.2-eksbuild.1", "25m", ""),
            (
                "aws-eks-nodeagent",
                "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon/aws-network-policy-agent:v1.1.6",
                "25m",
                "",
            ),
        ),
        (
            (
                "aws-vpc-cni-init",
                "602401143452.dkr.ecr.us-east-1.amazonaws.com/amazon-k8s-cni-init:v1.19.2",
                "25m",
                "",
                None,
            ),
        ),
        12,
    ),
    (
        "kube-system",
        "kube-proxy",
        "DaemonSet",
        (
            (
                "kube-proxy",
                "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/kube-proxy:v1.31.3-minimal-eksbuild.2",
                "100m",
                "",
            ),
        ),
        (),
        12,
    ),
    (
        "kube-system",
        "ebs-csi-node",
        "DaemonSet",
        (
            (
                "ebs-plugin",
                "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/aws-ebs-csi-driver:v1.38.1",
                "10m",
                "40Mi",
            ),
            (
                "node-driver-registrar",
                "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/csi-node-driver-registrar:v2.12.0",
                "10m",
                "40Mi",
            ),
            ("liveness-probe", "602401143452.dkr.ecr.us-east-1.amazonaws.com/eks/livenessprobe:v2.14.0", "10m", "40Mi"),
        ),
        (),
        12,
    ),
    (
        "payments",
        "payments-api",
        "ReplicaSet",
        (("api", "ghcr.io/example/payments-api:v3.14.2", "500m", "1Gi"),),
        (("istio-proxy", "docker.io/istio/proxyv2:1.24.2", "100m", "128Mi", "Always"),),
        30,
    ),
    (
        "search",
        "search-indexer",
        "ReplicaSet",
        (
            ("indexer", "ghcr.io/example/search-indexer:v1.8.0", "2", "8Gi"),
            ("exporter", "quay.io/prometheus/statsd-exporter:v0.27.2", "50m", "64Mi"),
        ),
        (("migrate", "ghcr.io/example/search-indexer:v1.8.0", "1", "2Gi", None),),
        20,
    ),
    (
        "ml",
        "ml-serving",
        "ReplicaSet",
        (("server", "ghcr.io/example/ml-serving:2025.11.3", "4", "16Gi"),),
        (),
        10,
    ),
    (
        "data",
        "nightly-export",
        "Job",
        (("export", "ghcr.io/example/exporter:v0.9.1", "1", "2Gi"),),
        (),
        25,
    ),
    (
        "edge",
        "ingress-nginx-controller",
        "ReplicaSet",
        (("controller", "registry.k8s.io/ingress-nginx/controller:v1.12.0", "100m", "90Mi"),),
        (),
        15,
    ),
)
_PHASES = ("Running",) * 17 + ("Succeeded", "Pending", "Failed")


def _container(rng: random.Random, name: str, image: str, cpu: str, memory: str, port: int) -> dict[str, Any]:
    requests = {"cpu": cpu}
    if memory:
        requests["memory"] = memory
    return {
        "args": ["--port", str(port), "--log-format=json", f"--metrics-bind-address=:{port + 1}"],
        "env": [
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
            {
                "name": "POD_NAMESPACE",
                "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}},
            },
            {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
            {"name": "GOMAXPROCS", "valueFrom": {"resourceFieldRef": {"divisor": "0", "resource": "limits.cpu"}}},
            {"name": "LOG_LEVEL", "value": rng.choice(("info", "warn", "debug"))},
        ],
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": {
            "failureThreshold": 3,
            "httpGet": {"path": "/healthz", "port": port, "scheme": "HTTP"},
            "initialDelaySeconds": 10,
            "periodSeconds": 10,
            "successThreshold": 1,
            "timeoutSeconds": 1,
        },
        "name": name,
        "ports": [{"containerPort": port, "name": "http", "protocol": "TCP"}],
        "readinessProbe": {
            "failureThreshold": 3,
            "httpGet": {"path": "/readyz", "port": port, "scheme": "HTTP"},
            "periodSeconds": 5,
            "successThreshold": 1,
            "timeoutSeconds": 1,
        },
        "resources": {"limits": {"memory": memory or "256Mi"}, "requests": requests},
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "capabilities": {"drop": ["ALL"]},
            "readOnlyRootFilesystem": True,
            "runAsNonRoot": True,
        },
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": True},
            {"mountPath": "/tmp", "name": "tmp"},
        ],
    }


def _status(rng: random.Random, name: str, image: str, phase: str, started: str) -> dict[str, Any]:
    running = phase == "Running"
    state: dict[str, Any]
    if running:
        state = {"running": {"startedAt": started}}
    elif phase == "Pending":
        state = {"waiting": {"reason": "ContainerCreating"}}
    else:
        code = 0 if phase == "Succeeded" else 1
        state = {
            "terminated": {
                "containerID": f"containerd://{fleet._hex(rng, 64)}",
                "exitCode": code,
                "finishedAt": started,
                "reason": "Completed" if code == 0 else "Error",
                "startedAt": started,
            }
        }
    return {
        "containerID": f"containerd://{fleet._hex(rng, 64)}",
        "image": image,
        "imageID": f"{image.rsplit(':', 1)[0]}@sha256:{fleet._hex(rng, 64)}",
        "lastState": {},
        "name": name,
        "ready": running,
        "restartCount": rng.choice((0, 0, 0, 1, 2)),
        "started": running,
        "state": state,
    }


def pod_object(i: int, rng: random.Random, nodes: list[str]) -> dict[str, Any]:
    """One Pod as ``kubectl get pods -A -o json`` returns it (metadata with owner, labels and managedFields; spec
    with containers, init containers, probes, env, volumes and tolerations; status with conditions and container
    statuses), on a random node of ``nodes`` (half the Pending ones on none)."""
    workload = rng.choices(_WORKLOADS, [w[5] for w in _WORKLOADS])[0]
    phase = "Running" if workload[2] == "DaemonSet" else rng.choice(_PHASES)
    node = None if phase == "Pending" and rng.random() < 0.5 else nodes[rng.randrange(len(nodes))]
    namespace, app, owner, containers, inits, _ = workload
    template_hash = f"{rng.getrandbits(40):010x}"[:10]
    suffix = fleet._hex(rng, 5)
    name = f"{app}-{template_hash}-{suffix}" if owner == "ReplicaSet" else f"{app}-{suffix}"
    created = f"2025-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:{(i * 13) % 60:02d}Z"
    port = 8080 + i % 7
    spec_containers = [_container(rng, c[0], c[1], c[2], c[3], port + k * 10) for k, c in enumerate(containers)]
    spec_inits = []
    for k, (cname, image, cpu, memory, restart) in enumerate(inits):
        c = _container(rng, cname, image, cpu, memory, port + 100 + k)
        if restart:
            c["restartPolicy"] = restart
        spec_inits.append(c)
    labels = {"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": namespace}
    if owner == "ReplicaSet":
        labels["pod-template-hash"] = template_hash
    elif owner == "DaemonSet":
        labels["controller-revision-hash"] = f"{rng.getrandbits(36):09x}"
        labels["pod-template-generation"] = "3"
    else:
        labels["batch.kubernetes.io/job-name"] = name
    owner_name = f"{app}-{template_hash}" if owner == "ReplicaSet" else app
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "annotations": {
                "kubectl.kubernetes.io/restartedAt": "2025-11-30T08:00:00Z",
                "prometheus.io/port": str(port + 1),
                "prometheus.io/scrape": "true",
            },
            "creationTimestamp": created,
            "generateName": f"{owner_name}-",
            "labels": labels,
            "managedFields": [
                {
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:metadata": {"f:generateName": {}, "f:labels": {f"f:{k}": {} for k in labels}},
                        "f:spec": {
                            "f:containers": {f'k:{{"name":"{c[0]}"}}': {".": {}, "f:image": {}} for c in containers}
                        },
                    },
                    "manager": "kube-controller-manager",
                    "operation": "Update",
                    "time": created,
                },
                {
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {"f:status": {"f:conditions": {}, "f:containerStatuses": {}, "f:phase": {}}},
                    "manager": "kubelet",
                    "operation": "Update",
                    "subresource": "status",
                    "time": created,
                },
            ],
            "name": name,
            "namespace": namespace,
            "ownerReferences": [
                {
                    "apiVersion": "batch/v1" if owner == "Job" else "apps/v1",
                    "blockOwnerDeletion": True,
                    "controller": True,
                    "kind": owner,
                    "name": owner_name,
                    "uid": fleet._uuid(rng),
                }
            ],
            "resourceVersion": str(rng.randint(10_000_000, 999_999_999)),
            "uid": fleet._uuid(rng),
        },
        "spec": {
            "containers": spec_containers,
            "dnsPolicy": "ClusterFirst",
            "enableServiceLinks": True,
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 2000001000 if owner == "DaemonSet" else 0,
            "restartPolicy": "OnFailure" if owner == "Job" else "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {"fsGroup": 65534, "seccompProfile": {"type": "RuntimeDefault"}},
            "serviceAccount": app,
            "serviceAccountName": app,
            "terminationGracePeriodSeconds": 30,
            "tolerations": [
                {
                    "effect": "NoExecute",
                    "key": "node.kubernetes.io/not-ready",
                    "operator": "Exists",
                    "tolerationSeconds": 300,
                },
                {
                    "effect": "NoExecute",
                    "key": "node.kubernetes.io/unreachable",
                    "operator": "Exists",
                    "tolerationSeconds": 300,
                },
            ],
            "volumes": [
                {
                    "name": "kube-api-access",
                    "projected": {
                        "defaultMode": 420,
                        "sources": [
                            {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                            {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                            {
                                "downwardAPI": {
                                    "items": [
                                        {
                                            "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                                            "path": "namespace",
                                        }
                                    ]
                                }
                            },
                        ],
                    },
                },
                {"emptyDir": {}, "name": "tmp"},
            ],
        },
        "status": {
            "conditions": [
                {"lastProbeTime": None, "lastTransitionTime": created, "status": "True", "type": kind}
                for kind in ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
            ],
            "containerStatuses": [_status(rng, c[0], c[1], phase, created) for c in containers],
            "phase": phase,
            "qosClass": "Burstable",
            "startTime": created,
        },
    }
    if spec_inits:
        pod["spec"]["initContainers"] = spec_inits
        pod["status"]["initContainerStatuses"] = [_status(rng, c[0], c[1], "Succeeded", created) for c in inits]
    if node is not None:
        ip = f"10.{100 + i % 50}.{(i >> 8) & 255}.{i & 255}"
        pod["spec"]["nodeName"] = node
        pod["status"].update(
            {"hostIP": "10.0.0.1", "hostIPs": [{"ip": "10.0.0.1"}], "podIP": ip, "podIPs": [{"ip": ip}]}
        )
    return pod


def write(outdir: Path, nodes: int, pods: int, seed: int = 0) -> None:
    if outdir.exists():
        shutil.rmtree(outdir)
    outdir.mkdir(parents=True)
    for shape, name in (("inventory", "nodes.yaml"), ("inventory-json", "nodes.json")):
        generate.generate(shape, 2 * nodes, outdir / "repo", seed)
        (outdir / "repo" / "inventory" / name).rename(outdir / name)
        (outdir / "repo" / "inventory").rmdir()
    names = [fleet.node_labels(i, random.Random(0))[1] for i in range(nodes)]
    rng = random.Random(f"{seed}:pods:{pods}")
    dump = {
        "apiVersion": "v1",
        "items": [pod_object(i, rng, names) for i in range(pods)],
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    }
    (outdir / "pods.json").write_text(json.dumps(dump, indent=4, sort_keys=True) + "\n", encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("outdir", type=Path, metavar="OUTDIR", help="directory to write (emptied first)")
    parser.add_argument("--nodes", type=int, default=5000, help="Nodes in the dumps (default 5,000)")
    parser.add_argument("--pods", type=int, default=20000, help="Pods in the dump (default 20,000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    if args.nodes < 10 or args.pods < 1:
        parser.error("--nodes must be at least 10 and --pods at least 1")
    write(args.outdir, args.nodes, args.pods, args.seed)
    for name in ("nodes.yaml", "nodes.json", "pods.json"):
        print(f"{name}: {(args.outdir / name).stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
