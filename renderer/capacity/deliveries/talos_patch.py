"""Talos machine-config patch: the pool's KubeletConfiguration fields as ``machine.kubelet.extraConfig`` (a strategic
merge patch of the v1alpha1 config, Talos up to 1.13) or as the ``config`` of a ``KubeletConfig`` document (Talos
1.14+, where ``machine.kubelet`` is deprecated and a config holding both is rejected).

Sources (restated, not copied), siderolabs/talos:

- @e65aa052969feee26f689247a3a7e198214eb15d (v1.13.9) ``pkg/machinery/kubelet/kubelet.go``
  (``ProtectedConfigurationFields``): the fields extraConfig may not set — apiVersion, authentication, authorization,
  cgroupRoot, kind, kubeletCgroups, port, protectKernelDefaults, resolvConf, rotateCertificates, systemCgroups,
  staticPodPath, seccompDefault; config validation refuses them (``v1alpha1_validation.go`` l.922-940);
- the same tag, ``internal/app/machined/pkg/controllers/k8s/kubelet_spec.go`` l.238-420: the fragment is decoded
  strictly into KubeletConfiguration, and Talos fills systemReserved (cpu 50m, memory, ephemeral-storage 256Mi, pid
  100) only when the fragment has none: a systemReserved in the patch replaces all of it;
- @ad8823176e75b9cd07647ddde13c34f2ab77c663 ``pkg/machinery/config/types/k8s/kubelet.go``: the KubeletConfig document
  (apiVersion v1alpha1, image required, ``config`` for the fields, the same protected list).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from renderer.capacity.delivery_api import Translation, field_path, kept_by_platform, pool_fields

if TYPE_CHECKING:
    from renderer.capacity.model import PoolCapacity
    from renderer.models.settings import Settings

WAY = "talos"
API = "a Talos machine-config patch"
PROTECTED = (
    "apiVersion",
    "authentication",
    "authorization",
    "cgroupRoot",
    "kind",
    "kubeletCgroups",
    "port",
    "protectKernelDefaults",
    "resolvConf",
    "rotateCertificates",
    "systemCgroups",
    "staticPodPath",
    "seccompDefault",
)


def translate(pc: PoolCapacity, settings: Settings) -> Translation:
    """The pool's machine-config patch, and the fields Talos refuses."""
    delivery = pc.pool.delivery
    assert delivery is not None and delivery.talos is not None
    out = Translation(api=API, document=None)
    fields = pool_fields(pc, out)
    config: dict[str, Any] = {}
    for name, value in fields.items():
        if name in PROTECTED:
            out.problem(
                "error",
                f"Talos refuses kubelet configuration field {name}: it cannot be overridden (Talos sets it itself)",
                field_path(name),
                f"remove {name} from the policy, or select this pool with another policy",
            )
            continue
        config[name] = value
    if "systemReserved" not in config:
        kept_system, _, _ = kept_by_platform(pc, settings)
        if kept_system:
            values = ", ".join(f"{k} {v}" for k, v in kept_system.items())
            out.problem(
                "warning",
                f"systemReserved not set: Talos reserves its own ({values}), which explain does not count",
                ("spec",),
                "set systemReserved in the policy (it replaces Talos's values as a whole)",
            )
    if not config:
        return out
    if delivery.talos.document == "KubeletConfig":
        out.document = {
            "apiVersion": "v1alpha1",
            "kind": "KubeletConfig",
            "image": delivery.talos.image,
            "config": config,
        }
    else:
        out.document = {"machine": {"kubelet": {"extraConfig": config}}}
    return out
