"""Why a node reports something else than the repo predicts: the delta is tested against known causes.

A node that disagrees usually differs by exactly one known quantity. Each cause below recomputes the node's kubelet
allocatable under one alternative — the selecting policy not rolled out, one of its reservations missing, another
eviction threshold, the platform's other default, a platform default the repo does not state, another machine
memory, another maxPods or boot disk — and is named only when that alternative reproduces the reported number
exactly. When none does, the explanation says so and where to look, and names the platforms the node's own signs
point to (``Platform.identity``: each platform module's signals and hints), which also come first among another
platform's defaults that reproduce the node.

A cause is a function ``(Situation) -> str | None``; ``CAUSES`` is the list, in the order they are tried, and a
delivery (e.g. a Karpenter target with its own rounding) adds its cause with ``register``. Cost: a handful of
pool recomputations per differing resource, O(1) each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from decimal import Decimal

from renderer import platforms
from renderer.capacity.eviction import threshold_bytes
from renderer.capacity.formulas import GIB, Formula
from renderer.capacity.karpenter import expressible, rounded_up
from renderer.capacity.model import EVICTION_RESOURCE, PoolCapacity, commit_value
from renderer.capacity.pools import pool_capacity
from renderer.models.inventory import Pool, with_platform
from renderer.models.kubelet_fields import KUBELET_DEFAULT_EVICTION_HARD
from renderer.models.record import replace as replace_fields
from renderer.models.settings import MachineType, Settings
from renderer.platforms import Default
from renderer.quantity import Quantity
from renderer.resourcenames import is_extended
from renderer.units import amount

__all__ = [
    "CAUSES",
    "UNKNOWN",
    "Situation",
    "cause_name",
    "delta_text",
    "delta_words",
    "explain",
    "explain_named",
    "register",
]

_ZERO = Quantity.parse("0")


@dataclass(frozen=True)
class Situation:
    """One differing resource of one node, with what is needed to recompute it."""

    pc: PoolCapacity
    resource: str
    predicted: Quantity
    reported: Quantity
    settings: Settings
    scales: bool

    @property
    def delta(self) -> Quantity:
        return self.reported - self.predicted

    @property
    def pool(self) -> Pool:
        return self.pc.pool

    def recompute(
        self,
        *,
        policies: bool = True,
        settings: Settings | None = None,
        pool: Pool | None = None,
        default: Default | None = None,
    ) -> PoolCapacity:
        pc = self.pc
        return pool_capacity(
            pool or pc.pool,
            pc.commit_classes,
            pc.reservation_policies if policies else [],
            [],
            self.scales,
            settings or self.settings,
            default=default,
        )

    def matches(self, other: PoolCapacity) -> bool:
        if self.resource == "pods":
            return Quantity.from_value(other.max_pods) == self.reported
        got = other.allocatable.get(self.resource)
        return got is not None and got == self.reported

    def matches_all(self, other: PoolCapacity) -> bool:
        """Every resource the node reports equals ``other``'s prediction (cpu, memory, ephemeral-storage, pods)."""
        for resource, reported in self.pool.reported.items():
            if resource.startswith("hugepages-") or is_extended(resource):  # no platform reserves them
                continue
            if resource == "pods":
                if Quantity.from_value(other.max_pods) != reported:
                    return False
                continue
            got = other.allocatable.get(resource)
            if got is not None and got != reported:
                return False
        return True

    # -- the platforms' view (renderer.platforms.Probe) -------------------------------------------------

    @property
    def formula(self) -> Formula | None:
        return self.pc.formula.spec if self.pc.formula is not None else None

    @property
    def default_name(self) -> str | None:
        return self.pc.platform_default.name if self.pc.platform_default is not None else None

    @property
    def max_pods(self) -> int:
        return self.pc.max_pods

    def matches_with(self, *, pool: Pool | None = None, settings: Settings | None = None) -> bool:
        return self.matches(self.recompute(pool=pool, settings=settings))


Cause = Callable[[Situation], "str | None"]
CAUSES: list[Cause] = []


def register(cause: Cause) -> Cause:
    CAUSES.append(cause)
    return cause


def delta_words(resource: str, d: Quantity) -> str:
    """``cpu is 1 core higher than predicted``: a difference (reported − predicted) in the resource's reading unit."""
    word = "higher" if not d.is_negative() else "lower"
    return f"{resource} is {amount(_ZERO - d if d.is_negative() else d, resource)} {word} than predicted"


def delta_text(s: Situation) -> str:
    if s.resource == "pods":
        return f"pods is {s.reported} where {s.predicted} was predicted"
    return delta_words(s.resource, s.delta)


def explain(s: Situation) -> str:
    return explain_named(s)[1]


#: The cause of a difference no known cause reproduces (``explain_named``).
UNKNOWN = "unknown"


def cause_name(cause: Callable[..., object]) -> str:
    """A cause function's name as a short, stable label: ``policy_not_rolled_out`` → ``policy-not-rolled-out``,
    a platform's ``_eni_max_pods`` → ``eni-max-pods``, ``_boot_disk_cause`` → ``boot-disk``. The set of labels is the
    set of cause functions: bounded (``allocatable serve`` exports it as a metric label)."""
    name = cause.__name__.strip("_")
    name = name.removesuffix("_cause")
    return name.replace("_", "-")


def _named(s: Situation) -> Iterator[tuple[str, str]]:
    """(label, explanation) of every cause that reproduces the report, in ``CAUSES`` order; a platform's own causes
    (``platform_cause``) by their own names."""
    for cause in CAUSES:
        if cause is platform_cause:
            for own in platforms.effective(s.pool, s.settings).causes:
                got = own(s)
                if got:
                    yield cause_name(own), got
                    break
            continue
        got = cause(s)
        if got:
            yield cause_name(cause), got


def explain_named(s: Situation) -> tuple[str, str]:
    """The first reproducing cause's label (``UNKNOWN`` when none does) and the explanation ``explain`` gives."""
    found: list[str] = []
    first = UNKNOWN
    for name, got in _named(s):
        if got in found:
            continue
        if not found:
            first = name
        found.append(got)
        if len(found) == 2:
            break
    if not found:
        platform = platforms.effective(s.pool, s.settings)
        unpublished = platform.unexplained(s.pool)
        text = unpublished or (
            "no known cause reproduces it: compare the node's kubelet configuration (kubeReserved, systemReserved, "
            "evictionHard, maxPods) with the repo"
        )
        note = None if unpublished else platform.no_formula_note()
        closest = _closest(s, platform)
        found.append("; ".join(part for part in (text, note, closest) if part))
    return first, f"{delta_text(s)}: " + "; or ".join(found)


def _platform_flag(own: platforms.Platform, name: str, pool: Pool) -> str:
    """The ``--platform`` value that gives one node platform ``name``: unscoped for a node whose labels name no
    platform, else scoped to the node by its ``kubernetes.io/hostname`` label (an unscoped value leaves detected
    nodes alone; the label is not always the node's name: ``ip-10-0-142-27`` on OpenShift on AWS)."""
    if own.fallback:
        return f"--platform {name}"
    return f"--platform {name}:kubernetes.io/hostname={pool.labels.get('kubernetes.io/hostname', pool.name)}"


def _closest(s: Situation, own: platforms.Platform) -> str | None:
    """The platforms the node's own signs point to (``Platform.identity``: signals and hints), most signs first,
    each with the signs and what its default gives for the resource: ``closest: aks (attachable-volumes-azure-disk),
    whose platform-default:aks gives 1.95Gi``. A node its own platform's signals detected is pointed only to platforms
    whose signals it carries too (a cloud's hints, such as OpenShift on AWS's providerID, prove nothing against a
    signal). None when nothing points elsewhere. Up to three platforms, one recomputation each."""
    ranked = platforms.identified(s.pool, skip=own.name)
    if own.detect(s.pool) is not None:
        ranked = [(p, signs) for p, signs in ranked if p.detect(s.pool) is not None]
    ranked = ranked[:3]
    if not ranked:
        return None
    shown = []
    for platform, signs in ranked:
        other = s.recompute(pool=with_platform(s.pool, platform.name), policies=False)
        if s.resource == "pods":
            gives = str(other.max_pods)
        else:
            got = other.allocatable.get(s.resource)
            gives = amount(got, s.resource) if got is not None else "nothing"
        if s.matches(other):
            gives += ", as reported"
        if other.platform_default is not None:
            shown.append(f"{platform.name} ({', '.join(signs)}), whose {other.platform_default.source} gives {gives}")
        else:
            shown.append(
                f"{platform.name} ({', '.join(signs)}), which reserves nothing (the kubelet's defaults give {gives})"
            )
    return f"closest: {'; '.join(shown)}: try {_platform_flag(own, ranked[0][0].name, s.pool)}"


def _policy_ref(pc: PoolCapacity) -> str | None:
    return pc.policy.ref if pc.policy is not None else None


# ----------------------------------------------------------------------------------------------------
# the causes, most specific first


@register
def unhealthy_devices(s: Situation) -> str | None:
    """An extended resource (``nvidia.com/gpu``) the node reports fewer of than it has: the kubelet reserves none of
    it, and its device manager advertises as allocatable only the devices the device plugin reports healthy
    (capacity counts them all: kubernetes/kubernetes pkg/kubelet/cm/devicemanager ``ManagerImpl.GetCapacity``)."""
    if not is_extended(s.resource) or s.reported.is_negative() or not s.reported < s.predicted:
        return None
    unhealthy = (s.predicted - s.reported).int_value()
    return (
        f"the device plugin reports {unhealthy} of the node's {s.predicted} {s.resource} unhealthy: the kubelet "
        "advertises only healthy devices (it reserves none); not a reservation the repo could change"
    )


@register
def policy_not_rolled_out(s: Situation) -> str | None:
    ref = _policy_ref(s.pc)
    if ref is None:
        return None
    alt = s.recompute(policies=False)
    if not s.matches(alt):
        return None
    what = f"the {alt.platform_default.source} reservation" if alt.platform_default else "no reservation at all"
    return f"the node reports what it had without {ref} ({what}): the policy is not rolled out to it?"


@register
def reservation_not_rolled_out(s: Situation) -> str | None:
    pc, r = s.pc, s.resource
    ref = _policy_ref(pc) or (pc.platform_default.source if pc.platform_default else None)
    if ref is None or r == "pods" or s.delta.is_negative():
        return None
    parts = [
        (label, m[r].quantity)
        for label, m in (("systemReserved", pc.system_reserved), ("kubeReserved", pc.kube_reserved))
        if r in m
    ]
    if len(parts) == 2:
        parts.append(("systemReserved + kubeReserved", parts[0][1] + parts[1][1]))
    if r in pc.eviction_reserved:
        signal = next(sig for sig, res in EVICTION_RESOURCE.items() if res == r)
        parts.append((f"hard eviction {signal}<{pc.eviction_hard.get(signal, '')}", pc.eviction_reserved[r]))
    for label, q in parts:
        if q == s.delta and not q.is_zero():
            return f"the node does not reserve the {amount(q, r)} of {label} ({ref}): not rolled out?"
    return None


@register
def other_platform_default(s: Situation) -> str | None:
    """A node no policy selects whose own platform's default does not explain it, while another platform's default
    reproduces every number it reports (a dump without platform labels, or a misdetected node)."""
    if s.pc.policy is not None or s.pc.reservation_policies or s.resource == "pods":
        return None
    if "other_platforms" not in s.pc.memo:
        s.pc.memo["other_platforms"] = _other_platforms(s)
    found: str | None = s.pc.memo["other_platforms"]
    return found


def _other_platforms(s: Situation) -> str | None:
    """Every platform default (each platform's alternatives) that reproduces all the node reports."""
    pc = s.pc
    own = platforms.effective(pc.pool, s.settings)
    node_os = (
        pc.pool.labels.get("kubernetes.io/os")
        or pc.pool.labels.get("beta.kubernetes.io/os")
        or pc.pool.node_info.get("operatingSystem")
        or "linux"
    )
    # the platforms the node's own signs point to first (most signs first), then the rest in detection order
    signs = {p.name: found_signs for p, found_signs in platforms.identified(pc.pool, skip=own.name)}
    candidates = [platforms.get(name) for name in signs]
    candidates += [p for p in platforms.ordered() if p.name not in signs and p.name != own.name]
    found: list[tuple[str, str]] = []  # (platform, default)
    for platform in candidates:
        for alt in platform.alternatives(pc.pool, s.settings):
            if alt.os is not None and alt.os != node_os:
                continue
            other = s.recompute(pool=with_platform(pc.pool, platform.name), default=alt)
            if s.matches_all(other):
                sign = f" ({', '.join(signs[platform.name])})" if platform.name in signs else ""
                found.append((platform.name, alt.source + sign))
                break
    if not found:
        return None
    sources = [src for _, src in found]
    shown = " and ".join(sources) if len(sources) <= 2 else ", ".join(sources[:3]) + f" and {len(sources) - 3} more"
    names = [name for name, _ in found]
    choice = names[0] if len(names) == 1 else " or ".join(names[:3])
    same = " (the same numbers)" if len(found) > 1 else ""
    if own.fallback:
        return (
            f"it matches {shown} exactly{same}; the node carries no platform labels: set platformDefaults."
            f"{own.name}: {choice} in .allocatable.yaml or pass --platform {names[0]}"
        )
    # platformDefaults.<platform> takes that platform's own profiles: only a flag scoped to the node moves it
    by = "--platform" if pc.pool.evidence == "--platform" else pc.pool.evidence or "its labels"
    return (
        f"it matches {shown} exactly{same}; the node is taken as {own.title} ({by}): pass "
        f"{_platform_flag(own, names[0], pc.pool)}"
    )


def _eviction_alternatives(pc: PoolCapacity) -> list[tuple[str, dict[str, str]]]:
    """The kubelet's default, every platform default's own thresholds, and none."""
    alts: list[tuple[str, dict[str, str]]] = [("the kubelet's default", dict(KUBELET_DEFAULT_EVICTION_HARD))]
    for platform in platforms.ordered():
        for d in platform.defaults:
            if d.eviction_hard:
                alts.append((f"the {d.name} default", dict(d.eviction_hard)))
    alts.append(("no hard eviction threshold", {}))
    return alts


@register
def eviction_threshold(s: Situation) -> str | None:
    pc, r = s.pc, s.resource
    signal = next((sig for sig, res in EVICTION_RESOURCE.items() if res == r), None)
    if signal is None or r not in pc.capacity:
        return None
    without = pc.reserved_total(r) - pc.eviction_reserved.get(r, _ZERO)
    hp = pc.hugepages if r == "memory" else _ZERO
    seen: set[str] = set()
    for label, eviction in _eviction_alternatives(pc):
        if eviction and signal not in eviction:
            continue  # a map without the signal: "no threshold" is the last alternative's to say
        value = eviction.get(signal)
        key = value or ""
        if key in seen or value == pc.eviction_hard.get(signal):
            continue
        seen.add(key)
        evicted = threshold_bytes(value, pc.capacity[r]) if value else _ZERO
        if evicted is None:
            continue
        got = commit_value(r, pc.capacity[r], without + evicted, hp, 100, True)
        if got == s.reported:
            shown = f"{signal}<{value}" if value else f"no {signal} threshold"
            return f"the node's hard eviction is {shown} ({label}), not {pc.eviction_hard.get(signal, 'none')} ({pc.eviction_source}): an eviction threshold from an older configuration or the platform?"
    return None


@register
def platform_variant(s: Situation) -> str | None:
    """The node follows another default of its platform: another release, profile or pool role."""
    pc = s.pc
    current = pc.platform_default
    if current is None:
        return None
    platform = platforms.effective(pc.pool, s.settings)
    partial: str | None = None
    for alt in platform.alternatives(pc.pool, s.settings):
        if alt.name == current.name and alt.formula is current.formula:
            continue
        other = s.recompute(default=alt)
        if not s.matches(other):
            continue
        text = f"the node follows {alt.name} ({alt.title}), not {current.source} ({current.reason})"
        if s.matches_all(other):
            return text
        partial = partial or text
    return partial


@register
def platform_default_not_stated(s: Situation) -> str | None:
    pc = s.pc
    if pc.policy is None or s.resource == "pods":
        return None
    alt = s.recompute(policies=False)
    default = alt.platform_default
    if default is None:
        return None
    extra = _ZERO
    parts = []
    for label, mine, theirs in (
        ("systemReserved", pc.system_reserved, alt.system_reserved),
        ("kubeReserved", pc.kube_reserved, alt.kube_reserved),
    ):
        if s.resource in theirs and s.resource not in mine:
            extra = extra + theirs[s.resource].quantity
            parts.append(f"{label} {amount(theirs[s.resource].quantity, s.resource)}")
    if parts and _ZERO - extra == s.delta:
        return f"the node also carries {default.source}'s {' and '.join(parts)}, which {pc.policy.ref} does not state"
    return None


def _memory_candidates(cap: int) -> list[int]:
    """Advertised sizes near a MemTotal: quarter-GiB steps from the capacity up to 4 GiB more (VM sizes come in
    whole or quarter GiB; MemTotal is a few hundred MiB below them)."""
    quarter = GIB // 4
    start = cap // quarter + 1
    return [q * quarter for q in range(start, start + 17)]


@register
def machine_memory(s: Situation) -> str | None:
    pc = s.pc
    spec = s.formula
    if spec is None or "machineMemory" not in spec.inputs() or s.resource != "memory":
        return None
    formula = spec.name
    itype = pc.pool.instance_type or "<instance-type>"
    cap = pc.capacity["memory"].int_value()
    for memory in [cap, *_memory_candidates(cap)]:
        settings = replace_fields(
            s.settings, machineTypes={**s.settings.machineTypes, itype: MachineType(memory=Quantity.from_value(memory))}
        )
        pool = replace(pc.pool, machine_memory=Quantity.from_value(memory, "BinarySI"))
        alt = s.recompute(settings=settings, pool=pool)
        if s.matches(alt):
            if memory == cap:
                return f"the node's {formula} reservation was computed from its MemTotal ({pc.capacity['memory']}), not from the machine type's memory"
            shown = amount(Quantity.from_value(memory), "memory")
            return (
                f"it matches the {formula} formula computed from {shown} of machine memory (the node's MemTotal is "
                f"{pc.capacity['memory']}): set machineTypes: {{{itype}: {{memory: {shown}}}}} in .allocatable.yaml"
            )
    return None


@register
def platform_cause(s: Situation) -> str | None:
    """The causes a platform module declares (renderer/platforms/<name>.py ``causes``)."""
    for cause in platforms.effective(s.pool, s.settings).causes:
        got = cause(s)
        if got:
            return got
    return None


@register
def max_pods_not_rolled_out(s: Situation) -> str | None:
    if s.resource != "pods":
        return None
    ref = _policy_ref(s.pc)
    if ref is not None and s.pc.policy is not None and s.pc.policy.model.spec.maxPods:
        return f"the node runs maxPods {s.reported}, {ref} sets {s.predicted}: not rolled out?"
    return None


@register
def exact_percentage(s: Situation) -> str | None:
    """A reported value computed with exact percentages was not written by a kubelet (it resolves them in float32)."""
    pc, r = s.pc, s.resource
    signal = next((sig for sig, res in EVICTION_RESOURCE.items() if res == r), None)
    value = pc.eviction_hard.get(signal or "", "")
    if not value.endswith("%") or r not in pc.capacity:
        return None
    try:
        pct = Decimal(value.rstrip("%"))
    except ArithmeticError:
        return None
    cap = pc.capacity[r]
    exact = Quantity.from_value(int(cap.int_value() * pct / 100))
    without = pc.reserved_total(r) - pc.eviction_reserved.get(r, _ZERO)
    hp = pc.hugepages if r == "memory" else _ZERO
    if commit_value(r, cap, without + exact, hp, 100, True) == s.reported:
        return (
            f"it is what exact arithmetic gives for {signal}<{value}; a kubelet holds the percentage as a float32 "
            f"and reserves {pc.eviction_reserved.get(r)}: this number was computed, not reported by a kubelet"
        )
    return None


@register
def karpenter_rounding(s: Situation) -> str | None:
    """Karpenter evaluates a CEL reservation itself and rounds the result up (cpu to 10m, memory to 16Mi)."""
    pc = s.pc
    if pc.formula is None or pc.formula.spec is None or s.resource not in ("cpu", "memory"):
        return None
    if not expressible(pc.formula.spec):
        return None
    if not any(k.startswith(("karpenter.sh/", "karpenter.k8s.aws/")) for k in pc.pool.labels):
        return None
    exact = [m[s.resource].quantity for m in (pc.system_reserved, pc.kube_reserved) if s.resource in m]
    if not exact:
        return None
    rounded = _ZERO
    for q in exact:
        rounded = rounded + rounded_up(s.resource, q)
    unrounded = pc.reserved_total(s.resource) - pc.eviction_reserved.get(s.resource, _ZERO)
    total = pc.reserved_total(s.resource) - unrounded + rounded
    hp = pc.hugepages if s.resource == "memory" else _ZERO
    if commit_value(s.resource, pc.capacity[s.resource], total, hp, 100, True) == s.reported:
        return (
            f"the node reserves the {pc.formula.formula} formula rounded up as Karpenter rounds a CEL expression's "
            "result (cpu to 10m, memory to 16Mi): its EC2NodeClass computes the reservation itself"
        )
    return None
