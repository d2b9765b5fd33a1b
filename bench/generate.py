"""Write a benchmark policy repo of one shape and about N objects.

    python bench/generate.py SHAPE N OUTDIR [--seed S]
    python bench/generate.py --list

Shapes (see ``SHAPES``; every one deterministic for N and the seed, every one with a ``.allocatable.yaml``):

- ``synthetic``: 60% NodePools, 15% CommitClasses, 10% ReservationPolicies, 10% RuntimeClasses and 5% Nodes (in
  ``kind: List`` files), 10-50 documents a file, spread over subdirectories. Lint-plausible: each class selects a
  few pools by a group label and each pool is selected once; about one class in a hundred also selects its
  neighbour's group (deliberate AL101/AL102 conflicts, each with a reasoned suppression, so render can run).
- ``inventory``: N/2 Nodes in one ``kubectl get nodes -o yaml`` List (real Node layout: ~35 labels, annotations,
  managedFields, conditions, images, nodeInfo, volumes), plus a CommitClass and a ReservationPolicy per Karpenter
  NodePool and three RuntimeClasses. ``inventory-json`` is the same as ``kubectl get nodes -o json``.
- ``runtime-matrix``: NodePools of ten instance sizes and 60 RuntimeClasses (kata, gVisor, Firecracker, runc)
  without ``scheduling``, so every class can land on every pool.
- ``label-ranges``: NodePools with ~40 labels; every CommitClass and ReservationPolicy has 3 terms, each an ``In``
  plus ``Gt``/``Lt`` ranges over an integer label (the classes cover disjoint ranges, so each pool is selected once).
- ``findings``: the synthetic proportions without Nodes, with a finding on every object (an unused suppression on
  each pool, memory over-commit on each CommitClass, a grace period without soft eviction on each
  ReservationPolicy, a sandbox handler without overhead on each RuntimeClass).
- ``two-files``: the synthetic documents in two files. ``one-per-file``: one document per file (Nodes as single
  ``kubectl get node NAME -o yaml`` documents).
- the selector-cost shapes of ``selector_shapes.py`` (issue 21: AL103 must stay near-linear when it finds nothing),
  N/10 NodePools plus policies whose selectors no node can share: ``exists-absent`` (CommitClasses told apart by
  Exists/DoesNotExist alone), ``in-product`` (CommitClasses with seven In expressions of ten values),
  ``reservations-by-group`` (ReservationPolicies keyed by node group, 240 value combinations a term) and
  ``range-pairs`` (CommitClasses on Gt/Lt ranges of two keys, only one of which tells them apart).
- ``multi-cluster``: N/100 clusters in one repo (issue 30's fleet), a file each: 80 NodePools (8 Karpenter NodePools
  x 10 instance types), a CommitClass and a ReservationPolicy per Karpenter NodePool and 4 RuntimeClasses, every one
  labelled with or selecting its cluster; ``multi-cluster-split``: the same, a directory a cluster and a file a
  document (``clusters/c0000/nodepool-000.yaml``: per-file costs at 100,000 files).
"""

from __future__ import annotations

import argparse
import random
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import fleet
import selector_shapes

GROUP = "bench.example.com"
SHAPES_CPU_MEM: tuple[tuple[int, int], ...] = ((4, 16), (8, 32), (16, 64), (32, 128), (64, 256))  # cpu, memory GiB
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
TEAMS = fleet.TEAMS

SETTINGS = """\
# Settings for a generated benchmark repo (bench/generate.py).
apiVersion: policy.allocatable.dev/v1alpha1
kind: Settings
commit:
  underCommitScalesReserved: true
rules: {}
thresholds:
  cpuCommitCeilingPercent: 400
  minCommittedShareOfCapacityPercent: 50
"""


@dataclass(frozen=True)
class Counts:
    pools: int
    commit_classes: int
    reservation_policies: int
    runtime_classes: int
    nodes: int

    @property
    def total(self) -> int:
        return self.pools + self.commit_classes + self.reservation_policies + self.runtime_classes + self.nodes


@dataclass
class Generated:
    shape: str
    counts: Counts
    files: int = 0
    bytes: int = 0
    paths: list[Path] = field(default_factory=list)

    @property
    def documents(self) -> int:
        """Objects: documents plus List items."""
        return self.counts.total


def split(n: int, nodes_share: float = 0.05) -> Counts:
    """N objects in the synthetic proportions (at least one of each kind)."""
    if n < 5:
        raise ValueError("N must be at least 5 (one object of each kind)")
    cc = max(1, round(n * 0.15))
    rp = max(1, round(n * 0.10))
    rc = max(1, round(n * 0.10))
    nodes = max(1, round(n * nodes_share)) if nodes_share else 0
    return Counts(n - cc - rp - rc - nodes, cc, rp, rc, nodes)


# --- synthetic objects -------------------------------------------------------------------------------------------


def _labels(i: int, counts: Counts, indent: str) -> str:
    labels = {
        "kubernetes.io/os": "linux",
        "kubernetes.io/arch": "amd64",
        "topology.kubernetes.io/zone": ZONES[i % len(ZONES)],
        f"{GROUP}/team": TEAMS[i % len(TEAMS)],
        f"{GROUP}/commit-group": f"cg-{i % counts.commit_classes}",
        f"{GROUP}/reservation-group": f"rg-{i % counts.reservation_policies}",
        f"{GROUP}/runtime": f"rt-{i % counts.runtime_classes}",
    }
    return "".join(f'{indent}{k}: "{v}"\n' for k, v in labels.items())


def _label_block(labels: dict[str, str], indent: str) -> str:
    return "".join(f'{indent}{k}: "{v}"\n' for k, v in labels.items())


def node_pool(
    i: int,
    counts: Counts,
    rng: random.Random,
    *,
    labels: dict[str, str] | None = None,
    annotation: str | None = None,
    shape: tuple[int, int] | None = None,
) -> str:
    cpu, mem = shape or SHAPES_CPU_MEM[i % len(SHAPES_CPU_MEM)]
    label_text = _labels(i, counts, "    ") if labels is None else _label_block(labels, "    ")
    return (
        "apiVersion: policy.allocatable.dev/v1alpha1\n"
        "kind: NodePool\n"
        "metadata:\n"
        f"  name: pool-{i:06d}\n"
        "  annotations:\n"
        f'    {GROUP}/owner: "{TEAMS[i % len(TEAMS)]}@example.com"\n'
        f"{annotation or ''}"
        "spec:\n"
        "  labels:\n"
        f"{label_text}"
        "  capacity:\n"
        f'    cpu: "{cpu}"\n'
        f"    memory: {fleet.memory_ki(mem, rng)}\n"
        f"    ephemeral-storage: {rng.choice((100, 200, 500)) * 1024 * 1024 - 123_456}Ki\n"
        '    pods: "110"\n'
        f"  count: {rng.randint(1, 40)}\n"
        "  platform: generic\n"
        "  maxPods: 110\n"
    )


def _group_selector(key: str, values: list[str]) -> str:
    return (
        "  selector:\n"
        "    - matchExpressions:\n"
        f"        - key: {GROUP}/{key}\n"
        "          operator: In\n"
        f"          values: [{', '.join(values)}]\n"
    )


def _suppress(code: str) -> str:
    """The deliberate conflicts carry a reasoned suppression, so lint still finds them but render can run."""
    return f'  annotations:\n    allocatable.dev/ignore: "{code}: deliberate conflict in the benchmark repo"\n'


def commit_class(
    i: int, counts: Counts, rng: random.Random, conflict: bool, *, selector: str | None = None, memory: int = 100
) -> str:
    groups = [f"cg-{i}"] + ([f"cg-{(i + 1) % counts.commit_classes}"] if conflict else [])
    return (
        "apiVersion: node.k8s.io/v1alpha1\n"
        "kind: CommitClass\n"
        "metadata:\n"
        f"  name: commit-{i:06d}\n"
        f"{_suppress('AL101') if conflict else ''}"
        "spec:\n"
        f"{selector or _group_selector('commit-group', groups)}"
        "  resources:\n"
        "    - name: cpu\n"
        f"      percent: {rng.choice((110, 125, 150, 200, 300))}\n"
        "    - name: memory\n"
        f"      percent: {memory}\n"
    )


def reservation_policy(
    i: int, counts: Counts, rng: random.Random, conflict: bool, *, selector: str | None = None, extra: str = ""
) -> str:
    groups = [f"rg-{i}"] + ([f"rg-{(i + 1) % counts.reservation_policies}"] if conflict else [])
    return (
        "apiVersion: policy.allocatable.dev/v1alpha1\n"
        "kind: ReservationPolicy\n"
        "metadata:\n"
        f"  name: reserve-{i:06d}\n"
        f"{_suppress('AL102') if conflict else ''}"
        "spec:\n"
        f"{selector or _group_selector('reservation-group', groups)}"
        "  systemReserved:\n"
        "    cpu: 100m\n"
        f"    memory: {rng.choice((100, 200, 300))}Mi\n"
        "    ephemeral-storage: 1Gi\n"
        "  kubeReserved:\n"
        f"    cpu: {rng.choice((100, 150, 200))}m\n"
        f"    memory: {rng.choice((500, 750, 1024))}Mi\n"
        "    ephemeral-storage: 1Gi\n"
        "  evictionHard:\n"
        "    memory.available: 100Mi\n"
        '    nodefs.available: "10%"\n'
        '    nodefs.inodesFree: "5%"\n'
        f"{extra}"
        "  enforceNodeAllocatable:\n"
        "    - pods\n"
        "  maxPods: 110\n"
        "  podPidsLimit: 4096\n"
    )


RUNTIMES: tuple[tuple[str, str | None, str | None], ...] = (
    ("kata-qemu", "250m", "160Mi"),  # kata-deploy's kata-qemu RuntimeClass
    ("kata-clh", "250m", "130Mi"),
    ("kata-fc", "250m", "130Mi"),
    ("runsc", "100m", "64Mi"),
    ("crun", "10m", "16Mi"),
    ("runc", None, None),
)


def runtime_class(i: int, rng: random.Random, *, selector: dict[str, str] | None = None, overhead: bool = True) -> str:
    handler, cpu, mem = rng.choice(RUNTIMES[:3] + RUNTIMES[3:5]) if overhead else ("kata-qemu", None, None)
    text = f"apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: runtime-{i:06d}\nhandler: {handler}\n"
    if cpu is not None:
        text += f"overhead:\n  podFixed:\n    cpu: {cpu}\n    memory: {mem}\n"
    sel = {f"{GROUP}/runtime": f"rt-{i}"} if selector is None else selector
    if sel:
        text += "scheduling:\n  nodeSelector:\n" + _label_block(sel, "    ")
    return text


def node_item(i: int, counts: Counts, rng: random.Random) -> str:
    """One item of a ``kubectl get nodes -o yaml`` List, trimmed the way the example inventory is."""
    cpu, mem = SHAPES_CPU_MEM[i % len(SHAPES_CPU_MEM)]
    memory = fleet.memory_ki(mem, rng)
    name = f"node-{i:06d}.bench.example.com"
    labels = _labels(i, counts, "      ") + f"      kubernetes.io/hostname: {name}\n"
    return (
        "- apiVersion: v1\n"
        "  kind: Node\n"
        "  metadata:\n"
        "    annotations:\n"
        '      node.alpha.kubernetes.io/ttl: "0"\n'
        '      volumes.kubernetes.io/controller-managed-attach-detach: "true"\n'
        '    creationTimestamp: "2025-05-28T09:12:44Z"\n'
        "    labels:\n"
        f"{labels}"
        f"    name: {name}\n"
        f'    resourceVersion: "{rng.randint(10_000_000, 99_999_999)}"\n'
        f"    uid: {rng.getrandbits(128):032x}\n"
        "  spec:\n"
        f"    providerID: aws:///{ZONES[i % len(ZONES)]}/i-{rng.getrandbits(64):016x}\n"
        "  status:\n"
        "    capacity:\n"
        f'      cpu: "{cpu}"\n'
        "      ephemeral-storage: 104845292Ki\n"
        '      hugepages-2Mi: "0"\n'
        f"      memory: {memory}\n"
        '      pods: "110"\n'
        "    allocatable:\n"
        f'      cpu: "{cpu * 1000 - 300}m"\n'
        '      pods: "110"\n'
        "    nodeInfo:\n"
        "      kubeletVersion: v1.31.4\n"
        "      containerRuntimeVersion: containerd://1.7.25\n"
    )


def _single_node(item: str) -> str:
    """A List item as a document of its own (``kubectl get node NAME -o yaml``)."""
    return "".join(line[2:] + "\n" for line in item.splitlines())


# --- writing -----------------------------------------------------------------------------------------------------


class _Writer:
    def __init__(self, outdir: Path, gen: Generated) -> None:
        self.outdir = outdir
        self.gen = gen

    def write(self, rel: str, text: str) -> None:
        path = self.outdir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        self.gen.files += 1
        self.gen.bytes += len(text.encode("utf-8"))
        self.gen.paths.append(path)

    def documents(self, rel: str, kind: str, docs: list[str]) -> None:
        self.write(rel, f"# {len(docs)} {kind} objects generated by bench/generate.py\n---\n" + "---\n".join(docs))

    def node_list(self, rel: str, items: list[str]) -> None:
        self.write(
            rel,
            f"# {len(items)} Nodes, as `kubectl get nodes -o yaml` prints them (generated)\n"
            'apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: ""\nitems:\n' + "".join(items),
        )


def _chunks(items: list[str], rng: random.Random) -> list[list[str]]:
    out: list[list[str]] = []
    i = 0
    while i < len(items):
        size = rng.randint(10, 50)
        out.append(items[i : i + size])
        i += size
    return out


def _synthetic_documents(counts: Counts, rng: random.Random) -> list[tuple[str, str, list[str]]]:
    cc_conflicts = set(range(0, counts.commit_classes, 100)) if counts.commit_classes > 1 else set()
    rp_conflicts = set(range(0, counts.reservation_policies, 100)) if counts.reservation_policies > 1 else set()
    return [
        ("pools", "NodePool", [node_pool(i, counts, rng) for i in range(counts.pools)]),
        (
            "commitclasses",
            "CommitClass",
            [commit_class(i, counts, rng, i in cc_conflicts) for i in range(counts.commit_classes)],
        ),
        (
            "reservations",
            "ReservationPolicy",
            [reservation_policy(i, counts, rng, i in rp_conflicts) for i in range(counts.reservation_policies)],
        ),
        ("runtimeclasses", "RuntimeClass", [runtime_class(i, rng) for i in range(counts.runtime_classes)]),
    ]


def _write_chunked(w: _Writer, kinds: list[tuple[str, str, list[str]]], rng: random.Random) -> None:
    for directory, kind, docs in kinds:
        for f, chunk in enumerate(_chunks(docs, rng)):
            sub = f"{directory}/{TEAMS[f % len(TEAMS)]}" if directory == "pools" else directory
            w.documents(f"{sub}/{directory}-{f:04d}.yaml", kind, chunk)


# --- shapes ------------------------------------------------------------------------------------------------------


def shape_synthetic(n: int, w: _Writer, rng: random.Random) -> Counts:
    counts = split(n)
    _write_chunked(w, _synthetic_documents(counts, rng), rng)
    nodes = [node_item(i, counts, rng) for i in range(counts.nodes)]
    for f, chunk in enumerate(_chunks(nodes, rng)):
        w.node_list(f"inventory/nodes-{f:04d}.yaml", chunk)
    return counts


def _inventory_policies(rng: random.Random) -> tuple[list[str], list[str], list[str]]:
    pools = list(fleet.NODEPOOLS)
    counts = Counts(0, len(pools), len(pools), 3, 0)
    sel = "  selector:\n    - matchExpressions:\n        - {key: karpenter.sh/nodepool, operator: In, values: [%s]}\n"
    ccs = [commit_class(i, counts, rng, False, selector=sel % p) for i, p in enumerate(pools)]
    rps = [reservation_policy(i, counts, rng, False, selector=sel % p) for i, p in enumerate(pools)]
    rcs = [
        runtime_class(0, rng, selector={}, overhead=False).replace("handler: kata-qemu", "handler: runc"),
        runtime_class(1, rng, selector={"sandbox.example.com/kata": "true"}),
        runtime_class(2, rng, selector={"karpenter.sh/nodepool": "batch"}),
    ]
    return ccs, rps, rcs


def _inventory(n: int, w: _Writer, rng: random.Random, as_json: bool) -> Counts:
    nodes = max(1, n // 2)
    ccs, rps, rcs = _inventory_policies(rng)
    w.documents("commitclasses/by-nodepool.yaml", "CommitClass", ccs)
    w.documents("reservations/by-nodepool.yaml", "ReservationPolicy", rps)
    w.documents("runtimeclasses/runtimes.yaml", "RuntimeClass", rcs)
    dump = fleet.node_list([fleet.node_object(i, rng) for i in range(nodes)])
    if as_json:
        w.write("inventory/nodes.json", fleet.to_json(dump))
    else:
        w.write("inventory/nodes.yaml", fleet.to_yaml(dump))
    return Counts(0, len(ccs), len(rps), len(rcs), nodes)


def shape_inventory(n: int, w: _Writer, rng: random.Random) -> Counts:
    return _inventory(n, w, rng, as_json=False)


def shape_inventory_json(n: int, w: _Writer, rng: random.Random) -> Counts:
    return _inventory(n, w, rng, as_json=True)


MATRIX_RUNTIME_CLASSES = 60
SLOT_BASE = 10_000


def shape_runtime_matrix(n: int, w: _Writer, rng: random.Random) -> Counts:
    rcs = min(MATRIX_RUNTIME_CLASSES, max(1, n // 10))
    counts = Counts(n - rcs - 20, 10, 10, rcs, 0)
    docs = _synthetic_documents(counts, rng)
    pools = [
        node_pool(i, counts, rng, shape=(cpu, mem))
        for i, (_, cpu, mem, _) in (
            (i, fleet.INSTANCE_TYPES[i % len(fleet.INSTANCE_TYPES)]) for i in range(counts.pools)
        )
    ]
    classes = []
    for i in range(rcs):
        handler, cpu, mem = RUNTIMES[i % len(RUNTIMES)]
        text = f"apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata:\n  name: {handler}-{i:03d}\nhandler: {handler}\n"
        if cpu is not None:
            text += f"overhead:\n  podFixed:\n    cpu: {cpu}\n    memory: {mem}\n"
        classes.append(text)
    _write_chunked(
        w, [("pools", "NodePool", pools), docs[1], docs[2], ("runtimeclasses", "RuntimeClass", classes)], rng
    )
    return counts


CLUSTER_LABEL = "example.com/cluster"
CLUSTER_RUNTIMES = 4
ENVIRONMENTS = ("prod", "staging", "dev")
REGIONS = ("us-east-1", "eu-west-1", "ap-southeast-2")


def shape_multi_cluster(n: int, w: _Writer, rng: random.Random, *, split: bool = False) -> Counts:
    """A multi-cluster policy repo (issue 30: "that fleet"): about N/100 clusters, each in a file of its own with a
    NodePool per (Karpenter NodePool, instance type) of ``fleet.py`` (80), a CommitClass and a ReservationPolicy per
    Karpenter NodePool (8 + 8) and four RuntimeClasses, every object carrying its cluster's ``example.com/cluster``
    label or selecting on it; the pools of every cluster share their other labels (same NodePool names and instance
    types in each cluster), as one repo keeps many clusters of one platform."""
    pools, types = fleet.NODEPOOLS, fleet.INSTANCE_TYPES
    per_cluster = len(pools) * len(types) + 2 * len(pools) + CLUSTER_RUNTIMES
    clusters = max(1, round(n / per_cluster))
    counts = Counts(
        clusters * len(pools) * len(types),
        clusters * len(pools),
        clusters * len(pools),
        clusters * CLUSTER_RUNTIMES,
        0,
    )
    for c in range(clusters):
        cluster = {CLUSTER_LABEL: f"c{c:04d}"}
        docs = []
        for p, pool in enumerate(pools):
            for t, (itype, cpu, mem, _) in enumerate(types):
                family, size = itype.split(".")
                labels = {  # Karpenter's and EKS's well-known labels, as a pool's nodes carry them
                    **cluster,
                    "example.com/environment": ENVIRONMENTS[c % len(ENVIRONMENTS)],
                    "karpenter.sh/nodepool": pool,
                    "karpenter.sh/capacity-type": "spot" if pool == "spot" else "on-demand",
                    "node.kubernetes.io/instance-type": itype,
                    "karpenter.k8s.aws/instance-family": family,
                    "karpenter.k8s.aws/instance-size": size,
                    "karpenter.k8s.aws/instance-cpu": str(cpu),
                    "karpenter.k8s.aws/instance-memory": str(mem * 1024),
                    "kubernetes.io/arch": "amd64",
                    "kubernetes.io/os": "linux",
                    "topology.kubernetes.io/region": REGIONS[c % len(REGIONS)],
                    "topology.kubernetes.io/zone": ZONES[t % len(ZONES)],
                    f"{GROUP}/team": TEAMS[p % len(TEAMS)],
                }
                i = (c * len(pools) + p) * len(types) + t
                docs.append(node_pool(i, counts, rng, labels=labels, shape=(cpu, mem)))
        for p, pool in enumerate(pools):
            sel = (
                "  selector:\n    - matchExpressions:\n"
                f"        - {{key: {CLUSTER_LABEL}, operator: In, values: [c{c:04d}]}}\n"
                f"        - {{key: karpenter.sh/nodepool, operator: In, values: [{pool}]}}\n"
            )
            i = c * len(pools) + p
            docs.append(commit_class(i, counts, rng, False, selector=sel))
            docs.append(reservation_policy(i, counts, rng, False, selector=sel))
        for r in range(CLUSTER_RUNTIMES):
            on = {**cluster, "karpenter.sh/nodepool": pools[r % len(pools)]}
            docs.append(runtime_class(c * CLUSTER_RUNTIMES + r, rng, selector=on))
        if split:  # a directory a cluster, a file a document, as many GitOps repos keep them
            for d, doc in enumerate(docs):
                kind = doc.split("kind: ", 1)[1].split("\n", 1)[0].lower()
                w.write(f"clusters/c{c:04d}/{kind}-{d:03d}.yaml", doc)
            continue
        w.write(
            f"clusters/c{c:04d}.yaml",
            f"# cluster c{c:04d}: {len(docs)} objects generated by bench/generate.py\n---\n" + "---\n".join(docs),
        )
    return counts


def shape_multi_cluster_split(n: int, w: _Writer, rng: random.Random) -> Counts:
    return shape_multi_cluster(n, w, rng, split=True)


def _range_selector(terms: list[list[tuple[str, str, str]]]) -> str:
    out = "  selector:\n"
    for term in terms:
        out += "    - matchExpressions:\n"
        for key, op, value in term:
            out += f"        - {{key: {key}, operator: {op}, values: [{value}]}}\n"
    return out


def shape_label_ranges(n: int, w: _Writer, rng: random.Random) -> Counts:
    cc = max(1, round(n * 0.15))
    rp = max(1, round(n * 0.10))
    rc = max(1, round(n * 0.10))
    counts = Counts(n - cc - rp - rc, cc, rp, rc, 0)
    slot = f"{GROUP}/slot"
    # Class i covers the slots [i*P//k, (i+1)*P//k): disjoint ranges, every pool in exactly one.
    cc_bounds = [(i * counts.pools // cc, (i + 1) * counts.pools // cc) for i in range(cc)]
    rp_bounds = [(i * counts.pools // rp, (i + 1) * counts.pools // rp) for i in range(rp)]
    cc_of = [i for i, (lo, hi) in enumerate(cc_bounds) for _ in range(lo, hi)]
    rp_of = [i for i, (lo, hi) in enumerate(rp_bounds) for _ in range(lo, hi)]
    pools = []
    for j in range(counts.pools):
        labels, _ = fleet.node_labels(j, rng)
        labels.pop("kubernetes.io/hostname")
        labels["example.com/team"] = TEAMS[cc_of[j] % len(TEAMS)]
        labels["example.com/environment"] = ("production", "staging")[rp_of[j] % 2]
        labels[slot] = str(SLOT_BASE + j)
        labels[f"{GROUP}/runtime"] = f"rt-{j % rc}"
        labels[f"{GROUP}/rack"] = f"r{j % 40:02d}"
        labels[f"{GROUP}/row"] = f"row-{j % 12}"
        labels[f"{GROUP}/power-domain"] = f"pd-{j % 4}"
        labels[f"{GROUP}/cost-center"] = str(4000 + j % 300)
        labels[f"{GROUP}/owner"] = TEAMS[(j + 3) % len(TEAMS)]
        cpu, mem = fleet.INSTANCE_TYPES[j % len(fleet.INSTANCE_TYPES)][1:3]
        pools.append(node_pool(j, counts, rng, labels=labels, shape=(cpu, mem)))

    def ranged(
        team_key: str, team: str, lo: int, hi: int, extra: list[tuple[str, str, str]]
    ) -> list[list[tuple[str, str, str]]]:
        base = [(team_key, "In", team), (slot, "Gt", f'"{SLOT_BASE + lo - 1}"'), (slot, "Lt", f'"{SLOT_BASE + hi}"')]
        return [[*base, e] for e in extra]

    cpu_key, mem_key, gen_key = (
        "karpenter.k8s.aws/instance-cpu",
        "karpenter.k8s.aws/instance-memory",
        "karpenter.k8s.aws/instance-generation",
    )
    ccs = []
    for i in range(cc):
        terms = ranged(
            "example.com/team",
            TEAMS[i % len(TEAMS)],
            *cc_bounds[i],
            [(cpu_key, "Lt", '"17"'), (cpu_key, "Gt", '"16"'), (mem_key, "Gt", '"262143"')],
        )
        ccs.append(commit_class(i, counts, rng, False, selector=_range_selector(terms)))
    rps = []
    for i in range(rp):
        terms = ranged(
            "example.com/environment",
            ("production", "staging")[i % 2],
            *rp_bounds[i],
            [(gen_key, "Lt", '"6"'), (gen_key, "Gt", '"5"'), (cpu_key, "Gt", '"63"')],
        )
        rps.append(reservation_policy(i, counts, rng, False, selector=_range_selector(terms)))
    rcs = [runtime_class(i, rng) for i in range(rc)]
    kinds = [
        ("pools", "NodePool", pools),
        ("commitclasses", "CommitClass", ccs),
        ("reservations", "ReservationPolicy", rps),
        ("runtimeclasses", "RuntimeClass", rcs),
    ]
    _write_chunked(w, kinds, rng)
    return counts


def shape_findings(n: int, w: _Writer, rng: random.Random) -> Counts:
    counts = split(n, nodes_share=0)
    unused = '    allocatable.dev/ignore: "AL205: small pool on purpose, reviewed by capacity planning"\n'
    grace = "  evictionSoftGracePeriod:\n    memory.available: 1m30s\n"
    kinds = [
        ("pools", "NodePool", [node_pool(i, counts, rng, annotation=unused) for i in range(counts.pools)]),
        (
            "commitclasses",
            "CommitClass",
            [commit_class(i, counts, rng, False, memory=120) for i in range(counts.commit_classes)],
        ),
        (
            "reservations",
            "ReservationPolicy",
            [reservation_policy(i, counts, rng, False, extra=grace) for i in range(counts.reservation_policies)],
        ),
        (
            "runtimeclasses",
            "RuntimeClass",
            [runtime_class(i, rng, overhead=False) for i in range(counts.runtime_classes)],
        ),
    ]
    _write_chunked(w, kinds, rng)
    return counts


def shape_two_files(n: int, w: _Writer, rng: random.Random) -> Counts:
    counts = split(n)
    docs = [d for _, _, group in _synthetic_documents(counts, rng) for d in group]
    nodes = [node_item(i, counts, rng) for i in range(counts.nodes)]
    docs.append('apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: ""\nitems:\n' + "".join(nodes))
    half = len(docs) // 2
    w.documents("policies-a.yaml", "policy", docs[:half])
    w.documents("policies-b.yaml", "policy", docs[half:])
    return counts


def shape_one_per_file(n: int, w: _Writer, rng: random.Random) -> Counts:
    counts = split(n)
    for directory, _, docs in _synthetic_documents(counts, rng):
        for i, doc in enumerate(docs):
            w.write(f"{directory}/{i // 1000:02d}/{directory}-{i:06d}.yaml", doc)
    for i in range(counts.nodes):
        w.write(f"inventory/node-{i:06d}.yaml", _single_node(node_item(i, counts, rng)))
    return counts


def shape_anchored(n: int, w: _Writer, rng: random.Random) -> Counts:
    """The two-files documents with one anchor in each file (issue 21, class 9): one ``&t`` once sent the whole file
    down a quadratic path; now only its own document is composed."""
    counts = split(n, nodes_share=0)
    docs = [d for _, _, group in _synthetic_documents(counts, rng) for d in group]
    docs = [
        d.replace("  labels:\n", "  labels: &t\n", 1) if i in (0, len(docs) // 2) else d for i, d in enumerate(docs)
    ]
    half = len(docs) // 2
    w.documents("policies-a.yaml", "policy", docs[:half])
    w.documents("policies-b.yaml", "policy", docs[half:])
    return counts


def shape_duplicate_nodes(n: int, w: _Writer, rng: random.Random) -> Counts:
    """N Nodes of one name in one List (issue 21, class 8): findings capped per rule and file, memory bounded by
    what is shown."""
    counts = Counts(0, 1, 1, 1, n)
    item = node_item(0, counts, rng)
    w.node_list("inventory/nodes.yaml", [item] * n)
    return counts


def _selector_shape(name: str, kind: str) -> Callable[[int, _Writer, random.Random], Counts]:
    def shape(n: int, w: _Writer, rng: random.Random) -> Counts:
        pools = max(1, n // 10)
        policies = n - pools
        selectors = selector_shapes.SHAPES[name](policies)
        by_class = kind == "CommitClass"
        counts = Counts(pools, policies if by_class else 0, 0 if by_class else policies, 0, 0)
        labels_of = Counts(pools, 1, 1, 1, 0)
        pool_docs = [node_pool(i, labels_of, rng) for i in range(pools)]
        make = commit_class if by_class else reservation_policy
        docs = [make(i, counts, rng, False, selector=selector_shapes.to_yaml(sel)) for i, sel in enumerate(selectors)]
        folder = "commitclasses" if by_class else "reservations"
        _write_chunked(w, [("pools", "NodePool", pool_docs), (folder, kind, docs)], rng)
        return counts

    return shape


SHAPES: dict[str, tuple[Callable[[int, _Writer, random.Random], Counts], str]] = {
    "synthetic": (shape_synthetic, "the synthetic mix, 10-50 documents a file"),
    "inventory": (shape_inventory, "N/2 Nodes in one kubectl get nodes -o yaml List, real layout"),
    "inventory-json": (shape_inventory_json, "the same Nodes as kubectl get nodes -o json"),
    "runtime-matrix": (shape_runtime_matrix, "NodePools x 60 RuntimeClasses that schedule everywhere"),
    "label-ranges": (shape_label_ranges, "~40-label pools, 3-term In+Gt/Lt selectors"),
    "findings": (shape_findings, "a finding on every object"),
    "two-files": (shape_two_files, "the synthetic documents in two files"),
    "one-per-file": (shape_one_per_file, "the synthetic documents, one per file"),
    "anchored": (shape_anchored, "the two-files documents with one YAML anchor in each file"),
    "duplicate-nodes": (shape_duplicate_nodes, "N Nodes of one name in one List"),
    "exists-absent": (_selector_shape("exists-absent", "CommitClass"), "classes told apart by Exists/DoesNotExist"),
    "in-product": (_selector_shape("in-product", "CommitClass"), "classes with 7 In expressions of 10 values"),
    "reservations-by-group": (
        _selector_shape("reservations-by-group", "ReservationPolicy"),
        "ReservationPolicies by node group, 240 value combinations a term",
    ),
    "range-pairs": (_selector_shape("range-pairs", "CommitClass"), "classes on Gt/Lt ranges of two keys"),
    "multi-cluster": (shape_multi_cluster, "N/100 clusters of 80 pools, 16 classes, 4 runtimes, a file each"),
    "multi-cluster-split": (shape_multi_cluster_split, "the same clusters, a directory each, one document a file"),
}


def generate(shape: str, n: int, outdir: Path, seed: int = 0) -> Generated:
    """Write the repo into ``outdir`` (emptied first)."""
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}; shapes: {', '.join(SHAPES)}")
    if n < 20:
        raise ValueError("N must be at least 20")
    rng = random.Random(f"{seed}:{shape}:{n}")
    if outdir.exists():
        shutil.rmtree(outdir)
    outdir.mkdir(parents=True)
    (outdir / ".allocatable.yaml").write_text(SETTINGS, encoding="utf-8")
    gen = Generated(shape, Counts(0, 0, 0, 0, 0))
    gen.counts = SHAPES[shape][0](n, _Writer(outdir, gen), rng)
    gen.paths.sort()
    return gen


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("shape", nargs="?", choices=sorted(SHAPES), metavar="SHAPE", help="repo shape (--list)")
    parser.add_argument("n", nargs="?", type=int, metavar="N", help="number of objects (documents and List items)")
    parser.add_argument("outdir", nargs="?", type=Path, metavar="OUTDIR", help="directory to write (emptied first)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--list", action="store_true", help="list the shapes and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, (_, what) in SHAPES.items():
            print(f"{name:16} {what}")
        return 0
    if args.shape is None or args.n is None or args.outdir is None:
        parser.error("SHAPE, N and OUTDIR are required")
    if args.n < 20:
        parser.error("N must be at least 20")
    gen = generate(args.shape, args.n, args.outdir, args.seed)
    c = gen.counts
    print(
        f"{gen.shape}: {c.total} objects ({c.pools} NodePools, {c.commit_classes} CommitClasses, "
        f"{c.reservation_policies} ReservationPolicies, {c.runtime_classes} RuntimeClasses, {c.nodes} Nodes) "
        f"in {gen.files} files, {gen.bytes / 1e6:.1f} MB, to {args.outdir.as_posix()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
