"""OpenShift (OCP, OKD) and the managed OpenShift of ROSA classic / OpenShift Dedicated (profile ``rosa``).

OpenShift sets only systemReserved (never kubeReserved) and no evictionHard, so the kubelet's defaults apply. All
facts from openshift/machine-config-operator (MCO; branches release-4.1 to release-5.2, main @ 7ff337a4):

- 4.1, 4.2 and 4.3.z before May 2020: static system-reserved cpu 500m, memory 500Mi (``templates/{worker,master}/
  01-*-kubelet/_base/files/kubelet.yaml``). A 4.3 node whose RHCOS build does not tell (its kubelet, 1.16, only)
  is taken as these: every 4.3.z of the first three months of 4.3 (a published 4.3.8 node reserves them).
- 4.3.z from ab2ee0cfaddee95c255c063f4125bc413b76bb7a (authored 2020-02-06, merged into release-4.3 on 2020-05-01 by
  9ddb81966ad238ade8932b147a50d660509d07af; b8116160 reached master, i.e. 4.4, on 2020-02-11) to 4.7: cpu 500m,
  memory 1Gi, ephemeral-storage 1Gi in kubelet.conf.
- 4.8 (4fdea851cf8984722518895ed7b07b746ff09fa1, 2021-03-18): the values move to ``/etc/node-sizing-enabled.env``
  and reach the kubelet as ``--system-reserved=cpu=...,memory=...``; a command-line map replaces the file's whole
  map, so ephemeral-storage is not reserved until SYSTEM_RESERVED_ES joined the flag (28f062ba on main/4.12,
  2022-10-17; 8bf71f78 on 4.11, d09be517 on 4.10, 4.9's kubelet.service as of 2022-11-23). Auto node sizing
  (``autoSizingReserved: true``, ``dynamic-system-reserved-calc.sh``) is opt-in; its memory is 25/20/10/6/2% of
  ``free -g`` (whole GiB), written unrounded until f14eff0b7 (2022-08-22, 4.12) rounds it half up; its cpu
  ("version 1") 6% of the first core, 1% of the second, 0.5% of the next two, 0.25% above.
- 4.16: cee78ae5a0be2f783c67b1288160bc06474100e8 (2025-07-07) floors the cpu at 0.5.
- 4.17 (4d0502c8bd5b77dffbd0a55af99bf08d48366386, 2024-05-29): cpu "version 2", 0.06 + 0.012 x (CPUs - 1) printed
  with two decimals, for nodes without ``/etc/node-sizing-version.json`` only: a node that ran auto sizing on 4.16 or
  earlier keeps version 1 (the script writes the file only when it is missing). The 0.5 floor: 10f431d8 (2025-05-13,
  4.20), backported as 754658aa (4.17), 7e5d0a49 (4.18), fee253bc (4.19); their dates are not known here, so a node
  built before 2025-05-13 is taken without the floor.
- 4.21 (a2eed30901c84aedb41dca1678053a0826fb3a38, 2025-12-12; e97d1a08 is the same change on main, i.e. 4.22):
  auto sizing on for workers, off for the control plane and arbiter, off for HyperShift workers until 0431fe7f
  (main, 4.23). The memory curve 1 GiB up to 8 GiB, then 6%, with the 2% tier counted from 120 GiB (3a1921c2,
  2026-02-27, 4.22; backport cfb23f2b on 4.21, in a 4.21.z not determined here).
- ROSA / OSD (openshift/managed-cluster-config): 4.1-4.8 a KubeletConfig with systemReserved cpu 1000m, memory 1Gi
  on the worker and master pools (c7a11388, 2019-06-27, ``deploy/kubelet-config/pre-4.9``); from 4.9
  ``autoSizingReserved: true`` on every ``mco-built-in`` pool, control plane included (91265a70, 2021-09-21).

A node's release is read from its RHCOS build (``osImage`` ``416.94.202406172220-0`` is 4.16 built 2024-06-17) or its
kubelet (1.29 is 4.16); NodePools follow ``platformDefaults.openshift``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from renderer.platforms._base import Default, Platform, PoolView, Release, Signal, register
from renderer.platforms._formula import Formula
from renderer.platforms._openshift_formulas import (
    _AUTO,
    _CONTROL_PLANE,
    _ES_43,
    _HYPERSHIFT_LABEL,
    _MCC,
    _MCO,
    _ROSA_48,
    _STATIC,
    _STATIC_42,
    OPENSHIFT,
    OPENSHIFT_411,
    OPENSHIFT_415,
    OPENSHIFT_416,
    OPENSHIFT_417,
    OPENSHIFT_420,
    OPENSHIFT_CPU_V1,
    _auto_formula,
    _release,
    _without_es,
)

if TYPE_CHECKING:
    from renderer.platforms._base import Settings


@register
class OpenShift(Platform):
    title = "OpenShift"
    summary = "OCP/OKD system-reserved (static, or auto node sizing) by release and pool; ROSA / OSD as a profile"
    order = 10
    signals = (
        Signal("label", "node.openshift.io/os_id", "the Machine Config Operator labels every node (rhcos, rhel)"),
        Signal("label", "machineconfiguration.openshift.io/role", "MachineConfig pool role label"),
        Signal("osImage", r"(Red Hat Enterprise Linux|Fedora) CoreOS", "RHCOS / FCOS os-release PRETTY_NAME"),
    )
    formulas = (OPENSHIFT, OPENSHIFT_CPU_V1, OPENSHIFT_420, OPENSHIFT_417, OPENSHIFT_416, OPENSHIFT_415, OPENSHIFT_411)
    recommended = "openshift"
    machine_config_pools = True
    deliveries = frozenset()
    memory_source = "the node's MemTotal as `free -g` reports it (whole GiB)"
    defaults = (
        Default(
            "openshift",
            "auto node sizing: the release's script (openshift formulas)",
            OPENSHIFT,
            None,
            (f"{_MCO}@a2eed30901c84aedb41dca1678053a0826fb3a38",),
        ),
        *(Default(f.name, f.summary, f, None, f.sources) for f in _AUTO.values() if f is not OPENSHIFT),
        Default(
            "openshift-static",
            "auto sizing off: system-reserved cpu 500m, memory 1Gi, ephemeral-storage 1Gi",
            _STATIC,
            None,
            _STATIC.sources,
        ),
        Default("openshift-4.2", _STATIC_42.summary, _STATIC_42, None, _STATIC_42.sources),
        Default(
            "rosa",
            "ROSA / OSD 4.9+: auto node sizing on every built-in pool, control plane included",
            OPENSHIFT,
            None,
            (f"{_MCC}@91265a70143eae3b91eb344127bf3ebe64366dfe:deploy/kubelet-config",),
        ),
        Default("rosa-4.8", _ROSA_48.summary, _ROSA_48, None, _ROSA_48.sources),
    )
    profiles = {**{d.name: d.title for d in defaults}, "osd": "OpenShift Dedicated: the same as rosa"}
    history = (
        Release(
            "4.1, 4.2, 4.3.z before 2020-05 (and 4.3 without an RHCOS build date)",
            "2019-06-04",
            "openshift-4.2",
            f"{_MCO} release-4.1:templates/worker/01-worker-kubelet/_base/files/kubelet.yaml",
        ),
        Release(
            "4.3.z from 2020-05, 4.4 to 4.7",
            "2020-05-01",
            "openshift-static",
            f"{_MCO}@ab2ee0cfaddee95c255c063f4125bc413b76bb7a merged by 9ddb81966ad238ade8932b147a50d660509d07af "
            "(release-4.3), b8116160 (4.4, 2020-02-11)",
        ),
        Release(
            "4.8 to 4.20 (auto sizing opt-in)",
            "2021-03-18",
            "openshift-static",
            f"{_MCO}@4fdea851cf8984722518895ed7b07b746ff09fa1",
            "values in /etc/node-sizing-enabled.env; 4.8 and 4.9-4.11 before late-2022 backports carry no "
            "ephemeral-storage in --system-reserved",
        ),
        Release(
            "4.8 to 4.11, auto sizing on",
            "2021-03-18",
            "openshift-4.11",
            f"{_MCO}@4fdea851",
            "memory written unrounded (2.6Gi)",
        ),
        Release(
            "4.12 to 4.16, auto sizing on",
            "2022-08-22",
            "openshift-4.15",
            f"{_MCO}@f14eff0b7",
            "memory rounded half up",
        ),
        Release(
            "4.16 from 2025-07-07, auto sizing on",
            "2025-07-07",
            "openshift-4.16",
            f"{_MCO}@cee78ae5a0be2f783c67b1288160bc06474100e8",
            "cpu floor 0.5 on version 1",
        ),
        Release(
            "4.17 to 4.19, auto sizing on",
            "2024-05-29",
            "openshift-4.17",
            f"{_MCO}@4d0502c8bd5b77dffbd0a55af99bf08d48366386",
            "cpu version 2 for nodes without /etc/node-sizing-version.json; nodes that ran auto sizing on 4.16 or "
            "earlier keep version 1 (openshift-4.16)",
        ),
        Release(
            "4.17 to 4.20 with the floor",
            "2025-05-13",
            "openshift-4.20",
            f"{_MCO}@10f431d83355fcf9aa87beaa69ce25372353a04f (4.20); 754658aa (4.17), 7e5d0a49 (4.18), "
            "fee253bc (4.19)",
        ),
        Release(
            "4.21, workers (auto sizing on by default)",
            "2025-12-12",
            "openshift",
            f"{_MCO}@a2eed30901c84aedb41dca1678053a0826fb3a38 (release-4.21); e97d1a08 is the same change on "
            "main (4.22)",
            "control plane and arbiter stay static; HyperShift workers stay static until 0431fe7f (4.23); "
            "the new memory curve is cfb23f2b on 4.21 (z-stream not determined), else openshift-4.20",
        ),
        Release(
            "4.22 and later, workers",
            "2026-02-27",
            "openshift",
            f"{_MCO}@3a1921c23f56f852d28014210e0e0c0b8db83e4c",
            "memory 1 GiB up to 8 GiB, then 6%, 2% counted from 120 GiB",
        ),
        Release(
            "4.23 (main), HyperShift workers",
            "2026-04-14",
            "openshift",
            f"{_MCO}@0431fe7fca615d4664d869796bb5b7e96a3a0fa3",
        ),
        Release("ROSA / OSD 4.1 to 4.8", "2019-06-27", "rosa-4.8", f"{_MCC}@c7a113886f92bf63019d1df3aff439be573782e2"),
        Release(
            "ROSA / OSD 4.9 and later",
            "2021-09-21",
            "rosa",
            f"{_MCC}@91265a70143eae3b91eb344127bf3ebe64366dfe",
            "master, worker and arbiter pools (label machineconfiguration.openshift.io/mco-built-in); custom "
            "pools such as infra keep the static values",
        ),
    )
    render_notes = (
        "OpenShift pools are configured through their MachineConfigPool: the openshift-kubeletconfig and "
        "openshift-machineconfig targets, never kubelet/<pool>.yaml",
    )

    def machine_config_pool(self, labels: Mapping[str, str]) -> str | None:
        """A node's pool: its most specific node-role (infra over worker, master/control-plane last)."""
        roles = sorted(k.split("/", 1)[1] for k in labels if k.startswith("node-role.kubernetes.io/"))
        for generic in ("worker", "control-plane", "master"):
            if generic in roles and len(roles) > 1:
                roles.remove(generic)
        if not roles:
            return None
        role = roles[0]
        return "master" if role == "control-plane" else role

    def _role(self, pool: PoolView) -> str | None:
        if pool.machine_config_pool:
            return pool.machine_config_pool
        roles = {k.split("/", 1)[1] for k in pool.labels if k.startswith("node-role.kubernetes.io/")}
        return next((r for r in sorted(roles) if r in _CONTROL_PLANE), None)

    def _static_for(self, pool: PoolView, minor: int | None, built: str | None, why: str) -> Default:
        if minor is not None and (minor <= 2 or (minor == 3 and (built is None or built < _ES_43))):
            when = "" if minor != 3 else " before 2020-05" if built is not None else " (no RHCOS build date to tell)"
            return self.default_named("openshift-4.2").because(f"{why}; OpenShift 4.{minor}{when}: 500m / 500Mi")
        return self._es(self.default_named("openshift-static"), pool, minor, built, why)

    def _es(
        self,
        default: Default,
        pool: PoolView,
        minor: int | None,
        built: str | None,
        why: str,
        formula: Formula | None = None,
    ) -> Default:
        formula = formula or default.formula
        missing = _without_es(minor, built, pool)
        if missing is not None and formula is not None:
            return default.because(f"{why}; {missing}", formula.without("ephemeral-storage"))
        return default.because(why, formula)

    def _pinned(self, name: str, pool: PoolView, why: str, any_role: bool = False) -> Default:
        minor, built = _release(pool)
        if name in ("rosa", "osd"):
            return self._rosa(pool, minor, built, why)
        default = self.default_named(name)
        role = self._role(pool)
        if default.formula is not None and default.formula.on_node and role in _CONTROL_PLANE and not any_role:
            return self._static_for(pool, minor, built, f"{why}: auto node sizing is off on {role} nodes")
        if name == "openshift":
            return self._es(default, pool, minor, built, why, _auto_formula(minor, built))
        return self._es(default, pool, minor, built, why)

    def _rosa(self, pool: PoolView, minor: int | None, built: str | None, why: str) -> Default:
        role = self._role(pool) or "worker"
        if minor is not None and minor <= 8:
            if role in ("worker", "master", "control-plane"):
                return self._es(
                    self.default_named("rosa-4.8"),
                    pool,
                    minor,
                    built,
                    f"{why}: ROSA / OSD 4.{minor}, static 1000m / 1Gi",
                )
            return self._static_for(pool, minor, built, f"{why}: a custom pool keeps the static values")
        if role not in ("worker", "master", "control-plane", "arbiter"):
            return self._static_for(pool, minor, built, f"{why}: pool {role} is not a built-in pool")
        formula = _auto_formula(minor, built)
        return self._es(
            self.default_named("rosa"),
            pool,
            minor,
            built,
            f"{why}: auto node sizing on every built-in pool ({formula.name})",
            formula,
        )

    def default(self, pool: PoolView, settings: Settings) -> Default | None:
        if pool.profile:
            return self._pinned(pool.profile, pool, "--platform")
        chosen = settings.platformDefaults.get(self.name)
        if chosen:
            return self._pinned(chosen, pool, f"platformDefaults.{self.name}")
        role = self._role(pool)
        minor, built = _release(pool)
        if role in _CONTROL_PLANE:
            return self._static_for(pool, minor, built, f"auto node sizing is off on {role} nodes")
        if minor is None:
            return self._es(
                self.default_named("openshift"),
                pool,
                None,
                None,
                "OpenShift 4.21 or later, auto node sizing on for workers (no release to tell)",
                OPENSHIFT,
            )
        version = pool.node_info.get("kubeletVersion") or f"4.{minor}"
        hypershift = _HYPERSHIFT_LABEL in pool.labels
        if minor >= 21 and not (hypershift and minor < 23):
            return self._es(
                self.default_named("openshift"),
                pool,
                minor,
                built,
                f"kubelet {version}: OpenShift 4.21 or later, auto node sizing on for workers",
                _auto_formula(minor, built),
            )
        why = f"kubelet {version}: auto node sizing off (OpenShift before 4.21" + (
            ", or a HyperShift worker before 4.23)" if hypershift and minor >= 21 else ")"
        )
        return self._static_for(pool, minor, built, why)

    def alternatives(self, pool: PoolView, settings: Settings) -> list[Default]:
        return [self._pinned(d.name, pool, d.title, any_role=True) for d in self.defaults]
