"""Raw documents → typed policy objects and validation findings (the "validate" stage of the pipeline)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, NamedTuple, TypeVar, cast

from pydantic_core import ValidationError

from renderer.findings import CappedFindings, FieldPath, Finding, SourceRef
from renderer.loading.documents import RawDocument
from renderer.models import validators
from renderer.models.commitclass import CommitClass
from renderer.models.common import POLICY_API_VERSION, NodeSelectorTerm
from renderer.models.inventory import Pool, pool_from_node, pool_from_nodepool
from renderer.models.node import Node
from renderer.models.nodepool import NodePool
from renderer.models.record import Record
from renderer.models.reservationpolicy import ReservationPolicy
from renderer.models.runtimeclass import RuntimeClass
from renderer.models.settings import Settings
from renderer.reprs import fields_repr

if TYPE_CHECKING:
    from pydantic import BaseModel

M = TypeVar("M", bound=Record)

#: apiVersion of every kind a policy document may be.
POLICY_KINDS: dict[str, str] = {
    "CommitClass": "node.k8s.io/v1alpha1",
    "RuntimeClass": "node.k8s.io/v1",
    "NodePool": POLICY_API_VERSION,
    "ReservationPolicy": POLICY_API_VERSION,
    "Node": "v1",
}
SUPPORTED = (
    "CommitClass (node.k8s.io/v1alpha1), RuntimeClass (node.k8s.io/v1), NodePool and ReservationPolicy "
    f"({POLICY_API_VERSION}), Node or List of Nodes (v1, as kubectl prints them)"
)


def surrogate_at(data: Any, where: FieldPath = ()) -> tuple[FieldPath, str] | None:
    """The field path and the text of the first string (value or key) in ``data`` holding a lone surrogate, or None.
    Cost: O(data); run only after a validator refused the document on one."""
    if isinstance(data, str):
        return (where, data) if re.search(_SURROGATE, data) else None
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and re.search(_SURROGATE, key):
                return (*where, key), key
            found = surrogate_at(value, (*where, key))
            if found is not None:
                return found
    if isinstance(data, (list, tuple)):
        for i, value in enumerate(data):
            found = surrogate_at(value, (*where, i))
            if found is not None:
                return found
    return None


def surrogate_message(value: str) -> str:
    from renderer.escaping import plain

    code = next((f"\\u{ord(c):04x}" for c in value if 0xD800 <= ord(c) <= 0xDFFF), "")
    return (
        f'"{plain(value)}" holds a lone surrogate ({code}), an escape that names no character (Kubernetes reads it as '
        "U+FFFD); write the character itself, or pair the surrogates"
    )


_SURROGATE = "[\ud800-\udfff]"  # compiled on first use (re's cache): only a rejected document is searched


def validated(kind: str, data: Any) -> Record:
    """``data`` as the record of ``kind``; raises pydantic's ``ValidationError``.

    The compiled validator (``renderer.models.validators``: pydantic_core, no pydantic import) accepts exactly what
    the schema model accepts; when it rejects, the schema model validates again, so the errors reported are the
    model's own. Without the compiled validators the schema model validates every document (slower, never
    different). Cost: O(document).
    """
    if validators.ready():
        try:
            return cast(Record, validators.validator(kind).validate_python(data))
        except ValidationError:
            pass
    from renderer.models.schema import kinds

    return kinds()[kind].model_validate(data)  # type: ignore[return-value]  # raises, or a schema model: a Record


def default_settings() -> Settings:
    """The settings of a repo without ``.allocatable.yaml``."""
    return cast(Settings, validators.new("Settings"))


class Registered(NamedTuple):
    """One record a document became, as the validator registered it (``Validator.recording``)."""

    record: Record
    source: SourceRef
    ref: str


@dataclass(slots=True, repr=False)
class Loaded(Generic[M]):
    """A validated policy object and the document it came from."""

    __repr__ = fields_repr

    model: M
    source: SourceRef

    @property
    def kind(self) -> str:
        return str(getattr(self.model, "kind"))  # noqa: B009 - every policy model has kind

    @property
    def name(self) -> str:
        return str(getattr(self.model, "metadata").name)  # noqa: B009

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass(repr=False, eq=False)
class PolicySet:
    """Every validated object of a policy repo, by kind, with its settings (compared by identity)."""

    __repr__ = fields_repr

    commit_classes: list[Loaded[CommitClass]] = field(default_factory=list)
    reservation_policies: list[Loaded[ReservationPolicy]] = field(default_factory=list)
    runtime_classes: list[Loaded[RuntimeClass]] = field(default_factory=list)
    pools: list[Pool] = field(default_factory=list)
    settings: Settings = field(default_factory=default_settings)
    settings_source: SourceRef | None = None
    root: Path = field(default_factory=Path)

    def object_count(self) -> int:
        return len(self.commit_classes) + len(self.reservation_policies) + len(self.runtime_classes) + len(self.pools)


def _object_ref(data: Any) -> str | None:
    if not isinstance(data, dict):
        return None
    kind = data.get("kind")
    meta = data.get("metadata")
    name = meta.get("name") if isinstance(meta, dict) else None
    if isinstance(kind, str) and isinstance(name, str):
        return f"{kind}/{name}"
    return kind if isinstance(kind, str) else None


def model_findings(model: type[BaseModel], exc: ValidationError, source: SourceRef, ref: str | None) -> list[Finding]:
    from renderer.validation.messages import translate, without_follow_ons

    out: list[Finding] = []
    for err in without_follow_ons(exc.errors(include_url=False)):
        loc, message, hint, at_key = translate(model, err)
        out.append(
            Finding(
                code="AL004",
                severity="error",
                message=message,
                path=source.path,
                object=ref,
                hint=hint,
                source=source,
                field_path=loc,
                at_key=at_key,
            )
        )
    return out


def share_requirements(terms: list[NodeSelectorTerm], shared: dict[tuple[Any, ...], Record]) -> None:
    """Replace each requirement of ``terms`` by the first equal one in ``shared`` (adding the new ones).

    Selectors repeat their requirements term after term and class after class (3 terms of 4 requirements per class
    are 12 records of about 400 bytes, most of them equal to another); the records are read, never changed, after
    validation. Cost: O(requirements)."""
    for term in terms:
        lists: tuple[list[Any] | None, ...] = (term.matchExpressions, term.matchFields)
        for reqs in lists:
            for i, req in enumerate(reqs or ()):
                values = req.values
                key = (type(req), req.key, req.operator, None if values is None else tuple(values))
                got = shared.setdefault(key, req)
                if got is not req:
                    reqs[i] = got  # type: ignore[index]  # reqs is a list whenever it has items


class Validator:
    """Validates documents one by one and keeps the typed objects."""

    def __init__(self) -> None:
        self.policies = PolicySet()
        self.findings: CappedFindings = CappedFindings()
        self._seen: dict[tuple[str, str], tuple[SourceRef, str]] = {}
        self._requirements: dict[tuple[Any, ...], Record] = {}
        #: when a list: every record registered is added to it too (``renderer.validation.reuse``)
        self.recording: list[Registered] | None = None

    def _error(
        self,
        source: SourceRef,
        message: str,
        code: str = "AL003",
        ref: str | None = None,
        field_path: tuple[str | int, ...] | None = None,
        hint: str | None = None,
        at_key: bool = False,
    ) -> None:
        self.findings.append(
            Finding(
                code=code,
                severity="error",
                message=message,
                path=source.path,
                object=ref,
                hint=hint,
                source=source,
                field_path=field_path,
                at_key=at_key,
            )
        )

    def _foreign(self, source: SourceRef) -> str | None:
        """How to leave the file out, when it is a file under the policy repo (``renderer.validation.foreign``)."""
        if source.path == "<stdin>":
            return None
        from renderer.validation.foreign import exclude_hint

        return exclude_hint(Path(source.path), self.policies.root)

    def add_document(self, doc: RawDocument) -> None:
        data = doc.data
        source = SourceRef(path=doc.path, doc=doc.index, line=doc.line)
        if data is None:
            return  # an empty document between separators, as kubectl skips it
        if not isinstance(data, dict):
            from renderer.validation.messages import describe_value

            self._error(
                source,
                f"expected a Kubernetes object (a mapping with apiVersion and kind), got {describe_value(data)}",
            )
            return
        if data.get("kind") == "List" and data.get("apiVersion") == "v1":
            items = data.get("items")
            if not isinstance(items, list):
                self._error(source, 'a v1 List needs "items": a list of Node objects', field_path=("items",))
                return
            spans = doc.item_spans if doc.item_spans is not None and len(doc.item_spans) == len(items) else None
            for i, item in enumerate(items):
                s = spans[i] if spans is not None else None
                if s is None or s.end <= s.start:  # no text range (a composed document): located in the document
                    ref = SourceRef(path=doc.path, doc=doc.index, item=i, line=doc.line)
                else:
                    ref = SourceRef(doc.path, doc.index, i, s.line, s.column, (s.start, s.end))
                self._add_object(item, ref)
            return
        self._add_object(data, source)

    def _add_object(self, data: Any, source: SourceRef) -> None:
        ref = _object_ref(data)
        if not isinstance(data, dict):
            from renderer.validation.messages import describe_value

            where = "" if source.item is None else f"List item {source.item + 1}: "
            self._error(
                source,
                f"{where}expected a Kubernetes object (a mapping with apiVersion and kind), got {describe_value(data)}",
                field_path=(),
            )
            return
        kind = data.get("kind")
        api_version = data.get("apiVersion")
        if kind is None or api_version is None:
            missing = " and ".join(k for k in ("apiVersion", "kind") if data.get(k) is None)
            self._error(
                source,
                f"document has no {missing}; supported kinds: {SUPPORTED}",
                ref=ref,
                field_path=(),
                hint=self._foreign(source),
            )
            return
        for key, value in (("apiVersion", api_version), ("kind", kind)):
            if not isinstance(value, str):
                from renderer.validation.messages import describe_value

                self._error(
                    source,
                    f'{key}: expected a string such as "{"v1" if key == "apiVersion" else "NodePool"}", '
                    f"got {describe_value(value)}",
                    ref=ref,
                    field_path=(key,),
                )
                return
        if kind == "Settings":
            self._error(
                source,
                "Settings belong in .allocatable.yaml at the policy repo root, not among policies",
                ref=ref,
                field_path=("kind",),
            )
            return
        want_api = POLICY_KINDS.get(kind) if isinstance(kind, str) else None
        if want_api is None:
            guess = None
            if isinstance(kind, str):
                from renderer.validation.messages import did_you_mean

                guess = did_you_mean(kind, [*POLICY_KINDS, "List"])
            self._error(
                source,
                f'unsupported kind "{kind}"; supported kinds: {SUPPORTED}',
                ref=ref,
                field_path=("kind",),
                hint=guess or self._foreign(source),
            )
            return
        if api_version != want_api:
            self._error(
                source,
                f'{kind} needs apiVersion "{want_api}", got "{api_version}"',
                ref=ref,
                field_path=("apiVersion",),
            )
            return
        try:
            obj = validated(kind, data)
        except ValidationError as exc:
            from renderer.models.schema import kinds

            self.findings.extend(model_findings(kinds()[kind], exc, source, ref))
            return
        except UnicodeEncodeError:  # a lone surrogate ("\ud800" in JSON or YAML): no character, no validator takes it
            found = surrogate_at(data)
            self._error(
                source,
                surrogate_message(found[1] if found else ""),
                code="AL004",
                ref=ref,
                field_path=found[0] if found else (),
            )
            return
        self.register(obj, source, ref or kind)

    def register(self, obj: Record, source: SourceRef, ref: str) -> None:
        """Add a validated record, as a document that validated into it does (names checked, pools built)."""
        if self.recording is not None:
            self.recording.append(Registered(obj, source, ref))
        if isinstance(obj, Node):
            missing = [k for k in ("cpu", "memory") if k not in obj.status.capacity]
            if missing:
                self._error(
                    source,
                    f"Node status.capacity has no {' or '.join(missing)}; export nodes with "
                    "`kubectl get nodes -o yaml` so the status is included",
                    ref=ref,
                    field_path=("status",),
                )
                return
        name = str(getattr(obj, "metadata").name)  # noqa: B009
        kind = str(getattr(obj, "kind"))  # noqa: B009
        key_kind = "NodePool" if kind in ("NodePool", "Node") else kind
        first = self._seen.get((key_kind, name))
        if first is not None:
            where, first_ref = first
            self._error(
                source,
                f'duplicate {key_kind} name "{name}": {first_ref} is already defined in {where.path} '
                f"(document {where.doc + 1}{'' if where.item is None else f', item {where.item + 1}'}); "
                "names must be unique",
                code="AL005",
                ref=ref,
                field_path=("metadata", "name"),
            )
            return
        self._seen[(key_kind, name)] = (source, ref)
        if isinstance(obj, CommitClass):
            share_requirements(obj.spec.selector, self._requirements)
            self.policies.commit_classes.append(Loaded(obj, source))
        elif isinstance(obj, ReservationPolicy):
            share_requirements(obj.spec.selector, self._requirements)
            self.policies.reservation_policies.append(Loaded(obj, source))
        elif isinstance(obj, RuntimeClass):
            self.policies.runtime_classes.append(Loaded(obj, source))
        elif isinstance(obj, NodePool):
            self.policies.pools.append(pool_from_nodepool(obj, source))
        elif isinstance(obj, Node):
            self.policies.pools.append(pool_from_node(obj, source))

    def set_settings(self, doc: RawDocument | None, count: int) -> None:
        if doc is None:
            return
        source = SourceRef(path=doc.path, doc=doc.index, line=doc.line)
        if count > 1:
            self._error(source, ".allocatable.yaml must hold exactly one document", field_path=())
            return
        data = doc.data if doc.data is not None else {}
        try:
            self.policies.settings = cast(Settings, validated("Settings", data))
            self.policies.settings_source = source
        except ValidationError as exc:
            from renderer.models.schema import kinds

            self.findings.extend(model_findings(kinds()["Settings"], exc, source, "Settings"))
        except UnicodeEncodeError:
            found = surrogate_at(data)
            self._error(
                source,
                surrogate_message(found[1] if found else ""),
                code="AL004",
                ref="Settings",
                field_path=found[0] if found else (),
            )
