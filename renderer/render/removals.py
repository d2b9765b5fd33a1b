"""A render never removes a pool's delivered file unseen: one finding (AL814) names every file a render would remove
that carried pools' kubelet settings, whose pools they were, and why it goes.

A file of a ``delivers`` target (kubelet, nodeadm, karpenter, cluster-api, openshift-*, the platforms' API targets)
is recorded in the output directory's manifest with the pools it is for. When a render no longer produces it:

- every pool it was for is gone from the policies (the NodePool was deleted): **info**, the removal is deliberate;
- a pool it was for still exists and another file delivers its settings now (its platform or ``spec.delivery``
  changed, an EC2NodeClass was renamed): **warning**, naming the new file, since whatever read the old one (a node
  bootstrap, a launch template) must read the new one;
- a pool it was for still exists and gets no file at all now — no ReservationPolicy selects it any more (a selector
  typo), two do (AL102), or its targets render nothing for it (AL806, AL812, AL813): **error**, so the render stops
  and writes nothing; the pool's nodes would lose their reservations on the next roll-out. When that is the
  intent, deleting the file by hand (and committing that) is the deliberate act the render then follows.

A manifest written before the pools were recorded: the file's own header names its pools; a file without one (JSON)
gets a warning saying that its pools are not known. Cost: O(stale files × their pools + delivering files).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from renderer.findings import Finding, Severity
from renderer.render.codes import DeliveredFileRemoved, NoKubeletFile, NoMachineConfigPool, NothingToDeliver
from renderer.render.target import Delivered

if TYPE_CHECKING:
    from renderer.capacity.model import CapacityModel, PoolCapacity
    from renderer.render.engine import RenderResult

#: Render findings that say why a pool gets no file (the cause an error names).
_NO_FILE_CODES = (NoMachineConfigPool.code, NoKubeletFile.code, NothingToDeliver.code)


def removal_findings(
    out_dir: Path,
    stale: list[tuple[str, Delivered | None]],
    rendered: RenderResult,
    model: CapacityModel,
) -> list[Finding]:
    """Findings for the ``stale`` delivering files of ``out_dir`` (``output.stale_deliveries``) that a render of
    ``rendered`` would remove."""
    pools = {pc.pool.ref: pc for pc in model.pools}
    delivered: dict[str, list[str]] = {}  # pool → the files that deliver its settings now
    for path, file in rendered.delivered.items():
        for ref in file.pools:
            delivered.setdefault(ref, []).append(path)
    why_none = {f.object: f.code for f in rendered.findings if f.code in _NO_FILE_CODES and f.object}
    out: list[Finding] = []
    for rel, was in stale:
        shown = (out_dir / rel).as_posix()
        if was is None:
            out.append(
                _at_file(
                    shown,
                    "warning",
                    f"render removes {shown}, which an earlier render wrote and no render "
                    "produces now; which pools it delivered kubelet settings to is not recorded (the "
                    "manifest of an older allocatable): check that no pool lost them",
                    "render once more to record the pools of each file in the manifest",
                )
            )
            continue
        alive = [pools[r] for r in was.pools if r in pools]
        if not alive:
            gone = ", ".join(was.pools)
            out.append(
                _at_file(
                    shown,
                    "info",
                    f"render removes {shown}: it delivered the kubelet settings of {gone}, "
                    "which the policies no longer define",
                    None,
                )
            )
            continue
        for pc in alive:
            now = delivered.get(pc.pool.ref)
            if now:
                out.append(
                    _at_pool(
                        pc,
                        "warning",
                        f"render removes {shown}: the kubelet settings of {pc.pool.ref} reach "
                        f"its nodes through {', '.join(now)} now; whatever read {shown} (the node "
                        "bootstrap, a launch template) must read the new file",
                        "point the node group at the new file before its nodes roll",
                    )
                )
                continue
            out.append(
                _at_pool(
                    pc,
                    "error",
                    f"render would remove {shown}, the kubelet settings of {pc.pool.ref}, and render nothing in its place: "
                    f"{_cause(pc, why_none.get(pc.pool.ref), was.target, rendered.targets)}; its nodes would lose "
                    "their reservations on the next "
                    "roll-out",
                    f"make a ReservationPolicy select the pool again; if it really should go back to its platform's "
                    f"defaults, delete {shown} yourself and render again",
                )
            )
    return out


def _cause(pc: PoolCapacity, code: str | None, target: str, selected: list[str]) -> str:
    if target and target not in selected:
        return f"the target {target} is not rendered in this run (--target, or render.targets in .allocatable.yaml)"
    policies = pc.reservation_policies
    if not policies:
        return "no ReservationPolicy selects it now"
    if len(policies) > 1:
        return f"ReservationPolicies {', '.join(p.name for p in policies)} all select it, so none applies (AL102)"
    if code is not None:
        return f"its targets render no file for it ({code}, above)"
    return "its targets render no file for it"


def _at_pool(pc: PoolCapacity, severity: Severity, message: str, hint: str) -> Finding:
    return Finding(
        code=DeliveredFileRemoved.code,
        severity=severity,
        message=message,
        path=pc.pool.source.path,
        object=pc.pool.ref,
        hint=hint,
        source=pc.pool.source,
        field_path=("metadata", "name"),
    )


def _at_file(shown: str, severity: Severity, message: str, hint: str | None) -> Finding:
    return Finding(
        code=DeliveredFileRemoved.code,
        severity=severity,
        message=message,
        path=shown,
        line=1,
        column=1,
        hint=hint,
    )
