"""What ``recommend`` and rule AL216 read besides the policies: measured usage (``--usage`` exports, or a Prometheus
server's answers over a window) asked with the repo's ``recommend.selectors``, and the ``kubectl get nodes`` dump
that places nodes into NodePools. ``renderer.pipeline`` composes these; each raises its reader's errors
(``UsageInputError``, ``SnapshotError``).

Cost: the readers' (``renderer.recommend.source``, ``renderer.recommend.prometheus``, ``renderer.verify.nodes``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel
    from renderer.measured import Measured
    from renderer.models.inventory import Pool
    from renderer.promql import Selectors
    from renderer.recommend.prometheus import Server
    from renderer.recommend.queries import Query
    from renderer.recommend.usage import Usage
    from renderer.validation.validate import PolicySet
    from renderer.verify.kubectl import Kubectl

#: ``--usage`` exports are streamed: their bound is larger than a policy file's (a raw fortnight is hundreds of MB).
USAGE_MAX_BYTES = 1 << 32


def selectors(policies: PolicySet) -> Selectors:
    """The label selectors and metrics the queries use: the repo's ``recommend.selectors`` (its .allocatable.yaml)."""
    return policies.settings.recommend.selectors.promql()


def read_usage(
    policies: PolicySet,
    files: tuple[str, ...],
    server: Server | None,
    window: tuple[int, int] | None,
    max_file_bytes: int | None,
) -> tuple[Usage, tuple[Query, ...]]:
    """The usage ``files`` hold (offline), or the ``server``'s answers over ``window`` (Unix seconds), with the
    queries asked."""
    from renderer.recommend.queries import queries
    from renderer.recommend.source import read_files

    chosen = selectors(policies)
    asked = queries(chosen)
    usage_bytes = max(max_file_bytes or 0, USAGE_MAX_BYTES)
    if server is not None:
        from renderer.recommend.prometheus import fetch

        assert window is not None
        return fetch(server, asked, window[0], window[1], usage_bytes), asked
    field = "rssBytes" if chosen.memory_metric == "container_memory_rss" else "workingSetBytes"
    return read_files(list(files), asked, usage_bytes, field), asked


def node_dump(nodes: str | None, live: Kubectl | None, max_file_bytes: int | None) -> list[Pool] | None:
    """The nodes of the ``nodes`` dump (``kubectl get nodes``), else of the ``live`` cluster (``kubectl get nodes -o
    json``), as pools of one; None when neither is given."""
    from renderer.verify.nodes import read_nodes

    if nodes is not None:
        return read_nodes(nodes, None, max_file_bytes)
    if live is not None:
        from renderer.loading.bounds import DEFAULT_MAX_FILE_BYTES
        from renderer.verify.kubectl import live_nodes

        return read_nodes(live_nodes(live, max_file_bytes or DEFAULT_MAX_FILE_BYTES), None, max_file_bytes)
    return None


def measured(
    policies: PolicySet,
    model: CapacityModel,
    files: tuple[str, ...],
    server: Server | None,
    window: tuple[int, int] | None,
    nodes: str | None,
    max_file_bytes: int | None,
) -> Measured:
    """Per pool of ``model``, the measured peaks of its reserved slices (rule AL216), nodes placed by the inventory
    and the ``nodes`` dump."""
    from renderer.recommend.run import measured_pools

    usage, _ = read_usage(policies, files, server, window, max_file_bytes)
    return measured_pools(model, usage, node_dump(nodes, None, max_file_bytes) or [])
