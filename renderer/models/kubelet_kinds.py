"""The kind of every KubeletConfiguration (kubelet.config.k8s.io/v1beta1) field, as types.go declares it: the one
table lint (``renderer.models.kubelet_validation``, rule AL326) and the rendered-config JSON Schema
(``renderer.render.schemas``) both read, so the two cannot disagree about a field's type.

Source: kubernetes/kubernetes ``staging/src/k8s.io/kubelet/config/v1beta1/types.go`` (pointer or not makes no
difference to what decodes). Pure data.
"""

from __future__ import annotations

from renderer.models.kubelet_fields import KUBELET_CONFIGURATION_FIELDS

__all__ = ["KIND", "KINDS"]

_BOOL = [
    "enableServer",
    "rotateCertificates",
    "serverTLSBootstrap",
    "enableDebuggingHandlers",
    "enableContentionProfiling",
    "cgroupsPerQOS",
    "singleProcessOOMKill",
    "runOnce",
    "cpuCFSQuota",
    "serializeImagePulls",
    "mergeDefaultEvictionSettings",
    "enableControllerAttachDetach",
    "protectKernelDefaults",
    "makeIPTablesUtilChains",
    "failSwapOn",
    "kernelMemcgNotification",
    "enableSystemLogHandler",
    "enableSystemLogQuery",
    "enableProfilingHandler",
    "enableDebugFlagsHandler",
    "seccompDefault",
    "registerNode",
    "localStorageCapacityIsolation",
    "failCgroupV1",
]
_INT32 = [
    "port",
    "readOnlyPort",
    "registryPullQPS",
    "registryBurst",
    "eventRecordQPS",
    "eventBurst",
    "healthzPort",
    "oomScoreAdj",
    "nodeLeaseDurationSeconds",
    "imageGCHighThresholdPercent",
    "imageGCLowThresholdPercent",
    "maxPods",
    "nodeStatusMaxImages",
    "kubeAPIQPS",
    "kubeAPIBurst",
    "maxParallelImagePulls",
    "evictionMaxPodGracePeriod",
    "podsPerCore",
    "iptablesMasqueradeBit",
    "iptablesDropBit",
    "containerLogMaxFiles",
    "containerLogMaxWorkers",
]
_INT64 = ["podPidsLimit", "maxOpenFiles"]
_FLOAT = ["memoryThrottlingFactor"]
_DURATION = [
    "syncFrequency",
    "fileCheckFrequency",
    "httpCheckFrequency",
    "streamingConnectionIdleTimeout",
    "nodeStatusUpdateFrequency",
    "nodeStatusReportFrequency",
    "imageMinimumGCAge",
    "imageMaximumGCAge",
    "volumeStatsAggPeriod",
    "cpuManagerReconcilePeriod",
    "runtimeRequestTimeout",
    "cpuCFSQuotaPeriod",
    "evictionPressureTransitionPeriod",
    "containerLogMonitorInterval",
    "shutdownGracePeriod",
    "shutdownGracePeriodCriticalPods",
]
_STRINGS = ["tlsCipherSuites", "clusterDNS", "allowedUnsafeSysctls", "preloadedImagesVerificationAllowlist"]
_STRING_MAPS = ["cpuManagerPolicyOptions", "topologyManagerPolicyOptions", "qosReserved"]
_OBJECTS = [
    "authentication",
    "authorization",
    "logging",
    "tracing",
    "memorySwap",
    "crashLoopBackOff",
    "userNamespaces",
]

#: What each kind holds.
KINDS: dict[str, str] = {
    "bool": "a boolean",
    "int32": "an integer (Go int32)",
    "int64": "an integer (Go int64)",
    "float": "a number (Go float64)",
    "duration": "a metav1.Duration string",
    "string": "a string",
    "strings": "a list of strings",
    "string-map": "a map of strings to strings",
    "bool-map": "a map of names to booleans",
    "strings-map": "a map of names to lists of strings",
    "reserved": "a map of resource names to quantities",
    "thresholds": "a map of eviction signals to quantities or percentages",
    "durations-map": "a map of eviction signals to durations",
    "enforcements": "a list of enforceNodeAllocatable values",
    "object": "a structure this tool passes through",
    "objects": "a list of structures this tool passes through",
}

#: Field name -> kind (a key of :data:`KINDS`); every field of ``KUBELET_CONFIGURATION_FIELDS`` has one.
KIND: dict[str, str] = {
    **dict.fromkeys(_BOOL, "bool"),
    **dict.fromkeys(_INT32, "int32"),
    **dict.fromkeys(_INT64, "int64"),
    **dict.fromkeys(_FLOAT, "float"),
    **dict.fromkeys(_DURATION, "duration"),
    **dict.fromkeys(_STRINGS, "strings"),
    **dict.fromkeys(_STRING_MAPS, "string-map"),
    **dict.fromkeys(_OBJECTS, "object"),
    **dict.fromkeys(["shutdownGracePeriodByPodPriority", "reservedMemory", "registerWithTaints"], "objects"),
    "featureGates": "bool-map",
    "staticPodURLHeader": "strings-map",
    **dict.fromkeys(["systemReserved", "kubeReserved"], "reserved"),
    **dict.fromkeys(["evictionHard", "evictionSoft", "evictionMinimumReclaim"], "thresholds"),
    "evictionSoftGracePeriod": "durations-map",
    "enforceNodeAllocatable": "enforcements",
}
for _name in KUBELET_CONFIGURATION_FIELDS:
    KIND.setdefault(_name, "string")
