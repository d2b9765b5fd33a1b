"""Write a synthetic, valid policy repo of N objects for benchmarks.

    python bench/generate.py N OUTDIR [--seed S]

Proportions: 60% NodePools, 15% CommitClasses, 10% ReservationPolicies, 10% RuntimeClasses and 5% Nodes (in
``kind: List`` files, as ``kubectl get nodes -o yaml`` writes them). Files hold 10-50 documents (or List items)
and are spread over subdirectories; a ``.allocatable.yaml`` sits at the root. The output is deterministic for a
given N and seed.

The repo is lint-plausible: every pool carries a commit group, a reservation group and a runtime label, and
each CommitClass / ReservationPolicy / RuntimeClass selects exactly one group, so each selector matches a few
pools and each pool is matched once. About one class in a hundred also selects its neighbour's group: those
are the deliberate conflicts (AL101/AL102) a real repo occasionally has, each with a reasoned
suppression so that render (which refuses on lint errors) can be timed on the same repo.
"""

from __future__ import annotations

import argparse
import random
import shutil
from dataclasses import dataclass
from pathlib import Path

GROUP = "bench.example.com"
SHAPES: tuple[tuple[int, int], ...] = ((4, 16), (8, 32), (16, 64), (32, 128), (64, 256))  # cpu, memory GiB
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")
TEAMS = ("platform", "data", "search", "payments", "ml", "edge", "media", "identity")

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


@dataclass(frozen=True)
class Generated:
    counts: Counts
    files: int
    bytes: int


def split(n: int) -> Counts:
    """N objects in the benchmark's proportions (at least one of each kind)."""
    if n < 5:
        raise ValueError("N must be at least 5 (one object of each kind)")
    cc = max(1, round(n * 0.15))
    rp = max(1, round(n * 0.10))
    rc = max(1, round(n * 0.10))
    nodes = max(1, round(n * 0.05))
    return Counts(n - cc - rp - rc - nodes, cc, rp, rc, nodes)


def _memory_ki(gib: int, rng: random.Random) -> str:
    """What the kubelet reports as memory capacity: MemTotal, a little below the nominal size."""
    return f"{gib * 1024 * 1024 - rng.randint(150_000, 400_000)}Ki"


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


def node_pool(i: int, counts: Counts, rng: random.Random) -> str:
    cpu, mem = SHAPES[i % len(SHAPES)]
    return (
        "apiVersion: policy.allocatable.dev/v1alpha1\n"
        "kind: NodePool\n"
        "metadata:\n"
        f"  name: pool-{i:06d}\n"
        "  annotations:\n"
        f'    {GROUP}/owner: "{TEAMS[i % len(TEAMS)]}@example.com"\n'
        "spec:\n"
        "  labels:\n"
        f"{_labels(i, counts, '    ')}"
        "  capacity:\n"
        f'    cpu: "{cpu}"\n'
        f"    memory: {_memory_ki(mem, rng)}\n"
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


def commit_class(i: int, counts: Counts, rng: random.Random, conflict: bool) -> str:
    groups = [f"cg-{i}"] + ([f"cg-{(i + 1) % counts.commit_classes}"] if conflict else [])
    return (
        "apiVersion: node.k8s.io/v1alpha1\n"
        "kind: CommitClass\n"
        "metadata:\n"
        f"  name: commit-{i:06d}\n"
        f"{_suppress('AL101') if conflict else ''}"
        "spec:\n"
        f"{_group_selector('commit-group', groups)}"
        "  resources:\n"
        "    - name: cpu\n"
        f"      percent: {rng.choice((110, 125, 150, 200, 300))}\n"
        "    - name: memory\n"
        "      percent: 100\n"
    )


def reservation_policy(i: int, counts: Counts, rng: random.Random, conflict: bool) -> str:
    groups = [f"rg-{i}"] + ([f"rg-{(i + 1) % counts.reservation_policies}"] if conflict else [])
    return (
        "apiVersion: policy.allocatable.dev/v1alpha1\n"
        "kind: ReservationPolicy\n"
        "metadata:\n"
        f"  name: reserve-{i:06d}\n"
        f"{_suppress('AL102') if conflict else ''}"
        "spec:\n"
        f"{_group_selector('reservation-group', groups)}"
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
        "  enforceNodeAllocatable:\n"
        "    - pods\n"
        "  maxPods: 110\n"
        "  podPidsLimit: 4096\n"
    )


def runtime_class(i: int, rng: random.Random) -> str:
    handler, cpu, mem = rng.choice((("kata-qemu", "250m", "160Mi"), ("runsc", "100m", "64Mi"), ("crun", "10m", "16Mi")))
    return (
        "apiVersion: node.k8s.io/v1\n"
        "kind: RuntimeClass\n"
        "metadata:\n"
        f"  name: runtime-{i:06d}\n"
        f"handler: {handler}\n"
        "overhead:\n"
        "  podFixed:\n"
        f"    cpu: {cpu}\n"
        f"    memory: {mem}\n"
        "scheduling:\n"
        "  nodeSelector:\n"
        f'    {GROUP}/runtime: "rt-{i}"\n'
    )


def node_item(i: int, counts: Counts, rng: random.Random) -> str:
    """One item of a ``kubectl get nodes -o yaml`` List, trimmed the way the example inventory is."""
    cpu, mem = SHAPES[i % len(SHAPES)]
    memory = _memory_ki(mem, rng)
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


def _chunks(items: list[str], rng: random.Random) -> list[list[str]]:
    out: list[list[str]] = []
    i = 0
    while i < len(items):
        size = rng.randint(10, 50)
        out.append(items[i : i + size])
        i += size
    return out


def generate(n: int, outdir: Path, seed: int = 0) -> Generated:
    """Write the repo into ``outdir`` (emptied first)."""
    rng = random.Random(f"{seed}:{n}")
    counts = split(n)
    if outdir.exists():
        shutil.rmtree(outdir)
    outdir.mkdir(parents=True)
    (outdir / ".allocatable.yaml").write_text(SETTINGS, encoding="utf-8")

    cc_conflicts = set(range(0, counts.commit_classes, 100)) if counts.commit_classes > 1 else set()
    rp_conflicts = set(range(0, counts.reservation_policies, 100)) if counts.reservation_policies > 1 else set()
    kinds: list[tuple[str, str, list[str]]] = [
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
    files = 0
    total = 0
    for directory, kind, docs in kinds:
        for f, chunk in enumerate(_chunks(docs, rng)):
            sub = outdir / directory / (TEAMS[f % len(TEAMS)] if directory == "pools" else "")
            sub.mkdir(parents=True, exist_ok=True)
            text = f"# {len(chunk)} {kind} objects generated by bench/generate.py\n---\n" + "---\n".join(chunk)
            (sub / f"{directory}-{f:04d}.yaml").write_text(text, encoding="utf-8")
            files += 1
            total += len(text)
    nodes = [node_item(i, counts, rng) for i in range(counts.nodes)]
    for f, chunk in enumerate(_chunks(nodes, rng)):
        sub = outdir / "inventory"
        sub.mkdir(exist_ok=True)
        text = (
            f"# {len(chunk)} Nodes, as `kubectl get nodes -o yaml` prints them (generated)\n"
            'apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: ""\nitems:\n' + "".join(chunk)
        )
        (sub / f"nodes-{f:04d}.yaml").write_text(text, encoding="utf-8")
        files += 1
        total += len(text)
    return Generated(counts, files, total)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("n", type=int, metavar="N", help="number of objects (documents and List items)")
    parser.add_argument("outdir", type=Path, metavar="OUTDIR", help="directory to write (emptied first)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    args = parser.parse_args(argv)
    if args.n < 5:
        parser.error("N must be at least 5 (one object of each kind)")
    gen = generate(args.n, args.outdir, args.seed)
    c = gen.counts
    print(
        f"wrote {c.total} objects ({c.pools} NodePools, {c.commit_classes} CommitClasses, "
        f"{c.reservation_policies} ReservationPolicies, {c.runtime_classes} RuntimeClasses, {c.nodes} Nodes) "
        f"in {gen.files} files, {gen.bytes / 1e6:.1f} MB, to {args.outdir.as_posix()}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
