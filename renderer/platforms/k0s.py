"""k0s (k0sproject/k0s): no reservation and no eviction settings of its own: the kubelet's defaults.

The default worker profile (k0sproject/k0s@dff90cee9a6e8e22c6d0f3efef0f9a77fc223be4
``pkg/component/controller/workerconfig/reconciler.go`` ``buildProfile``, l.576-600) sets ``kubeReservedCgroup``,
``kubeletCgroups``, TLS and DNS fields, but no kubeReserved / systemReserved amounts, evictionHard or maxPods.
"""

from __future__ import annotations

from renderer.platforms._base import Default, Platform, Release, Signal, register

_SOURCE = "k0sproject/k0s@dff90cee9a6e8e22c6d0f3efef0f9a77fc223be4:pkg/component/controller/workerconfig/reconciler.go"


@register
class K0s(Platform):
    title = "k0s"
    summary = "k0s: nothing reserved; the kubelet's default hard eviction"
    default_reason = "k0s worker profile defaults"
    order = 68
    signals = (Signal("kubeletVersion", r"\+k0s", "k0s versions vX.Y.Z+k0s.N (Makefile); not seen on a node here"),)
    defaults = (Default("k0s", "no reservation; the kubelet's default evictionHard", None, None, (_SOURCE,)),)
    history = (Release("every release in the source", "", "k0s", f"{_SOURCE} l.576-600"),)
    render_notes = ("k0s: carry the fields in a worker profile (spec.workerProfiles) of the k0s config",)
