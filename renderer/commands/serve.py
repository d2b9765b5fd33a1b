"""``allocatable serve``: verify on a schedule and serve the result as Prometheus metrics (docs/serve.md)."""

from __future__ import annotations

import argparse
import re
import sys

from renderer.commands.common import EXIT_FINDINGS, EXIT_OK, add_paths, error, note, paths_of, platform_assignments

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (a cold `--help` never needs it)
if TYPE_CHECKING:
    from renderer.serve.configz import Reader
    from renderer.serve.service import Service
    from renderer.serve.sources import NodeSource

NAME = "serve"
ORDER = 34
HELP = "re-run verify on a schedule and serve Prometheus metrics of drift, rollout and reservations"
DESCRIPTION = (
    "Every --interval, read the nodes — inside a cluster from the API server through the pod's service account "
    "(the default when KUBERNETES_SERVICE_HOST is set), with --live through kubectl, or from a --nodes dump read "
    "again each time — and verify them against the policy directory, which is loaded again whenever it changes "
    "(a git-sync checkout or a ConfigMap volume). The result of the last good cycle is served on --listen: "
    "/metrics (Prometheus text; a scrape never computes anything), /healthz and /readyz (ready after the first good "
    "cycle). A cycle that fails (the API server down, a policy commit that does not load) keeps the last good "
    "result and counts the error. SIGTERM or SIGINT stops after the cycle in progress. With --configz, also read each "
    "node's kubelet configuration (/configz: through the API server's node proxy, kubectl get --raw, or the saved "
    "outputs of --configz-dir) and compare it with the fields the repo renders for the node. With --once, run one "
    "cycle, print the metrics to stdout and exit. Every metric and alert: docs/serve.md."
)
EXIT_CODES = {
    0: "stopped by SIGTERM or SIGINT; with --once: every node matches its prediction",
    1: "with --once: a node differs from its prediction (drift), or with --configz its kubelet configuration "
    "from the fields the repo renders",
}

_DURATION = re.compile(r"(\d{1,6})(ms|s|m|h)")


def duration(text: str) -> float:
    """``5m``, ``30s``, ``1h30m``, ``250ms`` or whole seconds, from 10 ms to 24 h."""
    total = 0.0
    if text.isascii() and text.isdigit() and len(text) <= 6:
        total = float(text)
    else:
        pos = 0
        for m in _DURATION.finditer(text):
            if m.start() != pos:
                break
            total += int(m.group(1)) * {"ms": 0.001, "s": 1, "m": 60, "h": 3600}[m.group(2)]
            pos = m.end()
        if pos != len(text) or not text:
            total = -1
    if not 0.01 <= total <= 86400:
        raise argparse.ArgumentTypeError(
            f"must be a duration from 10ms to 24h such as 5m, 30s, 1h30m or 250ms, got {text[:24]!r}"
        )
    return total


def listen(text: str) -> tuple[str, int]:
    from renderer.serve.server import parse_listen

    try:
        return parse_listen(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def register(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, many=False)
    parser.add_argument(
        "--listen",
        type=listen,
        default=("0.0.0.0", 8080),
        metavar="ADDR",
        help="HOST:PORT, :PORT or [IPv6]:PORT to serve on (default :8080; port 0 picks a free one, printed on stderr)",
    )
    parser.add_argument(
        "--interval", type=duration, default=300.0, metavar="DURATION", help="time between cycles (default 5m)"
    )
    parser.add_argument(
        "--nodes", metavar="FILE", default=None, help="a kubectl get nodes -o json|yaml dump, read again every cycle"
    )
    parser.add_argument(
        "--live", action="store_true", help="read the nodes of a kubectl context (`kubectl get nodes -o json`)"
    )
    parser.add_argument("--context", metavar="NAME", default=None, help="with --live: the kubeconfig context")
    parser.add_argument("--kubeconfig", metavar="FILE", default=None, help="with --live: the kubeconfig file")
    parser.add_argument(
        "--in-cluster",
        action="store_true",
        help="read the nodes from the API server through the pod's service account (the default when "
        "KUBERNETES_SERVICE_HOST is set and neither --nodes nor --live is given)",
    )
    parser.add_argument(
        "--pods", metavar="FILE", default=None, help="a kubectl get pods -A -o json|yaml dump, read again every cycle"
    )
    parser.add_argument(
        "--cluster-pods",
        action="store_true",
        help="in a cluster: also list the pods that hold resources (the ClusterRole then needs pods list)",
    )
    parser.add_argument(
        "--platform",
        metavar="P[/PROFILE][:SELECTOR]",
        action="append",
        default=None,
        help="platform of the nodes whose labels name none, as for verify; repeatable",
    )
    parser.add_argument(
        "--configz",
        action="store_true",
        help="also read each node's kubelet configuration (/configz, through the API server's node proxy: the "
        "ClusterRole then needs nodes/proxy get) and compare it with the fields the repo renders",
    )
    parser.add_argument(
        "--configz-dir",
        metavar="DIR",
        default=None,
        help="with --configz: read saved outputs instead, DIR/NODE.json each "
        "(kubectl get --raw /api/v1/nodes/NODE/proxy/configz), again every cycle",
    )
    parser.add_argument("--tls-cert", metavar="FILE", default=None, help="serve HTTPS with this certificate (PEM)")
    parser.add_argument("--tls-key", metavar="FILE", default=None, help="the private key of --tls-cert (PEM)")
    parser.add_argument(
        "--once", action="store_true", help="run one cycle, print the metrics to stdout and exit (no server)"
    )


def _source(args: argparse.Namespace) -> NodeSource | str:
    """The node source the options ask for, or the usage error."""
    import os

    from renderer.serve.sources import ApiSource, FileSource, KubectlSource

    assignments = platform_assignments(args.platform)
    if isinstance(assignments, str):
        return assignments
    chosen = [
        o
        for o, on in (("--nodes", args.nodes is not None), ("--live", args.live), ("--in-cluster", args.in_cluster))
        if on
    ]
    if len(chosen) > 1:
        return f"{chosen[0]} and {chosen[1]} both give the nodes: pass one of them"
    if (args.context or args.kubeconfig) and not args.live:
        return "--context and --kubeconfig go with --live"
    if args.cluster_pods and args.pods is not None:
        return "--pods and --cluster-pods both give the pods: pass one of them"
    for option, value in (("--nodes", args.nodes), ("--pods", args.pods)):
        if value == "-":
            return f"{option} - (standard input) cannot be read again every cycle: pass a file"
    if args.nodes is not None:
        return FileSource(args.nodes, args.pods, assignments, args.max_file_size)
    if args.live:
        from renderer.verify.kubectl import Kubectl

        return KubectlSource(Kubectl(args.context, args.kubeconfig), args.pods, assignments, args.max_file_size)
    if args.in_cluster or os.environ.get("KUBERNETES_SERVICE_HOST"):
        from renderer.serve.kubeapi import ApiError, Endpoint

        try:
            endpoint = Endpoint.in_cluster()
        except ApiError as exc:
            return str(exc)
        return ApiSource(endpoint, args.pods, assignments, args.max_file_size, live_pods=args.cluster_pods)
    return (
        "no nodes to read: outside a cluster pass --live (kubectl) or --nodes FILE; inside one, serve reads the API "
        "server (KUBERNETES_SERVICE_HOST is not set here)"
    )


def _configz(args: argparse.Namespace, source: NodeSource) -> Reader | str | None:
    """Where ``--configz`` reads each node's kubelet configuration (None: it is off), or the usage error."""
    import os

    if args.configz_dir is not None and not args.configz:
        return "--configz-dir goes with --configz"
    if not args.configz:
        return None
    from renderer.serve.configz import ApiReader, DirReader, KubectlReader
    from renderer.serve.sources import ApiSource, KubectlSource

    if args.configz_dir is not None:
        if not os.path.isdir(args.configz_dir):
            return f"--configz-dir {args.configz_dir}: not a directory"
        return DirReader(args.configz_dir)
    if isinstance(source, ApiSource):
        return ApiReader(source.endpoint)
    if isinstance(source, KubectlSource):
        return KubectlReader(source.kubectl)
    return (
        "--configz with --nodes reads saved outputs: pass --configz-dir DIR holding NODE.json for each node "
        "(kubectl get --raw /api/v1/nodes/NODE/proxy/configz)"
    )


def run(args: argparse.Namespace) -> int:
    import importlib.util

    if importlib.util.find_spec("prometheus_client") is None:
        return error(
            "allocatable serve needs prometheus-client, which is not installed: pip install 'allocatable[serve]'"
        )
    if args.cluster_pods and args.nodes is not None:
        return error("--cluster-pods reads the pods from the API server: it goes with --in-cluster, not --nodes")
    if (args.tls_cert is None) != (args.tls_key is None):
        return error("--tls-cert and --tls-key go together")
    source = _source(args)
    if isinstance(source, str):
        return error(source)
    reader = _configz(args, source)
    if isinstance(reader, str):
        return error(reader)
    from renderer.serve.service import Service

    (path,) = paths_of(args)
    service = Service.of(path, source, args.interval, args.max_file_size)
    service.configz = reader
    if args.once:
        return _once(service)
    return _serve(service, args)


def _once(service: Service) -> int:
    import io

    said, service.log = service.log, io.StringIO()  # the cycle's lines, held: a failure is said once, as the error
    good = service.cycle()
    if not good or service.evaluation is None:
        return error(service.last_error or "the cycle failed")
    said.write(service.log.getvalue())
    said.flush()
    sys.stdout.write(service.evaluation.text.decode("utf-8"))
    sys.stdout.flush()
    tally = service.evaluation.tally
    return EXIT_FINDINGS if tally.drift or tally.config_drift else EXIT_OK


def _serve(service: Service, args: argparse.Namespace) -> int:
    import signal
    import threading

    from renderer.serve.server import MetricsServer, tls_context

    tls = None
    if args.tls_cert is not None:
        try:
            tls = tls_context(args.tls_cert, args.tls_key)
        except (OSError, ValueError) as exc:
            return error(f"--tls-cert/--tls-key: {exc}; pass a PEM certificate and its private key")
    try:
        server = MetricsServer(args.listen, service, tls)
    except OSError as exc:
        host, port = args.listen
        return error(f"cannot listen on {host}:{port}: {exc.strerror or exc}; choose another --listen address")
    stop = threading.Event()

    def stopping(signum: int, _frame: object) -> None:
        stop.set()

    before = {s: signal.signal(s, stopping) for s in (signal.SIGTERM, signal.SIGINT)}
    server.start()
    note(f"serve: listening on {server.url} (/metrics, /healthz, /readyz); every {args.interval:g}s")
    try:
        service.run(stop)
    finally:
        server.stop()
        for s, handler in before.items():
            signal.signal(s, handler)
    note(f"serve: stopped after {service.cycles} cycle{'s' if service.cycles != 1 else ''}")
    return EXIT_OK
