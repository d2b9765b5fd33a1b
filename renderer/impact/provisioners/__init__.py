"""What a node provisioner believes a node it has not launched yet will offer, and where that belief is wrong.

- ``karpenter``: Karpenter's (AWS provider) predicted capacity and allocatable per instance type;
- ``karpenter_overhead``: the ``vmMemoryOverheadPercent`` real nodes call for, per instance family;
- ``cluster_autoscaler_aws``: the cluster autoscaler's AWS scale-from-zero template node;
- ``gaps``: prediction against the kubelet's allocatable, as findings a reporter prints.
"""
