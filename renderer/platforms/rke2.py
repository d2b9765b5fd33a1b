"""RKE2 (rancher/rke2): k3s's kubelet defaults on Linux; no hard eviction on Windows.

RKE2 is k3s built with ``version.Program=rke2`` (rancher/rke2@6ce1a8019e9d0b81eb7a715edbc2b8ac12d26da0
``scripts/build-binary`` l.29); its static-pod executor (``pkg/executor/staticpod/staticpod.go`` ``Kubelet()``, l.145)
only prepends flags, so k3s's evictionHard imagefs.available 5%, nodefs.available 5% applies and nothing is
reserved. On Windows ``pkg/executor/pebinary/pebinary.go`` ``Kubelet()`` (l.164-185) sets
``enforce-node-allocatable=""`` and removes every eviction-hard argument; whether the config drop-in k3s uses since
v1.32 still reaches Windows agents was not verified.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from renderer.platforms._base import Default, Platform, PoolView, Release, Signal, profile_of, register

if TYPE_CHECKING:
    from renderer.platforms._base import Settings

EVICTION = {"imagefs.available": "5%", "nodefs.available": "5%"}
_SOURCE = "rancher/rke2@6ce1a8019e9d0b81eb7a715edbc2b8ac12d26da0"


@register
class Rke2(Platform):
    title = "RKE2"
    summary = "RKE2: k3s's defaults (no reservation, disk-only eviction 5%); Windows agents without hard eviction"
    order = 55
    signals = (
        Signal("kubeletVersion", r"\+rke2r[0-9]", "RKE2 release tags vX.Y.Z+rke2rN"),
        Signal("providerID", "rke2://", "the embedded cloud provider with Program=rke2"),
        Signal("label", "node.kubernetes.io/instance-type=rke2", "the embedded cloud provider with Program=rke2"),
    )
    defaults = (
        Default(
            "rke2",
            "no reservation; evictionHard imagefs.available 5%, nodefs.available 5%",
            None,
            EVICTION,
            (f"{_SOURCE}:pkg/executor/staticpod/staticpod.go",),
        ),
        Default(
            "rke2-windows",
            "Windows agents: no reservation, no hard eviction",
            None,
            {},
            (f"{_SOURCE}:pkg/executor/pebinary/pebinary.go",),
            os="windows",
        ),
    )
    profiles = {d.name: d.title for d in defaults}
    history = (
        Release("every release (Linux)", "", "rke2", f"{_SOURCE}:pkg/executor/staticpod/staticpod.go l.145"),
        Release(
            "every release (Windows)", "", "rke2-windows", f"{_SOURCE}:pkg/executor/pebinary/pebinary.go l.164-185"
        ),
    )
    render_notes = (
        "RKE2: pass kubelet/<pool>.yaml with kubelet-arg: [config=<file>] in /etc/rancher/rke2/config.yaml",
    )

    def default(self, pool: PoolView, settings: Settings) -> Default | None:
        chosen, why = profile_of(pool, settings, self.name)
        if chosen is not None:
            return self.default_named(chosen).because(why)
        if pool.labels.get("kubernetes.io/os") == "windows" or pool.node_info.get("operatingSystem") == "windows":
            return self.default_named("rke2-windows").because("a Windows agent")
        return self.default_named("rke2").because("RKE2 (k3s) kubelet defaults")
