"""Field names of KubeletConfiguration (kubelet.config.k8s.io/v1beta1), for checking ``spec.kubelet`` passthrough."""

from __future__ import annotations

KUBELET_CONFIGURATION_FIELDS: frozenset[str] = frozenset(
    [
        "enableServer",
        "staticPodPath",
        "podLogsDir",
        "syncFrequency",
        "fileCheckFrequency",
        "httpCheckFrequency",
        "staticPodURL",
        "staticPodURLHeader",
        "address",
        "port",
        "readOnlyPort",
        "tlsCertFile",
        "tlsPrivateKeyFile",
        "tlsCipherSuites",
        "tlsMinVersion",
        "rotateCertificates",
        "serverTLSBootstrap",
        "authentication",
        "authorization",
        "registryPullQPS",
        "registryBurst",
        "imagePullCredentialsVerificationPolicy",
        "preloadedImagesVerificationAllowlist",
        "eventRecordQPS",
        "eventBurst",
        "enableDebuggingHandlers",
        "enableContentionProfiling",
        "healthzPort",
        "healthzBindAddress",
        "oomScoreAdj",
        "clusterDomain",
        "clusterDNS",
        "streamingConnectionIdleTimeout",
        "nodeStatusUpdateFrequency",
        "nodeStatusReportFrequency",
        "nodeLeaseDurationSeconds",
        "imageMinimumGCAge",
        "imageMaximumGCAge",
        "imageGCHighThresholdPercent",
        "imageGCLowThresholdPercent",
        "volumeStatsAggPeriod",
        "kubeletCgroups",
        "systemCgroups",
        "cgroupRoot",
        "cgroupsPerQOS",
        "cgroupDriver",
        "cpuManagerPolicy",
        "singleProcessOOMKill",
        "cpuManagerPolicyOptions",
        "cpuManagerReconcilePeriod",
        "memoryManagerPolicy",
        "topologyManagerPolicy",
        "topologyManagerScope",
        "topologyManagerPolicyOptions",
        "qosReserved",
        "runtimeRequestTimeout",
        "hairpinMode",
        "maxPods",
        "podCIDR",
        "podPidsLimit",
        "resolvConf",
        "runOnce",
        "cpuCFSQuota",
        "cpuCFSQuotaPeriod",
        "nodeStatusMaxImages",
        "maxOpenFiles",
        "contentType",
        "kubeAPIQPS",
        "kubeAPIBurst",
        "serializeImagePulls",
        "maxParallelImagePulls",
        "evictionHard",
        "evictionSoft",
        "evictionSoftGracePeriod",
        "evictionPressureTransitionPeriod",
        "evictionMaxPodGracePeriod",
        "evictionMinimumReclaim",
        "mergeDefaultEvictionSettings",
        "podsPerCore",
        "enableControllerAttachDetach",
        "protectKernelDefaults",
        "makeIPTablesUtilChains",
        "iptablesMasqueradeBit",
        "iptablesDropBit",
        "featureGates",
        "failSwapOn",
        "memorySwap",
        "containerLogMaxSize",
        "containerLogMaxFiles",
        "containerLogMaxWorkers",
        "containerLogMonitorInterval",
        "configMapAndSecretChangeDetectionStrategy",
        "systemReserved",
        "kubeReserved",
        "reservedSystemCPUs",
        "showHiddenMetricsForVersion",
        "systemReservedCgroup",
        "kubeReservedCgroup",
        "enforceNodeAllocatable",
        "allowedUnsafeSysctls",
        "volumePluginDir",
        "providerID",
        "kernelMemcgNotification",
        "logging",
        "enableSystemLogHandler",
        "enableSystemLogQuery",
        "shutdownGracePeriod",
        "shutdownGracePeriodCriticalPods",
        "shutdownGracePeriodByPodPriority",
        "crashLoopBackOff",
        "reservedMemory",
        "enableProfilingHandler",
        "enableDebugFlagsHandler",
        "seccompDefault",
        "memoryThrottlingFactor",
        "registerWithTaints",
        "registerNode",
        "tracing",
        "localStorageCapacityIsolation",
        "containerRuntimeEndpoint",
        "imageServiceEndpoint",
        "failCgroupV1",
        "userNamespaces",
    ]
)

# Fields that ReservationPolicy.spec carries itself (set them there, not in spec.kubelet), in rendering order.
SPEC_FIELDS: tuple[str, ...] = (
    "systemReserved",
    "kubeReserved",
    "evictionHard",
    "evictionSoft",
    "evictionSoftGracePeriod",
    "enforceNodeAllocatable",
    "systemReservedCgroup",
    "kubeReservedCgroup",
    "reservedSystemCPUs",
    "cgroupDriver",
    "cgroupsPerQOS",
    "maxPods",
    "podsPerCore",
    "podPidsLimit",
)
FIRST_CLASS_FIELDS: frozenset[str] = frozenset(SPEC_FIELDS)


def kubelet_field_problem(name: str) -> str | None:
    """Why ``name`` cannot go in spec.kubelet, or None when it can."""
    if name in FIRST_CLASS_FIELDS:
        return f'"{name}" has its own field: set spec.{name} instead of spec.kubelet.{name}'
    if name in ("apiVersion", "kind"):
        return f'"{name}" is set by the renderer; remove it from spec.kubelet'
    if name not in KUBELET_CONFIGURATION_FIELDS:
        from renderer.suggest import closest  # only for a misspelt name

        close = closest(name, sorted(KUBELET_CONFIGURATION_FIELDS))
        hint = f'; did you mean "{close}"?' if close else ""
        return f'"{name}" is not a KubeletConfiguration (kubelet.config.k8s.io/v1beta1) field{hint}'
    return None


# The kubelet's vocabulary, used by the capacity model, lint rules and the rendered-config schema alike.
RESERVABLE_RESOURCES: tuple[str, ...] = ("cpu", "memory", "ephemeral-storage", "pid")
EVICTION_SIGNALS: tuple[str, ...] = (
    "memory.available",
    "nodefs.available",
    "nodefs.inodesFree",
    "imagefs.available",
    "imagefs.inodesFree",
    "containerfs.available",
    "containerfs.inodesFree",
    "allocatableMemory.available",
    "pid.available",
)
ENFORCEMENTS: tuple[str, ...] = (
    "pods",
    "system-reserved",
    "system-reserved-compressible",
    "kube-reserved",
    "kube-reserved-compressible",
    "none",
)
# The kubelet's built-in Linux evictionHard defaults, in force when a config sets no evictionHard.
KUBELET_DEFAULT_EVICTION_HARD: dict[str, str] = {
    "memory.available": "100Mi",
    "nodefs.available": "10%",
    "nodefs.inodesFree": "5%",
    "imagefs.available": "15%",
}
