"""The kubelet's merge of ``--config`` and the ``--config-dir`` drop-ins (renderer.capacity.kubelet_dropins).

Expected values come from (a) the examples of kubernetes/website
``content/en/docs/reference/node/kubelet-config-directory-merging.md``, (b) nodeadm's own e2e test
(awslabs/amazon-eks-ami ``nodeadm/test/e2e/cases/custom-max-pods-expression/scenarios/kubelet-config-max-pods``:
``expected.json`` is config.json, ``expected-dropin.json`` is 40-nodeadm.conf), (c) a /configz reading published
with a k3s installer (rancher/k3s:v1.36.3-k3s1, 2026-09-09), or (d) small cases worked by hand from what
``mergeKubeletConfigurations`` does (kubernetes/kubernetes ``cmd/kubelet/app/server.go``: ``filepath.WalkDir``, files
with ``filepath.Ext(name) == ".conf"``, each applied with ``jsonpatch.MergePatch``), the reasoning beside each.
"""

from __future__ import annotations

from renderer.capacity.kubelet_dropins import KUBELET_DEFAULTS, ConfigFile, describe, is_dropin, merge

D = "/etc/kubernetes/kubelet.conf.d"


def f(name: str, **fields: object) -> ConfigFile:
    return ConfigFile(f"{D}/{name}", fields)


BASE = ConfigFile("/var/lib/kubelet/config.yaml", {"maxPods": 110, "evictionHard": {"memory.available": "100Mi"}})


def test_a_field_set_in_the_base_and_two_dropins_takes_the_last_in_lexical_order() -> None:
    # By hand: WalkDir reads 10-a.conf before 20-b.conf whatever order they are listed in; each MergePatch
    # replaces the scalar, so the base's 110 gives way to 50, then to 30.
    eff = merge(BASE, D, [f("20-b.conf", maxPods=30), f("10-a.conf", maxPods=50)])
    assert eff.fields["maxPods"] == 30
    assert [c.name for c in eff.applied] == ["config.yaml", "10-a.conf", "20-b.conf"]
    assert eff.winner("maxPods") is eff.applied[2]
    assert describe(eff, [("maxPods",)]) == ["maxPods from 20-b.conf (drop-in) over config.yaml, 10-a.conf"]


def test_lexical_order_is_by_name_not_by_number() -> None:
    # By hand: "100-x.conf" < "20-y.conf" because '1' < '2' at the first character; the kubelet does not read
    # the prefix as a number, so 20-y.conf is applied last and wins.
    eff = merge(None, D, [f("20-y.conf", maxPods=20), f("100-x.conf", maxPods=100)])
    assert eff.fields["maxPods"] == 20


def test_a_map_is_merged_key_by_key() -> None:
    # kubernetes.io "Kubelet Configuration Directory Merging", "Maps, including Nested Structures" (featureGates).
    base = ConfigFile("/etc/kubelet.yaml", {"port": 20250, "featureGates": {"AllAlpha": False, "MemoryQoS": True}})
    dropin = f("10.conf", featureGates={"MemoryQoS": False, "KubeletTracing": True, "DynamicResourceAllocation": True})
    eff = merge(base, D, [dropin])
    assert eff.fields["featureGates"] == {
        "AllAlpha": False,
        "MemoryQoS": False,
        "KubeletTracing": True,
        "DynamicResourceAllocation": True,
    }
    assert eff.winner("featureGates", "AllAlpha") is base
    assert eff.winner("featureGates", "MemoryQoS") is dropin


def test_a_list_is_replaced_whole() -> None:
    # kubernetes.io "Kubelet Configuration Directory Merging", "Lists" (clusterDNS): three entries replace two.
    base = ConfigFile("/etc/kubelet.yaml", {"port": 20250, "clusterDNS": ["192.168.0.9", "192.168.0.8"]})
    eff = merge(base, D, [f("10.conf", clusterDNS=["192.168.0.2", "192.168.0.3", "192.168.0.5"])])
    assert eff.fields["clusterDNS"] == ["192.168.0.2", "192.168.0.3", "192.168.0.5"]
    assert eff.fields["port"] == 20250


def test_a_list_under_a_map_key_is_replaced_and_other_keys_kept() -> None:
    # kubernetes.io "Kubelet Configuration Directory Merging" (staticPodURLHeader, a map[string][]string).
    base = ConfigFile(
        "/etc/kubelet.yaml",
        {
            "staticPodURLHeader": {
                "kubelet-api-support": ["Authorization: 234APSDFA", "X-Custom-Header: 123"],
                "custom-static-pod": ["Authorization: 223EWRWER", "X-Custom-Header: 456"],
            }
        },
    )
    eff = merge(
        base,
        D,
        [f("10.conf", staticPodURLHeader={"custom-static-pod": ["Authorization: 223EWRWER", "X-Custom-Header: 345"]})],
    )
    assert eff.fields["staticPodURLHeader"] == {
        "kubelet-api-support": ["Authorization: 234APSDFA", "X-Custom-Header: 123"],
        "custom-static-pod": ["Authorization: 223EWRWER", "X-Custom-Header: 345"],
    }


def test_a_structure_field_is_overridden_field_by_field() -> None:
    # kubernetes.io "Kubelet Configuration Directory Merging", "Structure Fields": port and serializeImagePulls
    # stay from the base, authorization and address come from the drop-in.
    base = ConfigFile(
        "/etc/kubelet.yaml",
        {
            "port": 20250,
            "authorization": {
                "mode": "Webhook",
                "webhook": {"cacheAuthorizedTTL": "5m", "cacheUnauthorizedTTL": "30s"},
            },
            "serializeImagePulls": False,
            "address": "192.168.0.1",
        },
    )
    dropin = f(
        "10.conf",
        authorization={"mode": "AlwaysAllow", "webhook": {"cacheAuthorizedTTL": "8m", "cacheUnauthorizedTTL": "45s"}},
        address="192.168.0.8",
    )
    eff = merge(base, D, [dropin])
    fields = dict(eff.fields)
    fields.pop("evictionHard")  # the kubelet's defaults, put in because the base sets none (see below)
    assert fields == {
        "port": 20250,
        "authorization": {
            "mode": "AlwaysAllow",
            "webhook": {"cacheAuthorizedTTL": "8m", "cacheUnauthorizedTTL": "45s"},
        },
        "serializeImagePulls": False,
        "address": "192.168.0.8",
    }


def test_files_not_ending_in_conf_are_not_read() -> None:
    # By hand from filepath.Ext(name) == ".conf": the text after the last dot must be exactly "conf".
    files = [
        f("10-a.conf", maxPods=10),
        f("90-b.conf.bak", maxPods=90),
        f("91-c.CONF", maxPods=91),
        f("92-d.yaml", maxPods=92),
        f("README", maxPods=93),
    ]
    eff = merge(None, D, files)
    assert eff.fields["maxPods"] == 10
    assert [c.name for c in eff.ignored] == ["90-b.conf.bak", "91-c.CONF", "92-d.yaml", "README"]
    assert is_dropin(f"{D}/.conf") and not is_dropin(f"{D}/a.conf.d") and not is_dropin(f"{D}/conf")


def test_a_subdirectory_is_walked_where_its_name_sorts() -> None:
    # By hand from filepath.WalkDir: the names of D sorted are "10.conf", "20-dir", "20-dir.conf", "30.conf"
    # ("20-dir" is a prefix of "20-dir.conf", so it sorts first); 20-dir is entered at its place.
    files = [f("30.conf", a=3), f("20-dir.conf", a=2, b=2), f("20-dir/x.conf", a=1, b=1, c=1), f("10.conf", a=0)]
    eff = merge(None, D, files)
    assert [c.path.removeprefix(D + "/") for c in eff.applied] == ["10.conf", "20-dir/x.conf", "20-dir.conf", "30.conf"]
    assert eff.fields == {"a": 3, "b": 2, "c": 1}


def test_null_removes_a_field() -> None:
    # RFC 7386 section 2 (MergePatch): a null member removes the target's member.
    eff = merge(BASE, D, [f("10.conf", evictionHard={"memory.available": None, "nodefs.available": "5%"})])
    assert eff.fields["evictionHard"] == {"nodefs.available": "5%"}
    assert eff.winner("evictionHard", "memory.available") is None


def test_base_without_eviction_hard_gets_the_kubelet_defaults_before_the_dropins() -> None:
    # server.go loadConfigFile: "if kc.EvictionHard == nil { kc.EvictionHard = eviction.DefaultEvictionHard }"
    # runs before mergeKubeletConfigurations; so a drop-in setting memory.available only keeps the other default
    # thresholds (nodefs.available<10%, nodefs.inodesFree<5%, imagefs.available<15% on Linux: release-1.34
    # pkg/kubelet/apis/config/v1beta1/defaults_linux.go; later kubelets add imagefs.inodesFree<5%, which takes no
    # allocatable).
    base = ConfigFile("/var/lib/kubelet/config.yaml", {"maxPods": 110})
    eff = merge(base, D, [f("50-allocatable.conf", evictionHard={"memory.available": "500Mi"})])
    assert eff.fields["evictionHard"] == {
        "memory.available": "500Mi",
        "nodefs.available": "10%",
        "nodefs.inodesFree": "5%",
        "imagefs.available": "15%",
    }
    assert eff.winner("evictionHard", "nodefs.available") is KUBELET_DEFAULTS
    assert describe(eff, [("evictionHard", "memory.available"), ("evictionHard", "nodefs.available")]) == [
        "evictionHard memory.available from 50-allocatable.conf (drop-in) over the kubelet's default",
        "evictionHard nodefs.available from the kubelet's default",
    ]


def test_nodeadm_e2e_kubelet_config_max_pods() -> None:
    # awslabs/amazon-eks-ami nodeadm e2e custom-max-pods-expression/kubelet-config-max-pods: config.json (the
    # relevant fields of expected.json) and 40-nodeadm.conf (expected-dropin.json, from NodeConfig
    # spec.kubelet.config.maxPods: 1). The kubelet runs with maxPods 1 while kubeReserved stays nodeadm's,
    # computed for 60 pods (915Mi = 11 x 60 + 255).
    base = ConfigFile(
        "/etc/kubernetes/kubelet/config.json",
        {
            "maxPods": 60,
            "evictionHard": {"memory.available": "100Mi", "nodefs.available": "10%", "nodefs.inodesFree": "5%"},
            "kubeReserved": {"cpu": "70m", "ephemeral-storage": "1Gi", "memory": "915Mi"},
        },
        "nodeadm",
    )
    dropin = ConfigFile("/etc/kubernetes/kubelet/config.json.d/40-nodeadm.conf", {"maxPods": 1}, "nodeadm")
    eff = merge(base, "/etc/kubernetes/kubelet/config.json.d", [dropin])
    assert eff.fields["maxPods"] == 1
    assert eff.fields["kubeReserved"] == {"cpu": "70m", "ephemeral-storage": "1Gi", "memory": "915Mi"}
    assert describe(eff, [("maxPods",), ("kubeReserved", "memory")]) == [
        "maxPods from 40-nodeadm.conf (drop-in) over config.json",
        "kubeReserved memory from config.json",
    ]


def test_k3s_published_configz_reading() -> None:
    # A k3s installer's published /configz reading (rancher/k3s:v1.36.3-k3s1, 2026-09-09): k3s writes
    # 00-k3s-defaults.conf (evictionHard imagefs.available 5%, nodefs.available 5%) and copies a
    # --kubelet-arg=config= file to 10-cli-config.conf; a probe with {memory.available: 500Mi, imagefs.available:
    # 7%} read back {imagefs.available 7%, memory.available 500Mi, nodefs.available 5%}. k3s passes no --config.
    k3s_dir = "/var/lib/rancher/k3s/agent/etc/kubelet.conf.d"
    defaults = ConfigFile(
        f"{k3s_dir}/00-k3s-defaults.conf", {"evictionHard": {"imagefs.available": "5%", "nodefs.available": "5%"}}
    )
    probe = ConfigFile(
        f"{k3s_dir}/10-cli-config.conf", {"evictionHard": {"memory.available": "500Mi", "imagefs.available": "7%"}}
    )
    eff = merge(None, k3s_dir, [probe, defaults])
    assert eff.fields["evictionHard"] == {
        "imagefs.available": "7%",
        "memory.available": "500Mi",
        "nodefs.available": "5%",
    }
    assert eff.winner("evictionHard", "nodefs.available") is defaults
