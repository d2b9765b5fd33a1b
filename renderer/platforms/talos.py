"""Talos Linux (siderolabs/talos): system-reserved only, by release and role; the kubelet's default eviction.

Talos sets systemReserved only when the user's kubelet ``extraConfig`` has no systemReserved key at all (one key
drops every default: ``internal/app/machined/pkg/controllers/k8s/kubelet_spec.go`` l.380-391 at
siderolabs/talos@ad8823176e75b9cd07647ddde13c34f2ab77c663), never kubeReserved, and no evictionHard:

- before v0.14.0: nothing;
- v0.14: cpu 50m, memory 128Mi, ephemeral-storage 256Mi, pid 100 (ed7fb9db14554ccc191cc0c989aba38021a59690,
  2021-08-19);
- v1.0 to v1.8: memory 192Mi (61461de634488d4536eababc9a6e8c1f9ec9f465, 2021-12-01);
- v1.9 and later: memory 512Mi on control-plane nodes, 384Mi on workers (6b15ca19cd1291b8a245d72d5153827945cad037,
  2024-09-19; ``pkg/machinery/constants/constants.go`` l.426-439).

The release is read from ``osImage`` (``Talos (v1.9.2)``); NodePools use the newest unless
``platformDefaults.talos`` says otherwise.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from renderer.platforms._base import Default, Platform, PoolView, Release, Signal, profile_of, register
from renderer.platforms._formula import Formula, constant

if TYPE_CHECKING:
    from renderer.platforms._base import Settings

_TALOS = "siderolabs/talos"
_OS = re.compile(r"^Talos \(v(\d+)\.(\d+)\.(\d+)")


def _reserved(name: str, memory: str) -> Formula:
    values = {"cpu": "50m", "memory": memory, "ephemeral-storage": "256Mi", "pid": "100"}
    return Formula(
        name=name,
        summary=f"Talos system-reserved cpu 50m, memory {memory}, ephemeral-storage 256Mi, pid 100",
        terms={"systemReserved": {r: constant(r, v) for r, v in values.items()}},
    )


@register
class Talos(Platform):
    title = "Talos Linux"
    summary = "Talos: system-reserved cpu 50m, memory 128/192/384-512Mi by release and role, 256Mi storage, pid 100"
    order = 50
    signals = (Signal("osImage", r"^Talos \(v", "Talos os-release PRETTY_NAME (pkg/machinery/constants)"),)
    defaults = (
        Default(
            "talos",
            "v1.9+ workers: system-reserved cpu 50m, memory 384Mi, ephemeral-storage 256Mi, pid 100",
            _reserved("talos", "384Mi"),
            None,
            (f"{_TALOS}@6b15ca19cd1291b8a245d72d5153827945cad037",),
        ),
        Default(
            "talos-control-plane",
            "v1.9+ control plane: memory 512Mi (cpu 50m, 256Mi, pid 100)",
            _reserved("talos-control-plane", "512Mi"),
            None,
            (f"{_TALOS}@6b15ca19cd1291b8a245d72d5153827945cad037",),
        ),
        Default(
            "talos-1.8",
            "v1.0-v1.8: memory 192Mi (cpu 50m, 256Mi, pid 100)",
            _reserved("talos-1.8", "192Mi"),
            None,
            (f"{_TALOS}@61461de634488d4536eababc9a6e8c1f9ec9f465",),
        ),
        Default(
            "talos-0.14",
            "v0.14: memory 128Mi (cpu 50m, 256Mi, pid 100)",
            _reserved("talos-0.14", "128Mi"),
            None,
            (f"{_TALOS}@ed7fb9db14554ccc191cc0c989aba38021a59690",),
        ),
        Default("talos-0.13", "before v0.14: nothing reserved", None, None, (f"{_TALOS} v0.13.0",)),
    )
    profiles = {d.name: d.title for d in defaults}
    history = (
        Release("before v0.14.0", "", "talos-0.13", f"{_TALOS} v0.13.0 (no reserved settings)"),
        Release("v0.14", "2021-08-19", "talos-0.14", f"{_TALOS}@ed7fb9db14554ccc191cc0c989aba38021a59690"),
        Release("v1.0 to v1.8", "2021-12-01", "talos-1.8", f"{_TALOS}@61461de634488d4536eababc9a6e8c1f9ec9f465"),
        Release("v1.9 and later, workers", "2024-09-19", "talos", f"{_TALOS}@6b15ca19cd1291b8a245d72d5153827945cad037"),
        Release(
            "v1.9 and later, control plane",
            "2024-09-19",
            "talos-control-plane",
            f"{_TALOS}@6b15ca19cd1291b8a245d72d5153827945cad037",
        ),
    )
    render_notes = (
        "Talos: spec.delivery.talos renders a machine-config patch (talos/<pool>.patch.yaml): machine.kubelet.extraConfig "
        "(v1alpha1) or a KubeletConfig document (1.14+); a systemReserved there replaces all of Talos's "
        "system-reserved defaults, not only the keys it names",
    )
    deliveries = frozenset({"talos"})
    kubelet_file = False
    no_kubelet_file = (
        "Talos nodes take kubelet settings from the machine config, not from a file; set spec.delivery.talos to "
        "render a machine-config patch"
    )

    def default(self, pool: PoolView, settings: Settings) -> Default | None:
        chosen, why = profile_of(pool, settings, self.name)
        if chosen is not None:
            return self.default_named(chosen).because(why)
        control_plane = "node-role.kubernetes.io/control-plane" in pool.labels
        m = _OS.match(pool.node_info.get("osImage", ""))
        if m is not None:
            version = tuple(int(g) for g in m.groups())
            shown = "v" + ".".join(m.groups())
            if version < (0, 14, 0):
                return self.default_named("talos-0.13").because(f"Talos {shown}")
            if version < (1, 0, 0):
                return self.default_named("talos-0.14").because(f"Talos {shown}")
            if version < (1, 9, 0):
                return self.default_named("talos-1.8").because(f"Talos {shown}")
            why = f"Talos {shown}"
        else:
            why = "Talos v1.9 or later (no release to tell)"
        if control_plane:
            return self.default_named("talos-control-plane").because(f"{why}, a control-plane node")
        return self.default_named("talos").because(why)
