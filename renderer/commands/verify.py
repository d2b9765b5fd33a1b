"""``allocatable verify``: the repo's prediction against live nodes (and the pods running on them)."""

from __future__ import annotations

import argparse
import sys

from renderer.commands.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    add_paths,
    emit_load,
    output_choices,
    paths_of,
    platform_assignments,
    write,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a cold `--help` never needs it)
if TYPE_CHECKING:
    from renderer.verify.kubectl import Kubectl
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
    "maxPods; with --base, say which nodes the change pushes over. With --nodes and --pods, also simulate the repo's "
    "allocatable on that cluster: where the pods that no longer fit would go, the pods left Pending per pool and the "
    "nodes the cluster autoscaler would add (docs/impact.md). With --live (the default of `kubectl allocatable "
    "verify` when --nodes is not given), read the nodes of the current kubectl context with `kubectl get nodes -o "
    "json`."
)
EXIT_CODES = {
    0: "every node matches its prediction and its pods fit",
    1: "a node differs from its prediction, or its pods do not fit (--nodes with --pods: the repo's allocatable "
    "leaves more pods newly Pending than impact.maxNewPendingPods, default 0; pods that the repo pushes off their node "
    "but that find room on another pass)",
}


def register(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, many=False)
    parser.add_argument(
        "--nodes", metavar="FILE", default=None, help="kubectl get nodes -o json|yaml output; - reads standard input"
    )
    parser.add_argument(
        "--live",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="read the nodes of the current kubectl context (`kubectl get nodes -o json`; kubectl must be on PATH) "
        "instead of a --nodes dump; the default of `kubectl allocatable verify` without --nodes",
    )
    parser.add_argument(
        "--context", metavar="NAME", default=None, help="with --live: the kubeconfig context (implies --live)"
    )
    parser.add_argument(
        "--kubeconfig", metavar="FILE", default=None, help="with --live: the kubeconfig file (implies --live)"
    )
    parser.add_argument(
        "--request-timeout",
        type=_seconds,
        default=60,
        metavar="SECONDS",
        help="with --live: kubectl's request timeout (default 60); kubectl is stopped at twice this",
    )
    parser.add_argument(
        "--pods", metavar="FILE", default=None, help="kubectl get pods -A -o json|yaml output; - reads standard input"
    )
    parser.add_argument(
        "--base",
        metavar="REF",
        default=None,
        help="git revision to compare pod fit with (read from git objects): its merge-base with HEAD, as git diff "
        "REF...HEAD compares; REF.. (or --base-tip) for the tip of REF",
    )
    parser.add_argument(
        "--base-tip", action="store_true", help="with --base: compare with the tip of REF, not its merge-base with HEAD"
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
        **output_choices("verify"),
        default="text",
        help="text (default; problems only unless --all), json (every node), yaml, jsonpath=TEMPLATE (kubectl's), "
        "markdown (for a PR comment or job summary) or github (workflow annotations)",
    )


def _seconds(text: str) -> int:
    if text.isascii() and text.isdigit() and 1 <= int(text[:6]) <= 3600 and len(text) <= 6:
        return int(text)
    raise argparse.ArgumentTypeError(f"must be a whole number of seconds from 1 to 3600, got {text[:24]!r}")


def _live(args: argparse.Namespace) -> Kubectl | str | None:
    """The kubectl to read nodes with (None: no live read), or a usage error."""
    from renderer.verify.kubectl import Kubectl

    named = [o for o, v in (("--context", args.context), ("--kubeconfig", args.kubeconfig)) if v is not None]
    live = args.live
    if live is None:  # `kubectl allocatable verify`: the cluster kubectl points at, unless a dump is given
        live = bool(named) or (getattr(args, "_kubectl_plugin", False) and args.nodes is None)
    if not live:
        if named and args.live is False:
            return f"{named[0]} reads a cluster: it cannot go with --no-live"
        return None
    if args.nodes is not None:
        return "--nodes and --live both give the nodes: pass one of them"
    return Kubectl(context=args.context, kubeconfig=args.kubeconfig, timeout=args.request_timeout)


def _fail(message: str) -> int:
    sys.stderr.write(f"allocatable: error: {message}\n")
    return EXIT_USAGE


def _summary(verified: VerifyResult) -> str:
    n = len(verified.nodes)
    drift, waiting = len(verified.drift), len(verified.awaiting)
    text = f"verify: {n} node{'s' if n != 1 else ''}: {n - drift - waiting} match, {drift} differ{'s' if drift == 1 else ''}"
    if waiting:
        text += f", {waiting} await{'s' if waiting == 1 else ''} the change (they match the base)"
    if verified.pods is not None:
        bad = len(verified.not_fitting)
        pushed = sum(1 for p in verified.pods if p.pushed_over)
        text += f"; pods: {bad} node{'s' if bad != 1 else ''} over"
        if verified.base is not None:
            text += f" ({pushed} pushed over by the change against {verified.base.describe()})"
        elif verified.base_ref is not None:
            text += f" ({pushed} pushed over by the change against {verified.base_ref})"
    return text


def run(args: argparse.Namespace) -> int:
    from renderer.loading.files import is_stdin
    from renderer.pipeline import verify

    stdin = [name for name, value in (("--nodes", args.nodes), ("--pods", args.pods)) if value and is_stdin(value)]
    if len(stdin) == 2:
        return _fail("--nodes and --pods cannot both read standard input; write one of them to a file")
    if stdin and any(is_stdin(p) for p in paths_of(args)):
        return _fail(f"the policies and {stdin[0]} cannot both read standard input; write one of them to a file")
    if args.base_tip and args.base is None:
        return _fail("--base-tip goes with --base REF: it says to compare with the tip of REF")
    live = _live(args)
    if isinstance(live, str):
        return _fail(live)
    assignments = platform_assignments(args.platform)
    if isinstance(assignments, str):
        return _fail(assignments)
    done = verify(  # a dump that cannot be read is a SnapshotError, a UserError: one line, exit 2 (renderer.cli)
        paths_of(args),
        nodes=args.nodes,
        pods=args.pods,
        base=args.base,
        base_tip=args.base_tip,
        platform=assignments,
        max_file_bytes=args.max_file_size,
        live=live,
    )
    if not done.load.ok:
        emit_load(done.load, "verify")
        return EXIT_USAGE
    if done.no_nodes:
        return _fail(
            "no nodes to verify: the repo has no Node inventory; read the cluster with --live, or pass a dump with "
            "--nodes, e.g. `kubectl get nodes -o json | allocatable verify --nodes -`"
        )
    if done.base_invalid:
        from renderer.escaping import plain

        at = done.base.describe() if done.base is not None else plain(args.base)
        return _fail(f"the policy repo at {at} is not valid; run `allocatable validate` on that revision")
    verified = done.result
    assert verified is not None
    verified.show_all = args.all
    write("verify", args.output, verified)
    for note in verified.notes:
        sys.stderr.write(f"verify: note: {note}\n")
    sys.stderr.write(_summary(verified) + "\n")
    if done.impact is not None:
        from renderer.reporters.impact.text import summary

        sys.stderr.write(summary(done.impact) + "\n")
        return EXIT_OK if verified.clean_with_simulation(done.impact.failed) else EXIT_FINDINGS
    return EXIT_OK if verified.clean else EXIT_FINDINGS
