"""Write the inputs of an ``allocatable verify`` benchmark: a policy repo, a Node dump (YAML and JSON) and a Pod dump.

    python bench/verify_dumps.py OUTDIR [--nodes 5000] [--pods 20000] [--seed S]

- ``OUTDIR/repo/``: the ``inventory`` shape's policies (a CommitClass and a ReservationPolicy per Karpenter
  NodePool, three RuntimeClasses, ``.allocatable.yaml``) without its Node List, so ``verify`` reads the Nodes from
  the dump only;
- ``OUTDIR/nodes.yaml`` and ``OUTDIR/nodes.json``: the ``inventory`` and ``inventory-json`` shapes' Node Lists
  (``bench/generate.py``: the real Node layout of ``fleet.py``), as ``kubectl get nodes -o yaml|json`` prints them;
- ``OUTDIR/pods.json``: ``kubectl get pods -A -o json`` of as many pods spread over those Nodes (see ``pod_object``),
  written one item at a time: one pod of each DaemonSet on every node first, then the workloads' pods, each on a
  random node with room for it (as a scheduler leaves a cluster: no node over-committed), Pending when eight tries
  find none.

The pods follow a real ``kubectl get pods -o json`` List (gpdgpa/kuard, ``temp.sh`` at commit 8b6fbf3: a minikube
pod of a ReplicaSet, 6.9 KB as kubectl prints it): the same fields in the same order (kubectl sorts keys and indents
by 4), the service account's projected ``kube-api-access`` volume and its mount in every container, the two default
NoExecute tolerations, five conditions, a status per container; to that a workload adds what real charts carry:
requests and limits, an ``env`` with a downward-API field, a port, init and sidecar containers, owner references
and labels of its controller. kubectl prints no managedFields unless asked (``--show-managed-fields``, since
kubectl 1.21: kubernetes/kubernetes#96878), so they are left out unless ``--managed-fields`` is given. About
10.7 KB a pod on average (8.8 KB for one container, 13 KB for the three-container DaemonSet pods); ``--managed-fields``
adds about 4 KB.

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
import zlib
from dataclasses import dataclass
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
_DAEMONSETS = tuple(w for w in _WORKLOADS if w[2] == "DaemonSet")
_APPS = tuple(w for w in _WORKLOADS if w[2] != "DaemonSet")
_PHASES = ("Running",) * 17 + ("Succeeded", "Pending", "Failed")


@dataclass(frozen=True)
class FleetShape:
    """What makes a snapshot look like a real fleet rather than like this generator's first version:

    - ``daemonsets``: the first three are the EKS add-ons on every node (aws-node, kube-proxy, ebs-csi-node); each
      further one is an agent limited by ``nodeSelector`` to one Karpenter NodePool (``fleet.NODEPOOLS`` in turn),
      as teams ship their node agents;
    - ``distinct_daemonsets``: every daemon pod names a DaemonSet of its own (owner names no real controller writes,
      but a dump may carry: the simulation must stay linear whatever the owners look like);
    - ``request_shapes``: 0 keeps the fixed requests of ``_WORKLOADS``; N > 0 spreads the application pods over N
      Deployments, each sizing its main container on its own (cpu half the workload's plus 1m per Deployment,
      memory half plus 1Mi): N distinct pod shapes, as every team sizes its pods;
    - ``constrained``: the share of the Deployments (picked by their name, so every replica of one carries the same)
      whose pods carry the placement constraints real Deployments use, in turn: zone spread (maxSkew 1,
      DoNotSchedule, selector on the app and ``matchLabelKeys: [pod-template-hash]``), hostname spread (maxSkew 1,
      DoNotSchedule) and required hostname anti-affinity to their own app;
    - ``preferred``: the share of the Deployments (picked by their name, apart from ``constrained``) whose pods prefer
      not to share a node with their own app (preferred podAntiAffinity, weight 100, hostname key), the most common
      preferred term."""

    daemonsets: int = len(_DAEMONSETS)
    distinct_daemonsets: bool = False
    request_shapes: int = 0
    constrained: float = 0.0
    preferred: float = 0.0

    def constraints(self, app: str) -> dict[str, Any]:
        """The spec fields a Deployment ``app``'s pods carry (see the class docstring); {} for most."""
        spec = self._required(app)
        h = zlib.crc32(f"preferred:{app}".encode())
        if self.preferred > 0 and (h % 1000) < self.preferred * 1000:
            term = {
                "labelSelector": {"matchLabels": {"app.kubernetes.io/name": app}},
                "topologyKey": "kubernetes.io/hostname",
            }
            anti = spec.setdefault("affinity", {}).setdefault("podAntiAffinity", {})
            anti["preferredDuringSchedulingIgnoredDuringExecution"] = [{"weight": 100, "podAffinityTerm": term}]
        return spec

    def _required(self, app: str) -> dict[str, Any]:
        h = zlib.crc32(f"constraints:{app}".encode())
        if self.constrained <= 0 or (h % 1000) >= self.constrained * 1000:
            return {}
        selector = {"matchLabels": {"app.kubernetes.io/name": app}}
        kind = (h >> 10) % 3
        if kind == 2:
            term = {"labelSelector": selector, "topologyKey": "kubernetes.io/hostname"}
            return {"affinity": {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [term]}}}
        key = "topology.kubernetes.io/zone" if kind == 0 else "kubernetes.io/hostname"
        constraint: dict[str, Any] = {
            "labelSelector": selector,
            "maxSkew": 1,
            "topologyKey": key,
            "whenUnsatisfiable": "DoNotSchedule",
        }
        if kind == 0:
            constraint["matchLabelKeys"] = ["pod-template-hash"]
        return {"topologySpreadConstraints": [constraint]}

    def daemonsets_on(self, labels: dict[str, str]) -> list[int]:
        """The DaemonSets (by number) that run on a node with ``labels``."""
        pool = labels.get("karpenter.sh/nodepool")
        extra = range(len(_DAEMONSETS), self.daemonsets)
        return [*range(min(self.daemonsets, len(_DAEMONSETS))), *(k for k in extra if _agent_pool(k) == pool)]

    def daemonset(self, k: int, node: str) -> tuple[tuple[Any, ...], dict[str, str]]:
        """DaemonSet ``k``'s workload and nodeSelector, for its pod on ``node``."""
        selector: dict[str, str] = {}
        if k < len(_DAEMONSETS):
            workload: tuple[Any, ...] = _DAEMONSETS[k]
        else:
            cpu, memory = f"{10 + 5 * (k % 7)}m", f"{32 + 16 * (k % 5)}Mi"
            image = f"ghcr.io/example/node-agent-{k:03d}:v1.{k % 9}.0"
            workload = ("observability", f"agent-{k:03d}", "DaemonSet", (("agent", image, cpu, memory),), (), 0)
            selector = {"karpenter.sh/nodepool": _agent_pool(k)}
        if self.distinct_daemonsets:
            workload = (workload[0], f"{workload[1]}-{node.split('.')[0]}", *workload[2:])
        return workload, selector

    def app(self, rng: random.Random) -> tuple[Any, ...]:
        """An application pod's workload: one of ``_APPS``, resized for its Deployment when ``request_shapes``."""
        workload = rng.choices(_APPS, [w[5] for w in _APPS])[0]
        if not self.request_shapes:
            return workload
        d = rng.randrange(self.request_shapes)
        (name, image, cpu, memory), *rest = workload[3]
        millis = int(float(cpu[:-1]) if cpu.endswith("m") else float(cpu) * 1000)
        mib = int(memory[:-2]) * (1024 if memory.endswith("Gi") else 1)
        main = (name, image, f"{millis // 2 + d}m", f"{mib // 2 + d}Mi")
        return (workload[0], f"{workload[1]}-{d:04d}", workload[2], (main, *rest), *workload[4:])

    def deployment_hash(self, app: str) -> int:
        """The pod-template hash of a resized Deployment (its pods share it); 0 for the others."""
        return zlib.crc32(app.encode()) + 1 if self.request_shapes else 0


def _agent_pool(k: int) -> str:
    return fleet.NODEPOOLS[k % len(fleet.NODEPOOLS)]


def write_clusters(repo: Path, clusters: int, rng: random.Random) -> None:
    """A multi-cluster policy repo: ``clusters`` clusters, each with a NodePool per (Karpenter NodePool, instance
    type) labelled with its cluster, NodePool and instance type, and a CommitClass and a ReservationPolicy per
    (cluster, NodePool). The snapshot's own cluster is ``c000``: its NodePools carry the labels its Nodes do (no
    cluster label: the Nodes have none), the others an ``example.com/cluster`` label, as one repo keeps many
    clusters. About 100 documents a cluster."""
    pools = fleet.NODEPOOLS
    types = fleet.INSTANCE_TYPES
    per_cluster = len(pools) * len(types)
    counts = generate.Counts(clusters * per_cluster, clusters * len(pools), clusters * len(pools), 0, 0)
    for c in range(clusters):
        own: dict[str, str] = {} if c == 0 else {"example.com/cluster": f"c{c:03d}"}
        docs = []
        for p, pool in enumerate(pools):
            for t, (itype, cpu, mem, _) in enumerate(types):
                labels = {**own, "karpenter.sh/nodepool": pool, "node.kubernetes.io/instance-type": itype}
                i = c * per_cluster + p * len(types) + t
                docs.append(generate.node_pool(i, counts, rng, labels=labels, shape=(cpu, mem)))
        if c:
            term = "".join(f"        - {{key: {k}, operator: In, values: [{v}]}}\n" for k, v in own.items())
            for p, pool in enumerate(pools):
                sel = (
                    "  selector:\n    - matchExpressions:\n"
                    f"{term}        - {{key: karpenter.sh/nodepool, operator: In, values: [{pool}]}}\n"
                )
                i = len(pools) + c * len(pools) + p  # after the snapshot cluster's by-nodepool classes
                docs.append(generate.commit_class(i, counts, rng, False, selector=sel))
                docs.append(generate.reservation_policy(i, counts, rng, False, selector=sel))
        path = repo / "clusters" / f"c{c:03d}.yaml"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("---\n".join(docs), encoding="utf-8")


#: Containers that carry the application's configuration (env, probes, security context); the others are agents and
#: sidecars with their resources, mounts and a port only, as their charts ship them.
_MAIN = frozenset({"aws-node", "kube-proxy", "ebs-plugin", "api", "indexer", "server", "export", "controller"})


def _container(rng: random.Random, name: str, image: str, cpu: str, memory: str, port: int) -> dict[str, Any]:
    requests = {"cpu": cpu}
    if memory:
        requests["memory"] = memory
    container: dict[str, Any] = {
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "name": name,
        "resources": {"limits": {"memory": memory or "256Mi"}, "requests": requests},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": [
            {"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": "kube-api-access", "readOnly": True}
        ],
    }
    if name in _MAIN:
        container["env"] = [
            {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
            {"name": "LOG_LEVEL", "value": rng.choice(("info", "warn", "debug"))},
        ]
        container["ports"] = [{"containerPort": port, "name": "http", "protocol": "TCP"}]
    return container


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


def _resources_in_status(containers: list[dict[str, Any]], statuses: list[dict[str, Any]], resizing: bool) -> None:
    """What a kubelet of Kubernetes 1.33+ (in-place resize on by default) writes for a running container: the
    resources it allocated and those it runs with, as the spec asks; for one pod in a hundred (chosen by position,
    no random draw: the rest of the dump stays as it was) a resize underway, running at 1m cpu until it is applied —
    counted at the spec either way, so placement is unchanged, but the status is read in full."""
    for container, status in zip(containers, statuses, strict=True):
        requests = container.get("resources", {}).get("requests")
        if not requests:
            continue
        status["allocatedResources"] = dict(requests)
        status["resources"] = {"requests": {**requests, "cpu": "1m"} if resizing else dict(requests)}


def _requests(workload: tuple[Any, ...]) -> tuple[int, int]:
    """(millicores, bytes) a pod of ``workload`` holds: its containers and init containers, summed (a little more
    than the init-container rule asks: room to spare, never too little)."""
    cpu = mem = 0
    for c in (*workload[3], *workload[4]):
        cpu += int(float(c[2][:-1]) if c[2].endswith("m") else float(c[2]) * 1000)
        if c[3]:
            amount = int(c[3][:-2])
            mem += amount * (2**30 if c[3].endswith("Gi") else 2**20)
    return cpu, mem


class _Room:
    """What each node has left, so pods go where a scheduler would have put them (no node over-committed): the
    allocatable ``fleet.node_object`` writes, a little under."""

    def __init__(self, names: list[str]) -> None:
        self.names = names
        self.index = {name: i for i, name in enumerate(names)}
        self.free: list[list[int]] = []
        for i in range(len(names)):
            _, cpu, mem, max_pods = fleet.INSTANCE_TYPES[i % len(fleet.INSTANCE_TYPES)]
            self.free.append([cpu * 1000 - 70 - 10 * cpu, mem * 2**30 - 1_700_000 * 1024, max_pods])

    def take(self, name: str, request: tuple[int, int]) -> None:
        free = self.free[self.index[name]]
        free[0] -= request[0]
        free[1] -= request[1]
        free[2] -= 1

    def place(self, rng: random.Random, request: tuple[int, int]) -> str | None:
        """A random node with room for ``request`` (eight tries), taken; None when none was found."""
        for _ in range(8):
            i = rng.randrange(len(self.names))
            free = self.free[i]
            if free[0] >= request[0] and free[1] >= request[1] and free[2] >= 1:
                self.take(self.names[i], request)
                return self.names[i]
        return None


def _fields_of(container: dict[str, Any]) -> dict[str, Any]:
    """The fieldsV1 of a container as the controller that created the pod owns it (the top-level fields)."""
    return {".": {}, **{f"f:{key}": {} for key in container}}


def pod_object(
    i: int,
    rng: random.Random,
    nodes: list[str],
    managed_fields: bool = False,
    daemon_on: str | None = None,
    room: _Room | None = None,
    fleet_shape: FleetShape | None = None,
    daemonset: int = 0,
) -> dict[str, Any]:
    """One Pod as ``kubectl get pods -A -o json`` prints it (the fields, key order and nesting of a real one, see the
    module docstring), on a random node of ``nodes`` (half the Pending ones on none); with ``managed_fields``, its
    managedFields as the API server keeps them (one entry for the controller that created it, one for the kubelet's
    status), which kubectl prints only with ``--show-managed-fields``."""
    shape = fleet_shape or FleetShape()
    selector: dict[str, str] = {}
    if daemon_on is not None:
        workload, selector = shape.daemonset(daemonset, daemon_on)
        phase, node = "Running", daemon_on
    else:
        workload = shape.app(rng)
        phase = rng.choice(_PHASES)
        node = None if phase == "Pending" and rng.random() < 0.5 else nodes[rng.randrange(len(nodes))]
        if room is not None and node is not None and phase in ("Running", "Pending"):
            node = room.place(rng, _requests(workload))  # where a scheduler would have found room, or nowhere
            if node is None:
                phase = "Pending"
    if room is not None and daemon_on is not None:
        room.take(daemon_on, _requests(workload))
    namespace, app, owner, containers, inits, _ = workload
    template_hash = f"{(daemon_on is None and shape.deployment_hash(app)) or rng.getrandbits(40):010x}"[:10]
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
    labels = {"app.kubernetes.io/name": app}
    if owner == "ReplicaSet":
        labels["pod-template-hash"] = template_hash
    elif owner == "DaemonSet":
        labels["controller-revision-hash"] = f"{rng.getrandbits(36):09x}"
        labels["pod-template-generation"] = "3"
    else:
        labels["batch.kubernetes.io/job-name"] = name
    owner_name = f"{app}-{template_hash}" if owner == "ReplicaSet" else app
    conditions = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady", "PodScheduled")
    spec_fields: dict[str, Any] = {
        "f:containers": {f'k:{{"name":"{c["name"]}"}}': _fields_of(c) for c in spec_containers},
        "f:dnsPolicy": {},
        "f:restartPolicy": {},
        "f:schedulerName": {},
        "f:serviceAccount": {},
        "f:terminationGracePeriodSeconds": {},
    }
    if spec_inits:
        spec_fields["f:initContainers"] = {f'k:{{"name":"{c["name"]}"}}': _fields_of(c) for c in spec_inits}
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "annotations": {"prometheus.io/port": str(port + 1), "prometheus.io/scrape": "true"},
            "creationTimestamp": created,
            "generateName": f"{owner_name}-",
            "labels": labels,
            "managedFields": [
                {
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:metadata": {
                            "f:generateName": {},
                            "f:labels": {".": {}, **{f"f:{k}": {} for k in labels}},
                            "f:ownerReferences": {".": {}, 'k:{"uid":"(owner)"}': {}},
                        },
                        "f:spec": spec_fields,
                    },
                    "manager": "kube-controller-manager",
                    "operation": "Update",
                    "time": created,
                },
                {
                    "apiVersion": "v1",
                    "fieldsType": "FieldsV1",
                    "fieldsV1": {
                        "f:status": {
                            "f:conditions": {f'k:{{"type":"{kind}"}}': {"f:status": {}} for kind in conditions},
                            "f:containerStatuses": {},
                            "f:phase": {},
                            "f:startTime": {},
                        }
                    },
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
            "securityContext": {},
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
            **({"nodeSelector": selector} if selector else {}),
            **(shape.constraints(app) if owner == "ReplicaSet" else {}),
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
            ],
        },
        "status": {
            "conditions": [
                {"lastProbeTime": None, "lastTransitionTime": created, "status": "True", "type": kind}
                for kind in conditions
            ],
            "containerStatuses": [_status(rng, c[0], c[1], phase, created) for c in containers],
            "phase": phase,
            "qosClass": "Burstable",
            "startTime": created,
        },
    }
    if not managed_fields:
        del pod["metadata"]["managedFields"]
    if phase == "Running":
        _resources_in_status(pod["spec"]["containers"], pod["status"]["containerStatuses"], resizing=i % 100 == 37)
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


def write(
    outdir: Path,
    nodes: int,
    pods: int,
    seed: int = 0,
    *,
    yaml_nodes: bool = True,
    managed_fields: bool = False,
    fleet_shape: FleetShape | None = None,
    clusters: int = 1,
) -> None:
    if outdir.exists():
        shutil.rmtree(outdir)
    outdir.mkdir(parents=True)
    shapes = (
        (("inventory", "nodes.yaml"), ("inventory-json", "nodes.json"))
        if yaml_nodes
        else (("inventory-json", "nodes.json"),)
    )
    for shape, name in shapes:
        generate.generate(shape, 2 * nodes, outdir / "repo", seed)
        (outdir / "repo" / "inventory" / name).rename(outdir / name)
        (outdir / "repo" / "inventory").rmdir()
    if clusters > 1:
        write_clusters(outdir / "repo", clusters, random.Random(f"{seed}:clusters:{clusters}"))
    labelled = [fleet.node_labels(i, random.Random(0)) for i in range(nodes)]
    names = [name for _, name in labelled]
    shape = fleet_shape or FleetShape()
    daemons = [shape.daemonsets_on(labels) for labels, _ in labelled]
    first_app = sum(len(d) for d in daemons)
    daemon_at = [(node, k) for node, ds in zip(names, daemons, strict=True) for k in ds]
    rng = random.Random(f"{seed}:pods:{pods}")
    room = _Room(names)
    # The List as json.dumps(indent=4, sort_keys=True) prints it whole, written one item at a time: a 200,000-pod
    # dump is never held in memory.
    with (outdir / "pods.json").open("w", encoding="utf-8") as out:
        out.write('{\n    "apiVersion": "v1",\n    "items": [')
        for i in range(pods):
            # One pod of every DaemonSet on every node first (as the DaemonSet controller keeps them), then the apps.
            daemon_on, k = daemon_at[i] if i < first_app else (None, 0)
            pod = pod_object(i, rng, names, managed_fields, daemon_on, room, shape, k)
            item = json.dumps(pod, indent=4, sort_keys=True)
            out.write(("\n" if i == 0 else ",\n") + _ITEM_PAD + item.replace("\n", "\n" + _ITEM_PAD))
        out.write('\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')


_ITEM_PAD = " " * 8


def add_fleet_arguments(parser: argparse.ArgumentParser, realistic: bool = False) -> None:
    """The options of :class:`FleetShape` and the repo's cluster count; ``realistic``: defaults of a real fleet
    (30 clusters in the repo, 24 DaemonSets, 1,000 Deployments sized apart) instead of this generator's first."""
    parser.add_argument(
        "--clusters",
        type=int,
        default=30 if realistic else 1,
        help="clusters in the policy repo (about 100 documents each)",
    )
    parser.add_argument("--daemonsets", type=int, default=24 if realistic else 3, help="DaemonSets (at least 3)")
    parser.add_argument("--distinct-daemonsets", action="store_true", help="every daemon pod names its own DaemonSet")
    parser.add_argument(
        "--request-shapes",
        type=int,
        default=1000 if realistic else 0,
        help="Deployments sized apart (distinct pod shapes); 0: the fixed requests",
    )
    parser.add_argument(
        "--constrained",
        type=float,
        default=0.3 if realistic else 0.0,
        help="share of Deployments with zone/hostname spread or hostname anti-affinity (default 0.3 realistic, else 0)",
    )
    parser.add_argument(
        "--preferred",
        type=float,
        default=0.0,
        help="share of Deployments preferring not to share a node with their own app (preferred anti-affinity)",
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("outdir", type=Path, metavar="OUTDIR", help="directory to write (emptied first)")
    parser.add_argument("--nodes", type=int, default=5000, help="Nodes in the dumps (default 5,000)")
    parser.add_argument("--pods", type=int, default=20000, help="Pods in the dump (default 20,000)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--no-yaml", action="store_true", help="write nodes.json only (not nodes.yaml)")
    parser.add_argument(
        "--managed-fields", action="store_true", help="pods with managedFields (kubectl --show-managed-fields)"
    )
    add_fleet_arguments(parser)
    args = parser.parse_args(argv)
    if args.nodes < 10 or args.pods < 1:
        parser.error("--nodes must be at least 10 and --pods at least 1")
    write(
        args.outdir,
        args.nodes,
        args.pods,
        args.seed,
        yaml_nodes=not args.no_yaml,
        managed_fields=args.managed_fields,
        fleet_shape=FleetShape(
            args.daemonsets, args.distinct_daemonsets, args.request_shapes, args.constrained, args.preferred
        ),
        clusters=args.clusters,
    )
    for name in ("nodes.json", "pods.json") if args.no_yaml else ("nodes.yaml", "nodes.json", "pods.json"):
        print(f"{name}: {(args.outdir / name).stat().st_size / 1e6:.1f} MB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
