"""What a platform module declares, and the shared machinery that reads it.

A platform module (``renderer/platforms/<name>.py``, the name with ``_`` written as ``-``) defines one subclass of
:class:`Platform` and decorates it with :func:`register`. The class says, as data where it can:

- ``signals``: how a Node shows it is on this platform (labels, ``status.nodeInfo``, ``spec.providerID``, the node
  name, a ``status.capacity`` resource), each with where that convention comes from; :meth:`Platform.detect` tests
  them in order; ``hints``: signs a Node carries that point to the platform without proving it (a cloud's
  providerID or volume-attach resource, which self-managed clusters on that cloud share). Both together are the
  platform's identity (:meth:`Platform.identity`): ``verify`` ranks the platforms it suggests for a node it cannot
  explain by them, naming the sign;
- ``formulas``: the reservation formulas a ReservationPolicy may name (``autoSizing.formula``);
- ``defaults``: what the platform reserves by itself, and ``history``: which default each release applies, a dated
  entry per change citing the upstream commit or document; :meth:`Platform.default` picks one for a pool;
- where machine memory comes from (:meth:`Platform.machine_memory`), the ENI-limited maxPods
  (:meth:`Platform.eni_max_pods`), and extra formula inputs (:meth:`Platform.shape_inputs`);
- its ``causes`` for ``verify`` (functions of a :class:`Probe`) and its ``render_notes``.

Nothing here names a platform. Pools are read through :class:`PoolView` (the fields of
``renderer.models.inventory.Pool``), so this package imports no stage above the capacity arithmetic.
Cost: detection O(signals) per node; a default O(1) per pool.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Literal, NamedTuple, Protocol

from renderer.platforms._formula import KUBELET_DEFAULTS, Formula
from renderer.platforms._machines import MachineMemory, configured_memory
from renderer.reprs import fields_repr

if TYPE_CHECKING:
    from renderer.quantity import Quantity

__all__ = [
    "KUBELET_DEFAULTS",
    "Default",
    "Facts",
    "Platform",
    "PoolView",
    "Probe",
    "Release",
    "SettingsView",
    "Signal",
    "kubelet_minor",
    "profile_of",
    "register",
]

_VERSION = re.compile(r"^v?(\d+)\.(\d+)")


class SettingsView(Protocol):
    """What the platforms read of the repository settings (``renderer.models.settings.Settings``)."""

    @property
    def machineTypes(self) -> Mapping[str, Any]: ...
    @property
    def platformDefaults(self) -> Mapping[str, str]: ...


Settings = SettingsView


class Facts(Protocol):
    """What detection reads of a Node."""

    @property
    def name(self) -> str: ...
    @property
    def labels(self) -> Mapping[str, str]: ...
    @property
    def node_info(self) -> Mapping[str, str]: ...
    @property
    def provider_id(self) -> str: ...
    @property
    def resources(self) -> tuple[str, ...]:
        """Every resource name of ``status.capacity`` (``attachable-volumes-azure-disk`` and ``vpc.amazonaws.com/*``
        included, which the capacity model does not read)."""
        ...


class PoolView(Facts, Protocol):
    """What the platforms read of a pool (``renderer.models.inventory.Pool``)."""

    @property
    def origin(self) -> str: ...
    @property
    def platform(self) -> str: ...
    @property
    def profile(self) -> str | None: ...
    @property
    def capacity(self) -> Mapping[str, Quantity]: ...
    @property
    def machine_config_pool(self) -> str | None: ...
    @property
    def max_pods(self) -> int | None: ...
    @property
    def machine_memory(self) -> Quantity | None: ...
    @property
    def boot_disk(self) -> Quantity | None: ...
    @property
    def instance_type(self) -> str | None: ...
    @property
    def ref(self) -> str: ...


class Probe(Protocol):
    """One differing resource of one node, for a platform's verify cause (``renderer.verify.causes.Situation``)."""

    @property
    def resource(self) -> str: ...
    @property
    def predicted(self) -> Quantity: ...
    @property
    def reported(self) -> Quantity: ...
    @property
    def delta(self) -> Quantity: ...
    @property
    def pool(self) -> PoolView: ...
    @property
    def settings(self) -> Settings: ...
    @property
    def formula(self) -> Formula | None: ...
    @property
    def default_name(self) -> str | None: ...
    @property
    def max_pods(self) -> int: ...
    def matches_with(self, *, pool: Any = None, settings: Any = None) -> bool: ...


Cause = Callable[[Probe], "str | None"]


class Signal(NamedTuple):
    """One way a Node shows its platform. ``kind``: label (a key, optionally ``key=value``), label-prefix,
    providerID (a prefix), kubeletVersion / osImage (a regular expression), name (a regular expression), resource
    (a prefix of a ``status.capacity`` resource name)."""

    kind: Literal["label", "label-prefix", "providerID", "kubeletVersion", "osImage", "name", "resource"]
    pattern: str
    source: str  # where the convention is documented or seen

    def matches(self, facts: Facts) -> bool:
        if self.kind == "label":
            key, _, value = self.pattern.partition("=")
            got = facts.labels.get(key)
            return got is not None and (not value or got == value)
        if self.kind == "label-prefix":
            return any(k.startswith(self.pattern) for k in facts.labels)
        if self.kind == "providerID":
            return facts.provider_id.startswith(self.pattern)
        if self.kind == "name":
            return re.search(self.pattern, facts.name) is not None
        if self.kind == "resource":
            return any(r.startswith(self.pattern) for r in facts.resources)
        text = facts.node_info.get(self.kind, "")
        return bool(text) and re.search(self.pattern, text) is not None

    def shown(self, facts: Facts) -> str | None:
        """What ``facts`` carry that matches, in a few words (``attachable-volumes-azure-disk``, ``label
        kubernetes.azure.com/cluster``, ``providerID aws://``), or None when the signal does not match."""
        if not self.matches(facts):
            return None
        if self.kind == "label":
            return f"label {self.pattern}"
        if self.kind == "label-prefix":
            return "label " + min(k for k in facts.labels if k.startswith(self.pattern))
        if self.kind == "providerID":
            return f"providerID {self.pattern}"
        if self.kind == "name":
            return f"name {facts.name}"
        if self.kind == "resource":
            return min(r for r in facts.resources if r.startswith(self.pattern))
        return f"{self.kind} {facts.node_info[self.kind]}"

    def describe(self) -> str:
        what = {
            "label": "label",
            "label-prefix": "a label starting with",
            "providerID": "spec.providerID starting with",
            "kubeletVersion": "status.nodeInfo.kubeletVersion matching",
            "osImage": "status.nodeInfo.osImage matching",
            "name": "node name matching",
            "resource": "a status.capacity resource starting with",
        }[self.kind]
        return f"{what} `{self.pattern}`"


@dataclass(frozen=True, repr=False)
class Default:
    """What a platform reserves by itself: a formula (None: nothing) and its hard eviction (None: the kubelet's
    defaults; ``{}``: none at all). ``reason`` says why a pool gets it."""

    __repr__ = fields_repr

    name: str  # shown as platform-default:<name>
    title: str
    formula: Formula | None = None
    eviction_hard: Mapping[str, str] | None = None
    sources: tuple[str, ...] = ()
    reason: str = ""
    platform: str = ""
    os: str | None = None  # only nodes of this operating system ("windows") get it

    @property
    def source(self) -> str:
        return f"platform-default:{self.name}"

    def because(self, reason: str, formula: Formula | None = None) -> Default:
        """This default for one pool: with the reason, and the formula variant the pool's release really uses."""
        return Default(
            self.name,
            self.title,
            formula if formula is not None else self.formula,
            self.eviction_hard,
            self.sources,
            reason,
            self.platform,
            self.os,
        )

    @property
    def eviction(self) -> dict[str, str]:
        return dict(KUBELET_DEFAULTS if self.eviction_hard is None else self.eviction_hard)


@dataclass(frozen=True, repr=False)
class KubeletFiles:
    """Where a platform's kubelet reads its KubeletConfiguration when the pool's settings reach it as a drop-in
    (``--config`` plus ``--config-dir``, merged as ``renderer.capacity.kubelet_dropins`` describes).

    ``base``: the ``--config`` file (None: the kubelet gets none); ``directory``: ``--config-dir``; ``platform_file``:
    the file holding what the platform reserves by itself (its ``Default``: reserved maps, evictionHard, and
    maxPods when ``sets_max_pods``), the base or a drop-in; ``ours``: where the fields this repository renders land;
    ``delivery``: only pools with that ``NodePool.spec.delivery`` (None: every pool of the platform);
    ``os_image``: a Node (``verify``) whose ``status.nodeInfo.osImage`` starts with it reads the files whatever
    brought its settings (None: Nodes follow ``delivery``); ``source``: where the paths are published."""

    __repr__ = fields_repr

    base: str | None
    directory: str
    platform_file: str
    ours: str
    writer: str
    sets_max_pods: bool = False
    delivery: str | None = None
    os_image: str | None = None
    source: str = ""


class Release(NamedTuple):
    """One dated entry of a platform's history: from which release a default applies, and the upstream source."""

    releases: str  # "4.21 and later", "v20200423 to the AL2 removal"
    date: str  # ISO date of the upstream change, or "" where the source gives none
    default: str  # a Default's name ("" : nothing reserved, kubelet defaults)
    source: str  # repository@commit:path, or a documentation URL
    note: str = ""


REGISTRY: dict[str, Platform] = {}


def register(cls: type[Platform]) -> type[Platform]:
    """Register a platform class; its name is its module's name with ``_`` written as ``-``."""
    name = cls.__module__.rsplit(".", 1)[-1].replace("_", "-")
    cls.name = name
    instance = cls()
    for d in cls.defaults:
        object.__setattr__(d, "platform", name)
    for f in cls.formulas:
        object.__setattr__(f, "platform", name)
    REGISTRY[name] = instance
    return cls


class Platform:
    """Base of every platform module's class (see the module docstring)."""

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    summary: ClassVar[str] = ""
    #: detection order: lower first (a platform whose nodes also carry another's labels goes first)
    order: ClassVar[int] = 100
    signals: ClassVar[tuple[Signal, ...]] = ()
    #: signs that point to the platform without proving it (ranking only, never detection)
    hints: ClassVar[tuple[Signal, ...]] = ()
    formulas: ClassVar[tuple[Formula, ...]] = ()
    defaults: ClassVar[tuple[Default, ...]] = ()
    history: ClassVar[tuple[Release, ...]] = ()
    #: values of platformDefaults.<name> (and --platform <name>/<profile>), and what each means
    profiles: ClassVar[Mapping[str, str]] = {}
    #: False: the platform publishes no reservation formula or defaults (``unpublished`` says what was checked)
    published: ClassVar[bool] = True
    unpublished: ClassVar[str] = ""
    #: where the memory its formulas read comes from
    memory_source: ClassVar[str] = "the node's MemTotal (status.capacity.memory)"
    render_notes: ClassVar[tuple[str, ...]] = ()
    #: kubelet settings reach the nodes through MachineConfigPools (no delivery, no kubelet/<pool>.yaml)
    machine_config_pools: ClassVar[bool] = False
    #: NodePool.spec.delivery ways this platform's nodes can take
    deliveries: ClassVar[frozenset[str]] = frozenset({"clusterAPI"})
    #: False: the platform's nodes read no KubeletConfiguration file a user could supply (kubelet/<pool>.yaml would
    #: be a file nothing reads); render says so for a pool without a delivery (``no_kubelet_file`` says what to do)
    kubelet_file: ClassVar[bool] = True
    #: the pool's kubelet settings land as a drop-in beside the platform's own files (None: one file, or unknown)
    kubelet_files: ClassVar[KubeletFiles | None] = None
    no_kubelet_file: ClassVar[str] = ""
    #: the pools run in AWS Auto Scaling groups (NodePool.spec.clusterAutoscaler: node-template tags)
    asg_tags: ClassVar[bool] = False
    #: the formula lint rule AL207 compares reservations with (None: not checked)
    recommended: ClassVar[str | None] = None
    #: the platform of pools that name none
    fallback: ClassVar[bool] = False
    causes: ClassVar[tuple[Cause, ...]] = ()
    #: why a pool gets the first default (modules with one default and no choice among releases)
    default_reason: ClassVar[str] = ""

    # -- detection --------------------------------------------------------------------------------------

    def detect(self, facts: Facts) -> str | None:
        """Why ``facts`` are a node of this platform (the first matching signal), or None."""
        for signal in self.signals:
            if signal.matches(facts):
                return signal.describe()
        return None

    def identity(self, facts: Facts) -> list[str]:
        """What ``facts`` carry of this platform's signals and hints, each in a few words, signals first (empty:
        nothing points to it). O(signals + hints)."""
        out: list[str] = []
        for signal in (*self.signals, *self.hints):
            shown = signal.shown(facts)
            if shown is not None and shown not in out:
                out.append(shown)
        return out

    # -- defaults ---------------------------------------------------------------------------------------

    def recommended_for(self, pool: PoolView, settings: Settings) -> str | None:
        """The formula lint rule AL207 compares a pool's reservation with."""
        return self.recommended

    def default_named(self, name: str) -> Default:
        for d in self.defaults:
            if d.name == name:
                return d
        raise KeyError(name)

    def default(self, pool: PoolView, settings: Settings) -> Default | None:
        """The reservation the platform gives ``pool`` when no ReservationPolicy selects it (None: nothing)."""
        if not self.defaults:
            return None
        chosen, why = profile_of(pool, settings, self.name)
        if chosen is not None:
            return self.default_named(chosen).because(why)
        return self.defaults[0].because(self.default_reason or self.defaults[0].title)

    def alternatives(self, pool: PoolView, settings: Settings) -> list[Default]:
        """Other defaults a node of this platform may really have (older releases, another profile)."""
        return list(self.defaults)

    # -- formula inputs ---------------------------------------------------------------------------------

    def machine_memory(self, pool: PoolView, settings: Settings) -> MachineMemory | None:
        """The memory a machine-memory formula reads: NodePool.spec.machineMemory, machineTypes in the
        settings, the platform's own table (:meth:`table_memory`), else the capacity."""
        configured = configured_memory(pool, settings)
        if configured is not None:
            return configured
        table = self.table_memory(pool)
        if table is not None:
            return table
        cap = pool.capacity.get("memory")
        return None if cap is None else MachineMemory(cap.int_value(), "capacity")

    def table_memory(self, pool: PoolView) -> MachineMemory | None:
        return None

    def eni_max_pods(self, pool: PoolView, settings: Settings) -> tuple[int, str] | None:
        """The maxPods the platform computes from the instance's network limits (before any override)."""
        itype = pool.instance_type
        if itype:
            configured = settings.machineTypes.get(itype)
            if configured is not None and configured.eniMaxPods is not None:
                return configured.eniMaxPods, f"machineTypes[{itype}].eniMaxPods"
        return None

    def shape_inputs(self, pool: PoolView, formula: Formula) -> tuple[dict[str, Any], list[str]]:
        """Extra MachineShape fields (boot disk, local SSDs) and notes for ``formula`` on ``pool``."""
        return {}, []

    def machine_config_pool(self, labels: Mapping[str, str]) -> str | None:
        """The pool a node's kubelet configuration comes from, where the platform has such pools."""
        return None

    def unexplained(self, pool: PoolView) -> str | None:
        """What verify says instead of "no known cause" for this pool's nodes, when the platform knows the node
        runs a configuration whose reservation is not published (None: nothing to say)."""
        return None

    def no_formula_note(self) -> str | None:
        """What verify adds to "no known cause" for this platform's nodes."""
        if self.published:
            return None
        return f"{self.title} publishes no reservation formula or defaults ({self.unpublished})"


def kubelet_minor(pool: Facts) -> int | None:
    """Kubernetes minor version of a Node's kubelet (``v1.31.7-eks-473151a`` -> 31), None when unknown."""
    m = _VERSION.match(pool.node_info.get("kubeletVersion", ""))
    if m is None or m.group(1) != "1":
        return None
    return int(m.group(2))


def profile_of(pool: PoolView, settings: Settings, platform: str) -> tuple[str | None, str]:
    """The profile chosen for a pool: ``--platform <name>/<profile>`` for it, else platformDefaults.<name>."""
    if pool.profile:
        return pool.profile, "--platform"
    chosen = settings.platformDefaults.get(platform)
    if chosen:
        return chosen, f"platformDefaults.{platform}"
    return None, ""
