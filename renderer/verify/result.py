"""What ``allocatable verify`` found: per node, predicted against reported; per node with pods, whether they fit.

``as_json`` is the shape tools and the GitHub Action rely on (``version: 1``)::

    {"version": 1,
     "nodes": [{"name", "platform", "predicted": {res: qty}, "reported": {res: qty}, "match": bool,
                "differences": [{"resource", "predicted", "reported", "delta", "explanation"}],
                "rawAllocatable": {...same keys...}        # only for nodes with node.koordinator.sh/raw-allocatable
               }],
     "pods": [{"node", "requested": {...}, "allocatable": {...}, "pods": n, "maxPods": n, "fits": bool,
               "base": {"allocatable": {...}, "maxPods": n, "fits": bool}}]}   # "base" only with --base

Quantities are canonical Kubernetes strings; ``delta`` is reported − predicted (signed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from renderer.findings import SourceRef
from renderer.loading.git import Revision
from renderer.quantity import Quantity

__all__ = ["Check", "Difference", "NodeCheck", "PodFit", "VerifyResult"]


def _q(d: dict[str, Quantity]) -> dict[str, str]:
    return {k: str(v) for k, v in sorted(d.items())}


@dataclass(frozen=True)
class Difference:
    resource: str
    predicted: Quantity | None
    reported: Quantity | None
    explanation: str
    #: The named cause (``renderer.verify.causes.cause_name``: ``policy-not-rolled-out``, ``eviction-threshold``,
    #: ``eni-max-pods``, ...; ``unknown``, ``missing``, ``koordinator``, ``awaiting-rollout``): a short, bounded label
    #: for metrics. Not in ``as_dict`` (the JSON report's shape is ``version: 1``).
    cause: str = "unknown"

    @property
    def delta(self) -> Quantity | None:
        if self.predicted is None or self.reported is None:
            return None
        return self.reported - self.predicted

    def as_dict(self) -> dict[str, Any]:
        delta = self.delta
        return {
            "resource": self.resource,
            "predicted": None if self.predicted is None else str(self.predicted),
            "reported": None if self.reported is None else str(self.reported),
            "delta": None if delta is None else str(delta),
            "explanation": self.explanation,
        }


@dataclass
class Check:
    """One comparison: what the repo predicts against what the node reports."""

    predicted: dict[str, Quantity]
    reported: dict[str, Quantity]
    differences: list[Difference] = field(default_factory=list)

    @property
    def match(self) -> bool:
        return not self.differences

    def as_dict(self) -> dict[str, Any]:
        return {
            "predicted": _q(self.predicted),
            "reported": _q(self.reported),
            "match": self.match,
            "differences": [d.as_dict() for d in self.differences],
        }


@dataclass
class NodeCheck:
    name: str
    platform: str
    source: SourceRef
    check: Check
    raw: Check | None = None  # Koordinator: kubelet allocatable against node.koordinator.sh/raw-allocatable
    notes: list[str] = field(default_factory=list)
    #: With ``--base``: the node differs from the repo's prediction but matches the prediction at the base revision,
    #: so what differs is the change under review, which has not reached the node yet (not a drift).
    at_base: bool = False

    @property
    def match(self) -> bool:
        return self.check.match and (self.raw is None or self.raw.match)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "platform": self.platform}
        body = self.check.as_dict()
        body["match"] = self.match
        if self.at_base:
            body["matchesBase"] = True
        out.update(body)
        if self.raw is not None:
            out["rawAllocatable"] = self.raw.as_dict()
        return out


@dataclass
class PodFit:
    node: str
    requested: dict[str, Quantity]
    allocatable: dict[str, Quantity]
    pods: int
    max_pods: int
    over: list[str]  # resources (and "pods") the node cannot hold
    base_allocatable: dict[str, Quantity] | None = None
    base_max_pods: int | None = None
    base_over: list[str] | None = None

    @property
    def fits(self) -> bool:
        return not self.over

    @property
    def pushed_over(self) -> bool:
        """Fits at the base revision, not with this change."""
        return self.base_over is not None and not self.base_over and bool(self.over)

    def as_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "node": self.node,
            "requested": _q(self.requested),
            "allocatable": _q(self.allocatable),
            "pods": self.pods,
            "maxPods": self.max_pods,
            "fits": self.fits,
        }
        if self.base_over is not None:
            out["base"] = {
                "allocatable": _q(self.base_allocatable or {}),
                "maxPods": self.base_max_pods,
                "fits": not self.base_over,
            }
        return out


@dataclass
class VerifyResult:
    nodes: list[NodeCheck]
    pods: list[PodFit] | None = None
    base_ref: str | None = None
    notes: list[str] = field(default_factory=list)
    show_all: bool = False  # text output: list matching nodes and fitting pods too (--all), not only problems
    #: with ``--base``: the commit the pods were compared with (its merge-base with HEAD, or the tip asked for)
    base: Revision | None = None
    #: The re-packing simulation with --pods (``renderer.impact.report.ImpactReport``), set by the composer; the
    #: verify reporters print it as a section of their own.
    impact: Any = None
    #: The capacity model of the nodes verified (``renderer.capacity.model.CapacityModel``, a pool of one per node):
    #: ``allocatable serve --configz`` renders each node's KubeletConfiguration fields from it. Not in ``as_json``.
    model: Any = None

    @property
    def drift(self) -> list[NodeCheck]:
        """Nodes that differ from the prediction, but for those that match it at the base revision."""
        return [n for n in self.nodes if not n.match and not n.at_base]

    @property
    def awaiting(self) -> list[NodeCheck]:
        """With a base: nodes that differ only by the change under review (they match the base's prediction)."""
        return [n for n in self.nodes if n.at_base]

    @property
    def differing(self) -> list[NodeCheck]:
        """Every node that differs from the prediction: the drift and the nodes awaiting the change."""
        return [n for n in self.nodes if not n.match]

    @property
    def not_fitting(self) -> list[PodFit]:
        return [p for p in self.pods or [] if not p.fits]

    @property
    def over_as_reported(self) -> list[PodFit]:
        """Nodes whose pods do not fit the allocatable the node reports now (its prediction matches it): no change
        under review explains them."""
        matching = {n.name for n in self.nodes if n.match}
        return [p for p in self.not_fitting if p.node in matching]

    @property
    def clean(self) -> bool:
        return not self.drift and not self.not_fitting

    def clean_with_simulation(self, impact_failed: bool) -> bool:
        """With the re-packing simulation, pods pushed off their node by the repo are judged by where they go
        (``impact_failed``: more newly Pending than allowed); drift and nodes already over what they report still
        fail."""
        return not impact_failed and not self.drift and not self.over_as_reported

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"version": 1}
        if self.base is not None:
            out["base"] = self.base.as_dict()
        out["nodes"] = [n.as_dict() for n in self.nodes]
        out["pods"] = [p.as_dict() for p in self.pods or []]
        return out
