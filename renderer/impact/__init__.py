"""Impact: what a change of node allocatable does to the pods of a real cluster, the node count and the provisioners.

Pure domain code — no I/O, no command line. The pieces, each stating its cost:

- ``resources``, ``pods``, ``nodes``: pods and nodes read from pruned dump objects into the scheduler's integers;
- ``fit``, ``affinity``, ``taints``, ``ports``, ``scoring``: the kube-scheduler's filter and score plugins that
  matter for capacity, proven against its own test tables (tests/impact);
- ``cluster``, ``scheduler``: a cluster state and the default scheduling cycle over it, indexed so a pod never walks
  nodes it cannot use; ``roomtree`` (one tree per static-filter class, shared by every pod shape) and ``scoretree``
  (a tree of one shape) make a cycle O(log nodes) descents;
- ``admission``: which running pods a node's kubelet no longer admits after the change;
- ``daemonsets``, ``templates``, ``estimator``, ``scaledown``: the DaemonSet controller and the cluster autoscaler
  (binpacking estimate, scale-down);
- ``repack``: the whole simulation, before and after, per pool; ``result``: what it found, for reporters;
- ``provisioners``: what Karpenter and the cluster autoscaler's scale-from-zero templates believe a new node holds,
  next to what the kubelet will report.
"""
