"""``allocatable recommend``: reservations and commit percents per pool, from measured usage (docs/recommend.md)."""

from __future__ import annotations

import argparse

from renderer.commands.common import (
    EXIT_FINDINGS,
    EXIT_OK,
    add_paths,
    error,
    note,
    output_choices,
    paths_of,
    write,
)

NAME = "recommend"
ORDER = 37
HELP = "recommend kube-/system-reserved and CommitClass percents per pool from measured usage (Prometheus)"
DESCRIPTION = (
    "Read measured usage — exported Prometheus query results (--usage FILE..., each named after its query; "
    "--print-queries prints the queries and the promtool commands that export them) or a Prometheus-compatible "
    "server (--prometheus URL) — place each node into the repo's pools (inventory Nodes by name, --nodes dump "
    "nodes by their labels against the NodePools' spec.labels), and recommend per pool: kube-reserved and "
    "system-reserved memory and cpu from the largest daily peak plus a 15 % margin (a per-pod memory formula where "
    "the kubelet's and runtime's memory grows with the pods), and CommitClass percents (cpu from the pods' p99 "
    "usage over requests at a target utilization, memory from peaks only), each beside the repo's current value, "
    "the headroom, every node-day that exceeded the current value and a walk-forward back-test. A pool with too "
    "little data gets no number, only what is missing. -o yaml writes the ReservationPolicy and CommitClass "
    "documents that replace those selecting the advised pools, then the `allocatable diff` command that reviews them."
)
EXIT_CODES = {
    0: "reported",
    1: "with --strict: a pool has too little data for a recommendation (the report says what is missing)",
}


def _positive(text: str) -> int:
    if text.isascii() and text.isdigit() and 1 <= int(text[:6]) <= 10000 and len(text) <= 6:
        return int(text)
    raise argparse.ArgumentTypeError(f"must be a whole number from 1 to 10000, got {text[:24]!r}")


def days(text: str) -> int:
    body = text[:-1] if text.endswith("d") else text
    if body.isascii() and body.isdigit() and 1 <= int(body[:5]) <= 400 and len(body) <= 5:
        return int(body)
    raise argparse.ArgumentTypeError(f"must be a number of days from 1d to 400d, e.g. 14d; got {text[:24]!r}")


def date(text: str) -> int:
    from datetime import datetime, timezone

    try:
        day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=timezone.utc)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a date YYYY-MM-DD, got {text[:24]!r}") from None
    return int(day.timestamp())


def _percent(text: str) -> int:
    if text.isascii() and text.isdigit() and 10 <= int(text[:4]) <= 100 and len(text) <= 4:
        return int(text)
    raise argparse.ArgumentTypeError(f"must be a whole percentage from 10 to 100, got {text[:24]!r}")


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if 0.1 <= value <= 3600:
        return value
    raise argparse.ArgumentTypeError(f"must be seconds from 0.1 to 3600, got {text[:24]!r}")


def add_connection(parser: argparse.ArgumentParser) -> None:
    """The ``--prometheus`` connection options (auth, TLS, timeout, retries): recommend's, and lint's for AL216."""
    live = parser.add_argument_group("--prometheus connection")
    live.add_argument("--bearer-token-file", metavar="FILE", default=None, help="a file holding a bearer token")
    live.add_argument("--username", metavar="NAME", default=None, help="basic auth user")
    live.add_argument(
        "--password-file",
        metavar="FILE",
        default=None,
        help="basic auth password file (else $ALLOCATABLE_PROMETHEUS_PASSWORD)",
    )
    live.add_argument("--certificate-authority", metavar="FILE", default=None, help="CA bundle for https")
    live.add_argument("--insecure-skip-tls-verify", action="store_true", help="do not verify the server's certificate")
    live.add_argument("--timeout", type=_seconds, default=60.0, metavar="SECONDS", help="per request (default 60)")
    live.add_argument("--retries", type=int, choices=range(0, 6), default=2, metavar="N", help="default 2")


def connection_misused(args: argparse.Namespace) -> str | None:
    """Why the connection options cannot be used without ``--prometheus`` (None when they can)."""
    given = (args.bearer_token_file, args.username, args.password_file, args.certificate_authority)
    if args.prometheus is None and (any(v is not None for v in given) or args.insecure_skip_tls_verify):
        return (
            "--bearer-token-file, --username, --password-file, --certificate-authority and --insecure-skip-tls-verify "
            "go with --prometheus"
        )
    return None


def register(parser: argparse.ArgumentParser) -> None:
    add_paths(parser, many=False)
    source = parser.add_argument_group("usage (one of)")
    source.add_argument(
        "--usage",
        metavar="FILE",
        nargs="+",
        action="extend",
        default=None,
        help="exported /api/v1/query_range or /api/v1/query JSON (or promtool query -o json), one query per file, "
        "named <query>.json or <query>.<anything>.json",
    )
    source.add_argument("--prometheus", metavar="URL", default=None, help="a Prometheus-compatible HTTP API")
    source.add_argument(
        "--print-queries",
        action="store_true",
        help="print each query with its window and the promtool command that exports it, and exit",
    )
    add_connection(parser)
    window = parser.add_argument_group("window and coverage")
    window.add_argument(
        "--window",
        type=days,
        default=14,
        metavar="DAYS",
        help="days of usage to ask, with --prometheus and --print-queries (default 14d; --usage files hold their own)",
    )
    window.add_argument(
        "--end",
        type=date,
        default=None,
        metavar="YYYY-MM-DD",
        help="the day after the window (default today, UTC)",
    )
    window.add_argument("--min-days", type=_positive, default=7, metavar="N", help="days of data a pool needs (7)")
    window.add_argument(
        "--min-nodes",
        type=_positive,
        default=1,
        metavar="N",
        help="nodes with data a pool needs (1; at most its count)",
    )
    window.add_argument(
        "--cpu-target",
        type=_percent,
        default=80,
        metavar="PERCENT",
        help="cpu usage of allocatable to stay under at the pods' p99 (default 80)",
    )
    window.add_argument("--strict", action="store_true", help="exit 1 when a pool has too little data")
    parser.add_argument(
        "--nodes", metavar="FILE", default=None, help="kubectl get nodes -o json|yaml: places nodes into NodePools"
    )
    parser.add_argument(
        "--live",
        action="store_true",
        help="place the nodes by the labels of the current kubectl context's nodes (`kubectl get nodes -o json`), "
        "instead of a --nodes dump",
    )
    parser.add_argument("--context", metavar="NAME", default=None, help="with --live: the kubeconfig context")
    parser.add_argument(
        "--pods",
        metavar="FILE",
        default=None,
        help="kubectl get pods -A -o json (with --nodes): re-pack them under the recommendation, nodes freed per pool",
    )
    parser.add_argument(
        "--snapshot",
        metavar="FILE",
        default=None,
        help="kubectl get nodes,pods -A -o json: places the nodes (unless --nodes) and re-packs the pods under the "
        "recommendation (docs/impact.md's simulation): the nodes freed per pool",
    )
    parser.add_argument("--pool", metavar="NAME", action="append", default=None, help="only this pool (repeatable)")
    parser.add_argument(
        "-o",
        "--output",
        **output_choices("recommend"),
        default="text",
        help="text (default), markdown, json, jsonpath=TEMPLATE, or yaml: the ReservationPolicy and CommitClass "
        "documents to write over the repo's, then the command that reviews them",
    )


def window_of(args: argparse.Namespace) -> tuple[int, int]:
    import time

    from renderer.recommend.queries import DAY

    end = args.end if args.end is not None else int(time.time()) // DAY * DAY
    start = end - (args.window - 1) * DAY
    if start < DAY:  # the first day a sample can be booked on is 1970-01-01 (a time of 0 is no measurement)
        from renderer.loading.files import UsageError

        raise UsageError(f"--end and --window: the window would start before 1970-01-02 ({args.window} days)")
    return start, end


def server_of(args: argparse.Namespace) -> object:
    import os

    from renderer.recommend.prometheus import Server

    return Server(
        args.prometheus,
        bearer_token_file=args.bearer_token_file,
        username=getattr(args, "username", None),
        password_file=getattr(args, "password_file", None),
        password=os.environ.get("ALLOCATABLE_PROMETHEUS_PASSWORD"),
        ca_file=getattr(args, "certificate_authority", None),
        insecure=getattr(args, "insecure_skip_tls_verify", False),
        timeout=getattr(args, "timeout", 60.0),
        retries=getattr(args, "retries", 2),
    )


def _print_queries(args: argparse.Namespace) -> int:
    import shlex
    import sys
    import urllib.parse
    from datetime import datetime, timezone

    from renderer.pipeline import recommend_queries
    from renderer.recommend.prometheus import Server
    from renderer.recommend.queries import promtool_command

    start, end = window_of(args)
    url = shlex.quote(Server(args.prometheus).shown) if args.prometheus else "http://prometheus:9090"  # sh export.sh
    lines = []
    stamp = {t: datetime.fromtimestamp(t, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") for t in (start, end)}
    from renderer.loading.files import UsageError
    from renderer.recommend.queries import QUERIES

    try:
        paths = paths_of(args)
    except UsageError:  # no policy repo here: the default queries (kube-prometheus-stack's)
        paths = None
    header = ""
    if args.bearer_token_file:  # read when the script runs, never printed (promtool query range --header)
        header = shlex.quote("--header=Authorization: Bearer ") + f'"$(cat {shlex.quote(args.bearer_token_file)})"'
    elif args.username is not None or (args.prometheus and Server(args.prometheus).has_userinfo):
        lines.append(
            "# the server takes basic auth, which is never printed: put the user and password into each command's "
            "URL (https://USER:PASSWORD@host), as promtool sends a URL's userinfo"
        )
    if args.prometheus and urllib.parse.urlsplit(args.prometheus).query:
        lines.append(
            "# the --prometheus URL's query parameters are never printed (they may hold a token): add them to each "
            "command's URL"
        )
    prefix = "promtool query range "
    for q in recommend_queries(paths, max_file_bytes=args.max_file_size) if paths is not None else QUERIES:
        lines.append(f"# {q.name}: {q.what}")
        command = promtool_command(q, stamp[start], stamp[end], url)
        assert command.startswith(prefix)
        lines.append(prefix + header + " " + command[len(prefix) :] if header else command)
    sys.stdout.write("\n".join(lines) + "\n")
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    import shlex

    from renderer.commands.common import emit_load
    from renderer.loading.files import is_stdin

    given = [o for o, v in (("--usage", args.usage), ("--prometheus", args.prometheus)) if v]
    if args.print_queries:
        if args.usage:
            return error("--print-queries prints the queries to export; it reads no --usage")
        return _print_queries(args)
    if len(given) != 1:
        return error(
            "give the measured usage: --usage FILE... (exports; --print-queries prints how to make them) or "
            "--prometheus URL"
            if not given
            else "--usage and --prometheus both give the usage: pass one of them"
        )
    misused = connection_misused(args)
    if misused is not None:
        return error(misused)
    if any(is_stdin(u) for u in args.usage or []):
        return error("--usage reads files named after their query; standard input has no name: write it to a file")
    if args.pods is not None and (args.nodes is None or args.snapshot is not None):
        return error("--pods goes with --nodes (the nodes they run on); or give both in one List with --snapshot")
    if args.live and (args.nodes is not None or args.snapshot is not None):
        return error("--live reads the nodes from the cluster: it cannot go with --nodes or --snapshot")
    if args.context is not None and not args.live:
        return error("--context names the cluster --live reads: give --live too")
    snapshot = [args.snapshot] if args.snapshot else [args.nodes, args.pods] if args.pods else None
    kubectl = None
    if args.live:
        from renderer.verify.kubectl import Kubectl

        kubectl = Kubectl(context=args.context)
    from renderer.pipeline import recommend
    from renderer.recommend.advice import Options

    paths = paths_of(args)
    # a command line to paste into a shell: every path quoted for it (unchanged when it needs no quoting)
    review = "allocatable diff --base HEAD" + (
        f" {shlex.quote(args.paths.as_posix())}" if args.paths is not None else ""
    )
    if args.snapshot:
        review += f" --snapshot {shlex.quote(args.snapshot)}"
    elif args.pods:
        review += f" --nodes {shlex.quote(args.nodes)} --pods {shlex.quote(args.pods)}"
    try:  # an export or dump that cannot be read is a UserError: one line, exit 2 (renderer.cli)
        done = recommend(
            paths,
            usage=args.usage,
            server=server_of(args) if args.prometheus else None,  # type: ignore[arg-type]
            window=window_of(args),
            nodes=args.nodes,
            snapshot=snapshot,
            live=kubectl,
            pools=args.pool,
            options=Options(min_days=args.min_days, min_nodes=args.min_nodes, cpu_target=args.cpu_target / 100),
            max_file_bytes=args.max_file_size,
            review=review,
        )
    except KeyError as exc:
        return error(f"--pool {exc.args[0]}: the repo has no such pool; `allocatable explain` lists them")
    if done.result is None:
        emit_load(done.load, "recommend")
        return 2
    result = done.result
    if args.output == "yaml":
        import sys

        from renderer.reporters.recommend import write_documents

        write_documents(result, sys.stdout)
    else:
        write("recommend", args.output, result)
    for text in result.notes:
        note(f"recommend: note: {text}")
    if result.asked:
        note(f"recommend: asked {result.asked}")
    advised = len(result.pools) - len(result.below_coverage)
    summary = f"recommend: {len(result.pools)} pool{'s' if len(result.pools) != 1 else ''}, {advised} advised"
    if result.below_coverage:
        summary += f", {len(result.below_coverage)} with too little data ({', '.join(result.below_coverage)})"
    if result.unplaced_count:
        summary += f"; {result.unplaced_count} node(s) in no pool"
    note(summary)
    return EXIT_FINDINGS if args.strict and result.below_coverage else EXIT_OK
