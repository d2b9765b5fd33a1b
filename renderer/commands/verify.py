"""``allocatable verify``: the repo's prediction against live nodes (and the pods running on them)."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from renderer.commands._common import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, add_paths, emit, load, paths_of

if TYPE_CHECKING:
    from renderer.validation.load import LoadResult
    from renderer.verify.result import VerifyResult

NAME = "verify"
ORDER = 33
HELP = "compare what live nodes report (kubectl get nodes/pods) with what the policy repo predicts"
DESCRIPTION = (
    "Model every Node — the repo's inventory Nodes and those of --nodes (a `kubectl get nodes -o json|yaml` dump: "
    "a List or a single Node; - reads standard input) — as a pool of one: its own capacity and labels, its "
    "platform from its labels and kubelet version, the policies that select it. Compare the predicted kubelet "
    "allocatable exactly with status.allocatable (cpu, memory, ephemeral-storage, pods, hugepages-*) and explain "
    "each difference. With --pods (a `kubectl get pods -A -o json` dump), check per node that the requests of "
    "its pods that are not Succeeded/Failed fit the committed allocatable the repo gives it, and their count its "
    "maxPods; with --base, say which nodes the change pushes over."
)
EXIT_CODES = {
    0: "every node matches its prediction and its pods fit",
    1: "a node differs from its prediction, or its pods do not fit",
}


def register(parser: argparse.ArgumentParser) -> None:
    from renderer.verify import formats

    add_paths(parser, many=False)
    parser.add_argument(
        "--nodes", metavar="FILE", default=None, help="kubectl get nodes -o json|yaml output; - reads standard input"
    )
    parser.add_argument(
        "--pods", metavar="FILE", default=None, help="kubectl get pods -A -o json|yaml output; - reads standard input"
    )
    parser.add_argument(
        "--base", metavar="REF", default=None, help="git revision to compare pod fit with (read from git objects)"
    )
    parser.add_argument(
        "--platform",
        metavar="P[/PROFILE][:SELECTOR]",
        action="append",
        default=None,
        help="platform of the --nodes nodes whose labels name none; with /PROFILE the platform's profile (e.g. "
        "openshift/rosa); with :SELECTOR (a label selector, e.g. kind:kubernetes.io/hostname=kind-worker) for the "
        "nodes it selects; repeatable (`allocatable platforms` lists them)",
    )
    parser.add_argument(
        "--all",
        action="store_true",
        help="text output: list every node and every node's pods, not only the nodes that differ or whose pods do not "
        "fit (JSON always holds every node)",
    )
    parser.add_argument(
        "-o",
        "--output",
        choices=formats.names(),
        default="text",
        help="text (default; problems only unless --all), json (every node), markdown (for a PR comment or job "
        "summary) or github (workflow annotations)",
    )


def _fail(message: str) -> int:
    sys.stderr.write(f"allocatable: error: {message}\n")
    return EXIT_USAGE


def _locate(result: LoadResult, verified: VerifyResult) -> None:
    """Point inventory nodes at their metadata.name (positions are resolved only now, for these nodes)."""
    from dataclasses import replace

    from renderer.findings import Finding

    probes = []
    for n in verified.nodes:
        if n.source.path.startswith("<") or n.source.path not in {f.display for f in result.files}:
            continue
        probes.append((n, Finding("", "info", "", n.source.path, source=n.source, field_path=("metadata", "name"))))
    result.resolver.resolve([f for _, f in probes])
    for n, f in probes:
        if f.line:
            n.source = replace(n.source, line=f.line, column=f.column)


def _summary(verified: VerifyResult) -> str:
    n = len(verified.nodes)
    drift = len(verified.drift)
    text = f"verify: {n} node{'s' if n != 1 else ''}: {n - drift} match, {drift} differ{'s' if drift == 1 else ''}"
    if verified.pods is not None:
        bad = len(verified.not_fitting)
        pushed = sum(1 for p in verified.pods if p.pushed_over)
        text += f"; pods: {bad} node{'s' if bad != 1 else ''} over"
        if verified.base_ref is not None:
            text += f" ({pushed} pushed over by the change against {verified.base_ref})"
    return text


def run(args: argparse.Namespace) -> int:
    from renderer.reporters import Report
    from renderer.verify import formats
    from renderer.verify.compare import verify
    from renderer.verify.nodes import read_nodes, read_pods
    from renderer.verify.snapshot import SnapshotError

    if args.nodes == "-" and args.pods == "-":
        return _fail("--nodes and --pods cannot both read standard input; write one of them to a file")
    result = load(args)
    if not result.ok:
        findings = result.finish(result.findings)
        emit(Report("verify", findings, files=len(result.files), objects=result.policies.object_count()), "text")
        return EXIT_USAGE
    from renderer import platforms

    try:
        assignments = [platforms.parse_assignment(v) for v in args.platform or []]
    except ValueError as exc:
        return _fail(str(exc))
    try:
        snapshot = read_nodes(args.nodes, assignments) if args.nodes else []
        pods = read_pods(args.pods) if args.pods is not None else None
    except SnapshotError as exc:
        return _fail(f"{exc}")
    if not snapshot and not any(p.origin == "Node" for p in result.policies.pools):
        return _fail(
            "no nodes to verify: the repo has no Node inventory; pass a dump with --nodes, e.g. "
            "`kubectl get nodes -o json | allocatable verify --nodes -`"
        )
    base = None
    if args.base is not None:
        from renderer.validation.revision import load_revision

        base_load = load_revision(paths_of(args), args.base, max_file_bytes=args.max_file_size)
        if not base_load.ok:
            return _fail(f"the policy repo at {args.base} is not valid; run `allocatable validate` on that revision")
        base = base_load.policies
    verified = verify(result.policies, snapshot, pods, base, args.base)
    verified.show_all = args.all
    _locate(result, verified)
    formats.get(args.output)(verified, sys.stdout)
    sys.stdout.flush()
    for note in verified.notes:
        sys.stderr.write(f"verify: note: {note}\n")
    sys.stderr.write(_summary(verified) + "\n")
    return EXIT_OK if verified.clean else EXIT_FINDINGS
