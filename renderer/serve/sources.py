"""Where a serve cycle reads the nodes (and pods): dump files, kubectl, or the API server from inside the cluster.

Every source ends in the reader every ``--nodes`` dump goes through (``renderer.verify.snapshot`` and
``renderer.verify.nodes.node_pool``): the same bounds, the same checks and the same one located line for a bad
object. A source raises ``SourceError`` (one line) for anything that stops a cycle.

Cost: O(the nodes and pods read); the API source holds one page's text at a time besides the pools built.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

from renderer.errors import UserError
from renderer.loading.documents import Source
from renderer.loading.prune import NODE_FIELDS, KeepSpec
from renderer.serve.kubeapi import ApiError, Endpoint, list_pages
from renderer.verify.nodes import NODE_KIND, POD_KIND, at_field, expect_kind, node_pool, read_nodes, read_pods
from renderer.verify.pods import POD_KEEP, PodError, pod_record
from renderer.verify.snapshot import Item, SnapshotError, read_dump

if TYPE_CHECKING:
    from renderer.models.inventory import Pool
    from renderer.platforms import Assignment
    from renderer.verify.kubectl import Kubectl
    from renderer.verify.pods import PodRecord

__all__ = ["ApiSource", "FileSource", "KubectlSource", "NodeSource", "SourceError"]

#: The pods that hold resources on a node (what verify counts): the API server leaves the others out.
_RUNNING = "status.phase!=Succeeded,status.phase!=Failed"


class SourceError(UserError):
    """The nodes or pods could not be read: one line."""


class NodeSource:
    """Reads the fleet once per cycle."""

    #: How the source is named in the log and the docs (``files``, ``kubectl``, ``in-cluster``).
    kind = ""

    def __init__(self, pods: str | None, assignments: list[Assignment] | None, max_bytes: int | None) -> None:
        self.pods = pods
        self.assignments = assignments
        self.max_bytes = max_bytes

    def nodes(self, stop: threading.Event) -> list[Pool]:
        raise NotImplementedError

    def read(self, stop: threading.Event) -> tuple[list[Pool], list[PodRecord] | None]:
        """The nodes as pools of one and, with a pods source, the pods. Raises ``SourceError``."""
        try:
            nodes = self.nodes(stop)
            pods = self.read_pods(stop)
        except (SnapshotError, ApiError) as exc:
            raise SourceError(str(exc)) from None
        return nodes, pods

    def read_pods(self, stop: threading.Event) -> list[PodRecord] | None:
        return read_pods(self.pods, self.max_bytes) if self.pods is not None else None


class FileSource(NodeSource):
    """A ``kubectl get nodes -o json`` dump read again every cycle (a file a job or a sidecar keeps current)."""

    kind = "files"

    def __init__(
        self, nodes: str, pods: str | None, assignments: list[Assignment] | None, max_bytes: int | None
    ) -> None:
        super().__init__(pods, assignments, max_bytes)
        self.path = nodes

    def nodes(self, stop: threading.Event) -> list[Pool]:
        return read_nodes(self.path, self.assignments, self.max_bytes, mixed=self.path == self.pods)

    def read_pods(self, stop: threading.Event) -> list[PodRecord] | None:
        if self.pods is None:
            return None
        return read_pods(self.pods, self.max_bytes, mixed=self.path == self.pods)


class KubectlSource(NodeSource):
    """``kubectl get nodes -o json`` of a context (outside a cluster)."""

    kind = "kubectl"

    def __init__(
        self, kubectl: Kubectl, pods: str | None, assignments: list[Assignment] | None, max_bytes: int | None
    ) -> None:
        super().__init__(pods, assignments, max_bytes)
        self.kubectl = kubectl

    def nodes(self, stop: threading.Event) -> list[Pool]:
        from renderer.loading.bounds import DEFAULT_MAX_FILE_BYTES
        from renderer.verify.kubectl import live_nodes

        return read_nodes(live_nodes(self.kubectl, self.max_bytes or DEFAULT_MAX_FILE_BYTES), self.assignments)


@dataclass(frozen=True)
class _Page:
    display: str
    items: Iterator[Item]


class ApiSource(NodeSource):
    """The API server of the cluster serve runs in (``renderer.serve.kubeapi``): nodes, and with ``live_pods``
    the pods that hold resources (not Succeeded or Failed)."""

    kind = "in-cluster"

    def __init__(
        self,
        endpoint: Endpoint,
        pods: str | None,
        assignments: list[Assignment] | None,
        max_bytes: int | None,
        live_pods: bool = False,
    ) -> None:
        super().__init__(pods, assignments, max_bytes)
        self.endpoint = endpoint
        self.live_pods = live_pods

    def _pages(
        self, path: str, keep: KeepSpec, kind: tuple[str, str], query: dict[str, str], stop: threading.Event
    ) -> Iterator[_Page]:
        for number, body in list_pages(self.endpoint, path, query, stop):
            display = f"GET {path} (page {number})"
            dump = read_dump(Source.of_bytes(body, display), keep, kind, max_bytes=self.endpoint.max_bytes)
            yield _Page(dump.display, dump.items)

    def nodes(self, stop: threading.Event) -> list[Pool]:
        pools: list[Pool] = []
        seen: dict[str, int] = {}
        for page in self._pages("/api/v1/nodes", NODE_FIELDS, NODE_KIND, {}, stop):
            for item in page.items:
                _typed(item, NODE_KIND)
                expect_kind(item.text, page.display, item, "Node", "the API server", "GET /api/v1/nodes")
                pools.append(node_pool(item, page.display, seen, self.assignments))
        return pools

    def read_pods(self, stop: threading.Event) -> list[PodRecord] | None:
        if not self.live_pods:
            return super().read_pods(stop)
        pods: list[PodRecord] = []
        query = {"fieldSelector": _RUNNING}
        for page in self._pages("/api/v1/pods", POD_KEEP, POD_KIND, query, stop):
            for item in page.items:
                _typed(item, POD_KIND)
                expect_kind(item.text, page.display, item, "Pod", "the API server", "GET /api/v1/pods")
                try:
                    pods.append(pod_record(item.data))
                except PodError as exc:
                    raise at_field(
                        item.text, page.display, item, exc.field_path, f"Pod item {item.index + 1}: {exc}"
                    ) from None
        return pods


def _typed(item: Item, kind: tuple[str, str]) -> None:
    """The items of a List the API server sends carry no ``apiVersion`` and ``kind`` (kubectl adds them when it
    prints): they are the List's kind."""
    if "kind" not in item.data and "apiVersion" not in item.data:
        item.data["apiVersion"], item.data["kind"] = kind
